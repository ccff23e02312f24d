"""Page parts for saved revisions: the Save button under the draft editor, and History's
list of revisions with the redline against the model's text and the exports of any version."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import describe
from app.i18n import t
from app.pages.findings_view import show_findings, show_text
from app.ui_state import current_user, db_session, lang, library, tr
from audit.domain import StoredGeneration, User

if TYPE_CHECKING:
    from app.pages.draft_run import DraftResult
    from audit.revisions import StoredRevision

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
SAVED = "revisions.saved_text"  # generation id -> the text last saved from this browser


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _saved_texts() -> dict[int, str]:
    saved: dict[int, str] = st.session_state.setdefault(SAVED, {})
    return saved


def save(
    user: User, generation_id: int, text: str, required: tuple[str, ...]
) -> StoredRevision | None:
    """Save `text` as a revision; shows the outcome, returns the revision or None."""
    from app import revisions

    try:
        with db_session() as session:
            saved = revisions.save_revision(
                user, generation_id, text, session=session, required_sections=required
            )
    except Exception as exc:  # unchanged, empty, no permission, database down: say so
        st.error(tr("revisions.save_failed", detail=describe(exc).text(lang())))
        return None
    _saved_texts()[generation_id] = text
    errors = sum(1 for f in saved.findings if f.get("severity") == "error")
    st.success(
        tr("revisions.saved", number=saved.number, time=_when(saved.created_at), errors=errors)
    )
    return saved


def save_button(result: DraftResult, text: str) -> None:
    """Save revision, under the Draft page's editor (the draft must be in the audit log)."""
    user = current_user()
    if user is None:
        return
    if result.generation_id is None:
        st.caption(tr("revisions.not_logged"))
        return
    last = _saved_texts().get(result.generation_id, result.text)
    cols = st.columns([1, 3])
    clicked = cols[0].button(
        tr("revisions.save"),
        key=f"revisions.save.{result.token}",
        help=tr("revisions.save_help"),
        icon=":material/save:",
    )
    if clicked:
        save(user, result.generation_id, text, result.request.required_sections)
    elif text != last:
        cols[1].caption(tr("revisions.unsaved"))


def approval_text(user: User, result: DraftResult, text: str) -> tuple[str, int | None] | None:
    """The text "Approve as precedent" uses: the latest saved revision, saving edits first.

    Returns (text, revision id or None for the model's own text), or None when saving failed.
    The approved text is always the one on screen, and always in the audit log.
    """
    from app import revisions

    if result.generation_id is None:
        return text, None
    with db_session() as session:
        now = revisions.current_text(result.generation_id, session=session)
    if now is None:
        return text, None
    if text != now.text:
        saved = save(user, result.generation_id, text, result.request.required_sections)
        if saved is None:
            return None
        revision = saved
    elif now.revision is None:
        return text, None
    else:
        revision = now.revision
    st.caption(tr("revisions.approved_revision", number=revision.number))
    return revision.text, revision.id


def _type_title(doc_type: str) -> str:
    types = library().types
    return types[doc_type].title(lang()) if doc_type in types else doc_type


def _table(items: list[StoredRevision]) -> None:
    rows = [
        {
            tr("revisions.col_number"): r.number,
            tr("revisions.col_time"): _when(r.created_at),
            tr("revisions.col_user"): r.user_name,
            tr("revisions.col_chars"): len(r.text),
            tr("revisions.col_errors"): sum(1 for f in r.findings if f.get("severity") == "error"),
        }
        for r in items
    ]
    st.dataframe(rows, hide_index=True, width="stretch")


def _redline(model_text: str, revision: StoredRevision) -> None:
    from app.redline import count_changes, redline, to_html

    segments = redline(model_text, revision.text)
    counted = count_changes(segments)
    st.markdown(f"**{tr('revisions.redline')}**")
    if not counted.changes:
        st.info(tr("revisions.no_changes"))
        return
    st.caption(
        tr(
            "revisions.redline_counts",
            inserted=counted.inserted,
            deleted=counted.deleted,
            changes=counted.changes,
        )
        + " "
        + tr("revisions.redline_legend")
    )
    st.html(to_html(segments))


def _downloads(stored: StoredGeneration, revision: StoredRevision | None) -> None:
    from app.revision_export import file_stem, version_docx, version_text

    stem = file_stem(stored, revision)
    key = f"{stored.id}.{revision.id if revision else 'model'}"
    cols = st.columns(3)
    cols[0].download_button(
        tr("revisions.download_md"),
        version_text(stored, revision).encode("utf-8"),
        f"{stem}.md",
        "text/markdown",
        key=f"history.md.{key}",
    )
    tracked = revision is not None and cols[2].checkbox(
        tr("revisions.tracked"), key=f"history.tracked.{key}"
    )
    try:
        data = version_docx(
            stored, revision, title=_type_title(stored.record.doc_type), tracked=tracked
        )
    except Exception as exc:
        cols[1].error(tr("revisions.docx_failed", detail=describe(exc).text(lang())))
        return
    name = f"{stem}-tracked.docx" if tracked else f"{stem}.docx"
    cols[1].download_button(
        tr("revisions.download_docx"), data, name, DOCX_MIME, key=f"history.docx.{key}"
    )


def history_versions(user: User, stored: StoredGeneration) -> StoredRevision | None:
    """History: the revisions of a generation, a version picker, its redline and downloads.

    Returns the chosen revision (None: the model's text) so the page shows its text.
    """
    from app import revisions

    with db_session() as session:
        items = revisions.list_revisions(user, stored.id, session=session)
    st.markdown(f"#### {tr('revisions.title')}")
    if not items:
        st.caption(tr("revisions.none"))
        _downloads(stored, None)
        return None
    st.caption(tr("revisions.count", n=len(items)))
    _table(items)
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    by_id = {r.id: r for r in items}
    chosen = st.selectbox(
        tr("revisions.version"),
        [*(r.id for r in reversed(items)), None],
        key=f"history.version.{stored.id}",
        format_func=lambda i: (
            t("revisions.model_version", ui_lang, id=stored.id)
            if i is None
            else t(
                "revisions.revision_version",
                ui_lang,
                number=by_id[i].number,
                user=by_id[i].user_name,
                time=_when(by_id[i].created_at),
            )
        ),
    )
    revision = by_id.get(chosen) if chosen is not None else None
    if revision is not None:
        _redline(stored.record.output_text, revision)
        with st.expander(tr("revisions.text")):
            from app.revisions import findings_of

            findings = list(findings_of(revision.findings))
            left, right = st.columns([3, 2])
            with left:
                show_text(revision.text, findings)
            with right:
                show_findings(findings)
    _downloads(stored, revision)
    return revision
