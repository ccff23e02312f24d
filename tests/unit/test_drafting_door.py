"""The one door for a draft (app.drafting.service.draft): it prepares, runs, checks and records,
for the page, `lexspec draft`, studies, the writing-quality measurement and the bench; a caller
that measures opts out of recording explicitly. The model is a fake replaying chunks; the audit
log is a real database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.drafting.outcome import DraftUpdate
from app.drafting.service import DraftRequest, begin, draft
from app.knowledge import Knowledge
from app.prompts import load_library
from tests.conftest import MakeContext
from tests.fakes import FakeClient

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
PIECES = ["【适用情形】\n", "一、是否需要申报\n", "（一）依据《数据出境安全评估办法》第四条。\n"]


def _request(user_name: str = "张律师") -> DraftRequest:
    doc = load_library(PROMPTS).types["cross-border-filing-guide"]
    return DraftRequest(
        doc,
        doc.example_values(),
        "embedded",
        user_name=user_name,
        mode="free-form",
        knowledge=Knowledge(PROMPTS),
    )


def _generations(factory: Any) -> list[Any]:
    from audit.store import get_generation, search_generations

    with factory() as session:
        found = search_generations(session=session)
        return [get_generation(s.id, session=session) for s in found]


@pytest.mark.integration
def test_a_draft_is_prepared_run_checked_and_recorded_through_one_door(
    db_session_factory: Any, make_context: MakeContext
) -> None:
    seen: list[DraftUpdate] = []
    client = FakeClient(PIECES)
    drafted = draft(
        make_context(db_session_factory), _request(), client=client, on_update=seen.append
    )
    outcome = drafted.outcome
    assert outcome.status == "complete" and outcome.text == "".join(PIECES)
    assert seen and seen[-1].text == outcome.text  # every update went to the caller
    assert outcome.check is not None  # checked as it ran
    assert drafted.generation_id is not None and drafted.problem is None
    (stored,) = _generations(db_session_factory)
    assert stored.id == drafted.generation_id
    assert (stored.record.user_name, stored.record.output_text) == ("张律师", outcome.text)
    assert len(client.requests) == 1


@pytest.mark.integration
def test_an_interrupted_draft_is_still_recorded_as_stopped(
    db_session_factory: Any, make_context: MakeContext
) -> None:
    class Interrupted(Exception):
        pass

    def stop_after_two(update: DraftUpdate) -> None:
        if update.text.count("\n") >= 2:
            raise Interrupted

    ctx = make_context(db_session_factory)
    with pytest.raises(Interrupted):
        draft(ctx, _request(), client=FakeClient(PIECES), on_update=stop_after_two)
    (stored,) = _generations(db_session_factory)
    assert stored.record.status == "stopped"
    assert stored.record.output_text == "".join(PIECES[:2])


@pytest.mark.integration
def test_a_measurement_opts_out_of_recording(
    db_session_factory: Any, make_context: MakeContext
) -> None:
    drafted = draft(None, _request(), client=FakeClient(PIECES), record=False)
    assert drafted.outcome.text == "".join(PIECES) and drafted.kept is None
    assert drafted.generation_id is None
    drafted = draft(
        make_context(db_session_factory), _request(), client=FakeClient(PIECES), record=False
    )
    assert drafted.kept is None and _generations(db_session_factory) == []


def test_a_draft_to_record_without_an_installation_is_refused_before_anything_is_sent() -> None:
    client = FakeClient(PIECES)
    with pytest.raises(ValueError, match="context"):
        draft(None, _request(), client=client)
    with pytest.raises(ValueError, match="client"):
        begin(None, _request())  # no installation names the endpoint's client
    assert client.requests == [] and client.replays == []


def test_begin_sends_nothing_until_the_run_is_iterated() -> None:
    client = FakeClient(PIECES)
    drafting = begin(None, _request(), client=client)
    assert drafting.context.mode == "free-form" and drafting.context.prompt.user
    assert client.replays == []  # no connection opened
    drafting.run.cancel()
    assert drafting.finish(record=False).outcome.status == "stopped"
