"""`lexspec route`: JSON and text output, and one line with exit 2 on a bad value."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.config import Settings
from app.context import Context


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["route", *argv], context=Context(Settings(lang="zh")))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


FACTS = ("--ciio", "no", "--important-data", "no")


@pytest.mark.parametrize(
    ("argv", "route", "articles"),
    [
        (
            (*FACTS, "--individuals", "1,200,000", "--sensitive", "8000"),
            "security_assessment",
            [7, 4],
        ),
        ((*FACTS, "--individuals", "100000"), "standard_contract_or_certification", [8, 4, 38]),
        ((*FACTS, "--individuals", "99999"), "exempt", [5]),
        ((*FACTS, "--individuals", "0", "--sensitive", "10000"), "security_assessment", [7, 4]),
        (
            ("--ciio", "yes", "--important-data", "no", "--individuals", "1"),
            "security_assessment",
            [7, 40],
        ),
        (
            (
                *FACTS,
                "--individuals",
                "5000000",
                "--exemption",
                "hr",
                "--exemption",
                "contract",
                "--exempt-individuals",
                "5000000",
            ),
            "exempt",
            [5],
        ),
        (
            (
                "--ciio",
                "no",
                "--important-data",
                "yes",
                "--individuals",
                "0",
                "--exemption",
                "contract",
            ),
            "security_assessment",
            [7, 4],
        ),
    ],
)
def test_json_gives_the_route_its_basis_and_both_explanations(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], route: str, articles: list[int]
) -> None:
    code, out, _ = run(capsys, *argv, "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["route"] == route
    assert [b["article"] for b in payload["basis"]] == articles
    assert payload["basis"][0]["statute"] == "促进和规范数据跨境流动规定"
    assert payload["explanation_zh"] and payload["explanation_en"]


def test_the_exempt_part_comes_off_the_count_and_a_near_count_is_watched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("--individuals", "150000", "--exemption", "hr", "--exempt-individuals", "5000")
    code, out, _ = run(capsys, *FACTS, *argv, "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["route"] == "standard_contract_or_certification"
    assert "145,000人" in payload["explanation_zh"]
    code, out, _ = run(capsys, *FACTS, "--individuals", "50", "--sensitive", "9999")
    assert code == 0 and "! 敏感个人信息自当年1月1日起累计为9,999人" in out


def test_text_output_reads_in_the_settings_language(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *FACTS, "--individuals", "150000")
    assert code == 0
    assert out.startswith("standard_contract_or_certification: 订立个人信息出境标准合同")
    assert "《促进和规范数据跨境流动规定》第八条" in out and "1,000,000人时" in out
    assert "自由贸易试验区" in out


@pytest.mark.parametrize(
    "argv",
    [
        (*FACTS, "--individuals", "-5"),
        (*FACTS, "--individuals", "5", "--sensitive", "-1"),
        (*FACTS, "--individuals", "many"),
        (*FACTS, "--individuals", "1.5"),
        (*FACTS, "--individuals", "1,0,0"),  # not 100: commas only between thousands
        (*FACTS, "--individuals", "1,00,000"),
        (*FACTS, "--individuals", ",100"),
        (*FACTS, "--individuals", "9" * 5000),
        (*FACTS, "--individuals", "5", "--sensitive", "9" * 13),
        ("--ciio", "maybe", "--important-data", "no", "--individuals", "5"),
        (*FACTS, "--individuals", "5", "--exemption", "tourism"),
        (*FACTS, "--individuals", "5", "--format", "xml"),
        ("--ciio", "no", "--individuals", "5"),
        (*FACTS, "--individuals", "5", "--exemption", "hr", "--exempt-individuals", "6"),
        (*FACTS, "--individuals", "5", "--exemption", "hr", "--exempt-sensitive", "1"),
    ],
)
def test_bad_values_give_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "error" in err
