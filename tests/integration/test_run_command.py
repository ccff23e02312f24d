"""`lexspec run` stops what it started, whichever way it is told to stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.ops import process
from tests.servers import REPO, free_port

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
