"""`lexspec route --ciio yes|no --important-data yes|no --individuals N --sensitive N
[--exemption contract|hr|emergency|foreign-collected|trade|ftz]... [--exempt-individuals N]
[--exempt-sensitive N] [--format json|text]`.

Prints the transfer route the facts lead to, its basis and why. Exit status 0; a bad value
(a negative or non-numeric count, an unknown choice, a missing option) prints one line and
exits 2."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from app.i18n import cli_text
from app.route.rules import EXEMPTIONS

if TYPE_CHECKING:
    from app.context import Context

YES_NO = {"yes": True, "no": False}


def count(value: str) -> int:
    """A non-negative whole number (thousands commas allowed), for argparse."""
    from app.route.form import parse_count

    parsed = parse_count(value)
    if parsed is None:
        raise argparse.ArgumentTypeError(cli_text("cli.route.bad_count", value=repr(value)))
    return parsed


def _one_line_error(parser: argparse.ArgumentParser) -> Any:
    def error(message: str) -> NoReturn:
        parser.exit(2, f"{parser.prog}: error: {message}\n")

    return error


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "route",
        help=cli_text("cli.route.route.help"),
        description=cli_text("cli.route.route.description"),
    )
    p.add_argument("--ciio", choices=tuple(YES_NO), required=True, help=cli_text("cli.route.ciio"))
    p.add_argument(
        "--important-data",
        choices=tuple(YES_NO),
        required=True,
        help=cli_text("cli.route.important_data"),
    )
    p.add_argument(
        "--individuals",
        type=count,
        required=True,
        help=cli_text("cli.route.individuals"),
    )
    p.add_argument("--sensitive", type=count, default=0, help=cli_text("cli.route.sensitive"))
    p.add_argument(
        "--exemption",
        action="append",
        choices=EXEMPTIONS,
        default=[],
        help=cli_text("cli.route.exemption"),
    )
    p.add_argument(
        "--exempt-individuals", type=count, help=cli_text("cli.route.exempt_individuals")
    )
    p.add_argument("--exempt-sensitive", type=count, help=cli_text("cli.route.exempt_sensitive"))
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help=cli_text("cli.route.format")
    )
    p.error = _one_line_error(p)  # type: ignore[method-assign]  # a usage error in one line
    p.set_defaults(func=handle)


def format_text(decision: Any, lang: str) -> str:
    lines = [
        f"{decision.route}: {decision.route_text.text(lang)}",
        decision.basis_text(),
        decision.explanation.text(lang),
        *(f"! {watch.text(lang)}" for watch in decision.watch),
        *(f"- {change.text(lang)}" for change in decision.changes),
        decision.scope_note.text(lang),
    ]
    return "\n".join(lines)


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.route import TransferFacts, decide

    try:
        facts = TransferFacts(
            ciio=YES_NO[args.ciio],
            important_data=YES_NO[args.important_data],
            individuals=args.individuals,
            sensitive=args.sensitive,
            exemptions=frozenset(args.exemption),
            exempt_individuals=args.exempt_individuals,
            exempt_sensitive=args.exempt_sensitive,
        )
    except ValueError:
        print(cli_text("cli.route.exempt_too_large"), file=sys.stderr)
        return 2
    decision = decide(facts)
    if args.format == "json":
        print(json.dumps(decision.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_text(decision, ctx.settings.lang))
    sys.stdout.flush()
    return 0
