"""Standing attacker suite: oversized numbers (issue 37, item 3).

Attacks: a model endpoint that reports `usage.prompt_tokens: 1e20` (and other numbers no
count can be), and a spool line, correctly signed, with `completion_tokens: 2**64`. Before:
an uncaught OverflowError, every later database command tracebacked, the draft's record was
neither logged nor spooled, and `audit verify` exited 0. Must hold: the numbers are checked
where they enter (app.llm.reported for a server, audit.store.record_values for a record); the
draft's record is logged with the refused values named in `params["refused"]`; the spool line
is quarantined verbatim with the reason, verify exits 1 saying so, and later commands work.
A real HTTP server that lies (the hostile endpoint), real databases, the real command line.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from app.cli import main
from audit.spool import SPOOL_FILE, Spool
from tests.conftest import MakeContext
from tests.integration.test_attacks_audit import _forged

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]

LIES: dict[str, Any] = {
    "usage": {"prompt_tokens": 1e20, "completion_tokens": 2**64, "total_tokens": -1},
    "spec_decode": {"draft_tokens": -3, "accepted_tokens": 1.5, "method": "m" * 500},
}


class _Liar(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint whose every number is out of range."""

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # http.server's name
        model = {"id": "liar", "object": "model", "created": 0, "owned_by": "x"}
        self._json({"object": "list", "data": [{**model, "max_model_len": 1e20}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.endswith("/tokenize"):
            self._json({"count": 1e300, "max_model_len": -1, "tokens": []})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        pieces = ["一、总则\n", "本条款适用于数据出境。\n", None]
        for i, piece in enumerate(pieces):
            choice = {"index": 0, "delta": {"content": piece or ""}, "finish_reason": None}
            chunk: dict[str, Any] = {"id": "x", "object": "chat.completion.chunk",
                                     "created": i, "model": "liar", "choices": [choice]}  # fmt: skip
            if piece is None:
                choice["finish_reason"] = "stop"
                chunk.update(LIES)
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture
def liar() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Liar)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_attack_an_endpoint_reporting_impossible_numbers_loses_no_record(
    liar: str,
    db_url: str,
    db_engine: Engine,
    make_context: MakeContext,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ctx = make_context(
        lang="en", database_url=db_url, endpoints={"liar": {"base_url": liar, "model": "liar"}}
    )
    argv = ["draft", "--type", "clause-continuation", "--example", "--mode", "free-form"]
    code = main([*argv, "--endpoint", "liar"], context=ctx)
    err = capsys.readouterr().err
    assert "Traceback" not in err and code == 0, err
    with db_engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT prompt_tokens, completion_tokens, draft_tokens, accepted_tokens, params"
                " FROM generations"
            )
        ).one()
    prompt, completion, drafted, accepted, params = row
    params = json.loads(params) if isinstance(params, str) else params
    assert drafted is None and accepted is None
    assert prompt is None or 0 < prompt < 100_000  # the app's own count, not the server's
    assert 0 < completion < 100  # counted from the text (the server's count was refused)
    assert params["refused"] == {
        "spec_decode.accepted_tokens": "1.5",
        "spec_decode.draft_tokens": "-3",
        "usage.completion_tokens": repr(2**64),
        "usage.prompt_tokens": "1e+20",
        "usage.total_tokens": "-1",
    }
    assert main(["audit", "verify"], context=ctx) == 0, capsys.readouterr().err


def test_attack_a_signed_spool_line_with_a_count_of_2_64(
    db_url: str,
    db_engine: Engine,
    make_context: MakeContext,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ctx = make_context(lang="en", database_url=db_url)
    spool = Spool(ctx.settings.data_dir / SPOOL_FILE)
    line = _forged(spool.key(), completion_tokens=2**64, output_text="过大的数")
    spool.path.write_bytes(line + b"\n")
    spool.append(_record("真的"))
    assert main(["user", "add", "alice", "--role", "drafter", "--password", "long enough"],
                context=ctx) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["user", "list"], context=ctx) == 0  # later commands: no traceback
    assert main(["audit", "verify"], context=ctx) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "1 unreadable spool line(s)" in err and "completion_tokens is not a count" in err, err
    assert [e.raw for e in spool.quarantine_entries()] == [line]  # kept, verbatim
    with db_engine.connect() as conn:
        texts = conn.execute(text("SELECT output_text FROM generations")).scalars().all()
    assert texts == ["真的"]  # the genuine line next to it went in


def _record(output: str) -> Any:
    from tests.records import make_record

    return make_record(output_text=output)
