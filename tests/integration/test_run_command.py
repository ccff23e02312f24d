"""`lexspec run` stops what it started, whichever way it is told to stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.serving import process
from tests.servers import REPO, free_port

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_run_stops_the_app_on_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
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
    )
    try:
        process.wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, accept="ok")
        proc.send_signal(sig)
        raw, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = raw.decode(errors="replace")
    assert proc.returncode == 0, out
    assert "stopping" in out and "Traceback" not in out, out
    with pytest.raises(httpx.HTTPError):  # the child went with it: nothing holds the port
        httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
