"""Matters on a real database (SQLite file; PostgreSQL when it answers): each version of a
matter's facts is a chained row (an edit is a new row, never an update; a change outside
LexSpec is caught by the chain walk), two saves from the same version cannot both pass, a
document drafted for a matter is recorded with it and listed under it, and the matter's route
decides which reports it needs."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import PermissionDenied
from app.domain import MatterRef
from app.drafting.context import checking_context
from app.drafting.logged import to_record
from app.matters import service
from app.prompts import load_library
from audit import store
from audit.domain import User
from audit.matters import MatterConflict
from tests.records import make_record

pytestmark = pytest.mark.integration
PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TYPES = load_library(PROMPTS).types
FACTS = {
    "company_name": "上海明川跨境电子商务有限公司",
    "industry": "电子商务",
    "is_ciio": "否",
    "important_data": "否",
    "data_categories": "姓名、手机号码、收货地址",
    "individuals_count": "1200000",
    "sensitive_count": "8000",
    "exemption": "无",
    "recipient": "Mingchuan Global Pte. Ltd.（新加坡）",
    "purpose": "跨境订单履约与售后客服",
    "filing_date": "2025-03-15",
    "assessment_start": "2025-01-06",
    "assessment_end": "2025-02-28",
}


def _user(name: str, role: str = "drafter") -> User:
    return User(
        id=1, name=name, role=role, must_change_password=False, created_at=datetime.now(UTC)
    )


ALICE, BOB, ADMIN, READER = (
    _user("alice"),
    _user("bob"),
    _user("root", "admin"),
    _user("r", "reviewer"),
)


def _create(factory: sessionmaker[Session], number: str = "MC-2025-017", **facts: str) -> None:
    with factory() as session:
        service.create_matter(
            number, client="上海明川跨境电子商务有限公司", title="跨境订单数据出境",
            facts={**FACTS, **facts}, types=TYPES, session=session, actor=ALICE,
        )  # fmt: skip
        session.commit()


def test_a_matter_is_chained_and_an_edit_is_a_new_version(
    db_session_factory: sessionmaker[Session],
) -> None:
    _create(db_session_factory)
    with db_session_factory() as session:
        changed = service.update_matter(
            "MC-2025-017", client="上海明川跨境电子商务有限公司", title="跨境订单数据出境",
            facts={**FACTS, "individuals_count": "150000", "sensitive_count": "0"}, base=1,
            types=TYPES, session=session, actor=BOB,
        )  # fmt: skip
        session.commit()
    assert (changed.version, changed.user_name) == (2, "bob")
    with db_session_factory() as session:
        versions = service.matter_history("MC-2025-017", session=session, actor=ALICE)
        assert [v.facts["individuals_count"] for v in versions] == ["1200000", "150000"]
        assert [(v.version, v.user_name) for v in versions] == [(1, "alice"), (2, "bob")]
        view = service.open_matter("MC-2025-017", types=TYPES, session=session, actor=ALICE)
        assert view.matter.version == 2 and view.decision is not None
        assert view.decision.route == "standard_contract_or_certification"
        assert store.verify_chain(session=session).ok
        rows = session.execute(text("SELECT seq FROM matters ORDER BY version")).scalars().all()
        assert rows == sorted(rows) and len(rows) == 2


def test_a_change_outside_lexspec_breaks_the_chain(
    db_session_factory: sessionmaker[Session],
) -> None:
    _create(db_session_factory)
    with db_session_factory() as session:
        session.execute(text("UPDATE matters SET client = 'someone else'"))
        session.commit()
    with db_session_factory() as session:
        report = store.verify_chain(session=session)
    assert not report.ok and report.first_bad is not None
    assert report.first_bad.table == "matters"


def test_two_saves_from_one_version_cannot_both_pass(
    db_session_factory: sessionmaker[Session],
) -> None:
    _create(db_session_factory)
    edit = {"client": "上海明川跨境电子商务有限公司", "facts": FACTS, "types": TYPES}
    with db_session_factory() as session:
        service.update_matter("MC-2025-017", base=1, session=session, actor=ALICE, **edit)
        session.commit()
    with db_session_factory() as session, pytest.raises(MatterConflict) as caught:
        service.update_matter("MC-2025-017", base=1, session=session, actor=BOB, **edit)
    assert caught.value.latest.version == 2 and "alice" in caught.value.message_en


@pytest.mark.parametrize(
    ("number", "facts", "words"),
    [
        ("bad number!", {}, "matter number"),
        ("MC-1", {"individuals_count": "-5"}, "whole number"),
        ("MC-1", {"is_ciio": "maybe"}, "must be one of"),
        ("MC-1", {"filing_date": "2025-13-01"}, "valid date"),
    ],
)
def test_bad_facts_are_refused_with_a_reason(
    db_session_factory: sessionmaker[Session], number: str, facts: dict[str, str], words: str
) -> None:
    with db_session_factory() as session, pytest.raises(service.MatterError) as caught:
        service.create_matter(
            number, client="甲", facts={**FACTS, **facts}, types=TYPES, session=session,
            actor=ALICE,
        )  # fmt: skip
    assert words in caught.value.message_en and caught.value.message_zh


def test_a_taken_number_and_a_reviewer_are_refused(
    db_session_factory: sessionmaker[Session],
) -> None:
    _create(db_session_factory)
    with pytest.raises(service.MatterError, match="already exists"):
        _create(db_session_factory)
    with db_session_factory() as session, pytest.raises(PermissionDenied):
        service.list_matters(session=session, actor=READER)


def test_the_documents_of_a_matter_are_listed_under_it(
    db_session_factory: sessionmaker[Session],
) -> None:
    """A generation recorded with its matter (params.matter, chained with it) is listed under
    the matter: the drafter sees their own, an admin everyone's; other matters' are not."""
    _create(db_session_factory)
    _create(db_session_factory, "MC-2025-018")
    ref = MatterRef("MC-2025-017", 1)
    with db_session_factory() as session:
        for user, doc_type, matter in (
            ("alice", "self-assessment-report", ref),
            ("bob", "pia-report", ref),
            ("alice", "cross-border-filing-guide", MatterRef("MC-2025-018", 1)),
            ("alice", "cross-border-filing-guide", None),
        ):
            params = {"temperature": 0.2} | ({"matter": matter.to_dict()} if matter else {})
            store.log_generation(
                make_record(user_name=user, doc_type=doc_type, params=params), session=session
            )
        session.commit()
    with db_session_factory() as session:
        mine = service.matter_documents("MC-2025-017", session=session, actor=ALICE)
        every = service.matter_documents("MC-2025-017", session=session, actor=ADMIN)
        assert [g.doc_type for g in mine] == ["self-assessment-report"]
        assert [g.doc_type for g in every] == ["pia-report", "self-assessment-report"]
        assert store.verify_chain(session=session).ok


def test_the_record_of_a_draft_names_its_matter() -> None:
    from app.domain import GenerationStats, GenerationStatus, RenderedPrompt
    from app.drafting.outcome import GenerationOutcome

    doc = TYPES["self-assessment-report"]
    rendered = RenderedPrompt(doc.id, doc.id, doc.version, "h", "s", "u")
    context = checking_context(doc, FACTS)
    outcome = GenerationOutcome(
        context=context.__class__(**{**context.__dict__, "rendered": rendered,
                                     "matter": MatterRef("MC-2025-017", 3)}),
        endpoint_name="embedded", model="m", speculative_label="", text="t",
        status=GenerationStatus.COMPLETE, error=None, stats=GenerationStats(), check=None,
    )  # fmt: skip
    record = to_record(outcome, user_name="alice")
    assert record.params["matter"] == {"number": "MC-2025-017", "version": 3}
    assert MatterRef.from_params(record.params) == MatterRef("MC-2025-017", 3)
    plain = to_record(
        GenerationOutcome(**{**outcome.__dict__, "context": context.__class__(
            **{**context.__dict__, "rendered": rendered})}),
        user_name="alice",
    )  # fmt: skip
    assert "matter" not in plain.params


@pytest.mark.parametrize(
    ("changes", "needed"),
    [
        ({}, {"self-assessment-report": "filed", "pia-report": "kept"}),
        ({"individuals_count": "150000", "sensitive_count": "0"}, {"pia-report": "filed"}),
        ({"individuals_count": "5000", "sensitive_count": "0"}, {"pia-report": "kept"}),
        ({"individuals_count": "0", "sensitive_count": "0"}, {}),
    ],
)
def test_the_route_decides_which_reports_the_matter_needs(
    db_session_factory: sessionmaker[Session], changes: dict[str, str], needed: dict[str, str]
) -> None:
    _create(db_session_factory, **changes)
    with db_session_factory() as session:
        view = service.open_matter("MC-2025-017", types=TYPES, session=session, actor=ALICE)
    reports = {n.type_id: n.need for n in view.needs if n.type_id.endswith("-report")}
    assert reports == needed
    assert any(n.type_id == "confidentiality-agreement-points" for n in view.needs)


def test_each_type_of_the_matter_starts_from_its_facts(
    db_session_factory: sessionmaker[Session],
) -> None:
    _create(db_session_factory)
    with db_session_factory() as session:
        view = service.open_matter("MC-2025-017", types=TYPES, session=session, actor=ALICE)
    report = service.draft_values(view, TYPES["self-assessment-report"])
    assert report["individuals_count"] == "1200000" and report["matter_ref"] == "MC-2025-017"
    points = service.draft_values(view, TYPES["confidentiality-agreement-points"])
    assert points["disclosing_party"] == FACTS["company_name"]
    assert points["receiving_party"] == FACTS["recipient"]
    assert service.stale_reports(view, TYPES) == []
    with db_session_factory() as session:
        service.update_matter(
            "MC-2025-017", client="上海明川跨境电子商务有限公司",
            facts={**FACTS, "filing_date": "2025-06-30"}, base=1, types=TYPES,
            session=session, actor=ALICE,
        )  # fmt: skip
        session.commit()
        stale = service.open_matter("MC-2025-017", types=TYPES, session=session, actor=ALICE)
    warned = service.stale_reports(stale, TYPES)
    # both reports the matter needs read its one assessment period
    assert [t for t, _ in warned] == ["self-assessment-report", "pia-report"]
    assert "3个月" in warned[0][1].zh
