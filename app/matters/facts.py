"""A matter's facts and the forms of its documents: one set of fact fields for every type a
matter drafts (meta.yaml `matter: true`), each document's form filled from them.

The matter's fields are the union of those types' fields, the filing guide's first, named by
the fact each field starts from (`FieldSpec.fact`: its name, or meta.yaml `matter_fact`, as
the confidentiality points' 披露方 starts from the matter's company_name); the matter's number
is every form's matter reference. Types that share a fact must read it alike (same kind and
choices: tests/unit/test_matters.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from app.domain import GenerationParams
from app.prompts import DocType, FieldSpec, validate_values

FIRST_TYPE = "cross-border-filing-guide"  # the filing guide's fact fields open the form
NUMBER_FIELD = "matter_ref"  # every form's matter reference is the matter's number


def matter_types(types: Mapping[str, DocType]) -> list[DocType]:
    """The types a matter drafts, the filing guide first, then by id."""
    chosen = [t for t in types.values() if t.in_matter]
    return sorted(chosen, key=lambda t: (t.id != FIRST_TYPE, t.id))


def matter_fields(types: Mapping[str, DocType]) -> tuple[FieldSpec, ...]:
    """One field per fact of the matter's types (the first type declaring it gives its label,
    kind and choices), all optional: each document's own form says what it requires."""
    fields: dict[str, FieldSpec] = {}
    for doc_type in matter_types(types):
        for spec in doc_type.fields:
            if spec.fact != NUMBER_FIELD and spec.fact not in fields:
                fields[spec.fact] = replace(spec, name=spec.fact, matter_fact="", required=False)
    return tuple(fields.values())


def facts_form(types: Mapping[str, DocType]) -> DocType:
    """The matter's facts as a form (validated as a document type's form is)."""
    return DocType(
        id="matter",
        title_zh="案件事实",
        title_en="Matter facts",
        help_zh="",
        help_en="",
        version="1",
        fields=matter_fields(types),
        required_sections=(),
        numbering="chinese",
        statutes=(),
        defaults=GenerationParams(),
    )


def clean_facts(types: Mapping[str, DocType], facts: Mapping[str, object]) -> dict[str, str]:
    """The matter's facts validated (FieldErrors naming each bad one), empty ones left out."""
    clean = validate_values(facts_form(types), facts)
    return {name: value for name, value in clean.items() if value}


def values_for(doc_type: DocType, number: str, facts: Mapping[str, str]) -> dict[str, str]:
    """The form of `doc_type` as the matter fills it: each field from the fact it starts from,
    the matter reference from the matter's number; a fact the matter lacks stays empty."""
    values = {spec.name: str(facts.get(spec.fact, "") or "") for spec in doc_type.fields}
    if doc_type.get_field(NUMBER_FIELD) is not None:
        values[NUMBER_FIELD] = number
    return values
