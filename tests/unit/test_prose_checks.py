"""The pieces of the checks on human text, table by table: English-style references, short
names, bare names with a version note, basis blocks, documents that are not law, the
vocabulary of elements (elements.yaml), the sensitive categories (sensitive.yaml) and the
catalogue's English aliases — each data file agreeing with the held texts and with itself."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import yaml

from app.validation import check, load_catalogue
from app.validation.basis import blocks
from app.validation.citations import parse_citations
from app.validation.count_claims import about_sensitive, sensitive_categories
from app.validation.elements import ELEMENTS_FILE, figures, load_groups
from app.validation.english_refs import english_refs
from app.validation.non_statutes import load_kinds, non_statute
from app.validation.texts import load_texts

CATALOGUE, STORE = load_catalogue(), load_texts()
PIPL = "中华人民共和国个人信息保护法"
DAY = dt.date(2026, 11, 30)

ENGLISH: list[tuple[str, list[tuple[str, int, int | None, int | None]]]] = [
    ("Art. 38 PIPL", [(PIPL, 38, None, None)]),
    ("PIPL Article 55(4)", [(PIPL, 55, None, 4)]),
    ("DSL art. 36", [("中华人民共和国数据安全法", 36, None, None)]),
    ("CSL Art. 39", [("中华人民共和国网络安全法", 39, None, None)]),
    ("Article 40 of the Personal Information Protection Law", [(PIPL, 40, None, None)]),
    ("Articles 38 and 39 of the PIPL", [(PIPL, 38, None, None), (PIPL, 39, None, None)]),
    ("Article 38(1)(3) of the PIPL", [(PIPL, 38, 1, 3)]),
    ("Art. 13, paragraph 1, item (2) PIPL", [(PIPL, 13, 1, 2)]),
    ("article 7 of the standard contract measures", [("个人信息出境标准合同办法", 7, None, None)]),
    ("Article 5 of the Agreement", []),
    ("Article 29 Working Party", []),
    ("Art. 46 GDPR", []),
    ("Article 5 of the National Security Law", []),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english_references(
    text: str, expected: list[tuple[str, int, int | None, int | None]]
) -> None:
    found = [
        (r.statute.name, a.article, a.paragraph, a.item)
        for r in english_refs(text, CATALOGUE)
        for a in r.articles
    ]
    assert found == expected


def test_english_aliases_are_data_unique_and_resolve() -> None:
    seen: dict[str, str] = {}
    for statute in CATALOGUE.statutes.values():
        for alias in statute.aliases:
            if alias[:1].isascii():
                key = " ".join(alias.lower().split())
                assert key not in seen, (alias, seen.get(key), statute.name)
                seen[key] = statute.name
                assert CATALOGUE.resolve(alias) is statute
    assert {"pipl", "dsl", "csl"} <= set(seen)


DEFINED: list[tuple[str, list[tuple[str, int]]]] = [
    (
        "《促进和规范数据跨境流动规定》（以下简称“《规定》”）。《规定》第八条。",
        [("促进和规范数据跨境流动规定", 8)],
    ),
    (
        "《个人信息出境标准合同办法》（下称“本办法”）。本办法第七条。",
        [("个人信息出境标准合同办法", 7)],
    ),
    ("个人信息保护法（以下简称“个保法”）。个保法第十三条。", [(PIPL, 13)]),
    ("中华人民共和国个人信息保护法（以下简称“该法”）。该法第三十九条。", [(PIPL, 39)]),
    (
        "《数据出境安全评估办法》第四条；同法第十二条。",
        [("数据出境安全评估办法", 4), ("数据出境安全评估办法", 12)],
    ),
    ("本办法第三条适用于本公司。", []),
    ("《数据处理协议》（以下简称“协议”）第三条；协议第九条。", []),
    ("依据中华人民共和国网络安全法（2025修正）第五十二条。", [("中华人民共和国网络安全法", 52)]),
    ("依据网络安全法（2016年）第三十七条。", [("中华人民共和国网络安全法", 37)]),
]


@pytest.mark.parametrize(("text", "expected"), DEFINED)
def test_short_names_and_version_notes(text: str, expected: list[tuple[str, int]]) -> None:
    citations, _ = parse_citations(text, CATALOGUE)
    assert [(c.statute, c.article) for c in citations if c.article] == expected


def test_a_version_note_names_the_version_read() -> None:
    text = "依据中华人民共和国网络安全法（2016年）第三十七条，关键信息基础设施的运营者应当在境内存储个人信息和重要数据。"
    result = check(text, catalogue=CATALOGUE, doc_date=DAY)
    assert result.findings == ()
    assert result.citations[0].version == "2016-11-07通过"


BLOCKS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "甲。乙应当备案。【依据：《A办法》第七条；《B规定》第八条】",
        [("甲。乙应当备案。", "《A办法》第七条；《B规定》第八条")],
    ),
    ("第一段。\n\n应当备案。\n法律依据：《A办法》第七条", [("应当备案。", "《A办法》第七条")]),
    ("应当评估。（依据：《A法》第五十五条）", [("应当评估。", "《A法》第五十五条")]),
    ("【依据：《中华人民共和国网络安全法（2025修正）》第五十二条】", []),  # closes nothing
    ("依据《A法》第一条，应当评估。", []),
]


@pytest.mark.parametrize(("text", "expected"), BLOCKS)
def test_basis_blocks_and_the_paragraph_they_close(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert [
        (text[b.para_start : b.para_end], text[b.start : b.end]) for b in blocks(text)
    ] == expected


def test_documents_that_are_not_law() -> None:
    assert non_statute("数据出境安全管理政策问答") is not None
    assert non_statute("数据出境安全管理政策问答（2025年5月）") is not None
    assert non_statute("国家互联网信息办公室有关负责人就〈促进和规范数据跨境流动规定〉答记者问")
    for law in (
        "促进和规范数据跨境流动规定",
        "数据出境安全评估申报指南（第二版）",
        "个人信息出境标准合同",
    ):
        assert non_statute(law) is None
    assert all(k.zh and k.en for k in load_kinds())


FIGURES = [
    ("应当自收到申报材料之日起5个工作日内完成", [("5个工作日内", "工作日", "le")]),
    ("有效期为三年", [("三年", "年", None)]),
    ("不少于六个月", [("不少于六个月", "个月", "ge")]),
    ("累计向境外提供100万人以上个人信息", [("100万人以上", "人", "ge")]),
    ("注册用户5000万以上", [("5000万以上", "人", "ge")]),
    (
        "处五千万元以下或者上一年度营业额百分之五以下罚款",
        [("五千万元以下", "元", "le"), ("百分之五", "%", None)],
    ),
    ("2025年1月1日起施行，第三十九条，3月15日", []),
]


@pytest.mark.parametrize(("text", "expected"), FIGURES)
def test_figures(text: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert [(f.raw, f.unit, f.bound) for f in figures(text)] == expected


def _held() -> str:
    return "\n".join(a.text for vs in STORE.versions.values() for v in vs for a in v.articles)


def test_every_group_is_worded_in_the_held_texts() -> None:
    """elements.yaml's vocabulary is the statutes' own: every body occurs in a held article, and
    every condition group has a term the held articles word (its others are the contrary
    wordings a sentence may use: 含 for 不含, 不得延长 for 可以延长)."""
    held = _held()
    raw = yaml.safe_load(ELEMENTS_FILE.read_text("utf-8"))
    for group in raw["groups"]:
        assert group["source"], group["name"]
        worded = [
            term
            for term, wordings in group["terms"].items()
            if re.sub(r"\(\?<?[!=][^)]*\)", "", wordings[0]) in held
        ]
        if group["kind"] == "actor":
            assert worded == list(group["terms"]), group["name"]
        elif group["kind"] == "condition":
            assert worded, group["name"]
    assert {g.kind for g in load_groups()} == {"actor", "condition", "modality"}


def test_sensitive_categories_are_the_words_of_pipl_article_28() -> None:
    article = STORE.latest(PIPL).article(28)
    assert article is not None
    for law, pattern in sensitive_categories():
        assert law in article.text or law.replace("未成年人", "") in article.text, law
        assert pattern.search(law)
    assert about_sensitive("3万名用户的医疗健康信息")
    assert about_sensitive("不满十四周岁未成年人个人信息")
    assert not about_sensitive("姓名、手机号码和收货地址")
    assert not about_sensitive("不含敏感个人信息")


def test_the_law_is_shown_for_english_references_and_for_a_rule_elsewhere() -> None:
    from app.validation.lookup import lookup, suggested_view

    found = lookup("PIPL Article 55(4)", catalogue=CATALOGUE, store=STORE, on=DAY)
    assert (found.article.number, found.item, found.text) == (55, 4, "（四）向境外提供个人信息；")
    text = "根据《促进和规范数据跨境流动规定》第八条，个人信息处理者应当在标准合同生效之日起10个工作日内向所在地省级网信部门备案。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=DAY).findings
    assert hit.code == "citation.rule_elsewhere" and hit.severity == "warning"
    shown = suggested_view(hit.code, hit.suggestion, DAY, catalogue=CATALOGUE)
    assert shown is not None and shown.statute == "个人信息出境标准合同办法"
    assert shown.article.number == 7
