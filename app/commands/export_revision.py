"""`lexspec export --revision ID [--tracked] --out FILE.docx`: a saved revision from the audit
log as DOCX, optionally with its redline against the model's text as Word tracked changes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import describe
from app.i18n import cli_text
from audit.files import write_private

if TYPE_CHECKING:
    from app.context import Context
    from app.knowledge import Knowledge


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _title(doc_type: str, given: str | None, knowledge: Knowledge) -> str:
    """--title, else the document type's Chinese title, else its id."""
    if given:
        return given
    found = knowledge.doc_type(doc_type)
    return found.title_zh if found is not None else doc_type


def export_revision(args: argparse.Namespace, ctx: Context) -> int:
    """Write the revision's DOCX to --out (default: client — document — date — 第N稿, then
    （审阅稿） or （修订痕迹）, .docx); --client-copy: the copy without findings."""
    from app.drafting.revision_export import export_meta, file_name, load_revision, version_docx
    from app.export.docx_writer import ExportError
    from app.export.naming import Copy

    if args.revision is None:
        return _fail(cli_text("cli.export.tracked_needs_revision"))
    if args.input is not None:
        return _fail(cli_text("cli.export.file_or_revision"))
    try:
        with ctx.session() as session:
            generation, revision = load_revision(args.revision, session=session)
        title = _title(generation.record.doc_type, args.title, ctx.knowledge)
        copy: Copy = "tracked" if args.tracked else "client" if args.client_copy else "review"
        meta = export_meta(generation, revision, title=title, settings=ctx.settings)
        data = version_docx(
            generation,
            revision,
            title=title,
            settings=ctx.settings,
            copy=copy,
            meta=meta,
            style=args.style or "standard",
        )
    except (LookupError, ExportError) as exc:
        return _fail(str(describe(exc)))
    out = Path(args.out) if args.out else Path(file_name(meta, revision, copy=copy))
    try:
        write_private(out, data)
    except OSError as exc:
        return _fail(
            cli_text("cli.export.cannot_write", path=out, detail=exc.strerror or describe(exc))
        )
    key = "cli.export.exported_tracked" if args.tracked else "cli.export.exported_revision"
    print(cli_text(key, n=revision.number, generation=generation.id, path=out))
    return 0
