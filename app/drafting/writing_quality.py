"""How well an endpoint adapts the clause library, measured once and cached (`lexspec doctor
--endpoint`, the Monitor page): every document type's example drafted with `adapt`; the share
of adapted parts that pass the prose and fidelity gates decides the endpoint's writing mode
(app/drafting/writing_mode.py), stated with speculation's acceptance and decode speed. The
measurement stops after a type once the verdict is settled (`writing_mode.settled`: the parts
left could not change it), and says so: a model that fails its first parts is known to write
`assemble` without being asked the rest.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from app.drafting.writing_mode import WritingMeasure, bind, cache_path, cached, save, settled
from app.knowledge import Knowledge

if TYPE_CHECKING:
    from app.config import Settings
    from app.llm.client import OpenAIClient
    from app.prompts import DocType

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
    count its adapted parts that passed; `progress(done, total, type)` after each type; stop
    after a type once the verdict is settled (`planned` records how many parts the whole
    measurement asks). The drafts go through the draft service's door unrecorded
    (`record=False`): they measure the endpoint, they are no one's draft."""
    from app.drafting.service import DraftRequest, draft

    types = [t for t in sorted(knowledge.types) if knowledge.has_outline(t)]
    planned = sum(adapted_parts(knowledge.types[t], knowledge) for t in types)
    total = WritingMeasure(client.base_url, client.model_key(), 0, 0, planned=planned)
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
        if settled(total.passed, total.parts, planned):
            break
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return replace(total, measured_at=stamp)


def adapted_parts(doc: DocType, knowledge: Knowledge) -> int:
    """How many parts of the type's example its outline asks the model to adapt (a generated
    part with a clause): what the measurement asks of this type."""
    from app.drafting.context import prepare

    plan = prepare(doc, doc.example_values(), knowledge=knowledge, mode="outline").plan
    steps = plan.steps if plan is not None else ()
    return sum(1 for s in steps if s.generated and s.clause is not None)


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
