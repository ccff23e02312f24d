"""In `adapt` a later part's prompt is the conversation so far, so it extends the sequence the
server computed for the part before it (its prefix cache holds it); where that would not fit the
model's context, the part is asked alone after the shared prefix. The model is a fake that
replays chunks and records every request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path

import pytest

from app.drafting.context import prepare
from app.drafting.service import run_to_end, start_draft
from app.knowledge import Knowledge
from app.prompts import load_library
from tests.fakes import FakeClient

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TYPE = "confidentiality-agreement-points"


class LongChats(FakeClient):
    """A context a part alone fits and a conversation with earlier parts does not."""

    def count_tokens(self, messages: Sequence[Mapping[str, str]]) -> int | None:
        return 100 if len(messages) <= 2 else 100_000


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    return load_library(PROMPTS)


def _requests(library, client: FakeClient, writing: str):  # type: ignore[no-untyped-def]
    doc = library.types[TYPE]
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing=writing))
    return prepared, outcome, [messages for messages, _ in client.requests]


def _faithful(library) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """Each generated part's clause as its adaptation (it passes every gate)."""
    doc = library.types[TYPE]
    plan = prepare(
        doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=FakeClient([])
    ).plan
    return [[s.clause.text] for s in plan.steps if s.generated and s.clause]


def test_a_later_part_extends_the_conversation_of_the_earlier_ones(library) -> None:  # type: ignore[no-untyped-def]
    client = FakeClient([], scripts=_faithful(library))
    prepared, outcome, asked = _requests(library, client, "adapt")
    assert [o.source for o in outcome.provenance if o.source != "app"] == ["adapted"] * len(asked)
    assert len(asked) >= 2
    for before, after in pairwise(asked):
        assert after[: len(before)] == before  # the earlier chat, unchanged, is its prefix
        answer = after[len(before)]
        assert answer["role"] == "assistant" and answer["content"] in outcome.text
    facts = prepared.plan.facts
    assert sum(facts in m["content"] for m in asked[-1]) == 1  # the facts block once
    generated = [s for s in prepared.plan.steps if s.generated]
    last = asked[-1][-1]["content"]
    assert generated[len(asked) - 1].clause.text in last  # the part's own clause, last


def test_a_conversation_too_long_for_the_context_asks_the_part_alone(library) -> None:  # type: ignore[no-untyped-def]
    _, _, asked = _requests(library, LongChats([], scripts=_faithful(library)), "adapt")
    assert len(asked) >= 2 and all(len(m) == 2 for m in asked)


def test_a_part_that_fell_back_is_left_out_of_the_conversation(library) -> None:  # type: ignore[no-untyped-def]
    """Its clause was never generated: in the chat it would be computed again, not reused."""
    _, _, asked = _requests(library, FakeClient(["乙方应当书面通知甲方。"]), "adapt")
    assert len(asked) >= 2 and all(len(m) == 2 for m in asked)


def test_write_asks_every_part_alone_after_the_shared_prefix(library) -> None:  # type: ignore[no-untyped-def]
    _, _, asked = _requests(library, FakeClient(["乙方应当书面通知甲方。"]), "write")
    assert all(len(m) == 2 for m in asked)
    assert len({m[0]["content"] for m in asked}) == 1
