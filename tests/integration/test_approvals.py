"""Approving a draft as a precedent: file in the corpus, audit event, role check."""

from __future__ import annotations

import pytest

from app.accounts import PermissionDenied
from app.context import Context
from app.precedents.approvals import ApprovalError, approve_output
from app.serving.corpus import corpus_files
from audit.domain import User
from tests.conftest import MakeContext

pytestmark = pytest.mark.integration

GUIDE = "【适用情形】\n一、依据《数据出境安全评估办法》第四条，下列情形应当申报。\n"


@pytest.fixture
def ctx(db_url: str, make_context: MakeContext) -> Context:
    """The app on the test database, its data directory a temp dir."""
    return make_context(database_url=db_url)


def _user(ctx: Context, role: str) -> User:
    from audit import users

    with ctx.session() as session:
        return users.create_user(f"u-{role}", role, "long enough pw", session=session)


def test_approved_draft_joins_the_corpus_and_the_audit_log(ctx: Context) -> None:
    from audit.store import list_events, verify_chain

    settings = ctx.settings
    drafter = _user(ctx, "drafter")
    with ctx.session() as session:
        approval = approve_output(
            GUIDE,
            doc_type="cross-border-filing-guide",
            generation_id=7,
            settings=settings,
            session=session,
            actor=drafter,
        )
    assert approval.path.read_text(encoding="utf-8") == GUIDE.strip() + "\n"
    # the retrieval drafter's file scan finds it
    assert approval.path in corpus_files(None, settings.resolved_corpus_dir)
    with ctx.session() as session:
        events = [e for e in list_events(session=session) if e.kind == "output.approved"]
        assert verify_chain(session=session).ok
    assert len(events) == 1
    assert events[0].actor == "u-drafter"
    assert events[0].payload["generation_id"] == 7
    assert events[0].payload["sha256"] == approval.sha256


def test_reviewers_cannot_approve_and_empty_drafts_are_refused(ctx: Context) -> None:
    settings = ctx.settings
    reviewer, admin = _user(ctx, "reviewer"), _user(ctx, "admin")
    with ctx.session() as session, pytest.raises(PermissionDenied):
        approve_output(
            GUIDE, doc_type="x", generation_id=1, settings=settings, session=session, actor=reviewer
        )
    with ctx.session() as session, pytest.raises(ApprovalError) as err:
        approve_output(
            "  \n", doc_type="x", generation_id=1, settings=settings, session=session, actor=admin
        )
    assert "empty" in err.value.message("en")
    assert not settings.resolved_corpus_dir.exists() or not any(
        settings.resolved_corpus_dir.rglob("*.md")
    )
