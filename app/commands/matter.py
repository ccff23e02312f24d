"""`lexspec matter create|update|show|list`: a matter's facts, entered once, with the route they
lead to, the documents it needs and those drafted for it (app/matters); `lexspec draft --matter
NUMBER` drafts any of its types from them. Acting as an account (`--as NAME`), as the page's
signed-in user; every change is a new chained version. Bad input: one line, exit 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.domain import BilingualError, describe
from app.i18n import cli_text

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.context import Context
    from app.matters.service import MatterView
    from app.prompts import DocType
    from audit.domain import GenerationSummary, User


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("matter", help=cli_text("cli.matter.help"))
    actions = p.add_subparsers(dest="action", required=True)
    for name in ("create", "update"):
        q = actions.add_parser(name, help=cli_text(f"cli.matter.{name}"))
        q.add_argument("number", help=cli_text("cli.matter.number"))
        q.add_argument("--client", required=name == "create", help=cli_text("cli.matter.client"))
        q.add_argument("--title", help=cli_text("cli.matter.title"))
        q.add_argument("--field", action="append", default=[], metavar="NAME=VALUE",
                       help=cli_text("cli.matter.field"))  # fmt: skip
    show = actions.add_parser("show", help=cli_text("cli.matter.show"))
    show.add_argument("number", help=cli_text("cli.matter.number"))
    listing = actions.add_parser("list", help=cli_text("cli.matter.list"))
    listing.add_argument("--query", help=cli_text("cli.matter.query"))
    for q in (*actions.choices.values(),):
        q.add_argument("--as", dest="actor", required=True, help=cli_text("cli.clauses.as"))
    p.set_defaults(func=handle)


def _fail(text: str) -> int:
    print(text, file=sys.stderr)
    return 2


def _fields(pairs: list[str]) -> dict[str, str]:
    fields = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(cli_text("cli.matter.bad_field", arg=pair))
        fields[name.strip()] = value.strip()
    return fields


def _actor(name: str, session: Session) -> User:
    from app.commands.clauses import _actor as account

    return account(name, session)


def _show(
    view: MatterView, types: Mapping[str, DocType], documents: list[GenerationSummary]
) -> None:
    from app.matters.service import stale_reports

    matter = view.matter
    print(cli_text("cli.matter.heading", number=matter.number, version=matter.version,
                   client=matter.client, title=matter.title or "-"))  # fmt: skip
    for name, value in matter.facts.items():
        print(f"  {name}: {value}")
    route = view.decision.route_text.zh if view.decision else cli_text("cli.matter.no_route")
    print(cli_text("cli.matter.route", route=route))
    for need in view.needs:
        title = types[need.type_id].title_zh if need.type_id in types else need.type_id
        basis = f"（{need.basis.text}）" if need.basis else ""
        print(f"  [{need.need}] {need.type_id} {title}{basis}：{need.why.zh}")
    for type_id, warning in stale_reports(view, types):
        print(cli_text("cli.matter.stale", type=type_id, warning=warning.zh))
    print(cli_text("cli.matter.documents", n=len(documents)))
    for doc in documents:
        print(
            f"  #{doc.id} {doc.created_at:%Y-%m-%d %H:%M} {doc.user_name} {doc.doc_type} {doc.status}"
        )


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.matters import service

    types = ctx.knowledge.types
    try:
        fields = _fields(getattr(args, "field", []))
        with ctx.session() as session:
            actor = _actor(args.actor, session)
            if args.action == "list":
                for m in service.list_matters(session=session, actor=actor, query=args.query):
                    print(f"{m.number}\tv{m.version}\t{m.client}\t{m.title}\t{m.user_name}")
                return 0
            if args.action == "show":
                view = service.open_matter(args.number, types=types, session=session, actor=actor)
                docs = service.matter_documents(args.number, session=session, actor=actor)
                _show(view, types, docs)
                return 0
            if args.action == "create":
                saved = service.create_matter(
                    args.number, client=args.client, title=args.title or "", facts=fields,
                    types=types, session=session, actor=actor,
                )  # fmt: skip
            else:
                now = service.open_matter(args.number, types=types, session=session, actor=actor)
                saved = service.update_matter(
                    args.number, client=args.client or now.matter.client,
                    title=args.title if args.title is not None else now.matter.title,
                    facts={**now.matter.facts, **fields}, base=now.matter.version, types=types,
                    session=session, actor=actor,
                )  # fmt: skip
            session.commit()
    except (ValueError, LookupError, BilingualError) as exc:  # MatterError, a conflict, a role
        return _fail(str(describe(exc)))
    print(cli_text("cli.matter.saved", number=saved.number, version=saved.version))
    return 0
