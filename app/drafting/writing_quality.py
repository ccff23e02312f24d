"""How well an endpoint adapts the clause library, measured once and cached (`lexspec doctor
--endpoint`, the Monitor page): every document type's example drafted with `adapt`; the share
of adapted parts that pass the prose and fidelity gates decides the endpoint's writing mode
(app/drafting/writing_mode.py), stated with speculation's acceptance and decode speed.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from app.drafting.writing_mode import WritingMeasure, bind, cache_path, cached, save
from app.knowledge import Knowledge

if TYPE_CHECKING:
    from app.config import Settings
    from app.llm.client import OpenAIClient

MEASURE_MAX_TOKENS = 160  # each part's cap while measuring (Settings.writing_measure_max_tokens)
Progress = Callable[[int, int, str], None]


def measure(
    client: OpenAIClient,
    *,
    knowledge: Knowledge,
    progress: Progress | None = None,
    max_tokens: int = MEASURE_MAX_TOKENS,
) -> WritingMeasure:
    """Draft every type's example with `adapt` on this client's endpoint (temperature 0) and
    count its adapted parts that passed; `progress(done, total, type)` after each type. The
    drafts go through the draft service's door unrecorded (`record=False`): they measure the
    endpoint, they are no one's draft."""
    from app.drafting.service import DraftRequest, draft

    types = [t for t in sorted(knowledge.types) if knowledge.has_outline(t)]
    total = WritingMeasure(client.base_url, client.model_key(), 0, 0)
    for done, type_id in enumerate(types, 1):
        doc = knowledge.types[type_id]
        params = replace(doc.defaults, max_tokens=max_tokens, temperature=0.0, seed=0)
        request = DraftRequest(
            doc, doc.example_values(), "", params=params, mode="outline", writing="adapt",
            knowledge=knowledge,
        )  # fmt: skip
        outcome = draft(None, request, client=client, record=False).outcome
        counts, stats = outcome.counts, outcome.stats
        total = replace(
            total,
            parts=total.parts + counts.adapted + counts.fell_back,
            passed=total.passed + counts.adapted,
            draft_tokens=total.draft_tokens + (stats.draft_tokens or 0),
            accepted_tokens=total.accepted_tokens + (stats.accepted_tokens or 0),
            decode_tokens=total.decode_tokens + (stats.decode_tokens or 0),
            decode_s=total.decode_s + (stats.decode_s or 0.0),
        )
        if progress is not None:
            progress(done, len(types), type_id)
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return replace(total, measured_at=stamp)


def measure_endpoint(
    name: str, *, settings: Settings, progress: Progress | None = None, again: bool = False
) -> WritingMeasure:
    """The endpoint's measurement: the cached one for the model it serves, else measured now
    and cached (`again`: measure even when cached). LLMError when it cannot be reached. While
    it measures, the cache says so (the page then tells the lawyer the mode is being chosen)."""
    from app.llm.client import make_client

    client = make_client(name, settings)
    path = cache_path(settings)
    key = client.model_key()
    found = None if again else cached(client.base_url, key, path)
    if found is not None:
        bind(client.base_url, key, path)  # this address serves a model measured before
        return found
    bind(client.base_url, key, path, measuring_pid=os.getpid())
    try:
        found = measure(
            client,
            knowledge=Knowledge.of(settings),
            progress=progress,
            max_tokens=settings.writing_measure_max_tokens,
        )
    finally:
        bind(client.base_url, key, path)  # measured or not, no longer measuring
    save(found, path)
    return found
