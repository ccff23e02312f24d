"""audit/vocabulary.py: the one home of the stored vocabularies. Members serialise as their
stored text (so chain hashes do not change), and the models' CHECK constraints are the ones
the migrations set, as the newest to set each froze it (0010 added them; Alembic's model
comparison does not look at CHECK constraints)."""

from __future__ import annotations

import importlib.util
import json
from enum import StrEnum
from pathlib import Path

import pytest
from sqlalchemy import CheckConstraint

from audit import chain, vocabulary
from audit.db import all_metadata

ROOT = Path(__file__).resolve().parents[2]
VOCABULARIES = [
    v
    for v in vars(vocabulary).values()
    if isinstance(v, type) and issubclass(v, StrEnum) and v is not StrEnum
]


def _migrated_checks() -> dict[tuple[str, str], list[str]]:
    """Each constrained column's allowed values as the newest migration that sets them froze
    them (0010 added the constraints; a later one widens a vocabulary, as 0011 the kinds)."""
    allowed: dict[tuple[str, str], list[str]] = {}
    for path in sorted((ROOT / "audit" / "migrations" / "versions").glob("0*.py")):
        spec = importlib.util.spec_from_file_location(f"migration_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        allowed.update(getattr(module, "ALLOWED", {}))
    return allowed


@pytest.mark.parametrize("vocabulary_type", VOCABULARIES, ids=lambda v: v.__name__)
def test_members_serialise_as_their_stored_text(vocabulary_type: type[StrEnum]) -> None:
    for member in vocabulary_type:
        assert str(member) == f"{member}" == member.value
        assert json.dumps({member: [member]}) == json.dumps({member.value: [member.value]})
        content = {"status": member}
        assert chain.row_hash("t", content) == chain.row_hash("t", {"status": member.value})


def test_models_checks_are_the_migrations() -> None:
    found = {
        (table.name, str(c.name).removeprefix(f"ck_{table.name}_")): str(c.sqltext)
        for table in all_metadata().tables.values()
        for c in table.constraints
        if isinstance(c, CheckConstraint)
    }
    migrated = {
        key: vocabulary.in_list(key[1], values) for key, values in _migrated_checks().items()
    }
    assert found == migrated


def test_one_of_names_the_constraint_after_its_column() -> None:
    check = vocabulary.one_of("status", vocabulary.ItemStatus)
    assert check.name == "status"
    assert str(check.sqltext) == "status IN ('pending', 'complete', 'error')"


def test_the_table_registry_maps_every_table_module() -> None:
    """audit/tables.py lists every module that declares tables on Base, and its metadata is
    the one Alembic compares: each listed module's tables are in it."""
    from audit.tables import METADATA, TABLE_MODULES

    assert all_metadata() is METADATA
    for module in TABLE_MODULES:
        declared = {
            value.__table__.name
            for value in vars(module).values()
            if isinstance(value, type) and hasattr(value, "__table__")
        }
        assert declared, module.__name__
        assert declared <= set(METADATA.tables), module.__name__
