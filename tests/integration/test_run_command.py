"""`lexspec run` stops what it started, whichever way it is told to stop; a fresh run drafts at
once while it measures its model in the background."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.ops import process
from tests.servers import REPO, as_at_a_terminal, free_port, output_until, start_fresh_run

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("sig", "whole_group"),
    [
        (signal.SIGINT, False),
        (signal.SIGTERM, False),
        (signal.SIGHUP, False),
        (signal.SIGINT, True),  # Ctrl-C in a terminal
    ],
)
def test_run_stops_the_app_on_a_signal(
    sig: signal.Signals, whole_group: bool, tmp_path: Path
) -> None:
    """Exit 0, quietly. Ctrl-C in a terminal signals the whole foreground process group: the
    app child may see it first and exit before `lexspec run` does; that is still a clean stop
    (`make run` must not end with `make: *** Error 1`)."""
    port = free_port()
    env = {
        **os.environ,
        "LEXSPEC_DATA_DIR": str(tmp_path),
        "LEXSPEC_DATABASE_URL": f"sqlite:///{tmp_path / 'lexspec.db'}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "run", "--no-server", "--app-port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=whole_group,  # its own process group, as a terminal's foreground job
        preexec_fn=as_at_a_terminal,
    )
    try:
        process.wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, accept="ok")
        if whole_group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        raw, _ = proc.communicate(timeout=180)  # a limit for a loaded machine, not a measure
    finally:
        if proc.poll() is None:
            proc.kill()
    out = raw.decode(errors="replace")
    assert proc.returncode == 0, out
    assert "==> stopping" in out, out
    for noise in ("Traceback", "failed", "Warning", "deprecat"):
        assert noise not in out, out
    with pytest.raises(httpx.HTTPError):  # the child went with it: nothing holds the port
        httpx.get(f"http://127.0.0.1:{port}/", timeout=2)


def test_a_fresh_run_drafts_at_once_while_it_measures_the_model(tmp_path: Path) -> None:
    """`lexspec run` on a new installation (issue 40): the server's address is printed when it
    answers, its pass timing shows progress, the writing mode is measured in the background,
    and the first draft meanwhile assembles the vetted clauses (complete, no part fell back)."""
    app_port, server_port = free_port(), free_port()
    data = tmp_path / "data"
    log = tmp_path / "run.log"
    proc, env = start_fresh_run(data, f"sqlite:///{tmp_path / 'lexspec.db'}", app_port, server_port, log,
                          LEXSPEC_LANG="en")  # fmt: skip
    try:
        output_until(log, "answering on", proc)
        base = f"http://127.0.0.1:{server_port}"
        assert httpx.get(f"{base}/health", timeout=5).status_code == 200  # it answers now
        shown = output_until(log, "measuring in the background", proc)
        assert shown.index("will answer on") < shown.index("timing passes: 1/2")
        assert shown.index("timing passes: 2/2") < shown.index("answering on")
        drafted = subprocess.run(
            [sys.executable, "-m", "app.cli", "draft", "--type", "cross-border-filing-guide",
             "--example", "--no-audit", "--report", str(tmp_path / "report.json")],
            cwd=REPO, env={**env, "LEXSPEC_LLM_BASE_URL": f"{base}/v1"}, capture_output=True,
            text=True, timeout=600, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert drafted.returncode == 0, drafted.stderr
        report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
        assert report["status"] == "complete"
        counts = report["counts"]
        assert counts["clause"] > 0 and counts["fell_back"] == counts["truncated"] == 0
        assert counts["model"] == counts["adapted"] == 0  # not a word waited on the model
        kept = json.loads((data / "writing-measures.json").read_text(encoding="utf-8"))
        model = kept["endpoints"][f"{base}/v1"]["model"]
        assert model.startswith("SmolLM2-135M-Instruct@")  # kept per model file
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = log.read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, text
    assert "Traceback" not in text, text
