"""Start a server as a child process, wait until it answers its health URL, stop it cleanly.

Used by `lexspec run`, `lexspec bench --k-sweep`, the benchmarks and the tests, so they all
start and stop servers the same way.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from app.config import REPO_ROOT

HEALTH_TIMEOUT_S = 300.0  # a busy 2-core machine can take minutes to load and calibrate


class StartError(RuntimeError):
    """The child exited or never became healthy; the message ends with its last output."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def serve_command(port: int, *args: str, host: str = "127.0.0.1") -> list[str]:
    """`lexspec serve` on host:port with extra arguments, run with this interpreter."""
    return [sys.executable, "-m", "app.cli", "serve", "--host", host, "--port", str(port), *args]


def _tail(log: Path | None) -> str:
    if log is None or not log.exists():
        return ""
    return log.read_text(encoding="utf-8", errors="replace")[-2000:]


def wait_healthy(
    url: str,
    proc: subprocess.Popen[bytes],
    *,
    timeout_s: float = HEALTH_TIMEOUT_S,
    log: Path | None = None,
    accept: str | None = None,
) -> None:
    """Poll `url` until it answers 200 (and, if given, a body equal to `accept`). httpx is
    imported here, not with the module: `lexspec run` imports this module, and every command
    builds the parser that imports run (0.04 s of CPU in each)."""
    import httpx

    from app.llm import net

    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise StartError(f"{url}: process exited ({proc.returncode}) {_tail(log)}")
        try:
            reply = net.get(url, timeout=2)
            if reply.status_code == 200 and (accept is None or reply.text == accept):
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise StartError(f"{url}: not healthy after {timeout_s:.0f}s {_tail(log)}")
        time.sleep(0.3)


def stop(procs: Sequence[subprocess.Popen[bytes]], timeout_s: float = 15) -> None:
    """SIGTERM all, then wait; kill what does not exit in time."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def running(
    cmd: Sequence[str],
    health_url: str,
    *,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    timeout_s: float = HEALTH_TIMEOUT_S,
    accept: str | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `cmd` (output to `log`, or discarded) until the block ends; healthy on entry."""
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    with open(log or os.devnull, "wb") as out:
        proc = subprocess.Popen(
            list(cmd), cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_healthy(health_url, proc, timeout_s=timeout_s, log=log, accept=accept)
        yield proc
    finally:
        stop([proc])


@contextmanager
def embedded_server(
    *args: str, log: Path | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """A `lexspec serve` child on a free loopback port; yields its /v1 base URL."""
    port = free_port()
    with running(serve_command(port, *args), f"http://127.0.0.1:{port}/health", log=log, env=env):
        yield f"http://127.0.0.1:{port}/v1"
