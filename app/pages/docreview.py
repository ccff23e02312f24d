"""Review a document (文件审查): upload one or several documents someone else wrote; each is
checked on the date it speaks from (shown, and overridable), its findings listed with their
passage (filter by severity), and the original DOCX downloaded with a comment on each finding's
words (or with tracked fixes), with a short summary. The logic is app/review's; each review is
recorded in the audit chain once per file, date and version of the findings."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import streamlit as st

from app.domain import Finding, Role, describe
from app.pages.findings_view import SEVERITY_ICON, highlight_html
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr
from app.review.service import SEVERITY_ORDER, Review
from audit.domain import User

FILES = "docreview.files"  # {name: bytes} of the uploads, kept for the browser session only
RESULTS = "docreview.results"  # (sha256, date or None) -> Review or the refusal's message
UPLOADER = "docreview.upload"


def _take_uploads() -> None:
    """The uploader's files become the page's (removing them clears the page)."""
    uploaded = st.session_state.get(UPLOADER) or []
    st.session_state[FILES] = {f.name: f.getvalue() for f in uploaded}


def _matter_facts(user: User) -> tuple[str, dict[str, str]]:
    """The matter whose facts the documents are checked against (its number and newest facts),
    or none: the facts check then has nothing to compare."""
    from app.matters import service

    with context().session() as session:
        matters = {m.number: dict(m.facts) for m in service.list_matters(session=session,
                                                                         actor=user)}  # fmt: skip
    number = st.selectbox(tr("docreview.matter"), [tr("docreview.no_matter"), *matters],
                          key="docreview.matter")  # fmt: skip
    return (number, matters[number]) if number in matters else ("", {})


def _review(
    name: str, data: bytes, day: dt.date | None, user: User, facts: tuple[str, dict[str, str]]
) -> Review | str:
    """The review of one upload on `day` (None: its own date) against a matter's facts,
    recorded once."""
    import hashlib

    from app.review.reader import Refused
    from app.review.service import record_review, review_document

    ctx = context()
    key = (name, hashlib.sha256(data).hexdigest(), day, facts[0])
    done = st.session_state.setdefault(RESULTS, {})
    if key not in done:
        try:
            review = review_document(data, name, settings=ctx.settings, today=dt.date.today(),
                                     date=day, facts=facts[1] or None)  # fmt: skip
            with ctx.session() as session:
                record_review(review, data, settings=ctx.settings, session=session, actor=user,
                              now=dt.datetime.now(dt.UTC))  # fmt: skip
            done[key] = review
        except Refused as exc:
            done[key] = describe(exc).text(lang())
    result: Review | str = done[key]
    return result


def _finding(review: Review, finding: Finding, n: int) -> None:
    icon = SEVERITY_ICON.get(finding.severity, "")
    hint = f" → {finding.suggestion}" if finding.suggestion else ""
    st.markdown(
        f"{icon} **{tr('severity.' + finding.severity)}** — "
        f"{plain(finding.bilingual.text(lang()))}{plain(hint)}"
    )
    passage = review.passage(finding)
    if passage is None:
        return
    where = tr(f"docreview.place.{passage.place}", n=passage.paragraph + 1)
    with st.expander(where, expanded=n < 3):
        shown = replace(finding, start=passage.start, end=passage.end)
        st.html(highlight_html(passage.text, [shown], lang()))
        st.caption(plain(finding.code))  # the check's code, for whoever maintains the checks


def _findings(review: Review, key: str) -> None:
    names = {tr(f"severity.{s}"): s for s in SEVERITY_ORDER}  # shown as words, in the UI language
    chosen = st.session_state.get(f"{key}.severity")
    if not isinstance(chosen, list) or not set(chosen) <= set(
        names
    ):  # first run, or a new language
        st.session_state[f"{key}.severity"] = [n for n, s in names.items() if s != "info"]
    shown = st.multiselect(tr("docreview.severity_filter"), list(names), key=f"{key}.severity")
    wanted = {names[n] for n in shown}
    listed = [f for f in review.findings if f.severity in wanted]
    if not review.findings:
        st.success(tr("docreview.no_findings"))
    for n, finding in enumerate(listed):
        _finding(review, finding, n)
    if review.outdated:
        st.subheader(tr("docreview.outdated_title", today=review.today.isoformat()))
        for n, finding in enumerate(review.outdated):
            _finding(review, finding, n)


def _downloads(review: Review, data: bytes, key: str) -> None:
    from pathlib import PurePath

    from app.review.annotate import annotated_docx
    from app.review.summary import summary_markdown

    stem = PurePath(review.name).stem
    cols = st.columns(3)
    if review.document.kind == "docx":
        mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        cols[0].download_button(tr("docreview.download_comments"), annotated_docx(data, review),
                                f"{stem}.reviewed.docx", mime, key=f"{key}.comments")  # fmt: skip
        cols[1].download_button(tr("docreview.download_tracked"),
                                annotated_docx(data, review, tracked=True),
                                f"{stem}.tracked.docx", mime, key=f"{key}.tracked")  # fmt: skip
    cols[2].download_button(tr("docreview.download_summary"),
                            summary_markdown(review, lang()).encode(), f"{stem}.review.md",
                            "text/markdown", key=f"{key}.summary")  # fmt: skip


def _one(
    name: str, data: bytes, index: int, user: User, facts: tuple[str, dict[str, str]]
) -> Review | None:
    key = f"docreview.{index}"
    st.subheader(plain(name))
    result = _review(name, data, None, user, facts)  # on its own date first
    if isinstance(result, Review) and st.checkbox(tr("docreview.date_override"),
                                                  key=f"{key}.override"):  # fmt: skip
        st.session_state.setdefault(f"{key}.date", result.date.date)
        day = st.date_input(tr("docreview.date_label"), key=f"{key}.date")
        if isinstance(day, dt.date) and day != result.date.date:
            result = _review(name, data, day, user, facts)
    if isinstance(result, str):
        st.error(tr("docreview.cannot", reason=result))
        return None
    used = result.date
    st.info(tr(f"docreview.date.{used.source}", date=used.date.isoformat(), cue=used.cue))
    st.caption(tr("docreview.counts", **result.counts()) + " · "
               + tr("docreview.recorded", sha=result.sha256[:16]))  # fmt: skip
    _downloads(result, data, key)
    _findings(result, key)
    return result


def _table(reviews: list[Review]) -> None:
    rows = []
    for review in reviews:
        top = review.top()
        rows.append({tr("docreview.columns.file"): review.name,
                     tr("docreview.columns.date"): review.date.date.isoformat(),
                     tr("docreview.columns.errors"): review.counts()["error"],
                     tr("docreview.columns.warnings"): review.counts()["warning"],
                     tr("docreview.columns.top"): top.bilingual.text(lang()) if top else "-"})  # fmt: skip
    st.subheader(tr("docreview.batch_title"))
    st.dataframe(rows, hide_index=True, width="stretch")


def render() -> None:
    user = require_user(Role.DRAFTER, Role.ADMIN)
    st.title(tr("docreview.title"))
    st.caption(tr("docreview.intro", days=context().settings.review_retention_days))
    st.file_uploader(tr("docreview.upload"), type=["docx", "md", "txt", "doc"],
                     accept_multiple_files=True, key=UPLOADER, on_change=_take_uploads)  # fmt: skip
    facts = _matter_facts(user)
    files: dict[str, bytes] = st.session_state.get(FILES) or {}
    if not files:
        st.info(tr("docreview.none_yet"))
        return
    reviews = []
    for index, (name, data) in enumerate(files.items()):
        with st.container(border=True):
            done = _one(name, data, index, user, facts)
        if done is not None:
            reviews.append(done)
    if len(files) > 1:
        _table(reviews)
