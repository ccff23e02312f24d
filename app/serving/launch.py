"""Build the engine (target model, drafter, adaptive controller) and run the HTTP server."""

from __future__ import annotations

import hashlib
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import Bilingual
from app.serving import calibration
from app.serving.adaptive import PassCost
from app.serving.deadlines import BODY_TIMEOUT_S, HEAD_TIMEOUT_S, KEEP_ALIVE_S, deadline_protocol
from app.serving.drafter_registry import DEFAULT_DRAFT_TOKENS, DRAFTERS, MODES, SpeculativeMode
from app.serving.drafters import Drafter
from app.serving.metrics import Metrics
from app.serving.model import Model, check_gguf
from app.serving.server import DEFAULT_MAX_TOKENS, ServerState, make_app
from app.serving.speculative import Engine
from app.serving.worker import Worker

if TYPE_CHECKING:
    import threading

    import uvicorn

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServeOptions:
    model_path: Path
    model_name: str
    speculative: SpeculativeMode = "off"  # a name in app/serving/drafter_registry.DRAFTERS
    num_speculative_tokens: int = DEFAULT_DRAFT_TOKENS  # Settings' default, the one definition
    draft_model_path: Path | None = None
    prompts_dir: Path | None = None
    corpus_dir: Path | None = None
    prompt_lookup_min: int = 2
    prompt_lookup_max: int = 5
    n_ctx: int = 4096
    max_tokens: int = DEFAULT_MAX_TOKENS  # a completion's length when its request gives none
    n_threads: int = 2
    prompt_cache_mb: int = 1024  # room for prompt snapshots (Model, PromptSnapshots)
    prompt_cache_dir: Path | None = None  # None: snapshots in memory; else files, per model
    adaptive: bool = True
    calibrate: bool = True
    calibration_file: Path | None = None  # pass costs kept between starts (serving/calibration)
    head_timeout_s: float = HEAD_TIMEOUT_S  # a request's line and headers (serving/deadlines)
    body_timeout_s: float = BODY_TIMEOUT_S  # a request's body, once the server reads it


DIGEST_SPAN = 1 << 20  # bytes read from each end of a model file for its fingerprint


def file_digest(path: Path) -> str:
    """A model file's fingerprint: SHA-256 of its size and its first and last MiB (a GGUF's
    header and tensor index are at the start), 16 hex digits. Cheap for a file of gigabytes,
    and the same for a copy of the same file under another name or path."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        digest.update(f.read(DIGEST_SPAN))
        f.seek(max(0, size - DIGEST_SPAN))
        digest.update(f.read(DIGEST_SPAN))
    return digest.hexdigest()[:16]


class ServeError(RuntimeError):
    """The server cannot start (bad model, incompatible draft, ...); the message is bilingual."""


def build_drafter(opts: ServeOptions, target: Model) -> tuple[Drafter | None, float]:
    """The drafter for the mode (see DRAFTERS), and its cost per drafted token relative to a
    target step."""
    factory = DRAFTERS.get(opts.speculative)
    if factory is None:
        raise ServeError(
            str(
                Bilingual(
                    "未知的推测模式",
                    f"unknown speculative mode: {opts.speculative} (one of {', '.join(MODES)})",
                )
            )
        )
    return factory(opts, target)


def build_state(opts: ServeOptions) -> ServerState:
    try:
        check_gguf(opts.model_path)  # its own message, before the file is read for its digest
        digest = file_digest(opts.model_path)
        target = Model(
            opts.model_path,
            n_ctx=opts.n_ctx,
            n_threads=opts.n_threads,
            snapshot_bytes=opts.prompt_cache_mb << 20,
            snapshot_dir=opts.prompt_cache_dir / digest if opts.prompt_cache_dir else None,
        )
        drafter, draft_cost = build_drafter(opts, target)
    except (OSError, ValueError, RuntimeError) as exc:
        raise ServeError(str(exc)) from exc
    engine = Engine(
        target,
        drafter,
        k_max=opts.num_speculative_tokens,
        adaptive=opts.adaptive,
        draft_cost=draft_cost,
    )
    # a fixed draft length (adaptive off) never asks what a pass costs: nothing to time
    timed = drafter is not None and opts.adaptive and opts.calibrate
    keeper = calibrate(engine, opts) if timed else None
    metrics = Metrics(opts.model_name)
    after_job = (lambda: keeper.after_passes(engine.cost)) if keeper is not None else None
    return ServerState(
        engine=engine,
        worker=Worker(engine, metrics, after_job=after_job),
        metrics=metrics,
        model_name=opts.model_name,
        max_tokens=opts.max_tokens,
        digest=digest,
        body_timeout_s=opts.body_timeout_s,
    )


def calibrate(engine: Engine, opts: ServeOptions) -> calibration.Keeper | None:
    """Seed the engine's pass costs: kept ones for this model and machine when there are
    (opts.calibration_file), else timed now and kept; the keeper writes the fit back later."""
    sizes, contexts = engine.calibration_grid()
    path = opts.calibration_file
    key = calibration.entry_key(opts.model_path, opts.n_threads, sizes, contexts)
    points = calibration.load(path, key) if path is not None else None
    if points is not None:
        engine.cost = PassCost(points)
        log.info("pass costs from %s (timing skipped; delete it to time them anew)", path)
    else:
        started = time.perf_counter()
        log.info("timing the model's passes on this machine (once; kept in %s) ...", path)

        def timed_context(done: int, total: int) -> None:
            log.info("timing passes: %d/%d context lengths done", done, total)

        engine.calibrate(progress=timed_context)
        log.info("pass costs timed in %.1f s", time.perf_counter() - started)
        if path is not None:
            calibration.save(path, key, engine.cost.seed, "timed")
    log.info(
        "relative cost of batched passes (rows: cost) at 150 / 1,000 tokens of context: %s / %s",
        engine.cost.table(150),
        engine.cost.table(1000),
    )
    return calibration.Keeper(path, key, (sizes, contexts)) if path is not None else None


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port`, before any model is loaded: a port in use, out of
    range or a host that is not this machine's is a ServeError at once (one line, exit 2)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, OverflowError) as exc:
        raise ServeError(_cannot_listen(host, port, exc)) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except (OSError, OverflowError) as exc:
        sock.close()
        raise ServeError(_cannot_listen(host, port, exc)) from None
    return sock


def _cannot_listen(host: str, port: int, exc: BaseException) -> str:
    reason = getattr(exc, "strerror", None) or str(exc)
    return str(
        Bilingual(
            f"无法监听 {host}:{port}（{reason}）", f"cannot listen on {host}:{port} ({reason})"
        )
    )


def _announce_when_serving(
    server: uvicorn.Server, http: threading.Thread, on_ready: Callable[[], None]
) -> None:
    """Call `on_ready` once uvicorn accepts connections (never if its thread ends first)."""
    while not server.started:
        if not http.is_alive():
            return
        time.sleep(0.05)
    on_ready()


def serve(
    opts: ServeOptions, host: str, port: int, on_ready: Callable[[], None] | None = None
) -> None:
    """HTTP on a background thread; the model worker on this (main) thread. The port is bound
    first; an HTTP server that stops on its own (not at Ctrl-C) is a ServeError. `on_ready`
    is called once it answers (the model loaded and its passes timed), e.g. to print its URL."""
    import threading

    import uvicorn

    sock = listen(host, port)
    state = build_state(opts)
    config = uvicorn.Config(
        make_app(state),
        log_level="warning",
        access_log=False,
        http=deadline_protocol(opts.head_timeout_s),  # a half-sent head is closed in seconds
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    server = uvicorn.Server(config)
    http = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="http", daemon=True)
    http.start()
    if on_ready is not None:
        threading.Thread(
            target=_announce_when_serving, args=(server, http, on_ready), daemon=True
        ).start()
    interrupted = False
    try:
        state.worker.run(keep_going=http.is_alive)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        server.should_exit = True
        http.join(timeout=10)
        sock.close()
    if not interrupted:  # the HTTP thread ended on its own: the server is not serving
        raise ServeError(
            str(Bilingual("HTTP 服务意外停止", "the HTTP server stopped unexpectedly"))
        )
