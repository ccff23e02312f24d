"""The drafting page's queue line (#15 §3): before its first token a draft says what the server is
already busy with, read from the real embedded server's /metrics."""

from __future__ import annotations

import time

import httpx
import pytest

from app.config import EndpointConfig
from app.llm.metrics_parse import RUNNING, WAITING, scrape
from app.pages.draft_run import queue_text
from tests.servers import holding

pytestmark = pytest.mark.integration


def _busy(url: str) -> float:
    snap = scrape(url)
    return snap.gauges.get(RUNNING, 0.0) + snap.gauges.get(WAITING, 0.0)


def _running(url: str) -> float:
    return scrape(url).gauges.get(RUNNING, 0.0)


def test_the_queue_line_names_the_requests_ahead_and_is_empty_when_idle(llm_base_url: str) -> None:
    endpoint = EndpointConfig(base_url=llm_base_url)
    deadline = time.monotonic() + 60
    while _busy(llm_base_url) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert queue_text(endpoint) == ""  # an idle server: nothing to wait for

    model = httpx.get(f"{llm_base_url}/models", timeout=30).json()["data"][0]["id"]
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "Count from 1 to 500, one number per line."}],
        "max_tokens": 400,
        "temperature": 0,
    }
    with holding(llm_base_url, body) as (busy,):  # released (cancelled) once the line is read
        # running, not only queued: a request waits a moment before the worker takes it up
        # (seen in CI: the line then said 0 running, 1 waiting)
        while not _running(llm_base_url):
            assert busy.alive(), "the long request ended before it ran"
            time.sleep(0.05)
        line = queue_text(endpoint)
    assert "1 个请求正在生成" in line and "排第 1 位" in line
