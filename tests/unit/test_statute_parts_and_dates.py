"""Round 4 of the statute checks, table by table: a 款 or 项 the article does not have
(citation.part_out_of_range), a 项 cited by the wrong number, a statute called 现行 before it took
effect (citation.called_in_force), and versions named in the text (原《…》, 《…》（2016年）, 同法)."""

from __future__ import annotations

import datetime as dt

import pytest

from app.validation import check, load_catalogue
from app.validation.texts import load_texts

CATALOGUE, STORE = load_catalogue(), load_texts()
LATE = dt.date(2026, 11, 30)
PIPL = "《中华人民共和国个人信息保护法》"
CSL = "《中华人民共和国网络安全法》"
PARTS = "citation.part_out_of_range"
CALLED = "citation.called_in_force"


def _codes(text: str, day: dt.date = LATE) -> list[tuple[str, str, str]]:
    found = check(text, catalogue=CATALOGUE, doc_date=day, texts=STORE).findings
    return [(f.code, text[f.start : f.end], f.suggestion) for f in found]


PART_CASES: list[tuple[str, list[tuple[str, str, str]]]] = [
    # PIPL 39 has one 款, 29 no 项, 13(1) seven 项
    (
        "依据《个人信息保护法》第三十九条第二款，向境外提供个人信息的，应当取得个人的单独同意。",
        [(PARTS, "《个人信息保护法》第三十九条第二款", "")],
    ),
    (
        "依据《个人信息保护法》第二十九条第三项，处理敏感个人信息应当取得个人的单独同意。",
        [(PARTS, "《个人信息保护法》第二十九条第三项", "")],
    ),
    (
        "依据《个人信息保护法》第十三条第八项，可以处理个人信息。",
        [(PARTS, "《个人信息保护法》第十三条第八项", "")],
    ),
    # the parts that exist
    ("依据《个人信息保护法》第十三条第七项，法律、行政法规规定的其他情形。", []),
    ("依据《个人信息保护法》第三十一条第二款，应当制定专门的个人信息处理规则。", []),
    # 数据跨境流动规定 第七条第二款 is held (joined from the parts read): it exists
    ("具体情形见《促进和规范数据跨境流动规定》第七条第二款。", []),
    # the cross-border 项 of PIPL 55 by the wrong number: read beyond the 款's lead-in
    (
        "依据《个人信息保护法》第五十五条第三项，向境外提供个人信息的，应当事前进行个人信息保护影响评估。",
        [
            (
                "citation.content_mismatch",
                "《个人信息保护法》第五十五条第三项",
                f"{PIPL}第五十五条第一款第四项",
            )
        ],
    ),
    (
        "依据《个人信息保护法》第五十五条第四项，向境外提供个人信息的，应当事前进行个人信息保护影响评估。",
        [],
    ),
    # the basis 项 of PIPL 38(1)
    (
        "依据《个人信息保护法》第三十八条第一款第一项，可以按照国家网信部门的规定经专业机构进行个人信息保护认证。",
        [
            (
                "citation.content_mismatch",
                "《个人信息保护法》第三十八条第一款第一项",
                f"{PIPL}第三十八条第一款第二项",
            )
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), PART_CASES)
def test_parts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _codes(text) == expected


def test_a_missing_part_says_what_the_article_has() -> None:
    text = "依据《个人信息保护法》第三十九条第二款，向境外提供个人信息的，应当取得个人的单独同意。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=LATE, texts=STORE).findings
    assert hit.severity == "warning"
    assert "只有一款" in hit.message_zh and "第二款" in hit.message_zh
    assert "has one paragraph" in hit.message_en and "paragraph 2" in hit.message_en


IN_FORCE_CASES: list[tuple[str, dt.date, list[tuple[str, str]]]] = [
    # the 条例 (in force 2025-01-01) called 现行 in 2024; stated as future, nothing
    (
        "现行《网络数据安全管理条例》第三十三条规定，重要数据的处理者应当每年度开展风险评估。",
        dt.date(2024, 10, 1),
        [(CALLED, "现行《网络数据安全管理条例》")],
    ),
    (
        "《网络数据安全管理条例》现已施行。",
        dt.date(2024, 10, 1),
        [(CALLED, "《网络数据安全管理条例》现已施行")],
    ),
    ("《网络数据安全管理条例》将于2025年1月1日起施行。", dt.date(2024, 10, 1), []),
    ("《网络数据安全管理条例》施行前，企业应当做好准备。", dt.date(2024, 10, 1), []),
    (
        "现行《网络数据安全管理条例》第三十三条规定，重要数据的处理者应当每年度开展风险评估。",
        dt.date(2025, 3, 1),
        [],
    ),
    # the amended 网络安全法 (in force 2026-01-01) called in force in 2025
    (
        "根据现行有效的《网络安全法》（2025年修正）第三十九条，关键信息基础设施的运营者收集和产生的个人信息和重要数据应当在境内存储。",
        dt.date(2025, 11, 15),
        [(CALLED, "现行有效的《网络安全法》")],
    ),
    ("修正后的《网络安全法》已施行。", dt.date(2025, 12, 1), [(CALLED, "《网络安全法》已施行")]),
    ("修正后的《网络安全法》将于2026年1月1日起施行。", dt.date(2025, 11, 15), []),
    # the statute in force (the 2016 text in 2025)
    (
        "根据现行《网络安全法》第三十七条，关键信息基础设施的运营者收集和产生的个人信息和重要数据应当在境内存储。",
        dt.date(2025, 11, 15),
        [],
    ),
    ("《个人信息保护法》现行有效。", dt.date(2024, 10, 1), []),
]


@pytest.mark.parametrize(("text", "day", "expected"), IN_FORCE_CASES)
def test_called_in_force(text: str, day: dt.date, expected: list[tuple[str, str]]) -> None:
    assert [(code, span) for code, span, _ in _codes(text, day)] == expected


def test_called_in_force_names_the_date() -> None:
    text = "现行《网络数据安全管理条例》第三十三条规定，重要数据的处理者应当每年度开展风险评估。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=dt.date(2024, 10, 1), texts=STORE).findings
    assert hit.severity == "warning"
    assert "2025-01-01" in hit.message_zh and "现行" in hit.message_zh
    assert "2025-01-01" in hit.message_en


STORAGE = "关键信息基础设施的运营者在境内运营中收集和产生的个人信息和重要数据应当在境内存储"
VERSION_CASES: list[tuple[str, dt.date, list[tuple[str, str]]]] = [
    # 同法 / 该法 resolve, against the version in force on the date
    (
        f"《网络安全法》第三十九条规定{STORAGE}；同法第二十三条规定国家实行网络安全等级保护制度。",
        LATE,
        [],
    ),
    (
        f"《网络安全法》第三十九条规定{STORAGE}；同法第二十一条规定国家实行网络安全等级保护制度，"
        "网络运营者应当履行安全保护义务。",
        LATE,
        [("citation.renumbered", f"{CSL}第二十三条")],
    ),
    (
        f"《网络安全法》第三十七条规定{STORAGE}；该法第二十一条规定国家实行网络安全等级保护制度。",
        dt.date(2025, 6, 1),
        [],
    ),
    # a version named in the text is the one read, and back-references inherit it
    (
        f"原《网络安全法》第三十七条规定{STORAGE}；该法第二十一条规定国家实行网络安全等级保护制度。",
        LATE,
        [],
    ),
    (f"《网络安全法》（2016年）第三十七条规定{STORAGE}。", LATE, []),
    (
        f"《网络安全法》第三十七条规定{STORAGE}。",
        LATE,
        [("citation.renumbered", f"{CSL}第三十九条")],
    ),
]


@pytest.mark.parametrize(("text", "day", "expected"), VERSION_CASES)
def test_versions(text: str, day: dt.date, expected: list[tuple[str, str]]) -> None:
    assert [(code, suggestion) for code, _, suggestion in _codes(text, day)] == expected


def test_the_version_named_is_the_one_shown() -> None:
    text = f"原《网络安全法》第三十七条规定{STORAGE}。"
    (citation,) = check(text, catalogue=CATALOGUE, doc_date=LATE, texts=STORE).citations
    assert citation.version == "2016-11-07通过"
