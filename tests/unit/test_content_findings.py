"""citation.content_mismatch, citation.renumbered and citation.not_in_force: tables of
(sentence, document date, expected findings), and the calibration set's precision and recall."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import pytest

from app.validation import check, load_catalogue
from app.validation.calibration import CAPABILITIES, load_claims
from app.validation.calibration import evaluate as evaluate_claims
from app.validation.matching import DEFAULT
from app.validation.messages import MESSAGES
from app.validation.texts import load_texts

CATALOGUE, STORE = load_catalogue(), load_texts()
TODAY = dt.date.today()  # the day these checks are run on
CLAIMS = Path(__file__).parent / "validation_fixtures" / "citation_claims.yaml"
LATE_2026, MID_2025 = dt.date(2026, 11, 30), dt.date(2025, 6, 1)
PIPL = "《中华人民共和国个人信息保护法》"
CSL = "《中华人民共和国网络安全法》"

CASES: list[tuple[str, dt.date, list[tuple[str, str]]]] = [
    # the example: the impact assessment is 第五十五条
    (
        "依据《个人信息保护法》第五十一条，处理者应当事前进行个人信息保护影响评估。",
        LATE_2026,
        [("citation.content_mismatch", f"{PIPL}第五十五条")],
    ),
    ("依据《个人信息保护法》第五十五条，处理者应当事前进行个人信息保护影响评估。", LATE_2026, []),
    # no claim of its own: nothing at all
    ("依照《个人信息保护法》第三十八条的规定执行。", LATE_2026, []),
    ("依照《个人信息保护法》第五十一条的规定执行。", LATE_2026, []),
    # 本法 points at the last statute; the claim is checked against it
    (
        "《个人信息保护法》第一条已述立法目的。依据本法第五十一条，处理者应当事前进行个人信息保护影响评估。",
        LATE_2026,
        [("citation.content_mismatch", f"{PIPL}第五十五条")],
    ),
    # data localisation: 第三十七条 in the 2016 numbering, 第三十九条 from 2026-01-01
    (
        "根据《网络安全法》第三十七条，关键信息基础设施的运营者在境内运营中收集和产生的个人信息和重要数据应当在境内存储。",
        LATE_2026,
        [("citation.renumbered", f"{CSL}第三十九条")],
    ),
    (
        "根据《网络安全法》第三十七条，关键信息基础设施的运营者在境内运营中收集和产生的个人信息和重要数据应当在境内存储。",
        MID_2025,
        [],
    ),
    (
        "根据《网络安全法》第三十九条，关键信息基础设施的运营者在境内运营中收集和产生的个人信息和重要数据应当在境内存储。",
        LATE_2026,
        [],
    ),
    # an article that exists only in the amended text, before it took effect
    (
        "根据《网络安全法》第八十条，军事网络的安全保护由中央军事委员会另行规定。",
        MID_2025,
        [("citation.not_in_force", "")],
    ),
    ("根据《网络安全法》第八十条，军事网络的安全保护由中央军事委员会另行规定。", LATE_2026, []),
    # a statute not yet in force on the document's date
    (
        "根据《个人信息出境认证办法》第八条，认证证书的有效期为3年。",
        MID_2025,
        [("citation.not_in_force", "")],
    ),
    ("根据《个人信息出境认证办法》第八条，认证证书的有效期为3年。", LATE_2026, []),
    # several citations in one sentence: the chain is read together
    (
        "根据《个人信息保护法》第三十八条、第三十九条，向境外提供个人信息应当取得个人的单独同意。",
        LATE_2026,
        [],
    ),
    # 款 and 项
    (
        "依据《个人信息保护法》第十三条第一款第二项，为订立、履行个人作为一方当事人的合同所必需的，可以处理个人信息。",
        LATE_2026,
        [],
    ),
    # 款 and 项: the claim is checked against the cited part, also through 同条 / 该款
    (
        "依据《个人信息保护法》第十三条第一款第三项，为订立、履行个人作为一方当事人的合同所必需的，可以处理个人信息。",
        LATE_2026,
        [("citation.content_mismatch", f"{PIPL}第十三条第一款第二项")],
    ),
    (
        "依据《个人信息保护法》第十三条第一款第二项，为订立、履行个人作为一方当事人的合同所必需的，可以处理个人信息；"
        "同条第二款规定，有前款第二项至第七项规定情形的，不需取得个人同意。",
        LATE_2026,
        [],
    ),
    (
        "依据《个人信息保护法》第十三条第一款第二项，为订立、履行个人作为一方当事人的合同所必需的，可以处理个人信息；"
        "同条第一款第四项规定，为履行法定职责或者法定义务所必需的，也可以处理。",
        LATE_2026,
        [("citation.content_mismatch", f"{PIPL}第十三条第一款第三项")],
    ),
    (
        "依据《个人信息出境标准合同办法》第七条第二款，个人信息处理者应当对所备案材料的真实性负责；"
        "该款还要求备案时提交标准合同和个人信息保护影响评估报告。",
        LATE_2026,
        [("citation.content_mismatch", "《个人信息出境标准合同办法》第七条第一款")],
    ),
    # the CAC measures are held in full now: the filing deadline is 第七条, not 第六条
    (
        "根据《个人信息出境标准合同办法》第六条，应当在标准合同生效之日起10个工作日内备案。",
        LATE_2026,
        [("citation.content_mismatch", "《个人信息出境标准合同办法》第七条")],
    ),
    (
        "根据《个人信息出境标准合同办法》第七条，应当在标准合同生效之日起10个工作日内备案。",
        LATE_2026,
        [],
    ),
    (
        "根据《促进和规范数据跨境流动规定》第八条，通过数据出境安全评估的结果有效期为3年。",
        LATE_2026,
        [("citation.content_mismatch", "《促进和规范数据跨境流动规定》第九条")],
    ),
]


@pytest.mark.parametrize(("text", "day", "expected"), CASES)
def test_content_findings(text: str, day: dt.date, expected: list[tuple[str, str]]) -> None:
    result = check(text, catalogue=CATALOGUE, doc_date=day, texts=STORE)
    assert [(f.code, f.suggestion) for f in result.findings] == expected
    assert all(f.severity == "warning" for f in result.findings)


def test_mismatch_message_names_the_better_article_and_opens_both() -> None:
    text = "依据《个人信息保护法》第五十一条，处理者应当事前进行个人信息保护影响评估。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=LATE_2026).findings
    assert text[hit.start : hit.end] == "《个人信息保护法》第五十一条"
    assert (
        "第五十五条" in hit.message_zh
        and "“有下列情形之一的，个人信息处理者应当事前进行个人" in hit.message_zh
    )
    assert "“个人信息处理者应当根据个人信息的处理目的" in hit.message_zh
    assert "article 55 fits better" in hit.message_en


def test_renumbered_message_gives_the_number_in_force_and_the_date() -> None:
    text = "根据《网络安全法》第三十七条，关键信息基础设施的运营者收集和产生的个人信息和重要数据应当在境内存储。"
    (hit,) = check(text, catalogue=CATALOGUE, doc_date=LATE_2026).findings
    assert "第三十九条" in hit.message_zh and "2026-01-01" in hit.message_zh
    assert "article 39" in hit.message_en


def test_a_sentence_still_streaming_is_not_judged_yet() -> None:
    text = "依据《个人信息保护法》第五十一条，处理者应当事前进行个人信息保护影响评估"
    assert check(text, catalogue=CATALOGUE, doc_date=LATE_2026).findings == ()
    assert check(text + "。", catalogue=CATALOGUE, doc_date=LATE_2026).findings != ()


def test_resolved_citations_carry_version_and_first_line() -> None:
    result = check("《网络安全法》第三十九条。", catalogue=CATALOGUE, doc_date=LATE_2026)
    (citation,) = result.citations
    assert citation.version == "2025-10-28修正"
    assert citation.first_line is not None and citation.first_line.startswith(
        "关键信息基础设施的运营者"
    )
    assert citation.to_dict()["version"] == "2025-10-28修正"
    before = check("《网络安全法》第三十九条。", catalogue=CATALOGUE, doc_date=MID_2025).citations[
        0
    ]
    assert before.version == "2016-11-07通过"
    assert before.first_line is not None and before.first_line.startswith(
        "国家网信部门应当统筹协调"
    )


def test_the_correct_filing_guide_still_has_no_findings() -> None:
    text = (Path(__file__).parent / "validation_fixtures" / "guide_ok.md").read_text(
        encoding="utf-8"
    )
    sections = ("【适用情形】", "【材料清单】", "【常见错误】")
    assert (
        check(text, required_sections=sections, catalogue=CATALOGUE, doc_date=TODAY).findings == ()
    )


def test_new_codes_are_registered_as_warnings() -> None:
    for code in ("citation.content_mismatch", "citation.renumbered", "citation.not_in_force"):
        assert MESSAGES[code][0] == "warning"


def test_the_labelled_set_is_broad_enough() -> None:
    claims = load_claims(CLAIMS)
    assert len(claims) >= 60
    labels = Counter(c.label for c in claims)
    assert labels["wrong"] >= 20 and labels["right"] >= 20 and labels["no_claim"] >= 5
    assert labels["renumbered"] >= 3
    kinds = {c.kind for c in claims}
    assert {"quote", "partial", "paraphrase", "several", "paragraph", "loose"} <= kinds
    statutes = {c.text.split("《")[1].split("》")[0] for c in claims}
    assert len(statutes) >= 6


@pytest.mark.parametrize("capability", sorted(CAPABILITIES))
def test_shipped_thresholds_meet_precision_and_recall_on_the_set(capability: str) -> None:
    claims = load_claims(CLAIMS)
    scores = evaluate_claims(claims, CATALOGUE, STORE, DEFAULT, capability=capability)
    assert scores.true_pos >= 3, capability  # the set has positives of every capability
    assert scores.precision >= 0.95, scores.misses
    assert scores.recall >= 0.9, scores.misses


def test_faithful_sentences_raise_nothing() -> None:
    """0 false findings on the sentences labelled right (quotes and faithful paraphrases)."""
    for claim in load_claims(CLAIMS):
        if claim.label == "right":
            result = check(claim.text, catalogue=CATALOGUE, doc_date=claim.doc_date, texts=STORE)
            assert result.findings == (), claim.text
