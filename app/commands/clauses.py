"""`lexspec clauses ...`: the document types' clause libraries, shipped
(prompts/<type>/clauses.yaml) and the firm's own (app/precedents/firm_clauses.py).

`check` loads every type's clauses with their checks (placeholders, conditions, citations
against the statute texts, figures) and prints one line per refused clause, naming it; exit 2
when any is refused. `list` prints one line per clause that loads, with its source (shipped or
firm). `propose --revision ID`, `pending`, `approve ID`, `reject ID`, `export --type T --file F`
and `import F --type T` manage the firm's clauses. A mistake in the request (unknown type or
proposal, no permission, a refused clause, bad YAML): one line, exit 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.inputs import read_text, record_id
from app.domain import describe
from app.i18n import cli_text
from audit.files import write_private

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.context import Context
    from app.outline.model import OutlineLibrary
    from audit.domain import User

BAD_INPUT = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

    propose = actions.add_parser("propose", help=cli_text("cli.clauses.propose"))
    propose.add_argument(
        "--revision", type=record_id, required=True, help=cli_text("cli.clauses.revision")
    )
    propose.add_argument(
        "--keep-values", action="store_true", help=cli_text("cli.clauses.keep_values")
    )
    pending = actions.add_parser("pending", help=cli_text("cli.clauses.pending"))
    pending.add_argument("--type", dest="doc_type", help=cli_text("cli.clauses.type"))
    approve = actions.add_parser("approve", help=cli_text("cli.clauses.approve"))
    approve.add_argument("id", type=record_id, help=cli_text("cli.clauses.id"))
    reject = actions.add_parser("reject", help=cli_text("cli.clauses.reject"))
    reject.add_argument("id", type=record_id, help=cli_text("cli.clauses.id"))
    reject.add_argument("--note", default="", help=cli_text("cli.clauses.note"))
    export = actions.add_parser("export", help=cli_text("cli.clauses.export"))
    export.add_argument(
        "--type", dest="doc_type", required=True, help=cli_text("cli.clauses.export_type")
    )
    export.add_argument("--file", type=Path, required=True, help=cli_text("cli.clauses.file"))
    imports = actions.add_parser("import", help=cli_text("cli.clauses.import"))
    imports.add_argument("file", type=Path, help=cli_text("cli.clauses.file"))
    imports.add_argument(
        "--type", dest="doc_type", required=True, help=cli_text("cli.clauses.export_type")
    )
    publish = actions.add_parser("publish", help=cli_text("cli.clauses.publish"))
    publish.add_argument("--type", dest="doc_type", help=cli_text("cli.clauses.type"))
    for parser in (propose, approve, reject, imports):
        parser.add_argument("--as", dest="actor", required=True, help=cli_text("cli.clauses.as"))
    for parser, handler in (
        (propose, handle_propose),
        (pending, handle_pending),
        (approve, handle_approve),
        (reject, handle_reject),
        (export, handle_export),
        (imports, handle_import),
        (publish, handle_publish),
    ):
        parser.set_defaults(func=_guarded(handler))


def _outlines(ctx: Context) -> tuple[OutlineLibrary, list[str]]:
    return ctx.knowledge.outlines(), ctx.knowledge.library.errors


def handle_check(_args: argparse.Namespace, ctx: Context) -> int:
    outlines, type_errors = _outlines(ctx)
    problems = [*type_errors, *outlines.errors]
    for outline in outlines.outlines.values():
        problems.extend(outline.clause_errors)
    for type_id, outline in sorted(outlines.outlines.items()):
        print(cli_text("cli.clauses.checked", type=type_id, count=len(outline.clauses)))
    stale = _stale(outlines)
    for problem in problems:
        print(cli_text("cli.clauses.refused", detail=problem), file=sys.stderr)
    for line in stale:
        print(line, file=sys.stderr)
    return BAD_INPUT if problems or stale else 0


def _stale(outlines: OutlineLibrary) -> list[str]:
    """Clauses signed off before a change of an article they cite (app.outline.clause_checks)."""
    import datetime as dt

    from app.outline.clause_checks import stale_citations

    today = dt.date.today()
    found = []
    for _, outline in sorted(outlines.outlines.items()):
        for clause in outline.clauses:
            found += [
                cli_text("cli.clauses.stale", detail=d) for d in stale_citations(clause, today)
            ]
    return found


def _when(raw: object) -> str:
    if not raw:
        return "-"
    return ";".join(f"{k}={v}" for k, v in raw.items()) if isinstance(raw, dict) else str(raw)


def handle_list(args: argparse.Namespace, ctx: Context) -> int:
    outlines, _ = _outlines(ctx)
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
            source = c.origin
            if c.origin == "firm":
                source += f" (approved by {c.approved_by}, {c.source})"
            print(
                f"{type_id}\t{c.id}\t{c.part}\tv{c.version}\t{c.approved.isoformat()}\t"
                f"{c.author}\twhen {_when(c.when)}\tcites {cites}\tsource {source}"
            )
    return 0


# --- the firm's clauses -----------------------------------------------------------------------


def _guarded(
    handler: Callable[[argparse.Namespace, Context], int],
) -> Callable[[argparse.Namespace, Context], int]:
    """A mistake in the request becomes one line and exit 2 (a database that does not answer
    stays app.commands.failures' one line and exit 1)."""

    def run(args: argparse.Namespace, ctx: Context) -> int:
        from app.accounts import PermissionDenied
        from app.outline.clauses import ClauseFileError
        from app.precedents.firm_clauses import PrecedentError

        try:
            return handler(args, ctx)
        except (PrecedentError, PermissionDenied, ClauseFileError, LookupError, OSError) as exc:
            print(cli_text("cli.clauses.failed", detail=describe(exc)), file=sys.stderr)
        return BAD_INPUT

    return run


def _actor(name: str, session: Session) -> User:
    from app.accounts import PermissionDenied
    from audit.users import get_user

    user = get_user(name, session=session)
    if user is None or user.disabled:
        raise PermissionDenied(f"没有可用的账户 {name}", f"No active account named {name}")
    return user


def handle_propose(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    settings = ctx.settings
    refused = 0
    with ctx.session() as session:
        actor = _actor(args.actor, session)
        found = firm_clauses.candidates(
            args.revision, settings=settings, session=session, actor=actor
        )
        if not found:
            print(cli_text("cli.clauses.no_candidates"))
        for cand in found:
            draft = cand.draft(actor.name, settings=settings, placeholders=not args.keep_values)
            try:
                row = firm_clauses.propose(draft, settings=settings, session=session, actor=actor)
            except firm_clauses.PrecedentError as exc:  # refused, or this part proposed already
                refused += 1
                print(cli_text("cli.clauses.failed", detail=describe(exc)), file=sys.stderr)
                continue
            kind = cli_text(
                "cli.clauses.new_version" if cand.new_version else "cli.clauses.new_clause"
            )
            print(
                cli_text(
                    "cli.clauses.proposed",
                    id=row.id,
                    clause=row.clause_id,
                    part=cand.title,
                    kind=kind,
                )
            )
            if cand.placeholders and not args.keep_values:
                pairs = ", ".join(f"{v} → {{{{ {n} }}}}" for v, n in cand.placeholders)
                print(cli_text("cli.clauses.placeholders", pairs=pairs))
            print(cli_text("cli.clauses.text", text=draft.text))
    return BAD_INPUT if refused else 0


def handle_pending(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    with ctx.session() as session:
        rows = firm_clauses.pending(session=session, doc_type=args.doc_type)
    for r in rows:
        print(cli_text("cli.clauses.pending_line", id=r.id, type=r.doc_type, clause=r.clause_id,
                       part=r.part, user=r.proposed_by, revision=r.source_revision_id or "-"))  # fmt: skip
        print(cli_text("cli.clauses.text", text=r.text))
    return 0


def handle_approve(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    with ctx.session() as session:
        actor = _actor(args.actor, session)
        row = firm_clauses.approve(args.id, settings=ctx.settings, session=session, actor=actor)
    print(
        cli_text(
            "cli.clauses.approved",
            id=row.id,
            clause=row.clause_id,
            version=row.version,
            type=row.doc_type,
        )
    )
    return 0


def handle_reject(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    with ctx.session() as session:
        actor = _actor(args.actor, session)
        row = firm_clauses.reject(args.id, note=args.note, session=session, actor=actor)
    print(cli_text("cli.clauses.rejected", id=row.id, clause=row.clause_id))
    return 0


def handle_export(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    firm_clauses.type_library(args.doc_type, ctx.settings)  # an unknown type: one line, exit 2
    with ctx.session() as session:
        text = firm_clauses.library_yaml(args.doc_type, session=session)
        count = len(firm_clauses.current_versions(args.doc_type, session=session))
    write_private(args.file, text.encode("utf-8"))
    print(cli_text("cli.clauses.exported", count=count, path=args.file))
    return 0


def handle_publish(args: argparse.Namespace, ctx: Context) -> int:
    from app.database import get_engine
    from app.precedents import firm_clauses

    settings = ctx.settings
    if args.doc_type is not None:
        firm_clauses.type_library(args.doc_type, settings)  # an unknown type: one line, exit 2
        chosen = [args.doc_type]
    else:
        with ctx.session() as session:
            chosen = firm_clauses.published_types(settings=settings, session=session)
    for doc_type in chosen:
        path = firm_clauses.publish(doc_type, settings=settings, bind=get_engine(settings))
        with ctx.session() as session:
            count = len(firm_clauses.current_versions(doc_type, session=session))
        print(cli_text("cli.clauses.published", count=count, type=doc_type, path=path))
    return 0


def handle_import(args: argparse.Namespace, ctx: Context) -> int:
    from app.precedents import firm_clauses

    source = read_text(args.file)
    with ctx.session() as session:
        actor = _actor(args.actor, session)
        done = firm_clauses.import_yaml(
            source, doc_type=args.doc_type, name=args.file.name,
            settings=ctx.settings, session=session, actor=actor,
        )  # fmt: skip
    state = cli_text("cli.clauses.state_approved" if done.approved else "cli.clauses.state_pending")
    print(cli_text("cli.clauses.imported", count=len(done.proposed), state=state))
    return 0
