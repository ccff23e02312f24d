""" "Propose as firm clauses" under a saved revision on History (issue 23 item 6), with AppTest
against a real temp database: a drafter proposes the changed part with its placeholders, an
admin approves it on the same view, and the next draft uses the firm clause."""

from __future__ import annotations

from pathlib import Path

from app.precedents import firm_clauses
from tests.conftest import app_session
from tests.integration.test_firm_clauses import ADDED, _assembled, _revision, _why_route
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    _history_page,
    app_env,
    make_user,
    page_as,
)
from tests.page_markdown import shown


def test_a_drafter_proposes_and_an_admin_approves_from_history(app_env: Path) -> None:  # noqa: F811
    dana = make_user("dana", "drafter")
    boss = make_user("boss", "admin")
    revision = _revision()
    at = page_as(_history_page, dana)
    assert not at.exception
    assert any(e.label == "Propose as firm clauses" for e in at.expander)
    parts = [shown(m.value) for m in at.markdown]
    assert any("五、是否需要申报" in m and "firm.why-route" in m for m in parts)
    code = next(c.value for c in at.code if ADDED in c.value)
    assert "{{ individuals_count }}人" in code  # the form's count made a placeholder
    assert any("1200000 → {{ individuals_count }}" in shown(c.value) for c in at.caption)
    assert not [b for b in at.button if str(b.key).startswith("precedents.approve.")]

    at.checkbox(key=f"precedents.{revision}.0.ph").uncheck().run()  # the case's own values
    assert any("1200000人" in c.value and ADDED in c.value for c in at.code)
    at.checkbox(key=f"precedents.{revision}.0.ph").check().run()
    at.button(key=f"precedents.{revision}.0.propose").click().run()
    assert not at.exception
    assert any(s.value.startswith("Proposed #1") for s in at.success)
    with app_session() as session:
        (row,) = firm_clauses.pending(session=session)
    assert "{{ individuals_count }}" in row.text and row.proposed_by == "dana"
    at.run()  # the part proposed from this revision is shown as such, not offered again
    assert any(
        c.value.startswith("This part of this revision is already proposed as #1")
        for c in at.caption
    )
    assert any(
        "firm.why-route (proposed, waiting for approval)" in shown(m.value) for m in at.markdown
    )
    assert not [b for b in at.button if str(b.key).endswith(".propose")]

    admin = page_as(_history_page, boss)
    admin.button(key=f"precedents.approve.{row.id}").click().run()
    assert not admin.exception
    assert any(shown(s.value) == "Approved: firm.why-route version 1." for s in admin.success)
    assert _why_route(_assembled()).clause == "firm.why-route"
    admin.run()
    assert any("firm.why-route (approved, version 1)" in shown(m.value) for m in admin.markdown)
