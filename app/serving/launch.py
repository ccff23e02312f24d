"""Build the engine (target model, drafter, adaptive controller) and run the HTTP server."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from app.serving.corpus import Corpus
from app.serving.drafters import Drafter, ModelDrafter, NgramDrafter, RetrievalDrafter, check_vocab
from app.serving.metrics import Metrics
from app.serving.model import Model
from app.serving.server import ServerState, make_app
from app.serving.speculative import Engine
from app.serving.worker import Worker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServeOptions:
    model_path: Path
    model_name: str
    speculative: str = "off"  # off | ngram | retrieval | draft
    num_speculative_tokens: int = 8
    draft_model_path: Path | None = None
    prompts_dir: Path | None = None
    corpus_dir: Path | None = None
    prompt_lookup_min: int = 2
    prompt_lookup_max: int = 5
    n_ctx: int = 4096
    n_threads: int = 2
    adaptive: bool = True
    calibrate: bool = True


class ServeError(RuntimeError):
    """The server cannot start (bad model, incompatible draft, ...); the message is bilingual."""


def build_drafter(opts: ServeOptions, target: Model) -> tuple[Drafter | None, float]:
    """The drafter for the mode, and its cost per drafted token relative to a target step."""
    lo, hi = opts.prompt_lookup_min, opts.prompt_lookup_max
    if opts.speculative == "off":
        return None, 0.0
    if opts.speculative == "ngram":
        return NgramDrafter(lo, hi), 0.0
    if opts.speculative == "retrieval":
        corpus = Corpus(lambda t: target.tokenize(t), opts.prompts_dir, opts.corpus_dir)
        log.info("corpus: %d files, %d tokens", corpus.n_files, corpus.n_tokens)
        return RetrievalDrafter(corpus, lo, hi), 0.0
    if opts.speculative == "draft":
        if opts.draft_model_path is None:
            raise ServeError(
                "draft 模式需要 --draft-model / --speculative draft needs --draft-model GGUF"
            )
        draft = Model(opts.draft_model_path, n_ctx=opts.n_ctx, n_threads=opts.n_threads)
        check_vocab(target, draft)
        ratio = draft.path.stat().st_size / max(1, target.path.stat().st_size)
        return ModelDrafter(draft), ratio  # file size as a proxy for per-token compute
    raise ServeError(f"未知的推测模式 / unknown speculative mode: {opts.speculative}")


def build_state(opts: ServeOptions) -> ServerState:
    try:
        target = Model(opts.model_path, n_ctx=opts.n_ctx, n_threads=opts.n_threads)
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
    if drafter is not None and opts.calibrate:
        cost = engine.calibrate()
        log.info(
            "relative cost of batched passes (rows: cost) at 150 / 1,000 tokens of context: %s / %s",
            cost.table(150),
            cost.table(1000),
        )
    metrics = Metrics(opts.model_name)
    return ServerState(
        engine=engine, worker=Worker(engine, metrics), metrics=metrics, model_name=opts.model_name
    )


def serve(opts: ServeOptions, host: str, port: int) -> None:
    """HTTP on a background thread; the model worker on this (main) thread."""
    import threading

    import uvicorn

    state = build_state(opts)
    config = uvicorn.Config(
        make_app(state), host=host, port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    http = threading.Thread(target=server.run, name="http", daemon=True)
    http.start()
    try:
        state.worker.run(keep_going=http.is_alive)
    except KeyboardInterrupt:
        pass
    finally:
        server.should_exit = True
        http.join(timeout=10)
