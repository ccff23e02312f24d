"""The live caption under a streaming draft: no rate until the chunks after the first span a
measurable time (the first chunk used to show "约 1000000.0 段/秒")."""

from __future__ import annotations

import re

import pytest

from app.pages.draft_run import RATE_AFTER_S, streaming_line


@pytest.mark.parametrize("since_first", [0.0, 1e-6, RATE_AFTER_S / 2])
def test_no_rate_over_a_span_too_short_to_measure(since_first: float) -> None:
    line = streaming_line(0.8, 1, since_first)
    assert "0.80" in line and "1" in line
    assert "/s" not in line and "/秒" not in line


def test_the_rate_counts_the_chunks_after_the_first_over_the_time_since_it() -> None:
    line = streaming_line(0.8, 21, 4.0)  # 20 chunks after the first in 4 s
    rates = re.findall(r"(\d+\.\d) (?:段/秒|chunks/s)", line)
    assert rates == ["5.0"]
