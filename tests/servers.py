"""Start real embedded LLM servers (`lexspec serve`) as subprocesses for tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.ops import process

REPO = Path(__file__).resolve().parent.parent
free_port = process.free_port


def as_at_a_terminal() -> None:
    """Run in a child before it starts (Popen's preexec_fn): Ctrl-C stops it as in a terminal's
    foreground job, even when the tests themselves were started in the background, where the
    shell ignores SIGINT and every child would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def embedded_server(
    speculative: str = "ngram", *extra_args: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Yield the /v1 base URL of a freshly started embedded server; stop it afterwards.

    Its output goes to .data/server-<n>.log, quoted in the error if it fails to start.
    """
    log = REPO / ".data" / f"server-{uuid.uuid4().hex[:12]}.log"
    with process.embedded_server(
        "--speculative", speculative, *extra_args, log=log, env={**os.environ, **(env or {})}
    ) as url:
        yield url


def metric_total(base_url: str, series: str) -> float:
    """The sum of the /metrics samples whose line starts with `series` (a name, or a name
    with the start of its labels, e.g. `vllm:generation_tokens_total{`)."""
    import httpx

    text = httpx.get(base_url.removesuffix("/v1") + "/metrics", timeout=30).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(series) and not line.startswith("#")
    )


class Hold:
    """A streamed request that keeps the server busy until `release()`: its connection then
    closes, which cancels it at the server's next step, so a test that only needs the server
    occupied does not wait for (or pay for) tokens nobody reads."""

    def __init__(self, base_url: str, body: dict[str, object]) -> None:
        self.released = threading.Event()
        self._thread = threading.Thread(
            target=self._hold, args=(f"{base_url}/chat/completions", body), daemon=True
        )
        self._thread.start()

    def _hold(self, url: str, body: dict[str, object]) -> None:
        import httpx

        with httpx.stream("POST", url, json={**body, "stream": True}, timeout=600) as response:
            for _ in response.iter_lines():  # a chunk, or the server's keep-alive each second
                if self.released.is_set():
                    return

    def alive(self) -> bool:
        """The request is still held (it has not ended on its own or failed)."""
        return self._thread.is_alive()

    def release(self) -> None:
        self.released.set()
        self._thread.join(timeout=600)


@contextmanager
def holding(base_url: str, *bodies: dict[str, object]) -> Iterator[list[Hold]]:
    """One `Hold` per body, started in order; all released on leaving."""
    holds: list[Hold] = []
    try:
        for body in bodies:
            holds.append(Hold(base_url, body))
        yield holds
    finally:
        for hold in holds:
            hold.released.set()  # all at once: a waiting one must not start when the first ends
        for hold in holds:
            hold.release()


def run_lexspec(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m app.cli ARGS` as a user would run it (no stdin), output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def start_fresh_run(
    data: Path, database_url: str, app_port: int, server_port: int, log: Path, **env: str
) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """`lexspec run` on a new installation (its own data directory and database, the writing
    mode left to measurement), its output in `log`: the process and the environment it has."""
    run_env = {**os.environ, "LEXSPEC_DATA_DIR": str(data), "LEXSPEC_DATABASE_URL": database_url,
               **env}  # fmt: skip
    run_env.pop("LEXSPEC_LLM_WRITING", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "run", "--app-port", str(app_port),
             "--server-port", str(server_port)],
            cwd=REPO, env=run_env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    return proc, run_env


def output_until(log: Path, wanted: str, proc: subprocess.Popen[bytes]) -> str:
    """A process's output so far once a line holds `wanted` (failing if it ends first)."""
    while True:
        text = log.read_text(encoding="utf-8", errors="replace")
        if wanted in text:
            return text
        assert proc.poll() is None, text
        time.sleep(0.2)
