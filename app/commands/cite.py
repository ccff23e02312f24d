"""`lexspec cite "《个人信息保护法》第三十九条" [--date YYYY-MM-DD] [--format text|json]`: show the law.

Prints the article's text (or the cited 款 or 项 on its own) with its statute, version and
source. Exit status: 0 shown, 2 an unknown statute, article, 款 or 项, a statute whose text is
not held, a statute not yet in force on --date (one line saying from when it is), or a bad date."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from typing import TYPE_CHECKING

from app.commands.inputs import InputError
from app.domain import describe
from app.i18n import cli_text, t

if TYPE_CHECKING:
    from app.context import Context


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "cite",
        help=cli_text("cli.cite.cite.help"),
        description=cli_text("cli.cite.cite.description"),
    )
    p.add_argument("reference", help=cli_text("cli.cite.reference"))
    p.add_argument("--date", help=cli_text("cli.cite.date"))
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help=cli_text("cli.cite.format")
    )
    p.set_defaults(func=handle)


def parse_date(value: str | None) -> dt.date:
    """YYYY-MM-DD, or today; InputError otherwise."""
    if not value:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise InputError(f"日期应为 YYYY-MM-DD：{value}", f"Dates are YYYY-MM-DD: {value}") from exc


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.validation import CatalogueError
    from app.validation.lookup import CitationLookupError, lookup
    from app.validation.texts import StatuteTextError, load_texts

    lang = ctx.settings.lang
    try:
        day = parse_date(args.date)
        catalogue = ctx.knowledge.catalogue()
        found = lookup(args.reference, catalogue=catalogue, store=load_texts(), on=day)
    except (InputError, CatalogueError, StatuteTextError, CitationLookupError) as exc:
        print(describe(exc).text(lang), file=sys.stderr)
        return 2
    if args.format == "json":
        payload = {
            "statute": found.statute,
            "article": found.article.number,
            "paragraph": found.paragraph,
            "item": found.item,
            "version": found.version.version,
            "in_force_from": found.version.in_force_from.isoformat(),
            "source": found.source,
            "text": found.text,
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print(found.heading)
    print(found.text)
    print(t("cli.cite.source", lang, source=found.source))
    return 0
