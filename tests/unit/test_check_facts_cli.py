"""`lexspec check FILE --facts facts.json`: the facts findings from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.config import Settings
from app.context import Context

FIXTURES = Path(__file__).parent / "facts_fixtures"
FACTS = str(FIXTURES / "filing-guide.facts.json")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv], context=Context(Settings(lang="zh", statutes_file=None)))
    out, err = capsys.readouterr()
    return code, out, err


def codes(out: str) -> list[str]:
    return [f["code"] for f in json.loads(out)["findings"] if f["code"].startswith("facts.")]


def test_wrong_route_is_an_error_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, str(FIXTURES / "wrong-route.md"), "--facts", FACTS, "--format", "json"
    )
    assert code == 1 and codes(out) == ["facts.route_mismatch"]


def test_wrong_numbers_are_warnings_unless_they_flip_the_route(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, str(FIXTURES / "wrong-numbers.md"), "--facts", FACTS, "--format", "json"
    )
    # 8,000 people would need no assessment (the form's route): an error; the rest warnings
    assert code == 1
    assert codes(out) == ["facts.count_flips_route"] + ["facts.number_mismatch"] * 5
    code, out, _ = run(capsys, str(FIXTURES / "wrong-numbers.md"), "--facts", FACTS)
    assert "facts.count_flips_route 草稿所写人数“8000”与表单不符（表单：1,200,000）" in out
    assert "facts.number_mismatch 草稿所写敏感个人信息人数“1.2万”与表单不符（表单：8,000）" in out


def test_the_right_draft_and_no_facts_give_no_facts_findings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, str(FIXTURES / "right.md"), "--facts", FACTS, "--format", "json")
    assert codes(out) == []
    _, out, _ = run(capsys, str(FIXTURES / "wrong-route.md"), "--format", "json")
    assert codes(out) == []  # without --facts there is nothing to compare with


HUGE = "9" * 5000  # past int()'s 4,300-digit limit on strings


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[1, 2]",
        '{"company_name": "甲"}',
        '{"individuals_count": ' + "[" * 100_000 + "]" * 100_000 + "}",  # nested too deep
        '{"individuals_count": ' + HUGE + "}",  # a number json.loads will not convert
        '{"individuals_count": "' + HUGE + '"}',
        '{"individuals_count": "5", "sensitive_count": "' + HUGE + '"}',
        '{"individuals_count": "1,0,0"}',  # not 100
        '{"individuals_count": "abc"}',
    ],
)
def test_a_bad_facts_file_is_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    facts = tmp_path / "facts.json"
    facts.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, str(FIXTURES / "right.md"), "--facts", str(facts))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
