"""citation.superseded: the overridden CAC provisions (superseded.yaml) agree with the texts, and
a citation of one is flagged by the document's date (table-driven)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from app.validation import check, load_catalogue
from app.validation.lookup import suggested_view
from app.validation.messages import MESSAGES
from app.validation.superseded import SupersededError, load_superseded
from app.validation.texts import load_texts

CATALOGUE, STORE = load_catalogue(), load_texts()
LATE, EARLY = dt.date(2026, 11, 30), dt.date(2023, 9, 1)
SUP = "citation.superseded"
CBDF = "《促进和规范数据跨境流动规定》"


def test_every_row_agrees_with_the_texts() -> None:
    rows = load_superseded()
    assert len(rows) >= 5
    for row in rows:
        earlier = STORE.on(row.earlier.statute, row.since)
        later = STORE.latest(row.prevailing.statute)
        assert earlier is not None and later is not None, row.reason
        old = earlier.article(row.earlier.article)
        new = later.article(row.prevailing.article)
        assert old is not None and new is not None, row.reason
        assert old.has_part(row.earlier.paragraph, row.earlier.item), row.reason
        assert row.since == later.in_force_from  # decided by the later instrument's date
        text = old.part(row.earlier.paragraph, row.earlier.item)
        if row.obligation is not None:
            # an exemption: the prevailing part exempts, in the words of the row's case
            exempting = new.part(row.prevailing.paragraph, row.prevailing.item)
            assert "免予" in new.part(row.prevailing.paragraph or 1), row.reason
            assert any(term.search(exempting) for term in row.terms), exempting
            continue
        # each term is wording of the earlier rule, not of the rule that replaced it
        for term in row.terms:
            assert term.search(text), (term.pattern, text)
            assert not term.search(new.text), (term.pattern, new.text)
        # the later instrument says it prevails over the earlier one
        assert row.earlier.statute in later.article(13).text  # type: ignore[union-attr]


CASES: list[tuple[str, dt.date, list[str]]] = [
    # the earlier rule cited as law after 2024-03-22 (exact 款 / 项, or with its wording)
    (
        "根据《数据出境安全评估办法》第十四条，通过数据出境安全评估的结果有效期为2年。",
        LATE,
        [f"{CBDF}第九条"],
    ),
    ("依据《数据出境安全评估办法》第四条第（三）项，数据处理者应当申报。", LATE, [f"{CBDF}第七条"]),
    (
        "依据《个人信息出境标准合同办法》第四条第一款第（四）项，可以订立标准合同。",
        LATE,
        [f"{CBDF}第八条"],
    ),
    # the same before the 规定 took effect: right at the time
    ("根据《数据出境安全评估办法》第十四条，通过数据出境安全评估的结果有效期为2年。", EARLY, []),
    ("依据《数据出境安全评估办法》第四条第（三）项，数据处理者应当申报。", EARLY, []),
    # the earlier rule's wording attributed to the later instrument, whatever the date
    (f"根据{CBDF}第九条，评估结果有效期为两年。", LATE, [f"{CBDF}第九条"]),
    (f"根据{CBDF}第七条，处理100万人以上个人信息的数据处理者应当申报。", LATE, [f"{CBDF}第七条"]),
    # an article of the earlier measure that holds part of an overridden rule, without its wording
    ("依据《数据出境安全评估办法》第四条，数据处理者向境外提供重要数据的，应当申报。", LATE, []),
    # a provision the 规定 does not override
    ("依据《个人信息出境标准合同办法》第四条第三款，不得采取数量拆分等手段。", LATE, []),
    # a sentence about the change itself
    (f"原《数据出境安全评估办法》第十四条规定的2年有效期已由{CBDF}第九条调整为3年。", LATE, []),
    # the current rule stated with the current wording
    (f"根据{CBDF}第九条，评估结果有效期为3年。", LATE, []),
    # exemptions: the earlier obligation stated for a case the 规定 exempts
    (
        "根据《个人信息出境标准合同办法》第四条，贵公司自当年1月1日起向境外提供5万人个人信息，应当订立标准合同。",
        LATE,
        [f"{CBDF}第五条第一款第四项"],
    ),
    (
        "根据《个人信息出境标准合同办法》第七条，贵公司为跨境人力资源管理向境外提供员工个人信息，"
        "应当在标准合同生效之日起10个工作日内备案。",
        LATE,
        [f"{CBDF}第五条第一款"],
    ),
    (
        "根据《数据出境安全评估办法》第四条，贵公司将境外收集的个人信息传输至境内处理后再向境外提供，应当申报数据出境安全评估。",
        LATE,
        [f"{CBDF}第四条"],
    ),
    (
        f"根据{CBDF}第五条，为跨境购物确需向境外提供个人信息的，应当订立标准合同。",
        LATE,
        [f"{CBDF}第五条第一款"],
    ),
    # ... not when the exemption is stated, the case falls outside it, or before the 规定
    (f"根据{CBDF}第五条，为跨境购物确需向境外提供个人信息的，免予订立标准合同。", LATE, []),
    (
        "根据《个人信息出境标准合同办法》第四条，贵公司向境外提供不满10万人个人信息的，无需订立标准合同。",
        LATE,
        [],
    ),
    (
        "根据《个人信息出境标准合同办法》第四条，贵公司向境外提供5000人敏感个人信息，应当订立标准合同。",
        LATE,
        [],
    ),
    (
        "根据《个人信息出境标准合同办法》第四条，贵公司向境外提供5万人个人信息，应当订立标准合同。",
        EARLY,
        [],
    ),
    # a sentence set before the 规定 (2023年时…) tells history
    ("2023年时，《数据出境安全评估办法》第十四条规定评估结果有效期为2年。", LATE, []),
    ("2024年3月前，《数据出境安全评估办法》第十四条规定评估结果有效期为2年。", LATE, []),
    # still streaming: not judged yet
    ("根据《数据出境安全评估办法》第十四条，通过数据出境安全评估的结果有效期为2年", LATE, []),
]


@pytest.mark.parametrize(("text", "day", "expected"), CASES)
def test_superseded(text: str, day: dt.date, expected: list[str]) -> None:
    found = check(text, catalogue=CATALOGUE, doc_date=day, texts=STORE).findings
    assert [f.suggestion for f in found if f.code == SUP] == expected
    assert all(f.severity == "warning" for f in found if f.code == SUP)


def test_message_names_both_provisions_the_date_and_the_change() -> None:
    text = "根据《数据出境安全评估办法》第十四条，通过数据出境安全评估的结果有效期为2年。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=LATE, texts=STORE).findings
    assert text[hit.start : hit.end] == "《数据出境安全评估办法》第十四条"
    assert "第十四条第一款" in hit.message_zh and "2024-03-22" in hit.message_zh
    assert "3年" in hit.message_zh and "3 years instead of 2" in hit.message_en
    assert MESSAGES[SUP][0] == "warning"


def test_a_malformed_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "superseded.yaml"
    bad.write_text("superseded:\n  - earlier: {statute: X}\n", encoding="utf-8")
    with pytest.raises(SupersededError):
        load_superseded(str(bad))
    bad.write_text("superseded: [{earlier: {statute: X, article: 1}}]\n", encoding="utf-8")
    with pytest.raises(SupersededError):
        load_superseded(str(bad))


def test_the_findings_panel_opens_the_prevailing_article_and_a_suggested_part() -> None:
    view = suggested_view("citation.superseded", f"{CBDF}第九条", LATE, catalogue=CATALOGUE)
    assert view is not None and "结果有效期为3年" in view.text
    part = suggested_view(
        "citation.content_mismatch",
        "《中华人民共和国个人信息保护法》第十三条第一款第二项",
        LATE,
        catalogue=CATALOGUE,
    )
    assert part is not None and part.text.startswith("（二）为订立、履行个人作为一方当事人的合同")
