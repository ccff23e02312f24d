"""Operations commands: `lexspec doctor`, `lexspec plan`, `lexspec bench`, `lexspec endpoints`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import Bilingual, describe
from app.i18n import both, cli_text

if TYPE_CHECKING:
    from app.context import Context


def _err(said: Bilingual) -> int:
    print(cli_text("cli.ops.error", detail=said), file=sys.stderr)
    return 2


def _capacity_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu-mem-gb", type=float, default=24.0, help=cli_text("cli.ops.gpu_mem_gb"))
    p.add_argument(
        "--max-model-len", type=int, default=8192, help=cli_text("cli.ops.max_model_len")
    )
    p.add_argument("--dtype", default="bfloat16", help=cli_text("cli.ops.dtype"))
    p.add_argument("--gpu-memory-utilization", type=float, default=0.90)
    p.add_argument("--num-speculative-tokens", type=int, default=5, help=cli_text("cli.ops.k"))
    p.add_argument("--target-id", help=cli_text("cli.ops.target_id"))
    p.add_argument("--draft-id", help=cli_text("cli.ops.draft_id"))
    p.add_argument("--json", action="store_true", help=cli_text("cli.ops.json"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doc = sub.add_parser(
        "doctor",
        help=cli_text("cli.ops.doctor.help"),
    )
    doc.add_argument("target", type=Path, nargs="?", help=cli_text("cli.ops.doctor.target"))
    doc.add_argument("draft", type=Path, nargs="?", help=cli_text("cli.ops.doctor.draft"))
    doc.add_argument("--endpoint", help=cli_text("cli.ops.doctor.endpoint"))
    doc.add_argument("--remeasure", action="store_true", help=cli_text("cli.ops.doctor.remeasure"))
    doc.add_argument("--lang", choices=("zh", "en"), default="zh")
    _capacity_args(doc)
    doc.set_defaults(func=handle_doctor)

    plan = sub.add_parser("plan", help=cli_text("cli.ops.plan.help"))
    plan.add_argument("target", type=Path, help=cli_text("cli.ops.plan_target"))
    plan.add_argument("draft", type=Path, nargs="?", help=cli_text("cli.ops.plan.draft"))
    _capacity_args(plan)
    plan.set_defaults(func=handle_plan)

    bench = sub.add_parser("bench", help=cli_text("cli.ops.bench.help"))
    bench.add_argument("a", help=cli_text("cli.ops.bench_a"))
    bench.add_argument("b", help=cli_text("cli.ops.bench_b"))
    bench.add_argument("--max-tokens", type=int, default=64)
    bench.add_argument("--requests-per-level", type=int, default=8)
    bench.add_argument("--max-concurrency", type=int, default=16)
    bench.add_argument("--concurrency", help=cli_text("cli.ops.bench.concurrency"))
    bench.add_argument(
        "--time-budget", type=float, default=300.0, help=cli_text("cli.ops.bench.time_budget")
    )
    bench.add_argument("--k-sweep", help=cli_text("cli.ops.bench.k_sweep"))
    bench.add_argument(
        "--out", type=Path, default=Path("bench-results"), help=cli_text("cli.ops.bench.out")
    )
    bench.set_defaults(func=handle_bench)

    ep = sub.add_parser("endpoints", help=cli_text("cli.ops.endpoints.help"))
    ep_sub = ep.add_subparsers(dest="endpoints_cmd", required=True)
    ep_sub.add_parser("list", help=cli_text("cli.ops.list.help")).set_defaults(func=handle_list)
    ep_sub.add_parser("check", help=cli_text("cli.ops.check.help")).set_defaults(func=handle_check)
    sw = ep_sub.add_parser("switch", help=cli_text("cli.ops.switch.help"))
    sw.add_argument("name")
    sw.add_argument(
        "--drain-timeout", type=float, default=120.0, help=cli_text("cli.ops.switch.drain_timeout")
    )
    sw.add_argument("--force", action="store_true", help=cli_text("cli.ops.switch.force"))
    sw.add_argument("--actor", default="cli", help=cli_text("cli.ops.switch.actor"))
    sw.set_defaults(func=handle_switch)


def _plan_text(args: argparse.Namespace, target: Path, draft: Path | None) -> str:
    from app.ops.capacity import format_plan, load_spec, plan

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


def handle_writing(args: argparse.Namespace, ctx: Context) -> int:
    """`lexspec doctor --endpoint NAME`: how well the endpoint adapts the clause library
    (measured once, then cached per endpoint + model; --remeasure measures again)."""
    from app.drafting.writing_mode import endpoint_measure, measure_details, measure_line
    from app.drafting.writing_quality import measure_endpoint
    from app.llm.errors import LLMError

    measuring = args.remeasure or endpoint_measure(args.endpoint, ctx.settings) is None
    if measuring:
        print(cli_text("writing_quality.measuring", endpoint=args.endpoint), file=sys.stderr)
    try:
        found = measure_endpoint(
            args.endpoint, settings=ctx.settings, progress=_draw_progress, again=args.remeasure
        )
    except (LLMError, ValueError, OSError) as exc:
        return _err(describe(exc))
    if measuring and found.stopped_early:
        print(file=sys.stderr)  # the progress bar stopped short of its end: close its line
    print(measure_line(found, args.lang))
    print(measure_details(found, args.lang))  # the operator's numbers: acceptance, speed, key
    return 0


def handle_doctor(args: argparse.Namespace, ctx: Context) -> int:
    from app.ops.capacity import CapacityError
    from app.ops.doctor import DoctorError, diagnose, format_report, load_tokenizer

    if args.endpoint:
        return handle_writing(args, ctx)
    if args.target is None or args.draft is None:
        return _err(both("cli.ops.doctor.needs_args"))
    try:
        report = diagnose(load_tokenizer(args.target), load_tokenizer(args.draft))
    except DoctorError as exc:
        return _err(describe(exc))
    print(format_report(report, args.lang))
    has_config = all(
        p.is_dir() and (p / "config.json").is_file() for p in (args.target, args.draft)
    )
    print()
    if not report.compatible:
        print(cli_text("cli.ops.plan_skipped_incompatible"))
    elif has_config:
        try:
            print(_plan_text(args, args.target, args.draft))
        except CapacityError as exc:
            return _err(describe(exc))
    else:
        print(cli_text("cli.ops.plan_skipped_gguf"))
    return 0 if report.compatible else 1


def handle_plan(args: argparse.Namespace, ctx: Context) -> int:
    from app.ops.capacity import CapacityError

    try:
        print(_plan_text(args, args.target, args.draft))
    except CapacityError as exc:
        return _err(describe(exc))
    return 0


def _int_list(text: str | None, flag: str) -> list[int]:
    if not text:
        return []
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise ValueError(cli_text("cli.ops.not_int_list", flag=flag, text=text)) from exc
    if any(v < 1 for v in values):
        raise ValueError(cli_text("cli.ops.not_positive", flag=flag, text=text))
    return values


def _draw_progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if done >= total else ""
    print(f"\r[{bar}] {done}/{total} {label:<24}", end=end, file=sys.stderr, flush=True)


def handle_bench(args: argparse.Namespace, ctx: Context) -> int:
    from app.ops.bench_report import to_markdown, verdict, write_outputs
    from app.ops.loadbench import (
        BenchError,
        concurrency_levels,
        resolve_target,
        run_bench,
        workload,
    )

    settings = ctx.settings
    try:
        levels = concurrency_levels(
            args.max_concurrency, _int_list(args.concurrency, "--concurrency")
        )
        k_values = _int_list(args.k_sweep, "--k-sweep")
        if not levels or args.max_tokens < 1 or args.time_budget <= 0:
            raise ValueError(cli_text("cli.ops.bench_not_positive"))
        endpoints = settings.all_endpoints()
        a, b = resolve_target(args.a, endpoints), resolve_target(args.b, endpoints)
        chats = workload(ctx.knowledge.library)
        run = run_bench(
            a, b, chats, levels=levels, requests_per_level=args.requests_per_level,
            max_tokens=args.max_tokens, time_budget_s=args.time_budget, k_values=k_values,
            progress=_draw_progress,
        )  # fmt: skip
    except (BenchError, ValueError) as exc:
        return _err(describe(exc))
    paths = write_outputs(run, args.out)
    print(to_markdown(run, verdict(run)))
    print("  ".join(f"{k}: {p}" for k, p in paths.items()))
    return 0 if all(r.errors == 0 for r in run.levels) else 1


def handle_list(args: argparse.Namespace, ctx: Context) -> int:
    from app.llm.router import Router

    router = Router.from_settings(ctx.settings)
    active = router.active
    for name, ep in router.endpoints.items():
        mark = "*" if name == active else " "
        print(f"{mark} {name:<16} {ep.base_url:<36} {ep.model or '-':<24} {ep.label}")
    return 0


def handle_check(args: argparse.Namespace, ctx: Context) -> int:
    from app.llm.router import Router, check_health

    router = Router.from_settings(ctx.settings)
    bad = 0
    for name, ep in router.endpoints.items():
        h = check_health(name, ep)
        if h.healthy:
            ms, models = f"{h.latency_ms:.0f}", ", ".join(h.models)
            print("✓ " + cli_text("cli.ops.healthy", name=name, ms=ms, models=models))
        else:
            bad += 1
            print(f"✗ {name:<16} " + cli_text("cli.ops.unavailable", detail=h.error))
    return 1 if bad else 0


def handle_switch(args: argparse.Namespace, ctx: Context) -> int:
    from app.llm.router import Router, RouterError, drain_remote, switch_endpoint

    router = Router.from_settings(ctx.settings)
    try:
        with ctx.session() as session:  # the switch's event commits with it
            result = switch_endpoint(
                router, args.name, actor=args.actor, session=session, force=args.force
            )
    except RouterError as exc:
        return _err(describe(exc))
    if result.previous == result.active:
        print(cli_text("cli.ops.already_active", name=result.active))
        return 0
    tok = result.tokenizer
    print(
        cli_text("cli.ops.switched", old=result.previous, new=result.active, event=result.event_id)
    )
    if tok:
        print(cli_text("cli.ops.tokenizer", method=tok.method, detail=tok.detail))
    print(cli_text("cli.ops.draining", name=result.previous), flush=True)
    if drain_remote(router.endpoint(result.previous), args.drain_timeout):
        print(cli_text("cli.ops.drained", name=result.previous))
        return 0
    print(cli_text("cli.ops.drain_timeout", name=result.previous))
    return 3
