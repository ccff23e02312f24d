"""`lexspec run` stops what it started, whichever way it is told to stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

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
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:  # the Streamlit app answers
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the app did not start"
            time.sleep(0.5)
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "stopping" in out and "Traceback" not in out, out
    with pytest.raises(httpx.HTTPError):  # the child went with it: nothing holds the port
        httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
