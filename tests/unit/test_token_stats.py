"""Token counts and rates of one streamed request: tokens from the server's usage (or its
tokenizer when usage is missing, as after Stop), the rate over the decode time only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.domain import GenerationStats
from app.llm.client import ChatStream
from tests.fakes import Replay, chunk, final_chunk


def by_characters(text: str) -> int:
    """A stand-in tokenizer: one token per character (so the first chunk's count is known)."""
    return len(text)


def run(chunks: list[Any], *, count_text: Callable[[str], int] | None = None) -> ChatStream:
    stream = ChatStream(lambda: Replay(chunks, delay_s=0.005), count_text=count_text)
    for _ in stream:
        pass
    return stream


def test_a_first_chunk_with_several_tokens_does_not_inflate_the_rate() -> None:
    # speculative decoding delivers 8 tokens in the first chunk, then 1 and 1: 10 in all
    chunks = [chunk("一二三四五六七八"), chunk("九"), chunk("十"), final_chunk(20, 10, 12, 9)]
    stats = run(chunks, count_text=by_characters).stats
    assert stats.completion_tokens == 10  # the server's usage, not the 3 chunks
    assert stats.decode_tokens == 2  # only the tokens after the first chunk
    assert stats.decode_s is not None and stats.decode_s > 0  # chunks arrive 5 ms apart
    assert stats.tokens_per_s == 2 / stats.decode_s  # not (10 − 1) / decode time


def test_without_usage_the_tokenizer_counts_the_text() -> None:
    # a stopped request: the stream ends before the usage chunk
    stats = run([chunk("第一条"), chunk("数据出境")], count_text=by_characters).stats
    assert stats.completion_tokens == 7
    assert not stats.tokens_estimated


def test_without_usage_or_tokenizer_the_chunk_count_is_marked_as_an_estimate() -> None:
    stats = run([chunk("第一条"), chunk("数据出境")]).stats
    assert stats.completion_tokens == 2
    assert stats.tokens_estimated
    assert stats.tokens_per_s is None  # no rate from a count that is not one


def test_without_a_tokenizer_the_rate_is_over_the_whole_request() -> None:
    stats = run([chunk("一二三"), chunk("四"), final_chunk(5, 4, None, None)]).stats
    assert stats.completion_tokens == 4
    assert stats.decode_tokens == 4  # every token, over the time from the request to the last
    assert stats.decode_s is not None and stats.ttft_s is not None
    assert stats.decode_s > stats.ttft_s  # the time includes waiting for the first token


def test_a_tokenizer_that_fails_is_treated_as_missing() -> None:
    def broken(text: str) -> int:
        raise ConnectionError("tokenizer down")

    stats = run([chunk("一二"), chunk("三")], count_text=broken).stats
    assert stats.completion_tokens == 2 and stats.tokens_estimated


def test_history_shows_the_rate_stored_in_the_audit_log() -> None:
    # a record from the audit log has no decode fields: the stored rate is shown as it was
    assert GenerationStats(completion_tokens=50, recorded_tokens_per_s=12.5).tokens_per_s == 12.5
    assert GenerationStats(completion_tokens=50).tokens_per_s is None


def test_a_single_chunk_has_no_decode_rate() -> None:
    stats = run([chunk("一二三"), final_chunk(5, 3, None, None)], count_text=by_characters).stats
    assert stats.decode_tokens == 0
    assert stats.tokens_per_s is None
