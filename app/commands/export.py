"""`lexspec export INPUT --out FILE.docx`: a draft (text / markdown file or -) to DOCX."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.inputs import InputError, read_draft, record_id
from app.domain import Bilingual, describe
from app.export.official import STYLE_NAMES
from app.i18n import both, cli_text
from audit.files import write_private

if TYPE_CHECKING:
    from app.context import Context
    from app.domain import CheckResult
    from app.knowledge import Knowledge
    from app.prompts import DocType


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help=cli_text("cli.export.export.help"),
        description=cli_text("cli.export.export.description"),
    )
    p.add_argument("input", nargs="?", help=cli_text("cli.export.input"))
    p.add_argument("--revision", type=record_id, help=cli_text("cli.export.revision"))
    p.add_argument("--tracked", action="store_true", help=cli_text("cli.export.tracked"))
    p.add_argument("--client-copy", action="store_true", help=cli_text("cli.export.client_copy"))
    p.add_argument("--out", type=Path, help=cli_text("cli.export.out"))
    p.add_argument(
        "--findings",
        action="store_true",
        help=cli_text("cli.export.findings"),
    )
    p.add_argument("--matter", default="", help=cli_text("cli.export.matter"))
    p.add_argument("--client", default="", help=cli_text("cli.export.client"))
    p.add_argument("--title", help=cli_text("cli.export.title"))
    p.add_argument("--author", default="", help=cli_text("cli.export.author"))
    p.add_argument("--doc-type", help=cli_text("cli.export.doc_type"))
    p.add_argument("--generation-id", help=cli_text("cli.export.generation_id"))
    p.add_argument("--template-hash", default="", help=cli_text("cli.export.template_hash"))
    p.add_argument("--no-comments", action="store_true", help=cli_text("cli.export.no_comments"))
    p.add_argument("--no-appendix", action="store_true", help=cli_text("cli.export.no_appendix"))
    p.add_argument(
        "--cited-articles",
        action="store_true",
        help=cli_text("cli.export.cited_articles"),
    )
    p.add_argument("--date", help=cli_text("cli.export.date"))
    p.add_argument("--style", choices=STYLE_NAMES, help=cli_text("cli.export.style"))
    p.set_defaults(func=handle)


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _doc_type(type_id: str | None, knowledge: Knowledge) -> DocType | None:
    """The DocType named `type_id`, or None; raises ValueError with a bilingual message."""
    if not type_id:
        return None
    doc_type = knowledge.doc_type(type_id)
    if doc_type is None:
        known = ", ".join(sorted(knowledge.types)) or "-"
        raise ValueError(cli_text("cli.export.unknown_type", type=type_id, known=known))
    return doc_type


def _checked(
    text: str, doc_type: DocType | None, day: dt.date, knowledge: Knowledge
) -> CheckResult:
    """The draft's checks (app.drafting.checking.check) under the type on `day`; a broken firm
    statute file is reported, not replaced."""
    from app.drafting.checking import check
    from app.drafting.context import checking_context

    knowledge.catalogue()  # raises CatalogueError for a broken firm file
    context = checking_context(doc_type, {}, doc_date=day, knowledge=knowledge)
    return check(context, text)


def _output_path(args: argparse.Namespace) -> Path:
    if args.out is not None:
        return Path(args.out)
    if args.input == "-":
        raise ValueError(cli_text("cli.export.out_required"))
    return Path(args.input).with_suffix(".docx")


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.commands.cite import parse_date
    from app.drafting.context import export_header
    from app.drafting.revision_export import header_meta
    from app.export.cited import cited_articles_of
    from app.export.docx_writer import (
        ExportError,
        client_copy_docx,
        default_reference,
        draft_to_docx,
    )
    from app.validation import CatalogueError

    if args.revision is not None or args.tracked:
        from app.commands.export_revision import export_revision

        return export_revision(args, ctx)
    if args.input is None:
        return _fail(cli_text("cli.export.no_input"))
    try:
        out = _output_path(args)
        text = read_draft(args.input)
        doc_type = _doc_type(args.doc_type, ctx.knowledge)
        day = parse_date(args.date)
    except (InputError, ValueError) as exc:
        return _fail(str(describe(exc)))
    if not text.strip():
        return _fail(cli_text("cli.export.empty"))
    title = args.title or (doc_type.title_zh if doc_type is not None else "")
    style = args.style or (doc_type.docx_style if doc_type is not None else "standard")
    try:
        wanted = args.findings or args.cited_articles
        result = _checked(text, doc_type, day, ctx.knowledge) if wanted else None
    except CatalogueError as exc:
        return _fail(str(describe(exc)))
    findings = tuple(result.findings) if result is not None and args.findings else ()
    cited = (
        cited_articles_of(result.citations, day)
        if result is not None and args.cited_articles
        else ()
    )
    header = export_header(doc_type, {})  # the type's cover; client and matter as given
    meta = header_meta(
        replace(header, client=args.client, matter_ref=args.matter),
        title=title,  # empty: the draft's own title line
        doc_date=day,
        author=args.author,
        generation_id=args.generation_id,
        template_hash=args.template_hash,
    )
    try:
        if args.client_copy:
            data = client_copy_docx(text, meta=meta, reference=default_reference(ctx.settings))
        else:
            data = draft_to_docx(
                text,
                meta=meta,
                findings=findings,
                comments=not args.no_comments,
                appendix=not args.no_appendix,
                cited_articles=cited,
                reference=default_reference(ctx.settings, style),
                style=style,
            )
        write_private(out, data)
    except ExportError as exc:
        return _fail(str(describe(exc)))
    except OSError as exc:
        return _fail(
            cli_text("cli.export.cannot_write", path=out, detail=exc.strerror or describe(exc))
        )
    errors = sum(1 for f in findings if f.severity == "error")
    parts = [both("cli.export.exported", path=out)]
    if args.findings:
        parts.append(both("cli.export.with_findings", n=len(findings), errors=errors))
    if args.cited_articles:
        parts.append(both("cli.export.with_cited", n=len(cited)))
    print(Bilingual("".join(p.zh for p in parts), "".join(p.en for p in parts)))
    return 0
