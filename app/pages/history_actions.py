"""History's actions on the version shown: continue editing it on the Draft page, and restore
an older revision as the newest (a new revision; nothing is overwritten)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.domain import Role, describe
from app.pages.ui_state import context, lang, tr

if TYPE_CHECKING:
    from audit.domain import StoredGeneration, User
    from audit.revisions import StoredRevision


NOTE = "history.restored_note"


def _newest(generation_id: int) -> int:
    from app.drafting.revisions import current_text

    with context().session() as session:
        latest = current_text(generation_id, session=session)
    return latest.number if latest is not None else 0


def _continue_editing(generation_id: int, revision_id: int | None) -> None:
    """Open this version on the Draft page, in its editor with its form."""
    from app.pages import draft, draft_state

    draft_state.open_next(generation_id, revision_id)
    st.switch_page(st.Page(draft.render, url_path="drafting"))


def actions(user: User, stored: StoredGeneration, revision: StoredRevision | None) -> None:
    """Under the chosen version: "Continue editing" (drafters, admins), and for a revision older
    than the newest "Restore as new revision"."""

    note = st.session_state.pop(NOTE, None)
    if note:
        st.success(note)
    if user.role not in (Role.DRAFTER, Role.ADMIN):
        return
    key = f"{stored.id}.{revision.id if revision else 'model'}"
    cols = st.columns([1, 1, 2])
    if cols[0].button(
        tr("history.continue"),
        key=f"history.continue.{key}",
        icon=":material/edit:",
        help=tr("history.continue_help"),
    ):
        _continue_editing(stored.id, revision.id if revision else None)
    if revision is None or revision.number == _newest(stored.id):
        return
    if cols[1].button(
        tr("history.restore", number=revision.number),
        key=f"history.restore.{key}",
        icon=":material/restore:",
        help=tr("history.restore_help"),
    ):
        _restore(user, revision)


def _restore(user: User, revision: StoredRevision) -> None:
    from app.drafting.revisions import restore_revision

    ctx = context()
    try:
        with ctx.session() as session:
            saved = restore_revision(
                revision.id, settings=ctx.settings, session=session, actor=user
            )
    except Exception as exc:  # noqa: BLE001 - no permission, database down: say so, nothing changed
        st.error(tr("revisions.save_failed", detail=describe(exc).text(lang())))
        return
    st.session_state[NOTE] = tr("history.restored", number=revision.number, new=saved.number)
    st.rerun()  # the revisions' table above shows the new one
