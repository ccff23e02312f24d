"""Page parts for saved revisions: the Save button under the draft editor, and History's
list of revisions with the redline against the model's text and the exports of any version."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import Role, describe
from app.i18n import t
from app.pages.findings_view import text_and_findings
from app.pages.plain_text import plain
from app.pages.ui_state import context, current_user, lang, tr
from audit.domain import StoredGeneration, User

if TYPE_CHECKING:
    from app.drafting.revisions import CurrentText
    from app.pages.draft_run import DraftResult
    from audit.revisions import StoredRevision

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
EDITOR_HEIGHT = 800  # pixels: about 35 lines, a page and a half of a report in view at once
BASES = "revisions.base"  # generation id -> (revision number, text) the editor was opened on


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _bases() -> dict[int, tuple[int, str]]:
    bases: dict[int, tuple[int, str]] = st.session_state.setdefault(BASES, {})
    return bases


def editor_key(result: DraftResult) -> str:
    return f"draft.edit.{result.token}"


def open_editor(result: DraftResult, base: int, base_text: str, text: str) -> None:
    """Open the editor of `result` on `text`, edited from revision `base` (0: the model's text)
    whose text is `base_text` (app/pages/draft_state.py: a reload, History's Continue editing)."""
    if result.generation_id is not None:
        _bases()[result.generation_id] = (base, base_text)
    st.session_state[editor_key(result)] = text


def base_number(generation_id: int) -> int | None:
    """The revision the editor of this generation was opened on (None: not opened)."""
    base = _bases().get(generation_id)
    return base[0] if base is not None else None


def _latest(generation_id: int) -> CurrentText | None:
    from app.drafting import revisions

    with context().session() as session:
        return revisions.current_text(generation_id, session=session)


def _open(key: str, generation_id: int, number: int, text: str) -> None:
    """Put revision `number`'s text (0: the model's) in the editor and edit from it."""
    st.session_state[key] = text
    _bases()[generation_id] = (number, text)


def _load_newest(key: str, generation_id: int) -> None:
    """Button callback: the editor takes the newest revision (it runs before widgets are drawn)."""
    latest = _latest(generation_id)
    if latest is not None:
        _open(key, generation_id, latest.number, latest.text)
        st.session_state[f"{key}.loaded"] = latest.number


def _base_name(number: int) -> str:
    return tr("revisions.base_revision", number=number) if number else tr("revisions.base_model")


def editor(result: DraftResult) -> str:
    """The Draft page's editor, opened on the generation's latest saved revision (a page visit,
    a reload or another tab's save never brings back an older text); returns the text in it."""
    key = editor_key(result)
    gid = result.generation_id
    base = _bases().get(gid) if gid is not None else None
    if gid is not None and base is None:  # first time here: the newest saved revision
        latest = _latest(gid)
        saved = latest is not None and latest.revision is not None
        base = (latest.number, latest.text) if latest and saved else (0, result.text)
        _open(key, gid, *base)
    if key not in st.session_state:
        st.session_state[key] = base[1] if base is not None else result.text
    loaded = st.session_state.pop(f"{key}.loaded", None)
    if loaded is not None:
        st.success(tr("revisions.loaded", number=loaded))
    text = str(st.text_area(tr("draft.edit"), height=EDITOR_HEIGHT, key=key))
    if base is not None and base[0]:
        st.caption(tr("revisions.editing", base=_base_name(base[0])))
    return text


def _newer_than_base(result: DraftResult, text: str) -> None:
    """When another tab or lawyer saved a newer revision: say so, offer to load it, show how it
    differs from the editor's text."""
    from app.export.redline import redline, to_html

    gid = result.generation_id
    base = _bases().get(gid) if gid is not None else None
    latest = _latest(gid) if gid is not None and base is not None else None
    if base is None or latest is None or latest.revision is None or latest.number == base[0]:
        return
    revision = latest.revision
    st.warning(
        tr(
            "revisions.conflict",
            user=revision.user_name,
            time=_when(revision.created_at),
            number=revision.number,
            base=_base_name(base[0]),
        )
    )
    st.button(
        tr("revisions.load_newest"),
        key=f"revisions.load.{result.token}",
        on_click=_load_newest,
        args=(editor_key(result), gid),
        help=tr("revisions.load_newest_help"),
    )
    with st.expander(tr("revisions.compare_newest")):
        st.html(to_html(redline(revision.text, text)))


def save(user: User, result: DraftResult, text: str) -> StoredRevision | None:
    """Save `text` as a revision based on the one the editor was opened on; shows the outcome,
    returns the revision or None."""
    from app.drafting import revisions

    ctx = context()
    gid = result.generation_id
    if gid is None:
        return None
    base = _bases().get(gid, (0, result.text))[0]
    try:
        with ctx.session() as session:
            saved = revisions.save_revision(
                gid,
                text,
                settings=ctx.settings,
                session=session,
                actor=user,
                base_revision=base,
            )
    except Exception as exc:  # noqa: BLE001 - a newer revision, unchanged, empty, no permission, database down
        st.error(tr("revisions.save_failed", detail=describe(exc).text(lang())))
        return None
    _bases()[gid] = (saved.number, text)
    st.success(
        tr(
            "revisions.saved",
            number=saved.number,
            time=_when(saved.created_at),
            errors=saved.error_count,
        )
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
    cols = st.columns([1, 3])
    clicked = cols[0].button(
        tr("revisions.save"),
        key=f"revisions.save.{result.token}",
        help=tr("revisions.save_help"),
        icon=":material/save:",
    )
    if clicked:
        save(user, result, text)
    elif text != _bases().get(result.generation_id, (0, result.text))[1]:
        cols[1].caption(tr("revisions.unsaved"))
    _newer_than_base(result, text)


def approval_text(user: User, result: DraftResult, text: str) -> tuple[str, int | None] | None:
    """The text "Approve as precedent" uses: the latest saved revision, saving edits first.

    Returns (text, revision id or None for the model's own text), or None when saving failed
    (a newer revision than the editor's included: the lawyer decides first).
    The approved text is always the one on screen, and always in the audit log.
    """
    if result.generation_id is None:
        return text, None
    now = _latest(result.generation_id)
    if now is None:
        return text, None
    if text != now.text:
        saved = save(user, result, text)
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
    types = context().knowledge.types
    return types[doc_type].title(lang()) if doc_type in types else doc_type


def _table(items: list[StoredRevision]) -> None:
    rows = [
        {
            tr("revisions.col_number"): r.number,
            tr("revisions.col_time"): _when(r.created_at),
            tr("revisions.col_user"): r.user_name,
            tr("revisions.col_chars"): len(r.text),
            tr("revisions.col_errors"): r.error_count,
        }
        for r in items
    ]
    st.dataframe(rows, hide_index=True, width="stretch")


def _redline(model_text: str, revision: StoredRevision) -> None:
    from app.export.redline import count_changes, redline, to_html

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


def _type_style(stored: StoredGeneration) -> str:
    """The DOCX style of the draft's document type (standard when the type is gone)."""
    doc_type = context().knowledge.types.get(stored.record.doc_type)
    return doc_type.docx_style if doc_type is not None else "standard"


def _downloads(stored: StoredGeneration, revision: StoredRevision | None) -> None:
    from app.drafting.revision_export import export_meta, file_name, version_docx, version_text
    from app.export.naming import Copy
    from app.pages.docx_style import style_picker

    ctx = context()
    key = f"{stored.id}.{revision.id if revision else 'model'}"
    meta = export_meta(
        stored, revision, title=_type_title(stored.record.doc_type), settings=ctx.settings
    )
    cols = st.columns(3)
    cols[0].download_button(
        tr("revisions.download_md"),
        version_text(stored, revision).encode("utf-8"),
        file_name(meta, revision, ext="md"),
        "text/markdown",
        key=f"history.md.{key}",
    )
    copies: list[Copy] = ["client", "review"]
    if revision is not None:
        copies.append("tracked")
    names = [tr(f"revisions.copy_{c}") for c in copies]
    chosen = cols[2].radio(tr("revisions.copy"), names, key=f"history.copy.{key}")
    copy = copies[names.index(chosen)] if chosen in names else copies[0]
    with cols[2]:  # drawn on every run (a widget left out loses its state): tracked is standard
        picked = style_picker(
            _type_style(stored), f"history.style.{key}", disabled=copy == "tracked"
        )
    style = "standard" if copy == "tracked" else picked
    try:
        data = version_docx(
            stored,
            revision,
            title=meta.title,
            settings=ctx.settings,
            copy=copy,
            meta=meta,
            style=style,
        )
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        cols[1].error(tr("revisions.docx_failed", detail=describe(exc).text(lang())))
        return
    name = file_name(meta, revision, copy=copy)
    cols[1].download_button(
        tr("revisions.download_docx"), data, name, DOCX_MIME, key=f"history.docx.{key}"
    )
    cols[1].caption(plain(name))  # which copy the button gives, drawn after it on the same run


def history_versions(user: User, stored: StoredGeneration) -> StoredRevision | None:
    """History: the revisions of a generation, a version picker, its redline and downloads.

    Returns the chosen revision (None: the model's text) so the page shows its text.
    """
    from app.drafting import revisions

    with context().session() as session:
        items = revisions.list_revisions(stored.id, session=session, actor=user)
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
        if user.role in (Role.DRAFTER, Role.ADMIN):
            from app.pages.precedents_view import proposals

            proposals(user, revision)
        with st.expander(tr("revisions.text")):
            from app.drafting.logged import stored_findings

            text_and_findings(revision.text, list(stored_findings(revision.findings)))
    _downloads(stored, revision)
    return revision


def approve_button(result: DraftResult, text: str) -> None:
    """Approve the (edited) draft as a precedent for the retrieval drafter."""
    from app.precedents.approvals import approve_output

    ctx = context()
    if not st.button(
        tr("draft.approve"), key=f"draft.approve.{result.token}", help=tr("draft.approve_help")
    ):
        return
    user = current_user()
    chosen = None if user is None else approval_text(user, result, text)
    if user is None or chosen is None:
        return
    try:
        with ctx.session() as session:
            approval = approve_output(
                chosen[0],
                doc_type=result.request.doc_type_id,
                generation_id=result.generation_id,
                settings=ctx.settings,
                session=session,
                actor=user,
                revision_id=chosen[1],
            )
    except Exception as exc:  # noqa: BLE001 - empty draft, no permission, disk full: say so, keep the text
        st.error(tr("draft.approve_failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("draft.approved", file=approval.path.name))
