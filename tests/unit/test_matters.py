"""A matter's data agrees with itself: the types it drafts read each shared fact alike, the
documents its route needs name real types and bases held in the statute texts, and each form
is filled from the facts it starts from."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from app.matters.facts import NUMBER_FIELD, matter_fields, matter_types, values_for
from app.matters.needs import NEEDS, document_needs, needed_documents
from app.prompts import load_library
from app.route.form import decision_from_values
from app.validation.texts import load_texts

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TYPES = load_library(PROMPTS).types


def test_the_matters_types_read_each_shared_fact_alike() -> None:
    readings = defaultdict(set)
    for doc_type in matter_types(TYPES):
        for spec in doc_type.fields:
            readings[spec.fact].add((spec.kind, spec.choices))
    mixed = {fact: kinds for fact, kinds in readings.items() if len(kinds) > 1}
    assert mixed == {}


def test_the_matter_form_is_the_union_of_its_types_fields_guide_first() -> None:
    assert next(t.id for t in matter_types(TYPES)) == "cross-border-filing-guide"
    names = [f.name for f in matter_fields(TYPES)]
    guide = [f.fact for f in TYPES["cross-border-filing-guide"].fields if f.fact != NUMBER_FIELD]
    assert names[: len(guide)] == guide
    for fact in ("assessment_end", "data_items", "receiving_abroad", "contract_effective_date"):
        assert fact in names
    assert NUMBER_FIELD not in names and len(names) == len(set(names))
    assert not any(f.required for f in matter_fields(TYPES))


def test_each_form_starts_from_the_facts_it_names() -> None:
    facts = {"company_name": "甲公司", "recipient": "乙公司（新加坡）", "industry": "金融"}
    points = values_for(TYPES["confidentiality-agreement-points"], "MC-1", facts)
    assert (points["disclosing_party"], points["receiving_party"]) == ("甲公司", "乙公司（新加坡）")
    assert points["matter_ref"] == "MC-1" and points["scenario"] == ""
    assert values_for(TYPES["clause-continuation"], "MC-1", facts).get("matter_ref", "") in (
        "",
        "MC-1",
    )


@pytest.mark.parametrize("need", document_needs(), ids=lambda n: f"{n.type_id}-{n.need}")
def test_every_needed_document_is_a_type_with_a_held_basis(need) -> None:  # type: ignore[no-untyped-def]
    assert need.type_id in TYPES and TYPES[need.type_id].in_matter
    assert need.need in NEEDS and need.why.zh and need.why.en
    if need.basis is None:
        assert need.need == "optional"
        return
    version = load_texts().latest(need.basis.statute)
    assert version is not None, need.basis.statute
    article = version.article(need.basis.article)
    assert article is not None and article.has_part(None, need.basis.item)


@pytest.mark.parametrize(
    ("facts", "filed"),
    [
        ({"individuals_count": "1200000"}, ["self-assessment-report"]),
        ({"important_data": "是", "individuals_count": "0"}, ["self-assessment-report"]),
        ({"individuals_count": "150000"}, ["pia-report"]),
        ({"individuals_count": "500", "sensitive_count": "800"}, ["pia-report"]),
        ({"individuals_count": "5000"}, []),
    ],
)
def test_each_route_files_its_own_report(facts: dict[str, str], filed: list[str]) -> None:
    values = {"is_ciio": "否", "important_data": "否", "sensitive_count": "0", "exemption": "无",
              **facts}  # fmt: skip
    needs = needed_documents(decision_from_values(values), values)
    assert [n.type_id for n in needs if n.need == "filed"] == filed
    assert needs[-1].type_id == "confidentiality-agreement-points"
