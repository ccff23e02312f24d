"""`lexspec clauses check` and `lexspec clauses list [--type T]`: the document types' clause
libraries (prompts/<type>/clauses.yaml).

`check` loads every type's clauses with their checks (placeholders, conditions, citations
against the statute texts, figures) and prints one line per refused clause, naming it; exit 2
when any is refused. `list` prints one line per clause that loads. An unknown type: one line,
exit 2."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.i18n import cli_text

if TYPE_CHECKING:
    from app.outline.model import OutlineLibrary

BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "clauses",
        help=cli_text("cli.clauses.help"),
        description=cli_text("cli.clauses.description"),
    )
    actions = p.add_subparsers(dest="clauses_command", required=True)
    check = actions.add_parser("check", help=cli_text("cli.clauses.check"))
    check.set_defaults(func=handle_check)
    listing = actions.add_parser("list", help=cli_text("cli.clauses.list"))
    listing.add_argument("--type", dest="doc_type", help=cli_text("cli.clauses.type"))
    listing.set_defaults(func=handle_list)


def _outlines() -> tuple[OutlineLibrary, list[str]]:
    from app.config import get_settings
    from app.outline.prepare import load_outlines
    from app.prompts import load_library

    prompts_dir = get_settings().prompts_dir
    library = load_library(prompts_dir)
    return load_outlines(prompts_dir, library.types), library.errors


def handle_check(_args: argparse.Namespace) -> int:
    outlines, type_errors = _outlines()
    problems = [*type_errors, *outlines.errors]
    for outline in outlines.outlines.values():
        problems.extend(outline.clause_errors)
    for type_id, outline in sorted(outlines.outlines.items()):
        print(cli_text("cli.clauses.checked", type=type_id, count=len(outline.clauses)))
    for problem in problems:
        print(cli_text("cli.clauses.refused", detail=problem), file=sys.stderr)
    return BAD_INPUT if problems else 0


def _when(raw: object) -> str:
    if not raw:
        return "-"
    return ";".join(f"{k}={v}" for k, v in raw.items()) if isinstance(raw, dict) else str(raw)


def handle_list(args: argparse.Namespace) -> int:
    outlines, _ = _outlines()
    chosen = sorted(outlines.outlines)
    if args.doc_type is not None:
        if args.doc_type not in outlines.outlines:
            known = ", ".join(chosen)
            print(cli_text("cli.clauses.unknown_type", name=args.doc_type, known=known),
                  file=sys.stderr)  # fmt: skip
            return BAD_INPUT
        chosen = [args.doc_type]
    for type_id in chosen:
        for c in outlines.outlines[type_id].clauses:
            cites = ",".join(f"{x.statute}:{x.article}" for x in c.cites) or "-"
            print(
                f"{type_id}\t{c.id}\t{c.part}\tv{c.version}\t{c.approved.isoformat()}\t"
                f"{c.author}\twhen {_when(c.when)}\tcites {cites}"
            )
    return 0
