"""`lexspec serve`: the embedded speculative-decoding LLM server (OpenAI-compatible)."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.inputs import count, port, seconds
from app.domain import describe
from app.i18n import cli_text
from app.serving.deadlines import BODY_TIMEOUT_S, HEAD_TIMEOUT_S
from app.serving.drafter_registry import MODES

if TYPE_CHECKING:
    from app.context import Context


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help=cli_text("cli.serve.serve.help"),
        description=cli_text("cli.serve.serve.description"),
    )
    p.add_argument("--host", help=cli_text("cli.serve.host"))
    p.add_argument("--port", type=port, help=cli_text("cli.serve.port"))
    p.add_argument("--model", type=Path, help=cli_text("cli.serve.model"))
    p.add_argument("--model-name", help=cli_text("cli.serve.model_name"))
    p.add_argument("--speculative", choices=MODES, help=cli_text("cli.serve.speculative"))
    p.add_argument(
        "--num-speculative-tokens",
        type=count,
        help=cli_text("cli.serve.num_speculative_tokens"),
    )
    p.add_argument("--draft-model", type=Path, help=cli_text("cli.serve.draft_model"))
    p.add_argument(
        "--corpus",
        type=Path,
        help=cli_text("cli.serve.corpus"),
    )
    p.add_argument("--n-ctx", type=count, help=cli_text("cli.serve.n_ctx"))
    p.add_argument("--max-tokens", type=count, help=cli_text("cli.serve.max_tokens"))
    p.add_argument(
        "--fixed-k",
        action="store_true",
        help=cli_text("cli.serve.fixed_k"),
    )
    p.add_argument(
        "--head-timeout",
        type=seconds,
        default=HEAD_TIMEOUT_S,
        help=cli_text("cli.serve.head_timeout", default=HEAD_TIMEOUT_S),
    )
    p.add_argument(
        "--body-timeout",
        type=seconds,
        default=BODY_TIMEOUT_S,
        help=cli_text("cli.serve.body_timeout", default=BODY_TIMEOUT_S),
    )
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.serving.calibration import FILE_NAME as CALIBRATION_FILE
    from app.serving.launch import ServeError, ServeOptions, serve

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    s = ctx.settings
    try:
        opts = ServeOptions(
            model_path=args.model or s.resolved_model_path,
            model_name=args.model_name or (s.model_name if args.model is None else args.model.stem),
            speculative=args.speculative or s.speculative,
            num_speculative_tokens=args.num_speculative_tokens or s.num_speculative_tokens,
            draft_model_path=args.draft_model or s.draft_model_path,
            prompts_dir=s.prompts_dir,
            corpus_dir=args.corpus or s.resolved_corpus_dir,
            prompt_lookup_min=s.prompt_lookup_min,
            prompt_lookup_max=s.prompt_lookup_max,
            n_ctx=args.n_ctx or s.n_ctx,
            n_threads=s.n_threads,
            prompt_cache_mb=s.prompt_cache_mb,
            prompt_cache_dir=s.prompt_cache_dir,
            adaptive=not args.fixed_k,
            calibration_file=s.data_dir / CALIBRATION_FILE,
            head_timeout_s=args.head_timeout,
            body_timeout_s=args.body_timeout,
        )
        if args.max_tokens is not None:
            opts = replace(opts, max_tokens=args.max_tokens)
        if opts.num_speculative_tokens < 1:
            raise ServeError(cli_text("cli.serve.k_too_small"))
        if opts.max_tokens < 1:
            raise ServeError(cli_text("cli.serve.max_tokens_too_small"))
        host, port = args.host or s.server_host, args.port or s.server_port
        url = f"http://{host}:{port}/v1"
        named = {"model": opts.model_name, "mode": opts.speculative, "url": url}
        print(cli_text("cli.serve.loading", **named), flush=True)
        serve(
            opts,
            host,
            port,
            on_ready=lambda: print(cli_text("cli.serve.ready", **named), flush=True),
        )
    except (ServeError, FileNotFoundError) as exc:
        print(cli_text("cli.serve.cannot_start", detail=describe(exc)), file=sys.stderr)
        return 2
    return 0
