"""Page part under a saved revision on History: "Propose as firm clauses" (the parts the lawyer
changed or wrote, with the form's values as placeholders and the clause library's checks), and
for an admin the proposals of that revision to approve or reject (app/precedents/firm_clauses.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.domain import ClauseStatus, Role, describe
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, tr
from audit.domain import User

if TYPE_CHECKING:
    from app.precedents.firm_clauses import Candidate
    from audit.firm_clauses import StoredFirmClause
    from audit.revisions import StoredRevision


def _earlier(cand: Candidate, rows: list[StoredFirmClause]) -> bool:
    """Show the part's proposal already made from this revision, if any; True when it is
    pending or approved (the part is not offered again: one revision, one proposal per part)."""
    row = next((r for r in reversed(rows) if r.part == cand.part), None)
    if row is None:
        return False
    if row.status == ClauseStatus.REJECTED:
        st.caption(
            tr(
                "precedents.was_rejected",
                id=row.id,
                user=row.decided_by or "",
                note=row.note or "—",
            )
        )
        return False
    kind = tr(f"precedents.status_{row.status}", version=row.version)
    st.markdown(f"**{tr('precedents.part', title=cand.title, clause=row.clause_id, kind=kind)}**")
    st.code(row.text, language=None, wrap_lines=True)
    st.caption(tr("precedents.was_proposed", id=row.id))
    return True


def _candidate(user: User, cand: Candidate, n: int) -> None:
    from app.precedents import firm_clauses

    ctx = context()
    kind = tr("precedents.new_version" if cand.new_version else "precedents.new_clause")
    st.markdown(f"**{tr('precedents.part', title=cand.title, clause=cand.clause_id, kind=kind)}**")
    key = f"precedents.{cand.revision_id}.{n}"
    general = bool(st.checkbox(tr("precedents.use_placeholders"), value=True, key=f"{key}.ph"))
    draft = cand.draft(user.name, settings=ctx.settings, placeholders=general)
    st.code(draft.text, language=None, wrap_lines=True)
    if general:
        pairs = ", ".join(f"{v} → {{{{ {f} }}}}" for v, f in cand.placeholders)
        st.caption(tr("precedents.replaced", pairs=pairs) if pairs else tr("precedents.no_values"))
    reason = firm_clauses.refusal(draft, firm_clauses.type_library(cand.doc_type, ctx.settings))
    if reason is not None:
        st.warning(tr("precedents.checks_failed", detail=reason))
        return
    st.caption(tr("precedents.checks_ok"))
    if st.button(tr("precedents.propose"), key=f"{key}.propose", icon=":material/library_add:"):
        try:
            with ctx.session() as session:
                row = firm_clauses.propose(
                    draft, settings=ctx.settings, session=session, actor=user
                )
        except Exception as exc:  # noqa: BLE001 - refused, no permission, database down
            st.error(tr("precedents.failed", detail=describe(exc).text(lang())))
            return
        st.success(tr("precedents.proposed", id=row.id))


def _decide(user: User, row: StoredFirmClause, where: str = "precedents") -> None:
    """An admin's Approve / Reject of one proposal (with the reason for a rejection); `where`
    prefixes the widgets' keys (the list at the top of History and a revision's own)."""
    from app.precedents import firm_clauses

    ctx = context()
    cols = st.columns([1, 1, 3])
    note = cols[2].text_input(tr("precedents.reject_note"), key=f"{where}.note.{row.id}")
    try:
        if cols[0].button(tr("precedents.approve"), key=f"{where}.approve.{row.id}"):
            with ctx.session() as session:
                done = firm_clauses.approve(
                    row.id, settings=ctx.settings, session=session, actor=user
                )
            st.success(tr("precedents.approved", clause=done.clause_id, version=done.version))
        elif cols[1].button(tr("precedents.reject"), key=f"{where}.reject.{row.id}"):
            with ctx.session() as session:
                done = firm_clauses.reject(row.id, note=str(note), session=session, actor=user)
            st.success(tr("precedents.rejected", clause=done.clause_id))
    except Exception as exc:  # noqa: BLE001 - refused by the checks, decided meanwhile, database down
        st.error(tr("precedents.failed", detail=describe(exc).text(lang())))


def _decisions(user: User, revision: StoredRevision) -> None:
    """An admin's approve / reject of the proposals made from this revision."""
    from app.precedents import firm_clauses

    with context().session() as session:
        waiting = firm_clauses.pending(session=session, revision_id=revision.id)
    if not waiting:
        return
    st.markdown(f"**{tr('precedents.pending')}**")
    for row in waiting:
        st.caption(
            tr("precedents.pending_line", id=row.id, clause=row.clause_id, part=row.part,
               user=row.proposed_by)
        )  # fmt: skip
        _decide(user, row)


def pending_list(user: User) -> None:
    """Admins, at the top of History: every proposal waiting for approval, with its text, where
    it came from and Approve / Reject (those decided here leave the list at the next click)."""
    from app.precedents import firm_clauses

    ctx = context()
    if user.role != Role.ADMIN:
        return
    try:
        with ctx.session() as session:
            waiting = firm_clauses.pending(session=session)
    except Exception as exc:  # noqa: BLE001 - database down: say so, History still works
        st.error(tr("precedents.failed", detail=describe(exc).text(lang())))
        return
    if not waiting:
        st.caption(tr("precedents.pending_none"))
        return
    types = ctx.knowledge.types
    with st.expander(tr("precedents.pending_all", n=len(waiting)), expanded=True):
        for row in waiting:
            title = types[row.doc_type].title(lang()) if row.doc_type in types else row.doc_type
            st.markdown(
                f"**#{plain(row.id)} {plain(row.clause_id)}** · {plain(title)} · {plain(row.part)}"
            )
            when = row.proposed_at.strftime("%Y-%m-%d %H:%M")
            source = row.source_revision_id or "—"
            st.caption(tr("precedents.pending_from", user=row.proposed_by, time=when,
                          revision=source))  # fmt: skip
            st.code(row.text, language=None, wrap_lines=True)
            _decide(user, row, "precedents.list")


def proposals(user: User, revision: StoredRevision) -> None:
    """Propose the revision's changed parts as firm clauses; an admin decides on them here."""
    from app.precedents import firm_clauses

    ctx = context()
    with st.expander(tr("precedents.title")):
        st.caption(tr("precedents.help"))
        found: tuple[Candidate, ...] = ()
        made: list[StoredFirmClause] = []
        try:
            with ctx.session() as session:
                found = firm_clauses.candidates(
                    revision.id, settings=ctx.settings, session=session, actor=user
                )
                made = firm_clauses.from_revision(revision.id, session=session)
            if not found:
                st.info(tr("precedents.none"))
        except Exception as exc:  # noqa: BLE001 - a free-form draft, an outline changed since, no permission
            st.info(tr("precedents.failed", detail=describe(exc).text(lang())))
        for n, cand in enumerate(found):
            if not _earlier(cand, made):
                _candidate(user, cand, n)
        if user.role == Role.ADMIN:
            _decisions(user, revision)
