"""`lexspec draft`: stream one document draft to the terminal (stats and findings on stderr).

Ctrl-C stops the generation and keeps the partial text (written to --out when given).
Exit codes: 0 complete or truncated (the status line says which), 1 server/generation error,
2 bad input, 3 the draft was printed but the audit log could not be written (it waits in the
spool), 130 stopped by Ctrl-C. By default the type's outline drafts the document part by part
(--mode free-form: one prompt for the whole document).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.inputs import count
from app.domain import MAX_TEMPERATURE, GenerationStatus, MatterRef, describe
from app.i18n import cli_text
from audit.files import write_private

if TYPE_CHECKING:
    from app.config import Settings
    from app.context import Context
    from app.domain import GenerationParams, GenerationStats
    from app.drafting.outcome import GenerationOutcome, Run
    from app.drafting.service import Drafted, Drafting, DraftRequest
    from app.knowledge import Knowledge
    from app.llm.client import LLMClient
    from app.prompts import DocType

NOT_LOGGED = 3  # exit code: the draft is shown but the audit log was not written


CLI_AUTHOR = "cli"  # the author of a draft made at the command line without --user


def msg(key: str, lang: str, **values: object) -> str:
    """A `lexspec draft` message (app/locales/*.yaml `cli.draft`) in `lang`."""
    from app.i18n import t

    return t(f"cli.draft.{key}", lang, **values)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "draft",
        help=cli_text("cli.draft.args.help"),
        description=cli_text("cli.draft.args.description"),
    )
    p.add_argument("--type", dest="doc_type", help=cli_text("cli.draft.args.type"))
    p.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=cli_text("cli.draft.args.field"),
    )
    p.add_argument("--example", action="store_true", help=cli_text("cli.draft.args.example"))
    p.add_argument("--matter", help=cli_text("cli.draft.args.matter"))
    p.add_argument("--endpoint", help=cli_text("cli.draft.args.endpoint"))
    p.add_argument("--max-tokens", type=count, help=cli_text("cli.draft.args.max_tokens"))
    p.add_argument("--temperature", type=float, help=cli_text("cli.draft.args.temperature"))
    p.add_argument(
        "--mode",
        choices=("outline", "free-form"),
        help=cli_text("cli.draft.args.mode"),
    )
    p.add_argument("--out", type=Path, help=cli_text("cli.draft.args.out"))
    p.add_argument("--report", type=Path, help=cli_text("cli.draft.args.report"))
    p.add_argument("--lang", choices=("zh", "en"), help=cli_text("cli.draft.args.lang"))
    p.add_argument("--user", help=cli_text("cli.draft.args.user"))
    p.add_argument("--no-audit", action="store_true", help=cli_text("cli.draft.args.no_audit"))
    p.set_defaults(func=handle)


def _fail(text: str) -> int:
    print(text, file=sys.stderr)
    return 2


def _pick_type(args: argparse.Namespace, knowledge: Knowledge, lang: str) -> DocType | None:
    library = knowledge.library
    for problem in library.errors:
        print(msg("broken_type", lang, detail=problem), file=sys.stderr)
    if args.doc_type in library.types:
        return library.types[args.doc_type]
    key = "unknown_type" if args.doc_type else "no_type"
    lines = [msg(key, lang, name=args.doc_type)]
    lines += [f"  {d.id}  {d.title(lang)}" for d in library.types.values()]
    print("\n".join(lines), file=sys.stderr)
    return None


def _matter(
    args: argparse.Namespace, doc: DocType, ctx: Context, lang: str
) -> tuple[MatterRef | None, dict[str, str]] | None:
    """The matter named by --matter (its latest version) and the type's form filled from its
    facts; (None, {}) without --matter; None (with a message) when there is no such matter."""
    from app.matters.facts import values_for
    from audit.matters import latest_matter

    if not args.matter:
        return None, {}
    with ctx.session() as session:  # an operator's read, as `lexspec export --revision`
        matter = latest_matter(args.matter, session=session)
    if matter is None:
        _fail(msg("no_matter", lang, number=args.matter))
        return None
    filled = {k: v for k, v in values_for(doc, matter.number, matter.facts).items() if v}
    return MatterRef(matter.number, matter.version), filled


def _values(
    args: argparse.Namespace, doc: DocType, lang: str, start: dict[str, str]
) -> dict[str, str] | None:
    from app.prompts import unknown_fields

    values = {**(doc.example_values() if args.example else {}), **start}
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


def _begin(ctx: Context, request: DraftRequest, client: LLMClient, lang: str) -> Drafting | None:
    """Render the form, plan the outline, check the context and start the run (the draft
    service's door, `begin`); None, with a message, when the request cannot be drafted."""
    from app.drafting.service import begin
    from app.outline.compose import OutlineProblem
    from app.outline.model import OutlineError
    from app.prompts import ContextTooLong, FieldErrors, TemplateProblem

    try:
        return begin(ctx, request, client=client)
    except FieldErrors as exc:
        lines = [msg("field_errors", lang)]
        lines += [f"  --field {name}: {err.message(lang)}" for name, err in exc.errors.items()]
        _fail("\n".join(lines))
    except TemplateProblem as exc:
        _fail(msg("template", lang, detail=describe(exc).text(lang)))
    except ContextTooLong as exc:
        _fail(msg("context", lang, detail=describe(exc).text(lang)))
    except (OutlineError, OutlineProblem) as exc:
        _fail(msg("outline", lang, detail=describe(exc).text(lang)))
    return None


def _params(args: argparse.Namespace, doc: DocType, lang: str) -> GenerationParams | None:
    params = doc.defaults
    if args.max_tokens is not None:
        if args.max_tokens <= 0:
            _fail(msg("bad_number", lang, flag="--max-tokens"))
            return None
        params = replace(params, max_tokens=args.max_tokens)
    if args.temperature is not None:
        if not 0.0 <= args.temperature <= MAX_TEMPERATURE:  # also refuses nan
            _fail(msg("bad_temperature", lang, flag="--temperature", top=MAX_TEMPERATURE))
            return None
        params = replace(params, temperature=args.temperature)
    return params


def stats_line(stats: GenerationStats, status: str) -> str:
    """One line of per-request numbers for stderr."""
    parts = [f"status {status}"]
    if stats.ttft_s is not None:
        parts.append(f"TTFT {stats.ttft_s:.2f}s")
    at_least = "≥ " if stats.tokens_estimated else ""  # chunks counted: no usage, no tokenizer
    parts.append(f"{at_least}{stats.completion_tokens} tokens in {stats.total_s:.2f}s")
    if stats.tokens_per_s is not None:
        parts.append(f"{stats.tokens_per_s:.1f} tok/s")
    if stats.prompt_tokens is not None:
        parts.append(f"prompt {stats.prompt_tokens} tokens")
    if stats.draft_tokens is not None:
        rate = stats.acceptance_rate
        shown = f" ({rate:.0%})" if rate is not None else ""
        parts.append(f"draft accepted {stats.accepted_tokens}/{stats.draft_tokens}{shown}")
    return " | ".join(parts)


def _outline_lines(outcome: GenerationOutcome, lang: str) -> list[str]:
    """An outline draft's parts: which budget cut a part, which parts fell back and why, and
    where every part came from."""
    from app.i18n import t
    from app.outline.compose import parts_fallen_back
    from app.outline.provenance import (
        counts_line,
        detail_line,
        fallback_lines,
        source_line,
        truncation_lines,
    )

    if not outcome.provenance:
        return []
    lines = [counts_line(outcome.counts, lang)]
    if outcome.status == GenerationStatus.COMPLETE and not outcome.as_labelled:
        lines.append(t("outline.not_as_labelled", lang))
    lines += [f"  {line}" for line in truncation_lines(outcome.parts, outcome.provenance, lang)]
    if fallen := parts_fallen_back(outcome.marks):
        lines.append(t("outline.fallback_note", lang, parts=fallen))
    lines += [f"  {line}" for line in fallback_lines(outcome.provenance, lang)]
    details = detail_line(outcome.provenance, (), lang)
    return [*lines, source_line(outcome.provenance, lang), f"  {details}"]


def _summary(outcome: GenerationOutcome, lang: str) -> list[str]:
    from app.outline.compose import parts_without_text

    lines = [stats_line(outcome.stats, outcome.status)]
    if outcome.status == GenerationStatus.STOPPED:
        lines.append(msg("stopped", lang))
    elif outcome.status == GenerationStatus.TRUNCATED:
        lines.append(msg("truncated", lang))
    elif outcome.status == GenerationStatus.ERROR:
        lines.append(msg("error", lang, detail=outcome.error))
    if outcome.marks:
        lines.append(msg("marks", lang, marks=", ".join(str(m) for m in outcome.marks)))
    if empty := parts_without_text(outcome.marks):
        lines.append(msg("no_text", lang, parts=empty))
    lines += _outline_lines(outcome, lang)
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
        text = f.bilingual.text(lang)
        lines.append(f"  [{f.severity}] {outcome.text[f.start : f.end]!r} {text}")
    return lines


def _stream(run: Run, lang: str) -> GenerationOutcome:
    """Print the draft as it arrives (an outline draft part by part, each part once final, with
    its progress on stderr, and where it waits in the server's queue while it says so); Ctrl-C
    cancels and still returns the partial outcome."""
    outline = run.mode == "outline"
    printed = ""
    updates = iter(run)
    try:
        for update in updates:
            if update.queued and not update.delta:
                sys.stderr.write(msg("queued", lang, ahead=update.queued) + "\n")
            elif not outline:
                sys.stdout.write(update.delta)
            else:
                now = run.settled_text()
                sys.stdout.write(now[len(printed) :])
                printed = now
                sys.stderr.write("." if update.delta else "")
            sys.stdout.flush()
    except KeyboardInterrupt:
        run.cancel()
        updates.close()
    outcome = run.outcome()
    if outline:
        sys.stderr.write("\n")
        if outcome.text.startswith(printed):  # the stopped part, as far as it got
            sys.stdout.write(outcome.text[len(printed) :])
    sys.stdout.write("\n")
    return outcome


def _client(settings: Settings, endpoint: str, lang: str) -> LLMClient | None:
    from app.llm.client import make_client
    from app.llm.errors import LLMError

    try:
        return make_client(endpoint, settings)
    except LLMError as exc:
        _fail(msg("endpoint", lang, detail=describe(exc).text(lang)))
        return None


def _write_out(path: Path, text: str, lang: str) -> bool:
    try:
        write_private(path, text.encode("utf-8"))
    except OSError as exc:
        print(
            msg("write_failed", lang, path=path, detail=describe(exc).text(lang)), file=sys.stderr
        )
        return False
    print(msg("written", lang, path=path), file=sys.stderr)
    return True


def report(outcome: GenerationOutcome, doc: DocType) -> dict[str, Any]:
    """The draft as JSON for --report: type, status, route (null when the type has none), the
    form's values used, each part's section, title, source, clause and failed gates, the parts'
    counts, and the findings."""
    values = dict(outcome.rendered.values)
    route = outcome.context.route
    return {
        "doc_type": doc.id,
        "status": outcome.status,
        "route": route.route if route else None,
        "fields": values,
        "parts": [
            {
                "section": o.section,
                "title": f"{o.label}{o.title}",
                "source": o.source,
                "clause": f"{o.clause}@{o.version}" if o.clause else None,
                "gates": list(o.gates),
            }
            for o in outcome.provenance
        ],
        # how many parts the model wrote, adapted, and how many fell back; complete_as_labelled:
        # finished, and every part is what it says it is
        "counts": outcome.counts.to_dict(),
        "complete_as_labelled": outcome.as_labelled,
        "findings": list(outcome.findings),
    }


def _write_report(path: Path, data: dict[str, Any], lang: str) -> bool:
    import json

    return _write_out(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n", lang)


def _author(name: str | None, ctx: Context, lang: str) -> str | None:
    """The author the log records: `--user`, which must name an enabled account (its own
    spelling), else "cli" (the command line itself); None, said, when it names none."""
    from audit.users import get_user

    if name is None:
        return CLI_AUTHOR
    with ctx.session() as session:
        user = get_user(name, session=session)
    if user is None or user.disabled:
        _fail(msg("unknown_user", lang, name=name))
        return None
    return user.name


def _said(drafted: Drafted, lang: str) -> bool:
    """Say where the audit log keeps the draft (else the spool); False, with a message, when
    the log could not be written."""
    kept = drafted.kept
    if kept is None:  # not recorded (--no-audit)
        return False
    if kept.problem is not None:
        print(kept.problem.text(lang), file=sys.stderr)
        if kept.record_line is not None:  # neither the log nor the spool took it: print it
            print(msg("record_follows", lang), file=sys.stderr)
            print(kept.record_line, flush=True)
        return False
    print(msg("recorded", lang, id=kept.generation_id), file=sys.stderr)
    return True


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.drafting.service import DraftRequest

    settings = ctx.settings
    lang = args.lang or settings.lang
    doc = _pick_type(args, ctx.knowledge, lang)
    found = _matter(args, doc, ctx, lang) if doc else None
    matter, start = found if found is not None else (None, {})
    values = _values(args, doc, lang, start) if doc and found is not None else None
    params = _params(args, doc, lang) if doc and values is not None else None
    if doc is None or values is None or params is None:
        return 2
    for flag, target in (("--out", args.out), ("--report", args.report)):
        if target is not None and not target.resolve().parent.is_dir():
            return _fail(msg("out_dir", lang, flag=flag, path=target.resolve().parent))
    author = _author(args.user, ctx, lang)
    if author is None:
        return 2
    endpoint = args.endpoint or settings.default_endpoint
    client = _client(settings, endpoint, lang)
    request = DraftRequest(
        doc, values, endpoint, user_name=author, params=params, mode=args.mode, matter=matter
    )
    drafting = _begin(ctx, request, client, lang) if client else None
    if drafting is None:
        return 2
    outcome = _stream(drafting.run, lang)
    print("\n".join(_summary(outcome, lang)), file=sys.stderr)
    written = args.out is None or _write_out(args.out, outcome.text, lang)
    if args.report is not None:
        written = _write_report(args.report, report(outcome, doc), lang) and written
    drafted = drafting.finish(record=not args.no_audit)  # --no-audit: opted out explicitly
    logged = args.no_audit or _said(drafted, lang)
    if not written:
        return 1
    codes = {
        GenerationStatus.COMPLETE: 0,
        GenerationStatus.TRUNCATED: 0,
        GenerationStatus.STOPPED: 130,
    }
    code = codes.get(outcome.status, 1)
    return NOT_LOGGED if code == 0 and not logged else code
