"""What a reviewer sees and submits: their blinded queue and their verdicts.

Everything returned here is a Blind* type (draft text, an opaque token, the
reviewer's own scores). The token → item mapping never leaves this module.
Verdicts are appended, never updated, and each is covered by a chained `review.verdict`
event (audit.coverage), so an edit in the database is caught by `lexspec audit verify`.
A correction is the next revision of the
same assignment and names the row it supersedes. Like audit.store, nothing here
commits; the caller's unit of work does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.studies.design import asks_preference, asks_scores, typed_design
from app.studies.domain import (
    BlindDraft,
    BlindPair,
    BlindPreference,
    BlindVerdict,
    NotAssigned,
    ReviewError,
    ReviewerStudy,
    VerdictInput,
    present_text,
    validate_verdict,
)
from app.studies.tables import (
    StudyAssignmentRow,
    StudyCaseRow,
    StudyItemRow,
    StudyPreferenceRow,
    StudyReviewerRow,
    StudyRow,
    StudyVerdictRow,
)
from audit.coverage import covers
from audit.models import User
from audit.store import append_event
from audit.vocabulary import Choice, EventKind, ItemStatus, Slot, StudyDesign

RETRIES = 3


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _study_reviewer(study_id: int, reviewer: str, *, session: Session) -> StudyReviewerRow:
    row = session.scalars(
        select(StudyReviewerRow)
        .join(User, StudyReviewerRow.user_id == User.id)
        .where(StudyReviewerRow.study_id == study_id, User.name == reviewer)
    ).first()
    if row is None:
        raise NotAssigned("您不是该研究的评审人", "You are not a reviewer of this study")
    return row


def latest_verdict_rows(
    assignment_ids: Sequence[int], *, session: Session
) -> dict[int, StudyVerdictRow]:
    """The newest revision per assignment (older rows are superseded, never deleted)."""
    if not assignment_ids:
        return {}
    newest = (
        select(StudyVerdictRow.assignment_id, func.max(StudyVerdictRow.revision).label("rev"))
        .where(StudyVerdictRow.assignment_id.in_(assignment_ids))
        .group_by(StudyVerdictRow.assignment_id)
        .subquery()
    )
    rows = session.scalars(
        select(StudyVerdictRow).join(
            newest,
            (StudyVerdictRow.assignment_id == newest.c.assignment_id)
            & (StudyVerdictRow.revision == newest.c.rev),
        )
    ).all()
    return {r.assignment_id: r for r in rows}


def latest_preference_rows(
    study_reviewer_ids: Sequence[int], *, session: Session
) -> dict[tuple[int, int], StudyPreferenceRow]:
    """The newest preference per (study reviewer, queue position)."""
    if not study_reviewer_ids:
        return {}
    rows = session.scalars(
        select(StudyPreferenceRow)
        .where(StudyPreferenceRow.study_reviewer_id.in_(study_reviewer_ids))
        .order_by(StudyPreferenceRow.revision)
    ).all()
    return {(r.study_reviewer_id, r.position): r for r in rows}  # the last revision wins


def judgement_counts(
    study_reviewer_ids: Sequence[int], design: str, *, session: Session
) -> dict[int, tuple[int, int]]:
    """Per study reviewer: (judgements given, judgements asked). A scored draft and a stated
    preference for a pair each count one, as far as the study's design asks for them."""
    out = dict.fromkeys(study_reviewer_ids, (0, 0))
    if not study_reviewer_ids:
        return out
    assignments = session.execute(
        select(StudyAssignmentRow.id, StudyAssignmentRow.study_reviewer_id).where(
            StudyAssignmentRow.study_reviewer_id.in_(study_reviewer_ids)
        )
    ).all()
    scored = set(latest_verdict_rows([a for a, _ in assignments], session=session))
    preferred = set(latest_preference_rows(study_reviewer_ids, session=session))
    for reviewer in study_reviewer_ids:
        mine = [a for a, r in assignments if r == reviewer]
        done = total = 0
        if asks_scores(design):
            done, total = sum(a in scored for a in mine), len(mine)
        if asks_preference(design):
            total += len(mine) // 2
            done += sum(r == reviewer for r, _ in preferred)
        out[reviewer] = (done, total)
    return out


def _blind_preference(row: StudyPreferenceRow | None) -> BlindPreference | None:
    if row is None:
        return None
    return BlindPreference(Choice(row.choice), row.revision - 1)  # CHECKed to the vocabulary


def _blind_verdict(row: StudyVerdictRow | None) -> BlindVerdict | None:
    if row is None:
        return None
    return BlindVerdict(
        citation=row.citation,
        structure=row.structure,
        terminology=row.terminology,
        hard_errors=tuple(row.hard_errors),
        comment=row.comment,
        corrections=row.revision - 1,
    )


def reviewer_queue(study_id: int, reviewer: str, *, session: Session) -> list[BlindPair]:
    """This reviewer's pairs in their own order, drafts as A then B; text only."""
    me = _study_reviewer(study_id, reviewer, session=session)
    study = session.get(StudyRow, study_id)
    assert study is not None  # _study_reviewer found a row that references it
    rows = session.execute(
        select(StudyAssignmentRow, StudyItemRow, StudyCaseRow)
        .join(StudyItemRow, StudyAssignmentRow.item_id == StudyItemRow.id)
        .join(StudyCaseRow, StudyItemRow.case_id == StudyCaseRow.id)
        .where(StudyAssignmentRow.study_reviewer_id == me.id)
        .order_by(StudyAssignmentRow.position, StudyAssignmentRow.slot)
    ).all()
    if any(item.status != ItemStatus.COMPLETE for _, item, _ in rows):
        raise ReviewError("草稿仍在生成中，请稍后再来", "Drafts are still being generated")
    verdicts = latest_verdict_rows([a.id for a, _, _ in rows], session=session)
    preferences = latest_preference_rows([me.id], session=session)
    total = len(rows) // 2
    pairs = []
    for i in range(0, len(rows), 2):
        (a_row, a_item, case), (b_row, b_item, _) = rows[i], rows[i + 1]
        drafts = (
            BlindDraft(
                Slot.A,
                a_row.token,
                present_text(a_item.output_text),
                _blind_verdict(verdicts.get(a_row.id)),
            ),
            BlindDraft(
                Slot.B,
                b_row.token,
                present_text(b_item.output_text),
                _blind_verdict(verdicts.get(b_row.id)),
            ),
        )
        preference = _blind_preference(preferences.get((me.id, a_row.position)))
        values = dict(case.field_values)
        pairs.append(BlindPair(a_row.position, total, study.doc_type, values, drafts, preference))
    return pairs


def submit_verdict(
    token: str, verdict: VerdictInput, *, reviewer: str, session: Session
) -> BlindVerdict:
    """Append a verdict (or a correction superseding the previous one) for an assigned draft.

    On SQLite the transaction starts as a writer, so concurrent reviewers queue;
    elsewhere a race for the same revision hits the unique constraint and the
    insert is retried inside a savepoint against the newer revision.
    """
    clean = validate_verdict(verdict)
    if session.get_bind().dialect.name == "sqlite" and not session.in_transaction():
        session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
    assignment_id = _assignment_for(token, reviewer, session=session)
    for attempt in range(RETRIES):
        try:
            with session.begin_nested():
                row = _verdict_row(assignment_id, clean, session=session)
                session.add(row)
            break
        except IntegrityError:
            if attempt == RETRIES - 1:
                raise
    session.flush()  # the verdict row enters the audit chain's coverage (audit.coverage)
    payload = {"covers": [covers("study_verdicts", row.id, session=session)]}
    append_event(session=session, actor=reviewer, kind=EventKind.REVIEW_VERDICT, payload=payload)
    result = _blind_verdict(row)
    assert result is not None
    return result


def _assignment_for(token: str, reviewer: str, *, session: Session) -> int:
    found = session.execute(
        select(StudyAssignmentRow.id, StudyItemRow.status)
        .join(StudyReviewerRow, StudyAssignmentRow.study_reviewer_id == StudyReviewerRow.id)
        .join(User, StudyReviewerRow.user_id == User.id)
        .join(StudyItemRow, StudyAssignmentRow.item_id == StudyItemRow.id)
        .where(StudyAssignmentRow.token == token, User.name == reviewer)
    ).first()
    if found is None:
        raise NotAssigned("您未被分配该草稿", "You are not assigned to this draft")
    if found.status != ItemStatus.COMPLETE:
        raise ReviewError("草稿尚未生成", "This draft has not been generated yet")
    return int(found.id)


def _verdict_row(assignment_id: int, v: VerdictInput, *, session: Session) -> StudyVerdictRow:
    previous = latest_verdict_rows([assignment_id], session=session).get(assignment_id)
    return StudyVerdictRow(
        assignment_id=assignment_id,
        revision=previous.revision + 1 if previous else 1,
        supersedes_id=previous.id if previous else None,
        citation=v.citation,
        structure=v.structure,
        terminology=v.terminology,
        hard_error_count=v.hard_error_count,
        hard_errors=list(v.hard_errors),
        comment=v.comment,
        created_at=_now(),
    )


def reviewer_studies(reviewer: str, *, session: Session) -> list[ReviewerStudy]:
    """The studies this reviewer is assigned to, newest first, with their own progress."""
    rows = session.execute(
        select(StudyRow.id, StudyRow.doc_type, StudyRow.design, StudyReviewerRow.id)
        .join(StudyReviewerRow, StudyReviewerRow.study_id == StudyRow.id)
        .join(User, StudyReviewerRow.user_id == User.id)
        .where(User.name == reviewer)
        .order_by(StudyRow.id.desc())
    ).all()
    out = []
    for study_id, doc_type, design, me in rows:
        done, total = judgement_counts([me], design, session=session)[me]
        out.append(ReviewerStudy(study_id, doc_type, done, total, typed_design(design)))
    return out


def submit_preference(
    token: str, choice: str, *, reviewer: str, session: Session
) -> BlindPreference:
    """Append the reviewer's preference (A, B or tie) for the pair that holds the draft
    `token` (either draft's token names the pair); a correction supersedes the previous one."""
    if choice not in list(Choice):
        raise ReviewError("请选择 A、B 或“不相上下”", "Choose A, B or a tie")
    if session.get_bind().dialect.name == "sqlite" and not session.in_transaction():
        session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
    assignment = session.get(StudyAssignmentRow, _assignment_for(token, reviewer, session=session))
    assert assignment is not None  # _assignment_for found it
    study_design = session.scalar(
        select(StudyRow.design)
        .join(StudyReviewerRow, StudyReviewerRow.study_id == StudyRow.id)
        .where(StudyReviewerRow.id == assignment.study_reviewer_id)
    )
    if not asks_preference(study_design or StudyDesign.SCORES):
        raise ReviewError("该研究不收集偏好", "This study does not ask for a preference")
    key = (assignment.study_reviewer_id, assignment.position)
    for attempt in range(RETRIES):
        try:
            with session.begin_nested():
                previous = latest_preference_rows([key[0]], session=session).get(key)
                row = StudyPreferenceRow(
                    study_reviewer_id=key[0],
                    position=key[1],
                    revision=previous.revision + 1 if previous else 1,
                    supersedes_id=previous.id if previous else None,
                    choice=choice,
                    created_at=_now(),
                )
                session.add(row)
            break
        except IntegrityError:
            if attempt == RETRIES - 1:
                raise
    session.flush()  # the preference row enters the audit chain's coverage, as a verdict does
    payload = {"covers": [covers("study_preferences", row.id, session=session)]}
    append_event(session=session, actor=reviewer, kind=EventKind.REVIEW_PREFERENCE, payload=payload)
    result = _blind_preference(row)
    assert result is not None
    return result
