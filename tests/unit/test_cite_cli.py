"""`lexspec cite`: the article's text with statute, version and source; one line and exit 2
for anything it cannot show. And `lexspec check --format json --date`: version and first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.config import Settings
from app.context import Context


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), context=Context(Settings(lang="zh", statutes_file=None)))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("reference", "date", "heading", "opening"),
    [
        (
            "《个人信息保护法》第三十九条",
            None,
            "《中华人民共和国个人信息保护法》第三十九条（2021-08-20通过",
            "个人信息处理者向中华人民共和国境外提供个人信息的",
        ),
        (
            "个人信息保护法第三十九条",
            None,
            "第三十九条",
            "个人信息处理者向中华人民共和国境外提供个人信息的",
        ),
        (
            "《网络安全法》第三十七条",
            "2025-06-01",
            "（2016-11-07通过，自2017-06-01起施行）",
            "关键信息基础设施的运营者在中华人民共和国境内运营中",
        ),
        (
            "《网络安全法》第三十七条",
            "2026-01-01",
            "（2025-10-28修正，自2026-01-01起施行）",
            "关键信息基础设施的运营者采购网络产品和服务",
        ),
        (
            "《民法典》第五百八十五条",
            None,
            "《中华人民共和国民法典》第五百八十五条",
            "当事人可以约定一方违约时",
        ),
        (
            "《数据出境安全评估办法》第十四条",
            None,
            "《数据出境安全评估办法》第十四条",
            "通过数据出境安全评估的结果有效期为2年",
        ),
    ],
)
def test_cite_prints_the_article(
    capsys: pytest.CaptureFixture[str], reference: str, date: str | None, heading: str, opening: str
) -> None:
    code, out, err = _run(capsys, "cite", reference, *(["--date", date] if date else []))
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert heading in lines[0]
    assert lines[1].startswith(opening)
    assert lines[-1].startswith("来源：")


def test_cite_json_carries_version_and_source(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "cite", "《个人信息保护法》第十三条", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["article"] == 13 and data["version"] == "2021-08-20通过"
    assert "（二）为订立、履行个人作为一方当事人的合同所必需" in data["text"]
    assert "LawRefBook" in data["source"]


@pytest.mark.parametrize(
    ("reference", "extra", "message"),
    [
        ("《个人信息保护法》第九十九条", [], "没有第九十九条"),
        ("《不存在的法》第一条", [], "法规目录中没有这部法规"),
        ("《个人信息保护法》", [], "请给出条号"),
        ("《合同法》第五十二条", [], "条文库未收入"),
        ("《个人信息保护法》第一条", ["--date", "2025-13-01"], "日期应为 YYYY-MM-DD"),
        (
            "《个人信息保护法》第三十九条",
            ["--date", "1800-01-01"],
            "尚未施行（自 2021-11-01 起施行）",
        ),
    ],
)
def test_cite_refuses_with_one_line(
    capsys: pytest.CaptureFixture[str], reference: str, extra: list[str], message: str
) -> None:
    code, out, err = _run(capsys, "cite", reference, *extra)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_check_json_carries_version_and_first_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    draft = tmp_path / "d.md"
    draft.write_text(
        "根据《网络安全法》第三十七条，关键信息基础设施的运营者采购网络产品和服务应当通过国家安全审查。\n",
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "check", str(draft), "--format", "json", "--date", "2026-03-01")
    (citation,) = json.loads(out)["citations"]
    assert code == 0
    assert citation["version"] == "2025-10-28修正"
    assert citation["first_line"].startswith("关键信息基础设施的运营者采购网络产品和服务")
    code, out, _ = _run(capsys, "check", str(draft), "--format", "json", "--date", "2025-03-01")
    data = json.loads(out)
    assert data["citations"][0]["version"] == "2016-11-07通过"
    assert [f["code"] for f in data["findings"]] == ["citation.content_mismatch"]


def test_check_refuses_a_bad_date(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    draft = tmp_path / "d.md"
    draft.write_text("正文。\n", encoding="utf-8")
    code, out, err = _run(capsys, "check", str(draft), "--date", "yesterday")
    assert code == 2 and out == "" and "YYYY-MM-DD" in err


@pytest.mark.parametrize(
    ("reference", "heading", "text"),
    [
        (
            "《个人信息保护法》第十三条第二款",
            "第十三条第二款",
            [
                "依照本法其他有关规定，处理个人信息应当取得个人同意，但是有前款第二项至第七项规定情形的，不需取得个人同意。"
            ],
        ),
        (
            "《个人信息出境标准合同办法》第四条第一款第（三）项",
            "第四条第一款第三项",
            ["（三）自上年1月1日起累计向境外提供个人信息不满10万人的；"],
        ),
        (
            "《促进和规范数据跨境流动规定》第七条第（二）项",
            "第七条第二项",
            [
                "（二）关键信息基础设施运营者以外的数据处理者向境外提供重要数据，或者自当年1月1日起"
                "累计向境外提供100万人以上个人信息（不含敏感个人信息）或者1万人以上敏感个人信息。"
            ],
        ),
    ],
)
def test_cite_prints_a_paragraph_or_item_on_its_own(
    capsys: pytest.CaptureFixture[str], reference: str, heading: str, text: list[str]
) -> None:
    code, out, err = _run(capsys, "cite", reference, "--date", "2026-11-30")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert heading in lines[0]
    assert lines[1:-1] == text


def test_the_paragraph_by_which_exemptions_prevail_can_be_cited(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "cite", "《促进和规范数据跨境流动规定》第八条第二款")
    assert code == 0 and "属于本规定第三条、第四条、第五条、第六条规定情形的，从其规定。" in out


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("《个人信息保护法》第十三条第三款", "第十三条没有第三款"),
        ("《个人信息出境标准合同办法》第四条第一款第（五）项", "没有第一款第五项"),
        ("《促进和规范数据跨境流动规定》第七条第三款", "第七条没有第三款"),
    ],
)
def test_cite_refuses_a_part_the_article_does_not_have(
    capsys: pytest.CaptureFixture[str], reference: str, message: str
) -> None:
    code, out, err = _run(capsys, "cite", reference)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
