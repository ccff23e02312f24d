"""The Monitor's numbers against the real embedded server: an idle server holds no KV cache
(it used to report the kept prefix, 59% while idle), and each request is counted once."""

from __future__ import annotations

import time

import httpx
import pytest

from app.llm.metrics_parse import E2E, KV_USAGE, RUNNING, scrape

pytestmark = pytest.mark.integration


def _chat(base_url: str, *, stop_after: int | None = None) -> None:
    body = {
        "stream": True,
        "max_tokens": 24,
        "messages": [{"role": "user", "content": "用一句话说明数据出境安全评估。"}],
    }
    with httpx.stream("POST", f"{base_url}/chat/completions", json=body, timeout=300) as resp:
        resp.raise_for_status()
        for n, _ in enumerate(resp.iter_lines()):
            if stop_after is not None and n >= stop_after:
                break  # the client leaves, as the app does on Stop


def _idle_snapshot(base_url: str) -> tuple[float, float]:
    """(requests finished, KV-cache use) once nothing runs (a left request ends a step later)."""
    for _ in range(120):
        snap = scrape(base_url)
        assert snap.ok, snap.error
        if snap.gauges.get(RUNNING, 0.0) == 0:
            return snap.histograms[E2E].count, snap.gauges[KV_USAGE]
        time.sleep(0.5)
    raise AssertionError("the server never became idle")


def test_idle_server_has_an_empty_kv_cache_and_counts_each_request_once(
    llm_base_url: str,
) -> None:
    before, _ = _idle_snapshot(llm_base_url)
    _chat(llm_base_url)
    _chat(llm_base_url, stop_after=3)
    after, kv = _idle_snapshot(llm_base_url)
    assert after - before == 2
    assert kv == 0.0
