"""A model server that dies mid-stream is reported as such, and the partial text is kept.

The server here is a real socket that answers the chat request with the start of an SSE
stream (two text chunks) and then drops the connection, as a killed server process does.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from app.config import EndpointConfig
from app.domain import GenerationParams, RenderedPrompt
from app.drafting.context import DraftContext
from app.drafting.freeform import stream_draft
from app.llm.client import OpenAIClient

pytestmark = pytest.mark.integration


def _chunk(text: str) -> bytes:
    body = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    event = f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()
    return f"{len(event):x}\r\n".encode() + event + b"\r\n"


def _serve(listener: socket.socket) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            request = conn.recv(65536)
            if b"/chat/completions" in request.split(b"\r\n", 1)[0]:
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n" + _chunk("第一条 ") + _chunk("数据")
                )
            # then the connection drops without the end of the stream


@pytest.fixture
def dying_server() -> Iterator[str]:
    listener = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(target=_serve, args=(listener,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    listener.close()


def test_server_that_dies_mid_stream_is_not_called_unreachable(dying_server: str) -> None:
    client = OpenAIClient(
        EndpointConfig(base_url=dying_server, model="m"), timeout_s=10, connect_timeout_s=5
    )
    rendered = RenderedPrompt("t", "t", "1", "ab" * 32, "system", "user")
    context = DraftContext("t", {}, rendered=rendered, params=GenerationParams(max_tokens=64))
    run = stream_draft(client, context, endpoint_name="e")
    for _update in run:
        pass
    outcome = run.outcome()
    assert outcome.status == "error" and outcome.text == "第一条 数据"
    assert outcome.error is not None
    assert (
        "the model server stopped while drafting; the partial text is kept" in outcome.error.lower()
    )
    assert "模型服务在生成过程中停止" in outcome.error and "Cannot reach" not in outcome.error
