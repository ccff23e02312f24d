"""Study designs on real databases (SQLite file; PostgreSQL when reachable): 2–6 arms dealt
in balanced pairs, preferences stored append-only, gold items blind in the queue and counted
only in catch rates, the arm's configuration stored with every item."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.studies import blinding as review_blind
from app.studies import store as review
from app.studies.domain import ArmSpec, ReviewError, StudySpec, VerdictInput
from app.studies.gold import seed_gold
from app.studies.report import build_report, paired_overall, summary_rows
from app.studies.tables import StudyArmRow, StudyPreferenceRow
from audit import store
from audit.models import User

pytestmark = pytest.mark.integration

REVIEWERS = ("lawyer_li", "lawyer_wang", "lawyer_zhao")
ARMS = (
    ArmSpec("outline-t0", "embedded", {"mode": "outline", "temperature": 0.0}),
    ArmSpec("free-t0", "embedded", {"mode": "free-form", "temperature": 0.0}),
    ArmSpec("free-t07", "plain", {"mode": "free-form", "temperature": 0.7}),
)
N_CASES = 6
DRAFT = "一、适用情形\n依据第四条，共 120000 人。\n二、申报材料\n材料 3 份。\n三、其他\n无。\n"


def _users(factory: sessionmaker[Session]) -> None:
    """Account rows straight in the users table (no password hashing: these never sign in)."""
    with factory() as session:
        for name, role in {"admin_a": "admin", **dict.fromkeys(REVIEWERS, "reviewer")}.items():
            session.add(User(name=name, role=role, password_hash="-", created_at=datetime.now()))
        session.commit()


def _spec(design: str = "both", gold: int = 1) -> StudySpec:
    cases = tuple({"company": f"公司{i}"} for i in range(N_CASES))
    return StudySpec(
        "three set-ups", "cross-border-filing-guide", cases, ARMS, REVIEWERS, design, gold
    )  # type: ignore[arg-type]


def _generated(factory: sessionmaker[Session], spec: StudySpec) -> review.Study:
    """Every real item 'generated' with its configuration, then the gold items seeded."""
    _users(factory)
    with factory() as session:
        study = review.create_study(spec, session=session, created_by="admin_a")
        session.commit()
        items = review.list_items(study.id, session=session)
        for item in (i for i in items if i.gold_kind is None):
            config = {"endpoint": "embedded", "mode": "outline", "speculation": None}
            text = DRAFT + f"（{item.arm_id}·{item.case_id}）"
            review.complete_item(
                item.id, session=session, text=text, generation_id=None, config=config
            )
        session.commit()
        real = {i.id: i for i in review.list_items(study.id, session=session)}
        for item in (i for i in items if i.gold_kind is not None):
            assert item.source_item_id is not None
            source = real[item.source_item_id]
            seeded = seed_gold(source.text, item.gold_kind or "", item.id)
            assert seeded is not None
            review.complete_item(item.id, session=session, text=seeded.text, generation_id=None)
        session.commit()
    return study


def test_three_arms_pairs_are_balanced_and_gold_items_sit_in_the_queue(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated(db_session_factory, _spec())
    assert [a.label for a in study.arms] == [a.label for a in ARMS] and study.design == "both"
    with db_session_factory() as session:
        items = {i.id: i for i in review.list_items(study.id, session=session)}
        gold = [i for i in items.values() if i.gold_kind is not None]
        assert len(items) == len(ARMS) * N_CASES + len(REVIEWERS)  # one gold item per reviewer
        assert {i.gold_kind for i in gold} == {"wrong_article", "missing_section", "wrong_count"}
        for g in gold:  # same case and arm as its source: nothing tells them apart
            source = items[g.source_item_id or 0]
            assert (g.case_id, g.arm_id) == (source.case_id, source.arm_id)
            assert g.text != source.text
        shown: Counter[tuple[str, str]] = Counter()
        arm_of_text = {i.text: i.arm_id for i in items.values()}
        for reviewer in REVIEWERS:
            queue = review_blind.reviewer_queue(study.id, reviewer, session=session)
            assert [p.position for p in queue] == list(range(1, N_CASES + 1))
            arms = [tuple(arm_of_text[d.text] for d in p.drafts) for p in queue]
            assert all(a != b for a, b in arms)
            shown.update(tuple(sorted(str(x) for x in a)) for a in arms)
            gold_texts = {g.text for g in gold}
            assert sum(d.text in gold_texts for p in queue for d in p.drafts) == 1
            dump = repr([dataclasses.asdict(p) for p in queue])
            for secret in ("gold", "wrong_", "missing_section", "outline-t0", "embedded"):
                assert secret not in dump
        # 3 reviewers × 6 cases = 18 pairs over 3 pairs of arms: 6 each
        assert sorted(shown.values()) == [6, 6, 6]


def test_preferences_append_supersede_and_rank(db_session_factory: sessionmaker[Session]) -> None:
    study = _generated(db_session_factory, _spec())
    best = study.arms[0].id
    with db_session_factory() as session:
        items = {i.id: i for i in review.list_items(study.id, session=session)}
        arm_of_text = {i.text: i.arm_id for i in items.values()}
        for reviewer in REVIEWERS:
            for pair in review_blind.reviewer_queue(study.id, reviewer, session=session):
                a, b = (arm_of_text[d.text] for d in pair.drafts)
                choice = "A" if a == best else "B" if b == best else "tie"
                first = review_blind.submit_preference(
                    pair.drafts[1].token, "tie", reviewer=reviewer, session=session
                )
                assert (first.choice, first.corrections) == ("tie", 0)
                again = review_blind.submit_preference(
                    pair.drafts[0].token, choice, reviewer=reviewer, session=session
                )
                assert (again.choice, again.corrections) == (choice, 1)
        session.commit()
        rows = session.scalars(select(StudyPreferenceRow)).all()
        assert len(rows) == 2 * len(REVIEWERS) * N_CASES  # nothing overwritten
        assert all(r.supersedes_id is not None for r in rows if r.revision == 2)
        queue = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)
        assert all(p.preference is not None and p.preference.corrections == 1 for p in queue)
        prefs = review.latest_preferences(study.id, session=session)
        assert len(prefs) == len(REVIEWERS) * N_CASES and sum(p.gold for p in prefs) == 3
        progress = review.study_progress(study.id, session=session)
        # design "both": 12 drafts to score + 6 pairs to prefer; only preferences given
        assert {(r.done, r.total) for r in progress.reviewers} == {(6, 18)}
        report = build_report(
            study,
            progress,
            review.latest_verdicts(study.id, session=session),
            preferences=prefs,
            settings=Settings(),
        )
    assert report.ranking is not None and report.preferences == 15
    assert report.ranking.arms[0].arm == "outline-t0"
    assert not report.ranking.estimable  # it won every comparison: unbounded, ranked by wins
    assert any(row[0] == "偏好排名（Bradley–Terry）" for row in summary_rows(report, "zh"))


def test_preference_refusals(db_session_factory: sessionmaker[Session]) -> None:
    study = _generated(db_session_factory, _spec(design="scores", gold=0))
    with db_session_factory() as session:
        token = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)[0]
        token = token.drafts[0].token
        with pytest.raises(ReviewError):  # a scores-only study asks for no preference
            review_blind.submit_preference(token, "A", reviewer="lawyer_li", session=session)
        session.rollback()
        with pytest.raises(ReviewError):
            review_blind.submit_preference(token, "C", reviewer="lawyer_li", session=session)
        session.rollback()
        with pytest.raises(ReviewError):  # someone else's draft
            review_blind.submit_preference(token, "A", reviewer="lawyer_wang", session=session)
        session.rollback()
        assert session.scalars(select(StudyPreferenceRow)).all() == []


def test_gold_verdicts_count_only_in_catch_rates(db_session_factory: sessionmaker[Session]) -> None:
    study = _generated(db_session_factory, _spec(design="scores"))
    with db_session_factory() as session:
        items = {i.id: i for i in review.list_items(study.id, session=session)}
        gold_texts = {i.text for i in items.values() if i.gold_kind is not None}
        for reviewer in REVIEWERS:
            for pair in review_blind.reviewer_queue(study.id, reviewer, session=session):
                for draft in pair.drafts:
                    # li reports a hard error on every gold draft; the others miss them
                    errors = (
                        ("条号错误",)
                        if draft.text in gold_texts and reviewer == "lawyer_li"
                        else ()
                    )
                    verdict = VerdictInput(8, 8, 8, errors, "")
                    review_blind.submit_verdict(
                        draft.token, verdict, reviewer=reviewer, session=session
                    )
        session.commit()
        verdicts = review.latest_verdicts(study.id, session=session)
        progress = review.study_progress(study.id, session=session)
        report = build_report(study, progress, verdicts, settings=Settings())
        assert progress.all_verdicts_in
        assert paired_overall(study, verdicts) == [0.0] * (len(REVIEWERS) * N_CASES - 3)
    assert sum(v.gold_kind is not None for v in verdicts) == 3
    assert len(report.drafts) == len(verdicts) - 3  # gold verdicts are not the arms' scores
    assert sum(h.total for h in report.hard_errors) == 0
    catch = {c.reviewer: (c.seeded, c.caught, c.flagged) for c in report.catch}
    assert catch == {
        "lawyer_li": (1, 1, False),
        "lawyer_wang": (1, 0, True),
        "lawyer_zhao": (1, 0, True),
    }
    assert report.ranking is None


def test_item_configuration_survives_a_change_of_the_arm(
    db_session_factory: sessionmaker[Session],
) -> None:
    study = _generated(db_session_factory, _spec(gold=0))
    with db_session_factory() as session:
        arm = session.scalars(select(StudyArmRow).where(StudyArmRow.study_id == study.id)).first()
        assert arm is not None
        arm.params = {"mode": "free-form", "temperature": 1.5}
        session.commit()
        configs = [i.config for i in review.list_items(study.id, session=session)]
    assert all(
        c == {"endpoint": "embedded", "mode": "outline", "speculation": None} for c in configs
    )


@pytest.mark.parametrize("n_arms", [1, 7])
def test_arm_count_outside_two_to_six_is_refused(
    db_session_factory: sessionmaker[Session], n_arms: int
) -> None:
    _users(db_session_factory)
    arms = tuple(ArmSpec(f"arm{i}", "embedded") for i in range(n_arms))
    spec = dataclasses.replace(_spec(), arms=arms)
    with db_session_factory() as session, pytest.raises(ReviewError) as err:
        review.create_study(spec, session=session, created_by="admin_a")
    assert "2" in err.value.message_en and "6" in err.value.message_en


def test_an_edited_preference_is_caught_by_the_chain(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """A preference is a verdict: chained when written, so a direct edit fails `audit verify`."""
    study = _generated(db_session_factory, _spec())

    def faults() -> list[tuple[str, int]]:
        with db_session_factory() as session:
            report = store.verify_chain(session=session)
        return [(f.table, f.id) for f in report.uncovered if f.table == "study_preferences"]

    with db_session_factory() as session:
        pair = review_blind.reviewer_queue(study.id, REVIEWERS[0], session=session)[0]
        review_blind.submit_preference(
            pair.drafts[0].token, "A", reviewer=REVIEWERS[0], session=session
        )
        session.commit()
    assert faults() == []
    with db_engine.begin() as conn:
        row_id = conn.execute(text("SELECT id FROM study_preferences")).scalar_one()
        conn.execute(text("UPDATE study_preferences SET choice = 'B'"))
    assert faults() == [("study_preferences", row_id)]
