"""check() as a whole: required sections, the filing-guide fixtures, and streaming re-checks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from app.config import Settings
from app.validation import check, load_catalogue

CATALOGUE = load_catalogue()
TODAY = dt.date.today()  # the day these checks are run on
FIXTURES = Path(__file__).parent / "validation_fixtures"
SECTIONS = ("【适用情形】", "【材料清单】", "【常见错误】")
MISSING, ORDER = "structure.missing_section", "structure.section_order"

STRUCTURE_CASES: list[tuple[str, list[tuple[str, str]]]] = [
    ("【适用情形】\n…\n【材料清单】\n…\n【常见错误】\n…", []),
    ("## 【适用情形】\n…\n**【材料清单】**\n…\n  【常见错误】：说明", []),
    ("【适用情形】\n…\n【常见错误】\n…", [(MISSING, "")]),
    ("…", [(MISSING, ""), (MISSING, ""), (MISSING, "")]),
    ("【材料清单】\n…\n【适用情形】\n…\n【常见错误】", [(ORDER, "【材料清单】")]),
    ("【适用情形】\n【常见错误】\n【材料清单】", [(ORDER, "【常见错误】")]),
    ("【材料清单】\n【常见错误】\n【适用情形】", [(ORDER, "【适用情形】")]),  # one moved, one flag
    ("【常见错误】\n【适用情形】", [(MISSING, ""), (ORDER, "【常见错误】")]),
    ("正文提到【适用情形】【材料清单】【常见错误】但不是标题", [(MISSING, "")] * 3),
    ("一、【适用情形】\n二、【材料清单】\n## 三、【常见错误】", []),
    ("一、适用情形\n二、材料清单\n三、常见错误", [(MISSING, "")] * 3),
]


@pytest.mark.parametrize(("text", "expected"), STRUCTURE_CASES)
def test_structure_findings(text: str, expected: list[tuple[str, str]]) -> None:
    result = check(text, required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY)
    got = [(f.code, text[f.start : f.end]) for f in result.findings]
    assert sorted(got) == sorted(expected)


def test_missing_section_is_anchored_where_it_belongs() -> None:
    text = "【适用情形】\n一、a\n【常见错误】\n一、b"
    (missing,) = check(
        text, required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY
    ).findings
    assert missing.start == text.index("【常见错误】") and missing.suggestion == "【材料清单】"
    assert "【材料清单】" in missing.message_zh and "missing" in missing.message_en


def test_no_required_sections_means_no_structure_findings() -> None:
    result = check("随便写点什么", catalogue=CATALOGUE, doc_date=TODAY)
    assert (result.findings, result.citations) == ((), ())


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_correct_filing_guide_has_no_findings() -> None:
    text = _read("guide_ok.md")
    assert len(text) > 1700
    result = check(text, required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY)
    assert result.findings == ()
    assert len(result.citations) >= 20
    assert {c.status for c in result.citations} == {"ok"}
    assert any(c.raw == "《评估办法》第四条" and c.article == 4 for c in result.citations)


def test_flawed_filing_guide_yields_exactly_the_expected_findings() -> None:
    text = _read("guide_flawed.md")
    result = check(text, required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY)
    got = [(f.code, f.severity, text[f.start : f.end]) for f in result.findings]
    assert got == [
        ("citation.article_out_of_range", "error", "第十五条"),
        ("citation.unknown_statute", "warning", "《数据跨境传输管理办法》"),
        ("numbering.gap", "error", "（四）"),
        ("numbering.mixed_style", "warning", "2、"),
        ("citation.repealed", "error", "《中华人民共和国合同法》"),
        ("citation.article_out_of_range", "error", "第75条"),
        ("numbering.gap", "error", "2."),
        ("numbering.duplicate", "error", "2."),
        ("citation.name_variant", "warning", "《数据出境安全评估管理办法》"),
        ("numbering.duplicate", "error", "三、"),
        ("structure.missing_section", "error", ""),
    ]
    assert result.has_errors


def test_streamed_prefixes_never_raise_and_only_report_real_problems() -> None:
    """Re-checking every prefix of the correct guide (as while streaming) finds nothing but
    sections not yet written, and never a citation problem from a half-written title."""
    text = _read("guide_ok.md")
    for end in range(0, len(text) + 1, 3):
        result = check(text[:end], required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY)
        codes = {f.code for f in result.findings}
        assert codes <= {MISSING}, (end, result.findings)


def test_streamed_prefixes_of_the_flawed_guide_report_nothing_spurious() -> None:
    """Every finding on a prefix (bar sections not yet written) is one the whole text has."""
    text = _read("guide_flawed.md")
    final = {
        (f.code, f.start, f.end) for f in check(text, catalogue=CATALOGUE, doc_date=TODAY).findings
    }
    for end in range(0, len(text) + 1, 2):
        partial = {
            (f.code, f.start, f.end)
            for f in check(text[:end], catalogue=CATALOGUE, doc_date=TODAY).findings
        }
        assert partial <= final, (end, partial - final)


def test_findings_are_sorted_and_frozen() -> None:
    result = check(
        _read("guide_flawed.md"), required_sections=SECTIONS, catalogue=CATALOGUE, doc_date=TODAY
    )
    starts = [f.start for f in result.findings]
    assert starts == sorted(starts)
    with pytest.raises(AttributeError):
        result.findings[0].code = "x"  # type: ignore[misc]


def test_statute_catalogue_is_used_and_cached() -> None:
    from app.knowledge import Knowledge

    knowledge = Knowledge.of(Settings(statutes_file=None))
    assert knowledge.catalogue() is Knowledge.of(Settings(statutes_file=None)).catalogue()
    assert check("《合同法》", catalogue=knowledge.catalogue(), doc_date=TODAY).has_errors
