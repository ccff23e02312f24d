"""`lexspec run`: start the embedded model server and the Streamlit app together.

Prints both URLs once each answers. When the server answers, the writing mode of its model is
decided in the background (app/drafting/writing_quality.py: measured once per model and kept in
the data directory); until it is, drafts assemble the vetted clauses, so none waits on it.
Ctrl-C stops both cleanly, and so do SIGTERM (a service manager, `kill`) and
SIGHUP (the terminal closed), which would otherwise leave both children holding their ports.
Used by `make run`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands import inputs
from app.config import REPO_ROOT, Settings
from app.domain import Bilingual, describe
from app.i18n import cli_text
from app.ops import process

if TYPE_CHECKING:
    from app.context import Context


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="start the embedded model server and the app")
    p.add_argument(
        "--app-port", type=inputs.port, default=None, help="Streamlit port (default 8501)"
    )
    p.add_argument(
        "--server-port", type=inputs.port, default=None, help="model server port (default 8001)"
    )
    p.add_argument(
        "--no-server",
        action="store_true",
        help="do not start the embedded server; use LEXSPEC_LLM_BASE_URL as it is",
    )
    p.set_defaults(func=_run)


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) != 0


def _pick_port(host: str, port: int) -> int:
    for candidate in range(port, port + 50):
        if _port_free(host, candidate):
            return candidate
    raise SystemExit(f"no free port from {port} to {port + 49} on {host}")


def _prepare_database(ctx: Context) -> None:
    """Apply migrations and create the first admin, printing its one-time password once."""
    from app.accounts import first_run_admin
    from audit.files import private_dir

    private_dir(ctx.settings.data_dir)
    with ctx.session() as session:
        password = first_run_admin(session=session)
    if password:
        print("\n  First run: created user 'admin' / 首次运行，已创建管理员 admin")
        print(f"  One-time password / 一次性密码: {password}")
        print("  (shown once; you will be asked to change it at first sign-in)\n")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


# How a child ends when it was told to stop: Ctrl-C reaches the whole process group, so a
# child may exit (cleanly, or by the signal) a moment before this process sees the signal.
STOPPED = {0, 130, 143, 129, -signal.SIGINT, -signal.SIGTERM, -signal.SIGHUP}


def _start_server(args: argparse.Namespace, settings: Settings, procs: list[Any]) -> str:
    """Start the embedded model server, wait until it answers; its /v1 base URL."""
    host = settings.server_host
    port = _pick_port(host, args.server_port or settings.server_port)
    base = f"http://{host}:{port}"
    print(f"==> starting the embedded model server ({settings.speculative} speculation)")
    procs.append(subprocess.Popen(process.serve_command(port, host=host), cwd=REPO_ROOT))
    print("  loading the model (a first start may take a minute) ...", flush=True)
    try:
        process.wait_healthy(f"{base}/health", procs[0])
    except process.StartError as exc:
        if procs[0].returncode in STOPPED - {0}:  # Ctrl-C while the model was loading
            raise KeyboardInterrupt from exc
        raise SystemExit(f"the model server did not start: {exc}") from exc
    return f"{base}/v1"


def _measure_writing(settings: Settings, base_url: str, stopping: threading.Event) -> None:
    """Decide the writing mode of the model at `base_url` on a background thread: the kept
    measurement of this model, else measured now (with progress lines) and kept. Skipped when
    the default endpoint's writing is set rather than measured."""
    served = settings.model_copy(update={"llm_base_url": base_url})
    name = served.default_endpoint
    if served.all_endpoints()[name].writing != "measured":
        return

    def step(done: int, total: int, type_id: str) -> None:
        if not stopping.is_set():
            print("  " + cli_text("cli.run.measuring", done=done, total=total, type=type_id))

    def work() -> None:
        from app.drafting.writing_mode import measure_line
        from app.drafting.writing_quality import measure_endpoint

        try:
            found = measure_endpoint(name, settings=served, progress=step)
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback; drafts go on assembling
            if not stopping.is_set():
                print("  " + cli_text("cli.run.measure_failed", detail=describe(exc)), flush=True)
            return
        if not stopping.is_set():
            line = Bilingual(measure_line(found, "zh"), measure_line(found, "en"))
            print(f"  {line}", flush=True)

    print("  " + cli_text("cli.run.measure_start"), flush=True)
    threading.Thread(target=work, name="writing-measure", daemon=True).start()


def _start_app(args: argparse.Namespace, settings: Settings, env: dict[str, str]) -> Any:
    app_port = _pick_port(settings.app_host, args.app_port or settings.app_port)
    print("==> starting the app")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", str(Path("app") / "web.py"),
            "--server.address", settings.app_host, "--server.port", str(app_port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--logger.level", "warning",
        ],
        cwd=REPO_ROOT,
        env=env,
    )  # fmt: skip
    print(f"\n  LexSpec app:        http://localhost:{app_port}")
    print(f"  Model server (API): {env.get('LEXSPEC_LLM_BASE_URL', settings.llm_base_url)}")
    print("  Press Ctrl-C to stop both.\n", flush=True)
    return proc


def _watch(procs: list[Any]) -> int:
    """Wait until a child ends: 0 if it was stopped (or stopped cleanly), 1 if it failed."""
    while all(p.poll() is None for p in procs):
        time.sleep(0.5)
    ended = next(p for p in procs if p.returncode is not None)
    if ended.returncode in STOPPED:
        print("\n==> stopping")
        return 0
    print(f"\n==> a child process failed (exit {ended.returncode}); stopping", file=sys.stderr)
    return 1


def _run(args: argparse.Namespace, ctx: Context) -> int:
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupt)
    settings = ctx.settings
    env = dict(os.environ)
    procs: list[Any] = []
    stopping = threading.Event()
    try:
        if not args.no_server:
            env["LEXSPEC_LLM_BASE_URL"] = _start_server(args, settings, procs)
        _prepare_database(ctx)
        procs.append(_start_app(args, settings, env))
        if not args.no_server:
            _measure_writing(settings, env["LEXSPEC_LLM_BASE_URL"], stopping)
        return _watch(procs)
    except KeyboardInterrupt:
        print("\n==> stopping")
        return 0
    finally:
        stopping.set()
        process.stop(procs)
