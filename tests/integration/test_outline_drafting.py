"""Each document type drafted from its outline on the real embedded server (SmolLM2-135M):
headings, numbering, facts and legal bases are right whatever the model writes, and the later
parts reuse the shared prefix's KV cache (the server's prefix-cache counters move)."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import httpx
import pytest

from app.config import EndpointConfig
from app.drafting.context import prepare
from app.drafting.logged import notes_of
from app.drafting.service import run_to_end, start_draft
from app.knowledge import Knowledge
from app.llm.client import OpenAIClient
from app.outline.compose import parts_fallen_back
from app.outline.provenance import facts_for, part_findings
from app.prompts import load_library
from app.validation.messages import MESSAGES
from tests.servers import metric_total

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TYPES = ("clause-continuation", "confidentiality-agreement-points", "cross-border-filing-guide",
         "standard-contract-filing")  # fmt: skip


def _chat_tokens(base_url: str, messages: list[dict[str, str]]) -> list[int]:
    r = httpx.post(f"{base_url}/tokenize", json={"messages": messages}, timeout=60)
    r.raise_for_status()
    return list(r.json()["tokens"])


@pytest.mark.parametrize("type_id", TYPES)
def test_outline_draft_on_the_real_server(llm_base_url: str, type_id: str) -> None:
    doc = load_library(PROMPTS).types[type_id]
    # a loaded machine may take long to compute a part's first prompt: no deadline of ours
    client = OpenAIClient(EndpointConfig(base_url=llm_base_url), timeout_s=900)
    params = replace(doc.defaults, max_tokens=40, seed=1)  # short parts keep the test quick
    prepared = prepare(
        doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client, params=params
    )
    assert prepared.mode == "outline"
    hits = metric_total(llm_base_url, "vllm:prefix_cache_hits_total")
    run = start_draft(prepared, client, endpoint_name="embedded", writing="adapt")
    outcome = run_to_end(run)
    assert outcome.status in ("complete", "truncated"), outcome.error
    assert outcome.check is not None and not outcome.check.has_errors, outcome.check.findings
    headings = [ln for ln in outcome.text.splitlines() if ln.startswith("【")]
    assert headings == list(doc.required_sections)
    generated = [s for s in prepared.plan.steps if s.generated]
    assert len(outcome.parts) == len(generated)
    assert all(p.stats.completion_tokens <= 40 for p in outcome.parts)
    reused = metric_total(llm_base_url, "vllm:prefix_cache_hits_total") - hits
    # every later part reused all it shares with the part before it (system + facts, token by
    # token: not rounded down to a block)
    prompts = [_chat_tokens(llm_base_url, prepared.plan.messages(s, "adapt")) for s in generated]
    shared = [len(os.path.commonprefix([a, b])) for a, b in pairwise(prompts)]  # noqa: RUF071 - token ids
    assert all(n > 0 for n in shared) and reused >= sum(shared)
    if type_id == "cross-border-filing-guide":
        count = "自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数：1200000"
        assert re.search(rf"\n（[一二三四五六七八九十]+）{count}\n", outcome.text)
        # the route engine's decision is written by the app, not left to the model
        assert "出境路径：" in outcome.text and "数据出境安全评估" in outcome.text
    if type_id == "clause-continuation":
        assert outcome.text.startswith("8.3 ")
    _every_part_passes_the_gates_or_falls_back(run, prepared, outcome)


def _every_part_passes_the_gates_or_falls_back(run, prepared, outcome) -> None:  # type: ignore[no-untyped-def]
    """In `adapt` every generated part is the model's rewrite that passes every prose gate, or
    its clause in full with the gates it failed named; the app's parts are marked `app`."""
    steps = {s.index: s for s in prepared.plan.steps}
    values = dict(prepared.rendered.values)
    origins = {o.step: o for o in outcome.provenance}
    assert set(origins) == set(steps)
    for index, origin in origins.items():
        step = steps[index]
        if not step.generated:
            assert origin.source == "app" and not origin.gates
            continue
        assert step.clause is not None
        text = run.part_text(index)
        assert text and text in outcome.text
        if origin.source == "adapted":  # passes every gate: prose, form and fidelity
            facts = facts_for(values, prepared.plan.facts, step)
            assert part_findings(text, step, "adapt", facts, prepared.plan.system) == ()
            assert not origin.gates
        else:  # a named fallback: each gate it failed has a message for the lawyer
            assert origin.source == "clause" and origin.gates, origin
            assert all(g in MESSAGES or g == "no_text" for g in origin.gates), origin
            assert text == step.clause.text
            assert (origin.clause, origin.version) == (step.clause.id, step.clause.version)
    notes = notes_of(outcome).to_dict()
    assert [p["source"] for p in notes["provenance"]] == [o.source for o in outcome.provenance]
    fallen = sum(1 for o in outcome.provenance if o.gates)
    assert parts_fallen_back(outcome.marks) == fallen
    # the honest status: the record counts what the model adapted and what fell back
    counts = notes["counts"]
    assert counts["adapted"] + counts["fell_back"] == len(
        [s for s in steps.values() if s.generated]
    )
    assert counts["fell_back"] == fallen
    assert outcome.as_labelled == (outcome.status == "complete" and not fallen)
