"""Store functions of blind review studies (admin side). Session keyword-only; frozen
domain objects out; nothing commits (the caller's unit of work does, as in audit.store).

The reviewer side (blinded queue, verdicts) is app.studies.blinding.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.studies.blinding import judgement_counts, latest_preference_rows, latest_verdict_rows
from app.studies.design import GOLD_KINDS, gold_places, plan_queue, typed_design
from app.studies.domain import (
    DIMENSIONS,
    Arm,
    Preference,
    ReviewerProgress,
    ReviewError,
    Study,
    StudyCase,
    StudyItem,
    StudyProgress,
    StudySpec,
    Verdict,
    validate_spec,
)
from app.studies.stats import ScoredDraft
from app.studies.tables import (
    StudyArmRow,
    StudyAssignmentRow,
    StudyCaseRow,
    StudyItemRow,
    StudyReviewerRow,
    StudyRow,
)
from audit.models import User
from audit.vocabulary import Choice, EventKind, GoldKind, ItemStatus, Role, Slot, StudyDesign


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _reviewer_users(names: Sequence[str], *, session: Session) -> list[User]:
    users = {u.name: u for u in session.scalars(select(User).where(User.name.in_(names)))}
    missing = [n for n in names if n not in users or users[n].role != Role.REVIEWER]
    if missing:
        joined = "、".join(missing)
        raise ReviewError(
            f"以下用户不存在或不是评审人：{joined}",
            f"Not an existing reviewer account: {', '.join(missing)}",
        )
    return [users[n] for n in names]


def create_study(spec: StudySpec, *, session: Session, created_by: str) -> Study:
    """Store a study with its arms, cases, pending items and every reviewer's blinded queue."""
    validate_spec(spec)
    names = [r.strip() for r in spec.reviewers]
    users = _reviewer_users(names, session=session)
    study = StudyRow(
        name=spec.name.strip(),
        doc_type=spec.doc_type,
        created_by=created_by,
        created_at=_now(),
        design=spec.design,
        gold_per_reviewer=spec.gold_per_reviewer,
    )
    session.add(study)
    session.flush()
    arms = [
        StudyArmRow(
            study_id=study.id,
            position=i,
            label=a.label.strip(),
            endpoint=a.endpoint.strip(),
            params=dict(a.params),
        )
        for i, a in enumerate(spec.arms)
    ]
    cases = [
        StudyCaseRow(study_id=study.id, position=i, field_values=dict(values))
        for i, values in enumerate(spec.cases)
    ]
    session.add_all([*arms, *cases])
    session.flush()
    items = {
        (c.id, a.position): StudyItemRow(
            study_id=study.id, case_id=c.id, arm_id=a.id, status=ItemStatus.PENDING, output_text=""
        )
        for c in cases
        for a in arms
    }
    session.add_all(items.values())
    session.flush()
    for index, user in enumerate(users):
        _assign_reviewer(
            study, user, index, [c.id for c in cases], len(arms), items, session=session
        )
    session.flush()
    return get_study(study.id, session=session)


def _assign_reviewer(
    study: StudyRow,
    user: User,
    index: int,
    case_ids: list[int],
    n_arms: int,
    items: dict[tuple[int, int], StudyItemRow],
    *,
    session: Session,
) -> None:
    """Store one reviewer's queue: the planned pair of arms per case, slots A/B, and gold
    copies (pending, seeded at generation) in place of the real draft at the gold places."""
    reviewer = StudyReviewerRow(study_id=study.id, user_id=user.id, seed=secrets.randbits(62))
    session.add(reviewer)
    session.flush()
    plan = plan_queue(case_ids, reviewer.seed, n_arms=n_arms, reviewer_index=index)
    gold = dict(gold_places(len(plan), study.gold_per_reviewer, reviewer.seed))
    kinds = list(GOLD_KINDS)
    for planned in plan:
        for slot, arm_position in ((Slot.A, planned.arm_a), (Slot.B, planned.arm_b)):
            item = items[(planned.case_id, arm_position)]
            if gold.get(planned.position) == slot:
                kind = kinds[(index + sorted(gold).index(planned.position)) % len(kinds)]
                item = _gold_copy(item, kind, session=session)
            session.add(
                StudyAssignmentRow(
                    study_reviewer_id=reviewer.id,
                    item_id=item.id,
                    position=planned.position,
                    slot=slot,
                    token=secrets.token_urlsafe(18),
                )
            )


def _gold_copy(source: StudyItemRow, kind: GoldKind, *, session: Session) -> StudyItemRow:
    """A pending gold item: the source draft with a seeded error of `kind`, made once the
    source is generated (same case and arm, so it looks like any other draft)."""
    variant = session.scalar(
        select(func.max(StudyItemRow.variant)).where(
            StudyItemRow.case_id == source.case_id, StudyItemRow.arm_id == source.arm_id
        )
    )
    row = StudyItemRow(
        study_id=source.study_id,
        case_id=source.case_id,
        arm_id=source.arm_id,
        status=ItemStatus.PENDING,
        output_text="",
        variant=(variant or 0) + 1,
        gold_kind=kind,
        source_item_id=source.id,
    )
    session.add(row)
    session.flush()
    return row


def get_study(study_id: int, *, session: Session) -> Study:
    row = session.get(StudyRow, study_id)
    if row is None:
        raise ReviewError(f"研究 {study_id} 不存在", f"Study {study_id} does not exist")
    arms = session.scalars(
        select(StudyArmRow).where(StudyArmRow.study_id == study_id).order_by(StudyArmRow.position)
    ).all()
    cases = session.scalars(
        select(StudyCaseRow)
        .where(StudyCaseRow.study_id == study_id)
        .order_by(StudyCaseRow.position)
    ).all()
    reviewers = session.scalars(
        select(User.name)
        .join(StudyReviewerRow, StudyReviewerRow.user_id == User.id)
        .where(StudyReviewerRow.study_id == study_id)
        .order_by(User.name)
    ).all()
    return Study(
        id=row.id,
        name=row.name,
        doc_type=row.doc_type,
        created_by=row.created_by,
        created_at=row.created_at,
        arms=tuple(Arm(a.id, a.position, a.label, a.endpoint, dict(a.params)) for a in arms),
        cases=tuple(StudyCase(c.id, c.position, dict(c.field_values)) for c in cases),
        reviewers=tuple(reviewers),
        unblinded_at=row.unblinded_at,
        unblinded_by=row.unblinded_by,
        design=typed_design(row.design),
        gold_per_reviewer=row.gold_per_reviewer,
    )


def list_studies(*, session: Session) -> list[Study]:
    ids = session.scalars(select(StudyRow.id).order_by(StudyRow.id.desc())).all()
    return [get_study(i, session=session) for i in ids]


def _item(row: StudyItemRow) -> StudyItem:
    return StudyItem(
        row.id,
        row.case_id,
        row.arm_id,
        ItemStatus(row.status),  # the column's CHECK holds it to the vocabulary
        row.output_text,
        row.generation_id,
        row.error,
        config=dict(row.config) if row.config is not None else None,
        gold_kind=row.gold_kind,
        source_item_id=row.source_item_id,
    )


def list_items(study_id: int, *, session: Session) -> list[StudyItem]:
    rows = session.scalars(
        select(StudyItemRow).where(StudyItemRow.study_id == study_id).order_by(StudyItemRow.id)
    ).all()
    return [_item(r) for r in rows]


def complete_item(
    item_id: int,
    *,
    session: Session,
    text: str,
    generation_id: int | None,
    config: Mapping[str, Any] | None = None,
) -> StudyItem:
    """Store a finished draft with the configuration that produced it. A complete item is
    never overwritten (resume skips it)."""
    row = session.get(StudyItemRow, item_id)
    if row is None:
        raise ReviewError(f"条目 {item_id} 不存在", f"Item {item_id} does not exist")
    if row.status == ItemStatus.COMPLETE:
        raise ReviewError("该条目已生成", "This item has already been generated")
    row.status, row.output_text, row.error = ItemStatus.COMPLETE, text, None
    row.generation_id, row.generated_at = generation_id, _now()
    row.config = dict(config) if config is not None else None
    session.flush()
    return _item(row)


def fail_item(item_id: int, *, session: Session, error: str) -> StudyItem:
    """Mark a draft as failed; it stays pending for the next resume."""
    row = session.get(StudyItemRow, item_id)
    if row is None:
        raise ReviewError(f"条目 {item_id} 不存在", f"Item {item_id} does not exist")
    if row.status != ItemStatus.COMPLETE:
        row.status, row.error = ItemStatus.ERROR, error
        session.flush()
    return _item(row)


def study_progress(study_id: int, *, session: Session) -> StudyProgress:
    """Items generated and, per reviewer, judgements given out of those the design asks for."""
    counts = dict(
        session.execute(
            select(StudyItemRow.status, func.count())
            .where(StudyItemRow.study_id == study_id)
            .group_by(StudyItemRow.status)
        ).all()
    )
    study = session.get(StudyRow, study_id)
    reviewers = session.execute(
        select(StudyReviewerRow.id, User.name)
        .join(User, StudyReviewerRow.user_id == User.id)
        .where(StudyReviewerRow.study_id == study_id)
        .order_by(User.name)
    ).all()
    design = study.design if study is not None else StudyDesign.SCORES
    judged = judgement_counts([r for r, _ in reviewers], design, session=session)
    return StudyProgress(
        items_total=sum(counts.values()),
        items_complete=counts.get(ItemStatus.COMPLETE, 0),
        items_failed=counts.get(ItemStatus.ERROR, 0),
        reviewers=tuple(ReviewerProgress(name, *judged[r]) for r, name in reviewers),
    )


def mark_unblinded(study_id: int, *, session: Session, actor: str, reason: str) -> Study:
    """Record an admin's early unblinding on the study and in the audit log (same commit)."""
    from audit.store import append_event

    row = session.get(StudyRow, study_id)
    if row is None:
        raise ReviewError(f"研究 {study_id} 不存在", f"Study {study_id} does not exist")
    if row.unblinded_at is None:
        progress = study_progress(study_id, session=session)
        row.unblinded_at, row.unblinded_by = _now(), actor
        payload = {
            "study_id": study_id,
            "study": row.name,
            "reason": reason,
            "verdicts": {r.reviewer: [r.done, r.total] for r in progress.reviewers},
        }
        append_event(
            session=session, actor=actor, kind=EventKind.STUDY_UNBLINDED_EARLY, payload=payload
        )
        session.flush()
    return get_study(study_id, session=session)


def _assignment_rows(
    study_id: int, *, session: Session
) -> list[tuple[StudyAssignmentRow, StudyItemRow, str]]:
    rows = session.execute(
        select(StudyAssignmentRow, StudyItemRow, User.name)
        .join(StudyItemRow, StudyAssignmentRow.item_id == StudyItemRow.id)
        .join(StudyReviewerRow, StudyAssignmentRow.study_reviewer_id == StudyReviewerRow.id)
        .join(User, StudyReviewerRow.user_id == User.id)
        .where(StudyItemRow.study_id == study_id)
    ).all()
    return [(a, i, n) for a, i, n in rows]


def latest_verdicts(study_id: int, *, session: Session) -> list[Verdict]:
    """Every draft's current verdict per reviewer, unblinded (admin / report use only)."""
    rows = _assignment_rows(study_id, session=session)
    verdicts = latest_verdict_rows([a.id for a, _, _ in rows], session=session)
    out = [
        _verdict(v, item, name)
        for assignment, item, name in rows
        if (v := verdicts.get(assignment.id)) is not None
    ]
    return sorted(out, key=lambda v: (v.reviewer, v.case_id, v.arm_id, v.gold_kind or ""))


def _verdict(v: Any, item: StudyItemRow, name: str) -> Verdict:
    return Verdict(
        v.id,
        name,
        item.id,
        item.case_id,
        item.arm_id,
        v.revision,
        v.supersedes_id,
        {d: int(getattr(v, d)) for d in DIMENSIONS},
        tuple(v.hard_errors),
        v.comment,
        v.created_at,
        gold_kind=item.gold_kind,
    )


def latest_preferences(study_id: int, *, session: Session) -> list[Preference]:
    """Every pair's current preference per reviewer, unblinded (admin / report use only)."""
    rows = _assignment_rows(study_id, session=session)
    pairs: dict[tuple[int, int], dict[str, tuple[StudyItemRow, str]]] = {}
    for assignment, item, name in rows:
        key = (assignment.study_reviewer_id, assignment.position)
        pairs.setdefault(key, {})[assignment.slot] = (item, name)
    chosen = latest_preference_rows(list({r for r, _ in pairs}), session=session)
    out = []
    for (reviewer_id, position), slots in sorted(pairs.items()):
        row = chosen.get((reviewer_id, position))
        if row is None or len(slots) != 2:
            continue
        (a, name), (b, _) = slots[Slot.A], slots[Slot.B]
        choice = Choice(row.choice)  # the column's CHECK holds it to the vocabulary
        gold = a.gold_kind is not None or b.gold_kind is not None
        out.append(Preference(name, a.case_id, a.arm_id, b.arm_id, choice, gold))
    return out


def scored_drafts(study: Study, verdicts: Sequence[Verdict]) -> list[ScoredDraft]:
    """Verdicts on real drafts reduced for app.studies.stats: arms keyed by label, cases by their
    1-based number. Verdicts on gold items are left out (they measure the reviewer)."""
    labels = {a.id: a.label for a in study.arms}
    case_no = {c.id: str(c.position + 1) for c in study.cases}
    return [
        ScoredDraft(
            v.reviewer, case_no[v.case_id], labels[v.arm_id], dict(v.scores), len(v.hard_errors)
        )
        for v in verdicts
        if v.gold_kind is None
    ]
