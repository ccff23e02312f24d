"""The HTTP layer of the embedded server in-process, over a stand-in model whose tokenizer
blocks until told: proves by ordering (not by timing) that tokenization runs off the event
loop. Everything else about the server is tested on the real one (tests/integration)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, cast

import httpx

from app.serving.metrics import Metrics
from app.serving.server import ServerState, make_app
from app.serving.speculative import Engine
from app.serving.worker import Worker

GIVE_UP_S = 10  # only ends a deadlock: with the fix, /health answers at once


class _BlockingTokenizer:
    """A model whose tokenizer waits until /health has been answered."""

    n_ctx = 64
    path = Path("stand-in.gguf")

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.gave_up = False

    def chat_tokens(self, messages: list[dict[str, Any]]) -> list[int]:
        self.started.set()
        self.gave_up = not self.release.wait(GIVE_UP_S)
        return [1] * 100  # longer than n_ctx: the request ends as a 400, no generation

    def tokenize(self, text: str, *, special: bool = False, add_bos: bool = False) -> list[int]:
        return self.chat_tokens([])


class _Engine:
    method = "off"

    def __init__(self, model: _BlockingTokenizer) -> None:
        self.model = model


async def _health_during_tokenization(path: str, body: dict[str, Any]) -> list[int]:
    model = _BlockingTokenizer()
    engine = cast(Engine, _Engine(model))
    metrics = Metrics("stand-in")
    state = ServerState(engine, Worker(engine, metrics), metrics, "stand-in")
    transport = httpx.ASGITransport(app=make_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://server") as client:
        slow = asyncio.ensure_future(client.post(path, json=body))
        assert await asyncio.to_thread(model.started.wait, GIVE_UP_S)
        health = await client.get("/health")
        model.release.set()
        answered = await slow
    assert not model.gave_up, "/health waited for the tokenizer: it runs on the event loop"
    return [health.status_code, answered.status_code]


def test_health_answers_while_a_chat_prompt_is_tokenized() -> None:
    body = {"messages": [{"role": "user", "content": "x"}]}
    assert asyncio.run(_health_during_tokenization("/v1/chat/completions", body)) == [200, 400]


def test_health_answers_while_tokenize_works() -> None:
    status = asyncio.run(_health_during_tokenization("/tokenize", {"prompt": "x"}))
    assert status == [200, 200]
