"""`lexspec check FILE|- [--doc-type TYPE] [--facts FACTS.json] [--format json|text]`: numbering,
citation and (with --facts, the form's values) facts checks; `lexspec check --generation ID
[FILE|-]`: a logged draft's text (its newest revision, or FILE) checked in that draft's context
(its type, date, form facts and continuation prefix), as the Draft page and a saved revision
check it (app.drafting.checking.check).

Exit status: 0 no error-severity finding, 1 at least one, 2 bad input (file, type, catalogue)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.inputs import InputError, read_draft, record_id
from app.domain import describe
from app.i18n import cli_text, t

if TYPE_CHECKING:
    from app.context import Context
    from app.domain import CheckResult
    from app.drafting.context import DraftContext
    from app.knowledge import Knowledge

TYPE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help=cli_text("cli.check.check.help"),
        description=cli_text("cli.check.check.description"),
    )
    p.add_argument("file", nargs="?", help=cli_text("cli.check.file"))
    p.add_argument("--generation", type=record_id, help=cli_text("cli.check.generation"))
    p.add_argument("--doc-type", help=cli_text("cli.check.doc_type"))
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help=cli_text("cli.check.format")
    )
    p.add_argument(
        "--date",
        help=cli_text("cli.check.date"),
    )
    p.add_argument("--facts", help=cli_text("cli.check.facts"))
    p.set_defaults(func=handle)


def read_facts(source: str) -> dict[str, str]:
    """The form's values from a JSON object file, checked as the facts check reads them."""
    from app.route.facts import form_facts
    from app.route.form import INDIVIDUALS_FIELD, SENSITIVE_FIELD

    try:
        data = json.loads(read_draft(source))
    except (ValueError, RecursionError) as exc:  # also: nested too deep, a 5,000-digit number
        raise InputError(
            f"表单事实文件不是有效的 JSON：{source}", f"Not a valid JSON file: {source}"
        ) from exc
    values = (
        {str(k): "" if v is None else str(v) for k, v in data.items()}
        if isinstance(data, dict)
        else {}
    )
    facts = form_facts(values, None)
    if facts is None:
        raise InputError(
            f"表单事实文件应为 JSON 对象，且含 individuals_count：{source}",
            f"The facts file must be a JSON object with individuals_count: {source}",
        )
    bad = [
        name
        for name, count in (
            (INDIVIDUALS_FIELD, facts.individuals),
            (SENSITIVE_FIELD, facts.sensitive),
        )
        if count is None
    ]
    if bad:
        fields = ", ".join(bad)
        raise InputError(
            t("route.bad_count", "zh", fields=fields), t("route.bad_count", "en", fields=fields)
        )
    return values


def required_sections(type_id: str, prompts_dir: Path) -> tuple[str, ...]:
    """`required_sections` from prompts/<type>/meta.yaml (read directly, as plain YAML)."""
    from app import yamldata

    meta = prompts_dir / type_id / "meta.yaml"
    if not TYPE_ID.match(type_id) or not meta.is_file():
        known = sorted(m.parent.name for m in prompts_dir.glob("*/meta.yaml"))
        listing = "、".join(known) or "-"
        raise InputError(
            f"未知文书类型：{type_id}（可用：{listing}）",
            f"Unknown document type: {type_id} (available: {', '.join(known) or '-'})",
        )
    try:
        data = yamldata.load(meta.read_text(encoding="utf-8"))
    except (OSError, yamldata.YAMLError) as exc:
        raise InputError(
            f"无法读取 {type_id}/meta.yaml", f"Cannot read {type_id}/meta.yaml"
        ) from exc
    sections = data.get("required_sections") if isinstance(data, dict) else None
    if sections is None:
        return ()
    if not isinstance(sections, list) or not all(isinstance(s, str) for s in sections):
        raise InputError(
            f"{type_id}/meta.yaml 的 required_sections 应为字符串列表",
            f"required_sections in {type_id}/meta.yaml must be a list of strings",
        )
    return tuple(sections)


def format_text(text: str, result: CheckResult, lang: str) -> str:
    """One line per finding: line:col severity code message [→ suggestion]."""
    from app.validation import line_cols

    lines = []
    places = line_cols(text, (f.start for f in result.findings))
    for f, (line, col) in zip(result.findings, places, strict=True):
        message = f.bilingual.text(lang)
        hint = f" → {f.suggestion}" if f.suggestion else ""
        lines.append(f"{line}:{col} {f.severity} {f.code} {message}{hint}")
    return "\n".join(lines)


def _summary(result: CheckResult, lang: str) -> str:
    errors = sum(f.severity == "error" for f in result.findings)
    total, cites = len(result.findings), len(result.citations)
    line = t("cli.check.summary", lang, total=total, errors=errors, cites=cites)
    used = result.date
    if used is None:
        return line
    when = t(f"cli.check.date_{used.source}", lang, date=used.date.isoformat(), cue=used.cue)
    return f"{line}\n{when}"


def _file_context(args: argparse.Namespace, knowledge: Knowledge) -> DraftContext:
    """A FILE checked against --doc-type's required sections, --facts and --date (without it:
    the date the text speaks from, else today), with the statute catalogue of `knowledge`."""
    from app.commands.cite import parse_date
    from app.drafting.context import checking_context

    day = parse_date(args.date) if args.date else None
    sections = required_sections(args.doc_type, knowledge.prompts_dir) if args.doc_type else ()
    values = read_facts(args.facts) if args.facts else {}
    return checking_context(
        None,
        values,
        doc_date=day,
        required_sections=sections,
        knowledge=knowledge,
    )


def _logged(args: argparse.Namespace, ctx: Context) -> tuple[DraftContext, str]:
    """A logged generation's context and text (FILE, else its newest saved text); --date
    overrides the document's date."""
    from app.commands.cite import parse_date
    from app.drafting.logged import stored_context
    from app.drafting.revisions import current_text
    from audit.store import get_generation

    if args.doc_type or args.facts:
        raise InputError(
            "--generation 已带有文书类型与表单事实，不能再给 --doc-type 或 --facts",
            "--generation brings its own type and form facts: no --doc-type or --facts with it",
        )
    with ctx.session() as session:
        stored = get_generation(args.generation, session=session)
        now = current_text(args.generation, session=session) if stored is not None else None
    if stored is None or now is None:
        gid = args.generation
        raise InputError(f"没有编号为 {gid} 的生成记录", f"No generation #{gid}")
    context = stored_context(stored, ctx.knowledge)
    if args.date:
        context = replace(context, doc_date=parse_date(args.date))
    return context, read_draft(args.file) if args.file else now.text


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.drafting.checking import check
    from app.validation import CatalogueError

    lang = ctx.settings.lang
    try:
        ctx.knowledge.catalogue()  # a broken firm statute file is reported, not replaced
        if args.generation is not None:
            context, text = _logged(args, ctx)
        elif args.file is None:
            raise InputError(
                "请给出文件（或 -），或 --generation", "Give a FILE (or -), or --generation"
            )
        else:
            context, text = _file_context(args, ctx.knowledge), read_draft(args.file)
        result = check(context, text)
    except (InputError, CatalogueError) as exc:
        print(describe(exc).text(lang), file=sys.stderr)
        return 2
    if args.format == "json":
        payload = {
            "findings": [f.to_dict() for f in result.findings],
            "citations": [c.to_dict() for c in result.citations],
            "date": result.date.to_dict() if result.date else None,
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        if result.findings:
            print(format_text(text, result, lang))
        print(_summary(result, lang), file=sys.stderr)
    return 1 if result.has_errors else 0
