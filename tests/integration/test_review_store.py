"""Blind review store on real databases (SQLite file; PostgreSQL when reachable)."""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.studies import blinding as review_blind
from app.studies import store as review
from app.studies.design import plan_queue
from app.studies.domain import (
    ArmSpec,
    NotAssigned,
    ReviewError,
    StudySpec,
    VerdictInput,
)
from app.studies.tables import StudyAssignmentRow, StudyReviewerRow, StudyVerdictRow
from audit.db import current_revision
from audit.models import Event, User

pytestmark = pytest.mark.integration

REVIEWERS = ("lawyer_li", "lawyer_wang", "lawyer_zhao")
ARMS = (
    ArmSpec("speculative-ngram", "spec-endpoint", {"max_tokens": 16}),
    ArmSpec("plain-autoregressive", "plain-endpoint"),
)
N_CASES = 5


def _seed_users(factory: sessionmaker[Session]) -> None:
    """Account rows straight in the users table (no password hashing: these never sign in)."""
    roles = {"admin_a": "admin", "drafter_d": "drafter", **dict.fromkeys(REVIEWERS, "reviewer")}
    with factory() as session:
        for name, role in roles.items():
            session.add(User(name=name, role=role, password_hash="-", created_at=datetime.now()))
        session.commit()


def _spec(reviewers: tuple[str, ...] = REVIEWERS) -> StudySpec:
    cases = tuple({"company": f"公司{i}", "scenario": f"情形{i}"} for i in range(N_CASES))
    return StudySpec("Spec vs plain", "cross-border-filing-guide", cases, ARMS, reviewers)


def _generated_study(factory: sessionmaker[Session]) -> review.Study:
    """A study whose items are all 'generated' (text stored as the store would get it)."""
    _seed_users(factory)
    with factory() as session:
        study = review.create_study(_spec(), session=session, created_by="admin_a")
        session.commit()
        arm_label = {a.id: a.label for a in study.arms}
        for item in review.list_items(study.id, session=session):
            text = f"一、适用情形\r\n草稿 {item.case_id} {arm_label[item.arm_id]}  \n"
            review.complete_item(item.id, session=session, text=text, generation_id=None)
        session.commit()
    return study


def _verdict(score: int, errors: tuple[str, ...] = ()) -> VerdictInput:
    return VerdictInput(score, score, score, errors, "")


def test_migration_reaches_review_revision(db_session_factory: sessionmaker[Session]) -> None:
    from alembic.script import ScriptDirectory

    from audit.db import alembic_config, head_revision

    engine = db_session_factory.kw["bind"]
    assert current_revision(engine) == head_revision()  # 0002 (review) and any revision after it
    revisions = ScriptDirectory.from_config(alembic_config()).iterate_revisions("head", "base")
    assert "0002" in {r.revision for r in revisions}


def test_create_study_stores_items_and_seeded_queues(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    assert [a.label for a in study.arms] == [a.label for a in ARMS]
    assert study.arms[0].params == {"max_tokens": 16}
    assert len(study.cases) == N_CASES and study.reviewers == tuple(sorted(REVIEWERS))
    with db_session_factory() as session:
        assert len(review.list_items(study.id, session=session)) == 2 * N_CASES
        orders = []
        case_ids = [c.id for c in study.cases]
        for reviewer in session.scalars(select(StudyReviewerRow)).all():
            rows = session.scalars(
                select(StudyAssignmentRow).where(
                    StudyAssignmentRow.study_reviewer_id == reviewer.id
                )
            ).all()
            assert len(rows) == 2 * N_CASES
            # the stored seed reproduces the stored order and A/B slots exactly
            plan = plan_queue(case_ids, reviewer.seed)
            items = {i.id: i for i in review.list_items(study.id, session=session)}
            for row in rows:
                item = items[row.item_id]
                planned = next(p for p in plan if p.case_id == item.case_id)
                arm0 = item.arm_id == study.arms[0].id
                assert row.position == planned.position
                assert (row.slot == "A") == (arm0 == planned.arm0_is_a)
            orders.append(tuple(p.case_id for p in plan))
        assert len(set(orders)) > 1  # reviewers do not share one order


def test_unknown_or_wrong_role_reviewer_is_refused(
    db_session_factory: sessionmaker[Session],
) -> None:
    _seed_users(db_session_factory)
    with db_session_factory() as session:
        with pytest.raises(ReviewError) as err:
            review.create_study(_spec(("lawyer_li", "drafter_d")), session=session, created_by="a")
        assert "drafter_d" in err.value.message_zh and "drafter_d" in err.value.message_en
        with pytest.raises(ReviewError):
            review.create_study(_spec(("nobody",)), session=session, created_by="a")


def test_queue_is_blind_balanced_and_identically_formatted(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        items = {i.id: i for i in review.list_items(study.id, session=session)}
        for reviewer in REVIEWERS:
            queue = review_blind.reviewer_queue(study.id, reviewer, session=session)
            assert [p.position for p in queue] == list(range(1, N_CASES + 1))
            assert all([d.slot for d in p.drafts] == ["A", "B"] for p in queue)
            # A/B balance: the speculative arm is A in floor(n/2) or ceil(n/2) pairs
            spec_as_a = sum(study.arms[0].label in p.drafts[0].text for p in queue)
            assert spec_as_a in (N_CASES // 2, (N_CASES + 1) // 2)
            for pair in queue:
                for draft in pair.drafts:
                    assert "\r" not in draft.text and not draft.text.endswith(" ")
            dump = repr([dataclasses.asdict(p) for p in queue])
            for secret in (study.arms[0].endpoint, study.arms[1].endpoint, "max_tokens"):
                assert secret not in dump
            tokens = [d.token for p in queue for d in p.drafts]
            assert len(set(tokens)) == len(tokens) and all(len(t) >= 20 for t in tokens)
            assert not any(str(i) == t for i in items for t in tokens)


def test_verdicts_append_and_corrections_supersede(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        queue = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)
        token = queue[0].drafts[0].token
        first = review_blind.submit_verdict(
            token, _verdict(7, ("第四条应为第三条",)), reviewer="lawyer_li", session=session
        )
        session.commit()
        assert (first.citation, first.corrections, first.hard_errors) == (
            7,
            0,
            ("第四条应为第三条",),
        )
        second = review_blind.submit_verdict(
            token, VerdictInput(9, 8, 8, (), "  改正  "), reviewer="lawyer_li", session=session
        )
        session.commit()
        assert (second.citation, second.corrections, second.comment) == (9, 1, "改正")
        rows = session.scalars(select(StudyVerdictRow).order_by(StudyVerdictRow.id)).all()
        assert [r.revision for r in rows] == [1, 2]
        assert rows[1].supersedes_id == rows[0].id and rows[0].citation == 7  # old row kept
        shown = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)[0]
        assert shown.drafts[0].verdict == second and shown.drafts[1].verdict is None
        latest = review.latest_verdicts(study.id, session=session)
        assert [(v.reviewer, v.revision, v.scores["citation"]) for v in latest] == [
            ("lawyer_li", 2, 9)
        ]


def test_verdict_refusals(db_session_factory: sessionmaker[Session]) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        token = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)[0]
        token = token.drafts[1].token
        with pytest.raises(NotAssigned):  # someone else's token
            review_blind.submit_verdict(token, _verdict(5), reviewer="lawyer_wang", session=session)
        session.rollback()
        with pytest.raises(NotAssigned):
            review_blind.submit_verdict(
                "no-such-token", _verdict(5), reviewer="lawyer_li", session=session
            )
        session.rollback()
        with pytest.raises(ReviewError) as err:
            review_blind.submit_verdict(token, _verdict(11), reviewer="lawyer_li", session=session)
        assert "0" in err.value.message_zh and "10" in err.value.message_en
        with pytest.raises(NotAssigned):
            review_blind.reviewer_queue(study.id, "drafter_d", session=session)
        assert session.scalars(select(StudyVerdictRow)).all() == []


def test_queue_waits_for_generation(db_session_factory: sessionmaker[Session]) -> None:
    _seed_users(db_session_factory)
    with db_session_factory() as session:
        study = review.create_study(_spec(), session=session, created_by="admin_a")
        session.commit()
        with pytest.raises(ReviewError):
            review_blind.reviewer_queue(study.id, "lawyer_li", session=session)
        progress = review.study_progress(study.id, session=session)
        assert (progress.items_total, progress.items_complete) == (2 * N_CASES, 0)
        assert not progress.generation_done and not progress.all_verdicts_in
        item = review.list_items(study.id, session=session)[0]
        review.fail_item(item.id, session=session, error="timeout")
        session.commit()
        assert review.study_progress(study.id, session=session).items_failed == 1
        review.complete_item(item.id, session=session, text="x", generation_id=None)
        with pytest.raises(ReviewError):  # a complete item is never overwritten
            review.complete_item(item.id, session=session, text="y", generation_id=None)


def test_progress_and_early_unblinding_is_logged(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        for pair in review_blind.reviewer_queue(study.id, "lawyer_wang", session=session):
            for draft in pair.drafts:
                review_blind.submit_verdict(
                    draft.token, _verdict(6), reviewer="lawyer_wang", session=session
                )
        session.commit()
        progress = review.study_progress(study.id, session=session)
        done = {r.reviewer: (r.done, r.total) for r in progress.reviewers}
        assert done == {"lawyer_li": (0, 10), "lawyer_wang": (10, 10), "lawyer_zhao": (0, 10)}
        assert progress.generation_done and not progress.all_verdicts_in
        unblinded = review.mark_unblinded(study.id, session=session, actor="admin_a", reason="QA")
        session.commit()
        assert unblinded.unblinded_by == "admin_a" and unblinded.unblinded_at is not None
        again = review.mark_unblinded(study.id, session=session, actor="admin_a", reason="x")
        session.commit()
        assert again.unblinded_at == unblinded.unblinded_at  # logged once
        events = session.scalars(select(Event).where(Event.kind == "study.unblinded_early")).all()
        assert len(events) == 1
        assert events[0].actor == "admin_a" and events[0].payload["reason"] == "QA"
        assert events[0].payload["verdicts"]["lawyer_wang"] == [10, 10]


def test_two_reviewers_submitting_at_once_both_land(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        tokens = {
            r: [
                d.token
                for p in review_blind.reviewer_queue(study.id, r, session=session)
                for d in p.drafts
            ]
            for r in REVIEWERS[:2]
        }
    barrier = threading.Barrier(2)
    failures: list[BaseException] = []

    def reviewer_work(name: str) -> None:
        try:
            for token in tokens[name]:
                with db_session_factory() as session:
                    barrier.wait(timeout=30)
                    review_blind.submit_verdict(token, _verdict(8), reviewer=name, session=session)
                    session.commit()
        except BaseException as exc:  # noqa: BLE001 - reported below, the thread must not die silently
            failures.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=reviewer_work, args=(r,)) for r in REVIEWERS[:2]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert failures == []
    with db_session_factory() as session:
        verdicts = review.latest_verdicts(study.id, session=session)
    assert Counter(v.reviewer for v in verdicts) == {REVIEWERS[0]: 10, REVIEWERS[1]: 10}


def test_same_draft_corrected_concurrently_gets_distinct_revisions(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        token = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)[0]
        token = token.drafts[0].token
    barrier = threading.Barrier(3)
    failures: list[BaseException] = []

    def submit(score: int) -> None:
        try:
            with db_session_factory() as session:
                barrier.wait(timeout=30)
                review_blind.submit_verdict(
                    token, _verdict(score), reviewer="lawyer_li", session=session
                )
                session.commit()
        except BaseException as exc:  # noqa: BLE001 - a thread hands every failure to the test
            failures.append(exc)

    threads = [threading.Thread(target=submit, args=(s,)) for s in (4, 5, 6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert failures == []
    with db_session_factory() as session:
        rows = session.scalars(select(StudyVerdictRow).order_by(StudyVerdictRow.revision)).all()
    assert [r.revision for r in rows] == [1, 2, 3]
    assert [r.supersedes_id for r in rows] == [None, rows[0].id, rows[1].id]
