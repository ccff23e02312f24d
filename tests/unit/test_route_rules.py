"""The route rules file agrees with itself, the statute catalogue and the held statute texts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.config import REPO_ROOT
from app.prompts import load_library
from app.route.form import (
    COUNT_FIELDS,
    EXEMPTION_CHOICES,
    YES_NO,
    decision_from_values,
    facts_from_values,
)
from app.route.rules import RULES_FILE, RulesError, load_rules, parse_rules, resolve_basis
from app.validation import load_catalogue
from app.validation.texts import load_texts


def _article_text(statute: str, article: int) -> str:
    text = load_texts().latest(statute)
    assert text is not None, f"{statute} is not in the statute-text store"
    held = text.article(article)
    assert held is not None
    return held.text


def test_every_threshold_quote_is_found_verbatim_in_the_held_text() -> None:
    rules = load_rules()
    for threshold in rules.thresholds.values():
        statute, article, quote = threshold.cross_check
        assert quote in _article_text(statute, article), threshold.name
        digits = {
            "individuals": {1_000_000: "100万", 100_000: "10万"},
            "sensitive": {10_000: "1万"},
        }
        assert digits[threshold.counts][threshold.value] in quote


def test_the_counting_rule_is_the_civil_codes_with_its_text() -> None:
    statute, article, quote = load_rules().counting
    assert quote in _article_text(statute, article)
    assert "“以上”" in quote and "“不满”" in quote


def test_a_basis_is_marked_checked_only_where_its_text_is_held() -> None:
    rules = load_rules()
    store = load_texts()
    cited = [b for r in rules.rules for b in r.basis] + [
        t.source for t in rules.thresholds.values()
    ]
    cited += [b for b, _ in rules.exemptions.values()]
    for basis in cited:
        held = store.latest(basis.statute) is not None
        assert basis.text_checked == held, basis.label()
        if held:
            assert _article_text(basis.statute, basis.article)
    regulation = [b for b in cited if b.statute == rules.regulation]
    assert regulation and all(b.text_checked for b in regulation)  # held since round 3


def test_each_threshold_reads_verbatim_in_the_regulation() -> None:
    for threshold in load_rules().thresholds.values():
        source = threshold.source
        assert threshold.text.zh in _article_text(source.statute, source.article), threshold.name


def test_a_basis_outside_the_catalogue_is_refused() -> None:
    data = yaml.safe_load(RULES_FILE.read_text(encoding="utf-8"))
    data["rules"][0]["basis"][0]["article"] = 15  # the regulation has 14 articles
    with pytest.raises(RulesError, match="14"):
        resolve_basis(parse_rules(data), load_catalogue(None))
    data["rules"][0]["basis"][0] = {"statute": "数据出境办法", "article": 1}
    with pytest.raises(RulesError):
        resolve_basis(parse_rules(data), load_catalogue(None))


def test_the_transfer_types_offer_exactly_the_choices_the_route_reads() -> None:
    lib = load_library(REPO_ROOT / "prompts")
    transfer = [t for t in lib.types.values() if t.route]
    assert {t.id for t in transfer} == {"cross-border-filing-guide", "standard-contract-filing",
                                        "self-assessment-report", "pia-report"}  # fmt: skip
    for doc in transfer:
        assert set(doc.get_field("exemption").choices) == set(EXEMPTION_CHOICES)  # type: ignore[union-attr]
        assert set(doc.get_field("important_data").choices) <= set(YES_NO)  # type: ignore[union-attr]
        assert set(doc.get_field("is_ciio").choices) <= set(YES_NO)  # type: ignore[union-attr]
        for name in COUNT_FIELDS:
            assert doc.get_field(name).kind == "count"  # type: ignore[union-attr]
        assert decision_from_values(doc.example_values()) is not None


@pytest.mark.parametrize(
    ("values", "complete"),
    [
        ({"is_ciio": "否", "important_data": "否", "individuals_count": "1,200,000"}, True),
        ({"is_ciio": "尚未认定", "important_data": "否", "individuals_count": "5"}, True),
        ({"is_ciio": "", "important_data": "否", "individuals_count": "5"}, False),
        ({"is_ciio": "否", "important_data": "", "individuals_count": "5"}, False),
        ({"is_ciio": "否", "important_data": "否", "individuals_count": ""}, False),
        ({"is_ciio": "否", "important_data": "否", "individuals_count": "-5"}, False),
        (
            {
                "is_ciio": "否",
                "important_data": "否",
                "individuals_count": "5",
                "sensitive_count": "-5",
            },
            False,
        ),
        (
            {"is_ciio": "否", "important_data": "否", "individuals_count": "5", "exemption": "x"},
            False,
        ),
        # the exempt part cannot be larger than the count it is part of
        (
            {
                "is_ciio": "否",
                "important_data": "否",
                "individuals_count": "5",
                "exemption": "依法实施跨境人力资源管理",
                "exempt_individuals": "6",
            },
            False,
        ),
        (
            {
                "is_ciio": "否",
                "important_data": "否",
                "individuals_count": "5",
                "exemption": "依法实施跨境人力资源管理",
                "exempt_individuals": "5",
            },
            True,
        ),
    ],
)
def test_form_values_give_facts_only_when_complete(values: dict[str, str], complete: bool) -> None:
    assert (facts_from_values(values) is not None) == complete


def test_the_rules_file_is_where_the_docs_say() -> None:
    assert RULES_FILE == REPO_ROOT / "app" / "route" / "rules.yaml"
    assert Path(REPO_ROOT / "docs" / "routes.md").is_file()


def test_the_paragraph_by_which_exemptions_prevail_is_quoted_in_full_with_how_it_was_read() -> None:
    """规定第七条、第八条第二款: quoted from the statute-text store, no longer “not read”."""
    prevails = load_rules().prevails
    quote = prevails.quote()
    assert quote.zh == (
        "《促进和规范数据跨境流动规定》第七条第二款、第八条第二款："
        "属于本规定第三条、第四条、第五条、第六条规定情形的，从其规定。"
    )
    assert "推定" in prevails.note.zh and "inferred" in prevails.note.en
    assert "未能从公开来源读到" not in load_rules().scope_note.zh
