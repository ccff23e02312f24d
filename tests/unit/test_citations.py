"""Statute citations: table of (text, expected findings as (code, matched substring))."""

from __future__ import annotations

import datetime as dt

import pytest

from app.validation import check, load_catalogue
from app.validation.catalogue import CatalogueError
from app.validation.citations import parse_citations

CATALOGUE = load_catalogue()
TODAY = dt.date.today()  # the day these checks are run on
OOR = "citation.article_out_of_range"
REPEALED = "citation.repealed"
UNKNOWN = "citation.unknown_statute"
VARIANT = "citation.name_variant"

CASES: list[tuple[str, list[tuple[str, str]]]] = [
    # resolved, in range: no finding
    ("依据《数据出境安全评估办法》第四条申报。", []),
    ("《中华人民共和国个人信息保护法》第三十八条", []),
    ("《个人信息保护法》第七十四条", []),
    ("《个保法》第十三条", []),
    ("《中华人民共和国民法典》第一千二百六十条", []),
    ("《 个人信息保护法 》第一条", []),
    ("《个人信息保护法》 第一百条", [(OOR, "第一百条")]),
    ("《个人信息保护法》\n第一百条 本行是另一份文件的条文", []),  # no citation across lines
    ("《中华人民共和国网络安全法（2025修正）》第二十条", []),
    # article out of range, every numeral form
    ("《个人信息出境标准合同办法》第十五条", [(OOR, "第十五条")]),
    ("《个人信息出境标准合同办法》第十三条", []),
    ("《个人信息出境标准合同办法》第14条", [(OOR, "第14条")]),
    ("《个人信息出境标准合同办法》第１４条", [(OOR, "第１４条")]),
    ("《中华人民共和国民法典》第一千二百六十一条", [(OOR, "第一千二百六十一条")]),
    ("《民法典》第一千二百〇一条", []),
    ("《民法典》第两千条", [(OOR, "第两千条")]),
    ("《个人信息保护法》第一百零五条", [(OOR, "第一百零五条")]),
    ("《个人信息保护法》第零条", [(OOR, "第零条")]),
    ("《数据出境安全评估办法》第二十一条", [(OOR, "第二十一条")]),
    ("《促进和规范数据跨境流动规定》第十五条", [(OOR, "第十五条")]),
    ("《网络数据安全管理条例》第六十五条", [(OOR, "第六十五条")]),
    ("《数据安全法》第五十六条", [(OOR, "第五十六条")]),
    # paragraphs, items, lists and ranges
    ("《个人信息保护法》第三十八条第一款第（二）项", []),
    ("《个人信息保护法》第三十八条第一款第二项", []),
    ("《个人信息保护法》第八十条第一款第（二）项", [(OOR, "第八十条")]),
    ("《数据出境安全评估办法》第四条、第二十五条", [(OOR, "第二十五条")]),
    ("《数据出境安全评估办法》第四条和第三十条", [(OOR, "第三十条")]),
    ("《数据出境安全评估办法》第十八条至第二十二条", [(OOR, "第二十二条")]),
    ("《数据出境安全评估办法》第十八条至第二十条", []),
    ("《数据出境安全评估办法》第十八条至第二十条、第二十二条", [(OOR, "第二十二条")]),
    ("《促进和规范数据跨境流动规定》第三条、第四条、第十六条", [(OOR, "第十六条")]),
    # 本法 / 该法 / 前述 point at the last statute cited
    ("《个人信息出境标准合同办法》第四条。该办法第十五条另有规定。", [(OOR, "第十五条")]),
    ("《数据安全法》第三十一条规定……本法第六十条", [(OOR, "第六十条")]),
    ("《数据安全法》第三十一条。该法第五十五条", []),
    ("《数据出境安全评估办法》第四条；前述办法第二十三条", [(OOR, "第二十三条")]),
    ("《数据出境安全评估办法》第四条；前述第二十三条", [(OOR, "第二十三条")]),
    # short names defined in the text
    ("《个人信息出境标准合同办法》（以下简称《办法》）。《办法》第十五条", [(OOR, "第十五条")]),
    ("《个人信息出境标准合同办法》（以下简称“办法”）。办法第十五条", [(OOR, "第十五条")]),
    (
        '《数据出境安全评估办法》（以下简称"评估办法"）规定，评估办法第二十一条',
        [(OOR, "第二十一条")],
    ),
    ("《促进和规范数据跨境流动规定》（以下简称《规定》）第五条", []),
    ("（以下简称《办法》）开头没有法规。《办法》第九十九条", []),
    ("《个人信息保护法》第一条。《申报指南》（以下简称“指南”）。指南第九十九条", []),
    ("《数据安全法》；《某某工作指引》（以下简称《指引》）；《指引》第九十九条", []),
    # repealed by 民法典 第一千二百六十条
    ("《中华人民共和国合同法》第五十二条", [(REPEALED, "《中华人民共和国合同法》")]),
    ("《合同法》第五十二条，该法第五十三条", [(REPEALED, "《合同法》")]),
    ("《物权法》第一条", [(REPEALED, "《物权法》")]),
    ("《担保法》", [(REPEALED, "《担保法》")]),
    ("《民法通则》第一百零六条", [(REPEALED, "《民法通则》")]),
    ("《民法总则》", [(REPEALED, "《民法总则》")]),
    ("《侵权责任法》", [(REPEALED, "《侵权责任法》")]),
    ("《婚姻法》", [(REPEALED, "《婚姻法》")]),
    ("《继承法》", [(REPEALED, "《继承法》")]),
    ("《收养法》", [(REPEALED, "《收养法》")]),
    ("《合同法》第五百条", [(REPEALED, "《合同法》")]),  # repeal reported, not the range
    # near misses of catalogued titles
    ("《个人信息保护条例》第十条", [(VARIANT, "《个人信息保护条例》")]),
    ("《数据出境安全评估管理办法》第四条", [(VARIANT, "《数据出境安全评估管理办法》")]),
    ("《个人信息出境标准合同规定》", [(VARIANT, "《个人信息出境标准合同规定》")]),
    ("《网络数据安全条例》", [(VARIANT, "《网络数据安全条例》")]),
    ("《中华人民共和国个人信息保护条例》", [(VARIANT, "《中华人民共和国个人信息保护条例》")]),
    # not in the catalogue
    ("《网络安全审查办法》第三条", [(UNKNOWN, "《网络安全审查办法》")]),
    ("《数据安全管理办法》", [(UNKNOWN, "《数据安全管理办法》")]),
    ("《中华人民共和国刑法》第二百五十三条之一", [(UNKNOWN, "《中华人民共和国刑法》")]),
    # not statutes at all: no finding and no citation
    ("合同第五条约定的保密义务", []),
    ("本协议第三条", []),
    ("本指南第三部分", []),
    ("附件一第二条", []),
    ("《数据出境安全评估申报指南（第二版）》", []),
    ("《个人信息出境标准合同》第三条", []),
    ("详见《申报书》", []),
    ("《关于修改〈中华人民共和国网络安全法〉的决定》", []),
    ("《关于修改〈某某管理办法〉的决定》", [(UNKNOWN, "《关于修改〈某某管理办法〉的决定》")]),
    # partial text while streaming
    ("依据《个人信息出境标准合同办法", []),
    ("依据《个人信息出境标准合同办法》第十", []),
    ("依据《合同", []),
    ("《个人信息出境标准合同办法》（以下简称《办", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_citation_findings(text: str, expected: list[tuple[str, str]]) -> None:
    result = check(text, catalogue=CATALOGUE, doc_date=TODAY)
    got = [(f.code, text[f.start : f.end]) for f in result.findings]
    assert sorted(got) == sorted(expected)


@pytest.mark.parametrize(
    "text", ["合同第五条", "本协议第三条", "本指南第三部分", "附件一第二条", "《申报书》第二条"]
)
def test_non_statute_references_produce_no_citation(text: str) -> None:
    assert check(text, catalogue=CATALOGUE, doc_date=TODAY).citations == ()


def _fields(text: str) -> list[tuple[str, str | None, int | None, int | None, int | None, str]]:
    citations, _ = parse_citations(text, CATALOGUE)
    return [(c.raw, c.statute, c.article, c.paragraph, c.item, c.status) for c in citations]


def test_citation_fields_for_chains() -> None:
    text = "《个人信息保护法》第三十八条第一款第（二）项、第三十九条、第二款"
    pipl = "中华人民共和国个人信息保护法"
    assert _fields(text) == [
        ("《个人信息保护法》第三十八条第一款第（二）项", pipl, 38, 1, 2, "ok"),
        ("第三十九条", pipl, 39, None, None, "ok"),
        ("第二款", pipl, 39, 2, None, "ok"),
    ]


def test_citation_offsets_match_raw_text() -> None:
    text = "一、依据《数据出境安全评估办法》第四条至第六条，以及《合同法》第十条。"
    for citation in check(text, catalogue=CATALOGUE, doc_date=TODAY).citations:
        assert text[citation.start : citation.end] == citation.raw


def test_citation_statuses() -> None:
    text = "《网络安全法》第三十条；《合同法》第十条；《个人信息保护条例》；《某某办法》；《个人信息出境认证办法》第五条"
    statuses = [(c.statute, c.status) for c in parse_citations(text, CATALOGUE)[0]]
    assert statuses == [
        ("中华人民共和国网络安全法", "ok"),
        ("中华人民共和国合同法", "repealed"),
        ("中华人民共和国个人信息保护法", "name_variant"),
        (None, "unknown_statute"),
        ("个人信息出境认证办法", "ok"),
    ]


def test_amended_cybersecurity_law_has_81_articles() -> None:
    """The 2025 amendment (in force 2026-01-01) renumbered the law to 81 articles."""
    assert check("《网络安全法》第八十一条", catalogue=CATALOGUE, doc_date=TODAY).findings == ()
    (finding,) = check("《网络安全法》第八十二条", catalogue=CATALOGUE, doc_date=TODAY).findings
    assert finding.code == OOR and "81" in finding.message_en


def test_unverified_counts_are_never_out_of_range(tmp_path) -> None:  # type: ignore[no-untyped-def]
    extra = tmp_path / "firm.yaml"
    extra.write_text(
        "statutes:\n  - name: 网络安全审查办法\n    articles: null\n", encoding="utf-8"
    )
    firm = load_catalogue(extra)
    result = check("《网络安全审查办法》第九百条", catalogue=firm, doc_date=TODAY)
    assert result.findings == ()
    assert [c.status for c in result.citations] == ["unverified"]


def test_anaphor_without_prior_statute_is_ignored() -> None:
    assert check("本法第三条", catalogue=CATALOGUE, doc_date=TODAY).citations == ()


def test_messages_and_suggestions() -> None:
    result = check(
        "《个人信息出境标准合同办法》第十五条；《合同法》", catalogue=CATALOGUE, doc_date=TODAY
    )
    out_of_range, repealed = result.findings
    assert out_of_range.severity == "error" and "13" in out_of_range.message_zh
    assert "13 articles" in out_of_range.message_en
    assert out_of_range.suggestion == "第一条至第十三条"
    assert repealed.severity == "error" and repealed.suggestion == "《中华人民共和国民法典》"
    assert "2021-01-01" in repealed.message_en
    unknown = check("《网络安全审查办法》", catalogue=CATALOGUE, doc_date=TODAY).findings[0]
    assert unknown.severity == "warning" and "《中华人民共和国网络安全法》" in unknown.suggestion
    variant = check("《个人信息保护条例》", catalogue=CATALOGUE, doc_date=TODAY).findings[0]
    assert (
        variant.severity == "warning" and variant.suggestion == "《中华人民共和国个人信息保护法》"
    )


@pytest.mark.parametrize(
    ("name", "variant_of"),
    [
        ("数据出境安全评估管理办法", "数据出境安全评估办法"),  # ratio 90.9
        ("网络数据安全条例", "网络数据安全管理条例"),  # ratio 88.9
        ("个人信息保护条例", "中华人民共和国个人信息保护法"),  # same core, other suffix
        ("数据出境安全评估规定", "数据出境安全评估办法"),
        ("网络安全审查办法", None),  # ratio 76.9 with 网络安全法: a different regulation
        ("数据安全管理办法", None),
        ("通用数据保护条例", None),
        ("消费者权益保护法", None),
    ],
)
def test_name_variant_threshold(name: str, variant_of: str | None) -> None:
    variant, _ = CATALOGUE.near(name)
    assert (variant.name if variant else None) == variant_of


def test_firm_catalogue_merges_over_builtin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    extra = tmp_path / "firm.yaml"
    extra.write_text(
        "statutes:\n"
        "  - name: 网络安全审查办法\n    articles: 23\n    promulgated: 2021-12-28\n"
        "  - name: 个人信息出境认证办法\n    aliases: [出境认证办法]\n",
        encoding="utf-8",
    )
    firm = load_catalogue(extra)
    text = "《网络安全审查办法》第二十四条；《出境认证办法》第二十条；《数据安全法》第五十六条"
    got = [
        (f.code, text[f.start : f.end])
        for f in check(text, catalogue=firm, doc_date=TODAY).findings
    ]
    assert got == [(OOR, "第二十四条"), (OOR, "第二十条"), (OOR, "第五十六条")]
    assert firm.resolve("个人信息出境认证办法").issuer  # built-in fields kept under the override


@pytest.mark.parametrize(
    "content", ["statutes: 3\n", "- a\n", "statutes:\n  - articles: 3\n", "statutes: [\n"]
)
def test_bad_firm_catalogue_has_a_clear_message(tmp_path, content: str) -> None:  # type: ignore[no-untyped-def]
    extra = tmp_path / "bad.yaml"
    extra.write_text(content, encoding="utf-8")
    with pytest.raises(CatalogueError) as info:
        load_catalogue(extra)
    assert info.value.message_zh and info.value.message_en


def test_missing_firm_catalogue(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CatalogueError):
        load_catalogue(tmp_path / "absent.yaml")


def test_catalogue_has_the_required_statutes() -> None:
    for name, articles in [
        ("中华人民共和国个人信息保护法", 74),
        ("中华人民共和国数据安全法", 55),
        ("数据出境安全评估办法", 20),
        ("个人信息出境标准合同办法", 13),
        ("促进和规范数据跨境流动规定", 14),
        ("网络数据安全管理条例", 64),
        ("中华人民共和国民法典", 1260),
        ("中华人民共和国合同法", 428),
        ("中华人民共和国物权法", 247),
        ("中华人民共和国担保法", 96),
        ("中华人民共和国民法通则", 156),
        ("中华人民共和国民法总则", 206),
        ("中华人民共和国侵权责任法", 92),
        ("中华人民共和国婚姻法", 51),
        ("中华人民共和国继承法", 37),
        ("中华人民共和国收养法", 34),
    ]:
        statute = CATALOGUE.statutes[name]
        assert statute.articles == articles and statute.source
    cyber = CATALOGUE.statutes["中华人民共和国网络安全法"]
    assert cyber.articles == 81 and cyber.amended_effective is not None
    assert cyber.amended_effective.isoformat() == "2026-01-01"
    certification = CATALOGUE.statutes["个人信息出境认证办法"]
    assert certification.articles == 19 and str(certification.effective) == "2026-01-01"
    for statute in CATALOGUE.statutes.values():
        if statute.repealed:
            assert statute.successor == "中华人民共和国民法典"
            assert statute.repealed.isoformat() == "2021-01-01"
