"""`lexspec serve`: the embedded speculative-decoding LLM server (OpenAI-compatible)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

MODES = ("off", "ngram", "retrieval", "draft")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="启动内置 CPU 推理服务 / run the embedded CPU LLM server",
        description="OpenAI 兼容的内置服务（推测解码）/ OpenAI-compatible embedded server with speculative decoding",
    )
    p.add_argument("--host", help="监听地址 / bind address (default: Settings.server_host)")
    p.add_argument("--port", type=int, help="端口 / port (default: Settings.server_port)")
    p.add_argument("--model", type=Path, help="目标模型 GGUF / target model GGUF")
    p.add_argument("--model-name", help="对外模型名 / model id served in /v1/models")
    p.add_argument("--speculative", choices=MODES, help="推测模式 / speculative mode")
    p.add_argument(
        "--num-speculative-tokens",
        type=int,
        help="每步最多草稿词元数 / max draft tokens per step (K)",
    )
    p.add_argument("--draft-model", type=Path, help="草稿模型 GGUF / draft model GGUF (mode draft)")
    p.add_argument(
        "--corpus",
        type=Path,
        help="已批准输出目录 / directory of approved outputs (mode retrieval)",
    )
    p.add_argument("--n-ctx", type=int, help="上下文长度 / context length")
    p.add_argument(
        "--fixed-k",
        action="store_true",
        help="总是草拟 K 个词元（关闭自适应）/ always draft K tokens (no adaptive length)",
    )
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.serving.launch import ServeError, ServeOptions, serve

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    s = get_settings()
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
            adaptive=not args.fixed_k,
        )
        if opts.num_speculative_tokens < 1:
            raise ServeError("--num-speculative-tokens 必须 ≥ 1 / must be >= 1")
        host, port = args.host or s.server_host, args.port or s.server_port
        print(
            f"LexSpec serve: {opts.model_name} ({opts.speculative}) on http://{host}:{port}/v1",
            flush=True,
        )
        serve(opts, host, port)
    except (ServeError, FileNotFoundError) as exc:
        print(f"无法启动服务 / cannot start the server: {exc}", file=sys.stderr)
        return 2
    return 0
