"""Standing attacker suite: the embedded model server's requests (issue 37, item 12).

Attacks: `logprobs: true` on chat (accepted, and answered without any, where a completion
refuses it), and requests sent halfway: a head whose bytes trickle in, a body that stops.
Before: chat said nothing of the log probabilities it did not return; a half-sent request
held its connection for minutes. Must hold: chat refuses log probabilities with a 400 naming
the field; a head not complete within the head deadline is closed, a body not complete within
the body deadline answered 408 (app/serving/deadlines.py). The real embedded server over real
sockets, started with deadlines of DEADLINE_S (`lexspec serve --head-timeout/--body-timeout`;
the defaults, 10 s and 30 s, would hold a test that long); the waits below bound how long a
test may take, they are not what it asserts.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlparse

import httpx
import pytest

from tests.servers import embedded_server

pytestmark = pytest.mark.integration
DEADLINE_S = 3  # the test server's head and body deadlines
CHAT = {"messages": [{"role": "user", "content": "你好"}], "max_tokens": 2}
GIVE_UP_S = 120.0  # the old server held such a connection until the client gave up


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """A real embedded server (no speculation) with short deadlines."""
    deadlines = ("--head-timeout", str(DEADLINE_S), "--body-timeout", str(DEADLINE_S))
    with embedded_server("off", *deadlines) as url:
        yield url


@pytest.mark.parametrize(
    ("fields", "param"),
    [({"logprobs": True}, "logprobs"), ({"top_logprobs": 2, "logprobs": True}, "logprobs")],
)
def test_attack_chat_asks_for_log_probabilities(
    server_url: str, fields: dict[str, object], param: str
) -> None:
    for stream in (False, True):
        body = {**CHAT, **fields, "stream": stream}
        reply = httpx.post(f"{server_url}/chat/completions", json=body, timeout=120)
        assert reply.status_code == 400, reply.text
        error = reply.json()["error"]
        assert error["param"] == param and "not supported" in error["message"]
    asked_none = {**CHAT, "logprobs": False}
    ok = httpx.post(f"{server_url}/chat/completions", json=asked_none, timeout=120)
    assert ok.status_code == 200, ok.text


def _connect(base_url: str) -> socket.socket:
    url = urlparse(base_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=GIVE_UP_S)
    return sock


def test_attack_a_head_that_trickles_in_is_closed(server_url: str) -> None:
    """A byte of the head every second (each byte used to restart the wait)."""
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    started = time.monotonic()
    with _connect(server_url) as sock:
        sock.settimeout(1.0)
        closed = False
        for byte in head * 4:
            try:
                sock.send(bytes([byte]))
                closed = sock.recv(1024) == b""
            except TimeoutError:
                continue  # nothing yet: the server is still waiting
            except OSError:  # reset or broken pipe: closed by the server
                closed = True
            if closed or time.monotonic() - started > GIVE_UP_S:
                break
    assert closed, "the server still held a head that never completed"
    assert time.monotonic() - started >= DEADLINE_S - 1  # closed by the deadline, not before


def test_attack_a_body_that_stops_halfway_gets_408(server_url: str) -> None:
    body = json.dumps(CHAT).encode()
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) + 100}\r\n\r\n"
    ).encode()
    with _connect(server_url) as sock:
        sock.sendall(head + body)  # 100 bytes short, and silent from here on
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert b" 408 " in status_line, reply
    error = json.loads(rest.partition(b"\r\n\r\n")[2])["error"]
    assert f"within {DEADLINE_S} s" in error["message"]


def test_a_request_sent_whole_is_served_on_the_same_connection_after(
    server_url: str,
) -> None:
    """The deadlines leave honest clients alone: two requests on one kept-alive connection."""
    with httpx.Client(timeout=120) as client:
        for _ in range(2):
            assert client.get(server_url.removesuffix("/v1") + "/health").status_code == 200
