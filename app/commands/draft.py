"""`lexspec draft`: stream one document draft to the terminal (stats and findings on stderr).

Ctrl-C stops the generation and keeps the partial text (written to --out when given).
Exit codes: 0 complete, 1 server/generation error, 2 bad input, 130 stopped by Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.config import Settings
    from app.domain import GenerationParams, GenerationStats, RenderedPrompt
    from app.generation import GenerationOutcome
    from app.prompts import DocType

# CLI messages, one place per language (zh first).
MESSAGES: dict[str, tuple[str, str]] = {
    "no_type": (
        "请用 --type 指定文书类型。可用类型：",
        "Choose a document type with --type. Available:",
    ),
    "unknown_type": (
        "未知的文书类型“{name}”。可用类型：",
        "Unknown document type '{name}'. Available:",
    ),
    "broken_type": (
        "提示词模板有误，已跳过：{detail}",
        "Skipped a broken prompt template: {detail}",
    ),
    "bad_field_arg": (
        "--field 须写成 名称=值，收到“{arg}”。",
        "--field must look like name=value, got '{arg}'.",
    ),
    "unknown_field": (
        "“{type}”没有字段 {names}。可用字段：{known}",
        "'{type}' has no field {names}. Fields: {known}",
    ),
    "field_errors": ("表单有误：", "Please fix these fields:"),
    "template": ("模板渲染失败：{detail}", "The template failed to render: {detail}"),
    "context": ("{detail}", "{detail}"),
    "endpoint": ("{detail}", "{detail}"),
    "bad_number": ("{flag} 须大于 0。", "{flag} must be greater than 0."),
    "stopped": ("已停止，保留已生成的部分。", "Stopped; the partial text is kept."),
    "error": ("生成出错：{detail}", "Generation failed: {detail}"),
    "written": ("已写入 {path}", "Written to {path}"),
    "write_failed": ("无法写入 {path}：{detail}", "Cannot write {path}: {detail}"),
    "findings": (
        "校验：{errors} 个错误，{warnings} 个警告，{infos} 条提示",
        "Checks: {errors} errors, {warnings} warnings, {infos} notes",
    ),
    "no_checks": ("（校验模块不可用）", "(checks unavailable)"),
    "recorded": ("已记入审计日志，编号 {id}", "Recorded in the audit log as #{id}"),
    "record_failed": (
        "未能写入审计日志：{detail}",
        "Could not write the audit log: {detail}",
    ),
}


def msg(key: str, lang: str, **values: object) -> str:
    zh, en = MESSAGES[key]
    return (en if lang == "en" else zh).format(**values)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "draft",
        help="在终端生成一份文书草稿 / stream a document draft to the terminal",
        description="用模板生成草稿，边生成边校验 / draft a document from a template, checked as it streams",
    )
    p.add_argument("--type", dest="doc_type", help="文书类型 / document type id")
    p.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="表单字段（可重复）/ a form field (repeatable)",
    )
    p.add_argument(
        "--example", action="store_true", help="先填入示例值 / start from the example values"
    )
    p.add_argument("--endpoint", help="模型服务端点名 / endpoint name (Settings.all_endpoints)")
    p.add_argument("--max-tokens", type=int, help="最大生成长度 / max tokens to generate")
    p.add_argument("--temperature", type=float, help="采样温度 / sampling temperature")
    p.add_argument("--out", type=Path, help="把草稿写入文件 / write the draft to this file")
    p.add_argument("--lang", choices=("zh", "en"), help="提示语言 / message language")
    p.add_argument("--user", default="cli", help="审计日志中的用户名 / user name for the audit log")
    p.add_argument(
        "--no-audit", action="store_true", help="不写审计日志 / do not write the audit log"
    )
    p.set_defaults(func=handle)


def _fail(text: str) -> int:
    print(text, file=sys.stderr)
    return 2


def _pick_type(args: argparse.Namespace, settings: Settings, lang: str) -> DocType | None:
    from app.prompts import load_library

    library = load_library(settings.prompts_dir)
    for problem in library.errors:
        print(msg("broken_type", lang, detail=problem), file=sys.stderr)
    if args.doc_type in library.types:
        return library.types[args.doc_type]
    key = "unknown_type" if args.doc_type else "no_type"
    lines = [msg(key, lang, name=args.doc_type)]
    lines += [f"  {d.id}  {d.title(lang)}" for d in library.types.values()]
    print("\n".join(lines), file=sys.stderr)
    return None


def _values(args: argparse.Namespace, doc: DocType, lang: str) -> dict[str, str] | None:
    from app.prompts import unknown_fields

    values = doc.example_values() if args.example else {}
    for arg in args.field:
        name, sep, value = arg.partition("=")
        if not sep or not name.strip():
            _fail(msg("bad_field_arg", lang, arg=arg))
            return None
        values[name.strip()] = value
    unknown = unknown_fields(doc, list(values))
    if unknown:
        known = ", ".join(f.name for f in doc.fields)
        _fail(msg("unknown_field", lang, type=doc.id, names=", ".join(unknown), known=known))
        return None
    return values


def _render(doc: DocType, values: dict[str, str], lang: str) -> RenderedPrompt | None:
    from app.prompts import FieldErrors, TemplateProblem, render

    try:
        return render(doc, values)
    except FieldErrors as exc:
        lines = [msg("field_errors", lang)]
        lines += [f"  --field {name}: {err.message(lang)}" for name, err in exc.errors.items()]
        _fail("\n".join(lines))
    except TemplateProblem as exc:
        _fail(msg("template", lang, detail=exc))
    return None


def _params(args: argparse.Namespace, doc: DocType, lang: str) -> GenerationParams | None:
    params = doc.defaults
    if args.max_tokens is not None:
        if args.max_tokens <= 0:
            _fail(msg("bad_number", lang, flag="--max-tokens"))
            return None
        params = replace(params, max_tokens=args.max_tokens)
    if args.temperature is not None:
        if args.temperature < 0:
            _fail(msg("bad_number", lang, flag="--temperature"))
            return None
        params = replace(params, temperature=args.temperature)
    return params


def stats_line(stats: GenerationStats, status: str) -> str:
    """One line of per-request numbers for stderr."""
    parts = [f"status {status}"]
    if stats.ttft_s is not None:
        parts.append(f"TTFT {stats.ttft_s:.2f}s")
    parts.append(f"{stats.completion_tokens} tokens in {stats.total_s:.2f}s")
    if stats.tokens_per_s is not None:
        parts.append(f"{stats.tokens_per_s:.1f} tok/s")
    if stats.prompt_tokens is not None:
        parts.append(f"prompt {stats.prompt_tokens} tokens")
    if stats.draft_tokens is not None:
        rate = stats.acceptance_rate
        shown = f" ({rate:.0%})" if rate is not None else ""
        parts.append(f"draft accepted {stats.accepted_tokens}/{stats.draft_tokens}{shown}")
    return " | ".join(parts)


def _summary(outcome: GenerationOutcome, lang: str) -> list[str]:
    lines = [stats_line(outcome.stats, outcome.status)]
    if outcome.status == "stopped":
        lines.append(msg("stopped", lang))
    elif outcome.status == "error":
        lines.append(msg("error", lang, detail=outcome.error))
    if outcome.check is None:
        lines.append(msg("no_checks", lang))
        return lines
    findings = outcome.check.findings
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    lines.append(
        msg(
            "findings",
            lang,
            errors=counts["error"],
            warnings=counts["warning"],
            infos=counts["info"],
        )
    )
    for f in findings:
        text = f.message_en if lang == "en" else f.message_zh
        lines.append(f"  [{f.severity}] {outcome.text[f.start : f.end]!r} {text}")
    return lines


def _stream(
    client: Any,
    rendered: RenderedPrompt,
    params: GenerationParams,
    doc: DocType,
    endpoint: str,
    label: str,
) -> GenerationOutcome:
    """Print deltas as they arrive; Ctrl-C cancels and still returns the partial outcome."""
    from app.generation import stream_draft

    run = stream_draft(
        client,
        rendered,
        params,
        required_sections=doc.required_sections,
        endpoint_name=endpoint,
        speculative_label=label,
    )
    updates = iter(run)
    try:
        for update in updates:
            sys.stdout.write(update.delta)
            sys.stdout.flush()
    except KeyboardInterrupt:
        run.cancel()
        updates.close()
    sys.stdout.write("\n")
    return run.outcome()


def _prepare_client(
    settings: Settings, endpoint: str, rendered: RenderedPrompt, params: GenerationParams, lang: str
) -> tuple[Any, RenderedPrompt] | None:
    """The endpoint's client, after checking prompt + max_tokens fits the model's context."""
    from app.llm import LLMError, make_client
    from app.prompts import ContextTooLong, check_context, count_prompt_tokens

    try:
        client = make_client(endpoint, settings)
    except LLMError as exc:
        _fail(msg("endpoint", lang, detail=exc.message(lang)))
        return None
    tokens = count_prompt_tokens(rendered, client)
    try:
        check_context(tokens, params.max_tokens, client.context_limit())
    except ContextTooLong as exc:
        _fail(msg("context", lang, detail=exc.message(lang)))
        return None
    return client, replace(rendered, prompt_tokens=tokens)


def _write_out(path: Path, text: str, lang: str) -> bool:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(msg("write_failed", lang, path=path, detail=exc), file=sys.stderr)
        return False
    print(msg("written", lang, path=path), file=sys.stderr)
    return True


def _record(outcome: GenerationOutcome, user: str, lang: str) -> None:
    """Keep the output in the audit log like the app does; a failure is reported, not fatal."""
    try:
        from app.database import session_scope
        from app.generation import record

        with session_scope() as session:
            generation_id = record(outcome, user_name=user, session=session)
    except Exception as exc:  # the draft is already on screen / on disk: say so and go on
        print(msg("record_failed", lang, detail=f"{type(exc).__name__}: {exc}"), file=sys.stderr)
        return
    print(msg("recorded", lang, id=generation_id), file=sys.stderr)


def handle(args: argparse.Namespace) -> int:
    from app.config import get_settings

    settings = get_settings()
    lang = args.lang or settings.lang
    doc = _pick_type(args, settings, lang)
    values = _values(args, doc, lang) if doc else None
    rendered = _render(doc, values, lang) if doc and values is not None else None
    params = _params(args, doc, lang) if doc and rendered else None
    if doc is None or rendered is None or params is None:
        return 2
    endpoint = args.endpoint or settings.default_endpoint
    prepared = _prepare_client(settings, endpoint, rendered, params, lang)
    if prepared is None:
        return 2
    client, rendered = prepared
    label = settings.all_endpoints()[endpoint].label
    outcome = _stream(client, rendered, params, doc, endpoint, label)
    print("\n".join(_summary(outcome, lang)), file=sys.stderr)
    written = args.out is None or _write_out(args.out, outcome.text, lang)
    if not args.no_audit:
        _record(outcome, args.user, lang)
    if not written:
        return 1
    return {"complete": 0, "stopped": 130}.get(outcome.status, 1)
