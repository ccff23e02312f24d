"""A request whose client has gone is dropped even in prefill: the real model (in process)
stops between prompt pieces once asked, and the engine then ends the request as cancelled
without generating. Ordered by events, not by a clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.config import get_settings
from app.serving.model import MAX_INVARIANT_ROWS, Model
from app.serving.speculative import Engine, Request

pytestmark = pytest.mark.integration

TEXT = "第一条 为了规范数据出境活动，保护个人信息权益，维护国家安全和社会公共利益。" * 12


@pytest.fixture(scope="module")
def model() -> Iterator[Model]:
    s = get_settings()
    loaded = Model(s.resolved_model_path, n_ctx=1024, n_threads=s.n_threads)
    yield loaded
    loaded.close()


def test_prefill_stops_between_pieces_when_asked(model: Model) -> None:
    prompt = model.tokenize(TEXT, add_bos=True)
    assert len(prompt) > 4 * MAX_INVARIANT_ROWS
    model.truncate(0)
    asked: list[int] = []

    def stop() -> bool:  # let two pieces through, then the client "leaves"
        asked.append(len(model.cached))
        return len(asked) > 2

    assert model.prefill(prompt, stop) == 0
    assert len(model.cached) == 2 * MAX_INVARIANT_ROWS  # the rest was never computed
    assert model.cached == prompt[: len(model.cached)]
    assert model.prefill(prompt) == 2 * MAX_INVARIANT_ROWS  # what was computed is reused
    assert len(model.cached) == len(prompt) - 1


def test_a_request_cancelled_in_prefill_ends_without_generating(model: Model) -> None:
    model.truncate(0)
    prompt = model.tokenize(TEXT, add_bos=True)
    request = Request(prompt=prompt, max_tokens=50)
    pieces = 0
    decode = model.decode

    def counting_decode(tokens, n_logits):  # type: ignore[no-untyped-def]
        nonlocal pieces
        pieces += 1
        if pieces == 1:
            request.cancelled.set()  # the client leaves while the first piece is computed
        return decode(tokens, n_logits)

    model.decode = counting_decode  # type: ignore[method-assign]
    try:
        steps = list(Engine(model).generate(request))
    finally:
        del model.decode
    assert [(s.tokens, s.finish) for s in steps] == [([], "cancelled")]
    assert pieces == 1 and len(model.cached) == MAX_INVARIANT_ROWS
