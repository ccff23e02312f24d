"""Everyday forms of citation and clause numbering (issue 13 §4), table-driven on fixture texts:
a statute named without 《》, Arabic article numbers with spaces or full-width digits, and
contract clause headings (第X条 at the start of a line) told apart from citations."""

from __future__ import annotations

import datetime as dt

import pytest

from app.validation import check, load_catalogue
from app.validation.citations import parse_citations

CATALOGUE = load_catalogue()
TODAY = dt.date.today()  # the day these checks are run on
OOR = "citation.article_out_of_range"
REPEALED = "citation.repealed"
GAP, DUP, ORDER = "numbering.gap", "numbering.duplicate", "numbering.out_of_order"
PIPL = "中华人民共和国个人信息保护法"
DSL = "中华人民共和国数据安全法"
CIVIL = "中华人民共和国民法典"
SCC = "个人信息出境标准合同办法"

# (text, [(statute, article, paragraph, item)] cited, [(code, matched substring)] found)
Cited = tuple[str | None, int | None, int | None, int | None]
CASES: list[tuple[str, list[Cited], list[tuple[str, str]]]] = [
    # --- a statute named without 《》: an exact catalogue name or alias followed by 第X条 ---
    ("依据个人信息保护法第十三条处理。", [(PIPL, 13, None, None)], []),
    ("个人信息保护法第一百条", [(PIPL, 100, None, None)], [(OOR, "第一百条")]),
    ("根据中华人民共和国个人信息保护法第三十八条", [(PIPL, 38, None, None)], []),
    ("按照个保法第九十条", [(PIPL, 90, None, None)], [(OOR, "第九十条")]),
    ("违反数据安全法 第三十一条的", [(DSL, 31, None, None)], []),
    ("符合民法典第五百条", [(CIVIL, 500, None, None)], []),
    ("标准合同办法第十五条", [(SCC, 15, None, None)], [(OOR, "第十五条")]),
    (
        "个人信息出境标准合同办法第四条、第十五条",
        [(SCC, 4, None, None), (SCC, 15, None, None)],
        [(OOR, "第十五条")],
    ),
    ("个人信息保护法第三十八条第一款第（二）项", [(PIPL, 38, 1, 2)], []),
    # --- a 款 or 项 of the article cited just before: 同条, 前款 (the one before), 该款, 该项 ---
    (
        "依据个人信息保护法第十三条第二款，有前款第二项至第七项规定情形的，不需取得个人同意。",
        [(PIPL, 13, 2, None), (PIPL, 13, 1, 2), (PIPL, 13, 1, 7)],
        [],
    ),
    (
        "标准合同办法第四条第一款第（一）项所称运营者，该项另有认定规则；同条第三款禁止数量拆分。",
        [(SCC, 4, 1, 1), (SCC, 4, 1, 1), (SCC, 4, 3, None)],
        [],
    ),
    (
        "标准合同办法第七条第一款要求备案，该款所称材料。",
        [(SCC, 7, 1, None), (SCC, 7, 1, None)],
        [],
    ),
    # nothing to resolve against, or nothing named: no citation
    ("前款第二项规定的情形。该项不适用。", [], []),
    ("标准合同办法第七条要求备案；前款另有规定。同条之规定。", [(SCC, 7, None, None)], []),
    ("合同法第五十二条", [("中华人民共和国合同法", 52, None, None)], [(REPEALED, "合同法")]),
    # the bare name opens 本法 / 该法 / 前述 like a 《title》 does
    (
        "依据数据安全法第三十一条；该法第六十条",
        [(DSL, 31, None, None), (DSL, 60, None, None)],
        [(OOR, "第六十条")],
    ),
    (
        "数据安全法第二十一条规定……本法第五十六条",
        [(DSL, 21, None, None), (DSL, 56, None, None)],
        [(OOR, "第五十六条")],
    ),
    (
        "《个人信息保护法》第十三条和数据安全法第三十一条",
        [(PIPL, 13, None, None), (DSL, 31, None, None)],
        [],
    ),
    # only an exact name, and only as a whole word: a longer title is not a citation of it
    ("劳动合同法第十条", [], []),
    ("网络数据安全法第五条", [], []),
    ("某某个人信息保护法第一百条", [], []),
    ("个人信息保护条例第十条", [], []),  # a near-miss is reported only inside 《》
    ("个人信息保护法规定的义务", [], []),  # no article: nothing to check
    ("个人信息保护法\n第一百条 另一份文件的条文", [], []),  # never across a line break
    # --- Arabic article numbers with spaces or full-width digits ---
    ("《个人信息保护法》第 56 条", [(PIPL, 56, None, None)], []),
    ("《个人信息保护法》第５６条", [(PIPL, 56, None, None)], []),
    ("《数据安全法》第 56 条", [(DSL, 56, None, None)], [(OOR, "第 56 条")]),
    ("《数据安全法》第５６条", [(DSL, 56, None, None)], [(OOR, "第５６条")]),
    (
        "《数据安全法》第\u3000５６\u3000条",
        [(DSL, 56, None, None)],
        [(OOR, "第\u3000５６\u3000条")],
    ),
    ("《数据安全法》 第 5６ 条", [(DSL, 56, None, None)], [(OOR, "第 5６ 条")]),
    ("《个人信息保护法》第 38 条第 1 款第 2 项", [(PIPL, 38, 1, 2)], []),
    ("《个人信息保护法》第 13 条、第 14 条", [(PIPL, 13, None, None), (PIPL, 14, None, None)], []),
    ("个人信息保护法第 100 条", [(PIPL, 100, None, None)], [(OOR, "第 100 条")]),
    ("本合同第 5 条", [], []),
    # --- contract clause headings (第X条 at the start of a line) are numbering, not citations ---
    ("第一条 定义\n第二条 保密义务\n第四条 违约责任", [], [(GAP, "第四条")]),
    ("第一条 定义\n第二条 保密义务\n第二条 违约责任", [], [(DUP, "第二条")]),
    ("第一条 定义\n第三条 保密\n第二条 违约", [], [(GAP, "第三条"), (ORDER, "第二条")]),
    ("第一条　定义\n第二条　保密\n第三条　违约", [], []),
    ("第1条 定义\n第2条 保密\n第4条 违约", [], [(GAP, "第4条")]),
    ("**第一条** 定义\n**第三条** 保密", [], [(GAP, "第三条")]),
    ("## 第一条 定义\n## 第二条 保密", [], []),
    ("第一条：定义\n第二条【保密】\n第三条（违约）\n第五条", [], [(GAP, "第五条")]),
    ("第八条 数据安全\n第九条 保密\n第十条 违约", [], []),  # a continuation starts anywhere
    ("第一章 总则\n第一条 a\n第二条 b\n第二章 分则\n第三条 c", [], []),  # continuous across 章
    ("第一章 总则\n第一条 a\n第二条 b\n第二章 分则\n第一条 c", [], []),  # or restarting
    ("第一章 总则\n第一条 a\n第二章 分则\n第三条 c", [], [(GAP, "第三条")]),
    ("第一条 定义\n一、甲\n二、乙\n第二条 保密\n一、丙", [], []),  # items restart per clause
    # a heading that carries citations: both, each for what it is
    (
        "第一条 目的\n第二条 依据《个人信息保护法》第十三条、第十四条、第十六条处理\n第三条 附则",
        [(PIPL, 13, None, None), (PIPL, 14, None, None), (PIPL, 16, None, None)],
        [],
    ),
    (
        "第一条 目的\n第二条 依据《数据安全法》第一条、第二条、第五十六条\n第二条 附则",
        [(DSL, 1, None, None), (DSL, 2, None, None), (DSL, 56, None, None)],
        [(OOR, "第五十六条"), (DUP, "第二条")],
    ),
    # citation chains with gaps are not numbering
    (
        "依据《个人信息保护法》第一条、第二条、第四条",
        [(PIPL, 1, None, None), (PIPL, 2, None, None), (PIPL, 4, None, None)],
        [],
    ),
    (
        "《数据安全法》第三条。本法第一条、第二条、第四条",
        [(DSL, 3, None, None), (DSL, 1, None, None), (DSL, 2, None, None), (DSL, 4, None, None)],
        [],
    ),
    (
        "《数据安全法》第三条。前述第一条、第一条",
        [(DSL, 3, None, None), (DSL, 1, None, None), (DSL, 1, None, None)],
        [],
    ),
    # a line that starts with an article reference in running text is not a heading
    ("第三十八条规定的情形\n第四十条规定的情形", [], []),
    ("第十三条第一款所列情形\n第十三条第二款", [], []),
    # a heading right below a statute's name is not a citation of it
    ("《个人信息保护法》\n第五条 a\n第六条 b", [(PIPL, None, None, None)], []),
    ("个人信息保护法\n第一条 a\n第三条 b", [], [(GAP, "第三条")]),
]


@pytest.mark.parametrize(("text", "cited", "found"), CASES)
def test_citation_forms(text: str, cited: list[Cited], found: list[tuple[str, str]]) -> None:
    result = check(text, catalogue=CATALOGUE, doc_date=TODAY)
    got_cited = [(c.statute, c.article, c.paragraph, c.item) for c in result.citations]
    got_found = [(f.code, text[f.start : f.end]) for f in result.findings]
    assert got_cited == cited
    assert sorted(got_found) == sorted(found)


@pytest.mark.parametrize(
    "text",
    [
        "依据个人信息保护法第十三条",
        "《数据安全法》第 5６ 条",
        "按照中华人民共和国数据安全法 第 31 条",
        "数据安全法第三条。该法第 2 条",
    ],
)
def test_spans_of_new_forms_match_their_raw_text(text: str) -> None:
    citations, _ = parse_citations(text, CATALOGUE)
    assert citations
    for citation in citations:
        assert text[citation.start : citation.end] == citation.raw


def test_bare_name_citation_starts_at_the_name() -> None:
    text = "依据中华人民共和国个人信息保护法第十三条"
    (citation,) = parse_citations(text, CATALOGUE)[0]
    assert citation.raw == "中华人民共和国个人信息保护法第十三条"


def test_gap_in_clause_headings_suggests_the_expected_heading() -> None:
    (gap,) = check(
        "第一条 定义\n第二条 保密\n第四条 违约", catalogue=CATALOGUE, doc_date=TODAY
    ).findings
    assert gap.suggestion == "第三条" and gap.severity == "error"
    (gap,) = check("第1条 定义\n第3条 保密", catalogue=CATALOGUE, doc_date=TODAY).findings
    assert gap.suggestion == "第2条"
