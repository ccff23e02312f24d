"""Operations commands: `lexspec doctor`, `lexspec plan`, `lexspec bench`, `lexspec endpoints`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _err(msg: str) -> int:
    print(f"错误 / error: {msg}", file=sys.stderr)
    return 2


def _capacity_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--gpu-mem-gb", type=float, default=24.0, help="GPU 显存 GiB / GPU memory in GiB"
    )
    p.add_argument("--max-model-len", type=int, default=8192, help="上下文长度 / context length")
    p.add_argument(
        "--dtype", default="bfloat16", help="权重与 KV 的数据类型 / dtype of weights and KV"
    )
    p.add_argument("--gpu-memory-utilization", type=float, default=0.90)
    p.add_argument("--num-speculative-tokens", type=int, default=5, help="K")
    p.add_argument("--target-id", help="vLLM 中的目标模型名 / target id for vllm serve")
    p.add_argument("--draft-id", help="vLLM 中的草稿模型名 / draft id for vllm serve")
    p.add_argument("--json", action="store_true", help="输出 JSON / print JSON")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    doc = sub.add_parser(
        "doctor",
        help="草稿/目标模型兼容性与显存规划 / draft-target compatibility and capacity plan",
    )
    doc.add_argument("target", type=Path, help="目标模型目录或 .gguf / target model dir or .gguf")
    doc.add_argument("draft", type=Path, help="草稿模型目录或 .gguf / draft model dir or .gguf")
    doc.add_argument("--lang", choices=("zh", "en"), default="zh")
    _capacity_args(doc)
    doc.set_defaults(func=handle_doctor)

    plan = sub.add_parser("plan", help="vLLM 显存容量规划 / vLLM GPU capacity plan")
    plan.add_argument("target", type=Path, help="目标模型目录（config.json）/ target model dir")
    plan.add_argument("draft", type=Path, nargs="?", help="草稿模型目录 / draft model dir")
    _capacity_args(plan)
    plan.set_defaults(func=handle_plan)

    bench = sub.add_parser("bench", help="两个端点的负载测试 / load test two endpoints")
    bench.add_argument("a", help="推测端点（名称或 URL）/ speculative endpoint (name or URL)")
    bench.add_argument("b", help="基线端点（名称或 URL）/ baseline endpoint (name or URL)")
    bench.add_argument("--max-tokens", type=int, default=64)
    bench.add_argument("--requests-per-level", type=int, default=8)
    bench.add_argument("--max-concurrency", type=int, default=16)
    bench.add_argument(
        "--concurrency", help="并发级别，如 1,2,4,8 / levels, e.g. 1,2,4,8 (default 1,4,16,...)"
    )
    bench.add_argument("--time-budget", type=float, default=300.0, help="秒 / seconds")
    bench.add_argument(
        "--k-sweep", help="内置服务的 K 扫描，如 2,4,8 / K sweep on the embedded server"
    )
    bench.add_argument(
        "--out", type=Path, default=Path("bench-results"), help="输出目录 / output dir"
    )
    bench.set_defaults(func=handle_bench)

    ep = sub.add_parser("endpoints", help="端点：列出、检查、切换 / endpoints: list, check, switch")
    ep_sub = ep.add_subparsers(dest="endpoints_cmd", required=True)
    ep_sub.add_parser("list", help="列出端点 / list endpoints").set_defaults(func=handle_list)
    ep_sub.add_parser("check", help="健康检查 / health-check all").set_defaults(func=handle_check)
    sw = ep_sub.add_parser("switch", help="蓝绿切换 / blue-green switch to NAME")
    sw.add_argument("name")
    sw.add_argument("--drain-timeout", type=float, default=120.0, help="秒 / seconds")
    sw.add_argument(
        "--force", action="store_true", help="忽略分词器不一致 / ignore a tokenizer mismatch"
    )
    sw.add_argument("--actor", default="cli", help="审计记录中的操作者 / actor in the audit log")
    sw.set_defaults(func=handle_switch)


def _plan_text(args: argparse.Namespace, target: Path, draft: Path | None) -> str:
    from app.serving.capacity import format_plan, load_spec, plan

    t_spec = load_spec(target)
    d_spec = load_spec(draft) if draft else None
    p = plan(
        t_spec,
        d_spec,
        gpu_mem_gb=args.gpu_mem_gb,
        max_model_len=args.max_model_len,
        dtype=args.dtype,
        gpu_memory_utilization=args.gpu_memory_utilization,
    )
    if args.json:
        return json.dumps(p.to_dict(), ensure_ascii=False, indent=2)
    t_id = args.target_id or t_spec.name
    d_id = (args.draft_id or d_spec.name) if d_spec else None
    return format_plan(p, t_id, d_id, args.num_speculative_tokens)


def handle_doctor(args: argparse.Namespace) -> int:
    from app.serving.capacity import CapacityError
    from app.serving.doctor import DoctorError, diagnose, format_report, load_tokenizer

    try:
        report = diagnose(load_tokenizer(args.target), load_tokenizer(args.draft))
    except DoctorError as exc:
        return _err(str(exc))
    print(format_report(report, args.lang))
    has_config = all(
        p.is_dir() and (p / "config.json").is_file() for p in (args.target, args.draft)
    )
    print()
    if not report.compatible:
        print("（不兼容，跳过显存规划 / incompatible: capacity plan skipped）")
    elif has_config:
        try:
            print(_plan_text(args, args.target, args.draft))
        except CapacityError as exc:
            return _err(str(exc))
    else:
        print(
            "（GGUF 无 config.json，跳过显存规划 / no config.json for GGUF: capacity plan skipped）"
        )
    return 0 if report.compatible else 1


def handle_plan(args: argparse.Namespace) -> int:
    from app.serving.capacity import CapacityError

    try:
        print(_plan_text(args, args.target, args.draft))
    except CapacityError as exc:
        return _err(str(exc))
    return 0


def _int_list(text: str | None, flag: str) -> list[int]:
    if not text:
        return []
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise ValueError(
            f"{flag} 需要逗号分隔的整数 / needs comma-separated integers: {text}"
        ) from exc
    if any(v < 1 for v in values):
        raise ValueError(f"{flag} 必须 ≥ 1 / must be >= 1: {text}")
    return values


def _draw_progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if done >= total else ""
    print(f"\r[{bar}] {done}/{total} {label:<24}", end=end, file=sys.stderr, flush=True)


def handle_bench(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.serving.bench_report import to_markdown, verdict, write_outputs
    from app.serving.loadbench import (
        BenchError,
        concurrency_levels,
        resolve_target,
        run_bench,
        workload,
    )

    settings = get_settings()
    try:
        levels = concurrency_levels(
            args.max_concurrency, _int_list(args.concurrency, "--concurrency")
        )
        k_values = _int_list(args.k_sweep, "--k-sweep")
        if not levels or args.max_tokens < 1 or args.time_budget <= 0:
            raise ValueError(
                "并发级别、--max-tokens、--time-budget 需为正 / levels, --max-tokens, --time-budget must be positive"
            )
        endpoints = settings.all_endpoints()
        a, b = resolve_target(args.a, endpoints), resolve_target(args.b, endpoints)
        chats = workload(settings.prompts_dir)
        run = run_bench(
            a, b, chats, levels=levels, requests_per_level=args.requests_per_level,
            max_tokens=args.max_tokens, time_budget_s=args.time_budget, k_values=k_values,
            progress=_draw_progress,
        )  # fmt: skip
    except (BenchError, ValueError) as exc:
        return _err(str(exc))
    paths = write_outputs(run, args.out)
    print(to_markdown(run, verdict(run)))
    print("  ".join(f"{k}: {p}" for k, p in paths.items()))
    return 0 if all(r.errors == 0 for r in run.levels) else 1


def handle_list(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.llm.router import Router

    router = Router.from_settings(get_settings())
    active = router.active
    for name, ep in router.endpoints.items():
        mark = "*" if name == active else " "
        print(f"{mark} {name:<16} {ep.base_url:<36} {ep.model or '-':<24} {ep.label}")
    return 0


def handle_check(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.llm.router import Router, check_health

    router = Router.from_settings(get_settings())
    bad = 0
    for name, ep in router.endpoints.items():
        h = check_health(name, ep)
        if h.healthy:
            print(f"✓ {name:<16} {h.latency_ms:.0f} ms  models: {', '.join(h.models)}")
        else:
            bad += 1
            print(f"✗ {name:<16} 不可用 / unavailable: {h.error}")
    return 1 if bad else 0


def handle_switch(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.llm.router import Router, RouterError, drain_remote, switch_endpoint

    router = Router.from_settings(get_settings())
    try:
        result = switch_endpoint(router, args.name, actor=args.actor, force=args.force)
    except RouterError as exc:
        return _err(str(exc))
    if result.previous == result.active:
        print(f"{result.active} 已是当前端点 / is already active")
        return 0
    tok = result.tokenizer
    print(f"已切换 / switched: {result.previous} → {result.active} (audit event {result.event_id})")
    if tok:
        print(f"分词器 / tokenizer ({tok.method}): {tok.detail}")
    print(f"等待 {result.previous} 上的请求完成 / draining {result.previous} ...", flush=True)
    if drain_remote(router.endpoint(result.previous), args.drain_timeout):
        print(
            f"{result.previous} 已无运行中的请求，可以停止 / has no running requests; safe to stop"
        )
        return 0
    print(
        f"超时：{result.previous} 仍有请求 / timeout: {result.previous} still has requests running"
    )
    return 3
