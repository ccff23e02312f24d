"""Losslessness: at temperature 0 every speculative mode emits exactly the plain server's tokens.

Two numerical effects had to be removed first (measured on SmolLM2-135M Q4_1, CPU):
- With llama.cpp's default (non-flash) attention, rows of a batched verify pass differed from
  single-token rows by up to ~0.5 in the logits (57 of 120 rows in a probe), which flipped
  near-tied argmaxes in 2 of 5 prompts within 64 tokens. With flash attention the rows are
  bit-identical for any batch below 32 rows, so the engine runs the target with it.
- Batches of >= 32 rows may take another CPU kernel path whose numerics differ, so the KV cache
  of a prompt depended on how it was split (i.e. on what the previous request left cached):
  even plain decoding was not reproducible across requests. Prompts are therefore decoded in
  pieces below 32 rows as well, so a token's KV is the same whichever request computed it and
  the server reuses the longest cached prefix, wherever it ends.
With both, this test demands identical text, and the drafters must actually have drafted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pytest

from app.config import get_settings
from app.serving.model import MAX_INVARIANT_ROWS, Model
from tests.servers import embedded_server

pytestmark = pytest.mark.integration

PROMPTS = [
    "List the days of the week, then list them again.",
    "Write a short confidentiality clause for a software licence agreement.",
    "请写一份《数据出境安全评估申报表》填写指南，引用《数据出境安全评估办法》第四条。",
    "Explain what a data processor must do before transferring personal information abroad.",
    "Repeat exactly three times: Article 1. The data processor shall apply for a security assessment.",
]


def _chat(base_url: str, prompt: str) -> dict:
    body = {"messages": [{"role": "user", "content": prompt}], "temperature": 0, "max_tokens": 64}
    r = httpx.post(f"{base_url}/chat/completions", json=body, timeout=120)
    r.raise_for_status()
    return r.json()


@pytest.fixture(scope="module")
def plain_outputs(plain_llm_base_url: str) -> list[str]:
    return [_chat(plain_llm_base_url, p)["choices"][0]["message"]["content"] for p in PROMPTS]


@pytest.fixture(scope="module")
def retrieval_url(
    plain_outputs: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A retrieval server whose corpus holds earlier (slightly edited) outputs, as in re-drafting."""
    corpus = tmp_path_factory.mktemp("corpus")
    for i, text in enumerate(plain_outputs):
        (corpus / f"approved-{i}.md").write_text(text.replace("the", "this", 1), encoding="utf-8")
    with embedded_server("retrieval", "--corpus", str(corpus)) as url:
        yield url


@pytest.fixture(scope="module")
def draft_url() -> Iterator[str]:
    """The target as its own draft model, drafting K=4 every step (no adaptive switch-off)."""
    gguf = str(get_settings().resolved_model_path)
    with embedded_server(
        "draft_model", "--draft-model", gguf, "--num-speculative-tokens", "4", "--fixed-k"
    ) as url:
        yield url


def _check_identical(base_url: str, plain_outputs: list[str], method: str) -> None:
    drafted = 0
    for prompt, expected in zip(PROMPTS, plain_outputs, strict=True):
        r = _chat(base_url, prompt)
        assert r["choices"][0]["message"]["content"] == expected, prompt
        assert r["spec_decode"]["method"] == method
        drafted += r["spec_decode"]["draft_tokens"]
    assert drafted > 0, "the drafter never drafted: the comparison would prove nothing"


def test_ngram_is_lossless(llm_base_url: str, plain_outputs: list[str]) -> None:
    _check_identical(llm_base_url, plain_outputs, "ngram")


def test_retrieval_is_lossless(retrieval_url: str, plain_outputs: list[str]) -> None:
    _check_identical(retrieval_url, plain_outputs, "retrieval")


def test_draft_model_is_lossless(draft_url: str, plain_outputs: list[str]) -> None:
    _check_identical(draft_url, plain_outputs, "draft_model")


def test_corpus_is_reread_when_it_changes(plain_outputs: list[str], tmp_path: Path) -> None:
    """A new approved output is picked up without a restart (drafts then come from it). Fixed K:
    the adaptive default may rightly skip drafting on a loaded machine."""
    with embedded_server("retrieval", "--corpus", str(tmp_path), "--fixed-k") as url:
        before = _chat(url, PROMPTS[1])["spec_decode"]
        (tmp_path / "new.md").write_text(plain_outputs[1], encoding="utf-8")
        time.sleep(2.5)  # the corpus is checked at most every 2 s
        after = _chat(url, PROMPTS[1])
    assert after["choices"][0]["message"]["content"] == plain_outputs[1]
    assert after["spec_decode"]["accepted_tokens"] > before["accepted_tokens"]


@contextmanager
def batch_sizes(model: Model) -> Iterator[list[int]]:
    """The size of every llama_decode call the model makes inside the block."""
    sizes: list[int] = []
    decode_chunk = model._decode_chunk

    def counted(chunk: Sequence[int], n: int) -> None:
        sizes.append(len(chunk))
        decode_chunk(chunk, n)

    model._decode_chunk = counted  # type: ignore[method-assign]
    try:
        yield sizes
    finally:
        model._decode_chunk = decode_chunk  # type: ignore[method-assign]


def test_a_verify_pass_is_one_batch_and_matches_single_token_passes() -> None:
    """A verify pass is decoded in one llama_decode call: its rows and the KV it leaves must
    equal those of single-token passes, bit for bit."""
    s = get_settings()
    model = Model(s.resolved_model_path, n_ctx=512, n_threads=s.n_threads)
    try:
        tokens = model.tokenize("第一条 为了规范数据出境活动，保护个人信息权益。Article 1. " * 20)
        start = 119
        rows = tokens[start : start + 17]
        model.decode(tokens[:start], 1)
        single = np.stack([model.decode([tok], 1)[0].copy() for tok in rows])
        after_single = model.decode(tokens[start + 17 : start + 18], 1)[0].copy()
        model.truncate(start)
        with batch_sizes(model) as passes:
            batched = model.decode(rows, len(rows)).copy()
        assert passes == [17]  # one llama_decode call
        after_batched = model.decode(tokens[start + 17 : start + 18], 1)[0]
        assert np.array_equal(single, batched)
        assert np.array_equal(after_single, after_batched)  # the KV written is the same too
    finally:
        model.close()


def test_a_prompt_reuses_the_whole_shared_prefix_and_gets_the_cold_logits() -> None:
    """Two prompts sharing a prefix that ends mid-piece (as an outline's parts share system +
    facts): the second reuses every shared token, not just whole pieces, and its logits equal
    those of a cold prefill bit for bit; no llama_decode call is MAX_INVARIANT_ROWS or more."""
    s = get_settings()
    model = Model(s.resolved_model_path, n_ctx=1024, n_threads=s.n_threads)
    try:
        text = "第一条 为了规范数据出境活动，保护个人信息权益。Article 1. " * 12
        facts = model.tokenize(text)[:300]
        first = facts + model.tokenize("请写出申报材料清单。")
        second = facts + model.tokenize("请说明评估的法律依据。")
        shared = len(os.path.commonprefix([first, second]))  # noqa: RUF071 - token ids, not text
        assert shared >= 300 and shared % MAX_INVARIANT_ROWS != 0
        with batch_sizes(model) as sizes:
            model.prefill(first)
            model.decode(first[-1:], 1)
            reused = model.prefill(second)
            warm = model.decode(second[-1:], 1)[0].copy()
            model.truncate(0)
            assert model.prefill(second) == 0
            cold = model.decode(second[-1:], 1)[0]
        assert reused == shared
        assert np.array_equal(warm, cold)
        assert max(sizes) <= MAX_INVARIANT_ROWS
    finally:
        model.close()


def test_a_prompt_snapshot_restores_the_cold_logits_and_keeps_its_budget(tmp_path: Path) -> None:
    """Prompt A, then B (sharing only a short prefix: the cached sequence then holds B), then
    A again: A's prefix comes back from its snapshot, every prompt token but the last reused,
    and its logits equal a cold prefill's bit for bit. A budget below two snapshots keeps one.
    Kept as files, a second model (another server, a restart) given the directory reuses them."""
    s = get_settings()
    text = "第一条 为了规范数据出境活动，保护个人信息权益。Article 1. " * 12
    model = Model(s.resolved_model_path, n_ctx=1024, n_threads=s.n_threads, snapshot_bytes=1 << 30)
    try:
        base = model.tokenize(text)[:40]
        first = base + model.tokenize("请写出申报材料清单。" * 8)
        second = base + model.tokenize("请说明评估的法律依据。" * 8)
        assert model.prefill(first) == 0
        cold = model.decode(first[-1:], 1)[0].copy()
        assert model.prefill(second) == len(os.path.commonprefix([first, second]))  # noqa: RUF071
        model.decode(second[-1:], 1)
        assert len(model.snapshots.kept) == 2
        assert model.prefill(first) == len(first) - 1  # from A's snapshot, not B's cache
        warm = model.decode(first[-1:], 1)[0]
        assert np.array_equal(warm, cold)
        one = model.snapshots.kept[tuple(first[:-1])]
    finally:
        model.close()
    small = Model(s.resolved_model_path, n_ctx=1024, n_threads=s.n_threads, snapshot_bytes=one)
    try:
        small.prefill(first)
        small.prefill(second)
        assert list(small.snapshots.kept) == [tuple(second[:-1])]
        assert small.snapshots.size <= one
    finally:
        small.close()
    for _ in range(2):  # the first writes A's file, the second (a new model) loads it
        model = Model(s.resolved_model_path, n_ctx=1024, n_threads=s.n_threads,
                      snapshot_bytes=1 << 30, snapshot_dir=tmp_path)  # fmt: skip
        try:
            reused = model.prefill(first)
            assert np.array_equal(model.decode(first[-1:], 1)[0], cold)
        finally:
            model.close()
    assert reused == len(first) - 1
    assert len(list(tmp_path.glob(f"{Model.snapshot_recipe()}/*.kv"))) == 1
