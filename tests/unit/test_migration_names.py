"""audit.db.head_revision reads the newest revision from the scripts' names; Alembic reads it by
importing them. The two must agree, and every script must be named after its revision, in one
line of history, for the names to be a reading at all."""

from __future__ import annotations

from alembic.script import ScriptDirectory

from audit.db import alembic_config, head_revision, script_revisions


def test_each_script_is_named_after_its_revision_in_one_line_of_history() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    revisions = list(scripts.walk_revisions())  # newest first
    assert len(scripts.get_heads()) == 1
    assert [r.revision for r in revisions] == script_revisions()[::-1]


def test_the_head_from_the_names_is_alembics() -> None:
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()
