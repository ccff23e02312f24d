"""The writing-quality measurement on the real embedded server (SmolLM2-135M): the types'
examples adapted until the verdict is settled, the adapted parts counted, the result cached and
followed (properties only: the model's words differ between machines)."""

from __future__ import annotations

from pathlib import Path

from app.config import EndpointConfig
from app.drafting.writing_mode import ADAPT_MIN_SHARE, cached, save, settled
from app.drafting.writing_quality import measure
from app.knowledge import Knowledge
from app.llm.client import OpenAIClient

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


def test_an_endpoint_is_measured_on_the_types_own_clauses(
    llm_base_url: str, tmp_path: Path
) -> None:
    client = OpenAIClient(EndpointConfig(base_url=llm_base_url), timeout_s=900)
    seen: list[tuple[int, int, str]] = []
    found = measure(
        client, knowledge=Knowledge(PROMPTS), max_tokens=24, progress=lambda *a: seen.append(a)
    )
    assert [done for done, _, _ in seen] == list(range(1, len(seen) + 1))  # progress per type
    outlined = sum(1 for d in PROMPTS.iterdir() if (d / "outline.yaml").is_file())
    assert seen[-1][1] == outlined  # of every type with an outline
    assert found.parts > 0 and 0 <= found.passed <= found.parts <= found.planned
    # every type asked, or stopped once the parts left could not change the verdict
    every = seen[-1][0] == outlined and found.parts == found.planned
    assert every or (found.stopped_early and settled(found.passed, found.parts, found.planned))
    assert found.writing == ("adapt" if found.share >= ADAPT_MIN_SHARE else "assemble")
    assert found.acceptance is None or 0 <= found.acceptance <= 1
    assert found.model and found.measured_at
    name, _, digest = found.model.partition("@")  # kept per model file, whatever its address
    assert name == client.model() and len(digest) == 16
    path = save(found, tmp_path / "measures.json")
    assert cached(llm_base_url, found.model, path) == found
    assert cached("http://127.0.0.1:1/v1", found.model, path) == found
    assert cached(llm_base_url, None, path) == found  # the address's model, measured
