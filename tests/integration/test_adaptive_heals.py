"""An adaptive n-gram server started while the machine is busy (its start-up calibration
timed under synthetic load) resumes drafting once the load is gone: the cost model keeps
learning from live passes, with a little exploration (app/serving/adaptive.Explorer)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.ops.process import stop
from tests.servers import embedded_server, metric_total

pytestmark = pytest.mark.integration

# a text completion the model continues by repeating itself: prompt lookup finds proposals
PROMPT = "第一条 数据处理者应当申报数据出境安全评估。\n" * 6
MAX_REQUESTS = 8  # each at most 48 tokens: a few hundred tokens in all


@pytest.fixture
def calibrated_under_load(tmp_path: Path) -> Iterator[str]:
    """An adaptive ngram server whose calibration ran beside busy processes, which are
    stopped once it is healthy. Its own data directory: no pass costs kept from an earlier
    start (app/serving/calibration.py), so it times them now, under the load."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])]  # a core kept busy
    try:
        # K <= 4: a shorter calibration, which the busy core already slows down
        env = {"LEXSPEC_DATA_DIR": str(tmp_path)}
        with embedded_server("ngram", "--num-speculative-tokens", "4", env=env) as url:
            stop(busy)
            yield url
    finally:
        stop(busy)


def test_drafting_resumes_once_the_load_is_gone(calibrated_under_load: str) -> None:
    url = calibrated_under_load
    series = "vllm:spec_decode_num_draft_tokens_total{"
    before = metric_total(url, series)
    for _ in range(MAX_REQUESTS):
        body = {"prompt": PROMPT, "temperature": 0, "max_tokens": 48}
        reply = httpx.post(f"{url}/completions", json=body, timeout=600).json()
        assert reply["choices"][0]["text"]
        if metric_total(url, series) > before:
            break
    assert metric_total(url, series) > before
