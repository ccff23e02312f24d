"""An endpoint's chat_template_kwargs go out with each request, and a server that still thinks
(a fake OpenAI-compatible SSE server on localhost, like a Qwen3 vLLM) does not reach the draft."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from app.config import EndpointConfig
from app.domain import GenerationParams, RenderedPrompt
from app.drafting.context import DraftContext
from app.drafting.freeform import stream_draft
from app.drafting.service import run_to_end
from app.llm.client import OpenAIClient

PIECES = [
    "<think>",
    "先想一想：引用《中华人民共和国合同法》第一条？",
    "</think>",
    "该公司需要申报。",
]


class _Thinker(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.bodies.append(json.loads(self.rfile.read(length)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for i, piece in enumerate([*PIECES, None]):
            choice = {"index": 0, "delta": {"content": piece or ""}, "finish_reason": None}
            if piece is None:
                choice["finish_reason"] = "stop"
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": i,
                     "model": "qwen3", "choices": [choice]}  # fmt: skip
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Thinker)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("kwargs", [{"enable_thinking": False}, None])
def test_kwargs_sent_and_thinking_kept_out(server: str, kwargs: dict[str, Any] | None) -> None:
    _Thinker.bodies = []
    endpoint = EndpointConfig(base_url=server, model="qwen3", chat_template_kwargs=kwargs)
    rendered = RenderedPrompt("t", "t", "1", "h", "系统", "用户")
    context = DraftContext("t", {}, rendered=rendered, params=GenerationParams(max_tokens=32))
    run = stream_draft(OpenAIClient(endpoint), context, endpoint_name="q")
    outcome = run_to_end(run)
    body = _Thinker.bodies[0]
    if kwargs:
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
    else:
        assert "chat_template_kwargs" not in body
    assert outcome.text == "该公司需要申报。"
    assert "合同法" in outcome.thinking
    assert outcome.check is not None
    assert all(f.code != "citation.repealed" for f in outcome.check.findings)
    assert "thinking_removed" in map(str, outcome.marks)
