"""`lexspec ...` command line. Each subcommand lives in app/commands/<area>.py and
exposes register(subparsers); heavy imports happen inside the handlers. `main` builds the
acting context (app.context: the Settings, the database) once and hands it to the handler,
`handler(args, ctx)`."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, NoReturn

from app.i18n import cli_text

if TYPE_CHECKING:
    from app.context import Context

COMMAND_MODULES = (
    "app.commands.run",
    "app.commands.serve",
    "app.commands.draft",
    "app.commands.check",
    "app.commands.review",
    "app.commands.cite",
    "app.commands.route",
    "app.commands.clauses",
    "app.commands.export",
    "app.commands.matter",
    "app.commands.accounts",
    "app.commands.study",
    "app.commands.ops",
)


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr and exit 2 (`-h` shows the usage); every
    subcommand's parser is one too (argparse makes subparsers of the parser's own class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="lexspec", description=cli_text("cli.description"))
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    _literal_help(parser)
    return parser


def _literal_help(parser: argparse.ArgumentParser) -> None:
    """Every help text of `parser` and its subcommands shown as written: argparse formats help
    with `%`, so a `%` in a text ("80% 检验力") would fail `--help`; each is doubled here."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _escaped(choice.help)
            for sub in dict.fromkeys(action.choices.values()):
                _literal_help(sub)
        action.help = _escaped(action.help)


def _escaped(text: str | None) -> str | None:
    return text if text is None or text is argparse.SUPPRESS else text.replace("%", "%%")


def main(argv: list[str] | None = None, *, context: Context | None = None) -> int:
    """Run one command; `context`: the settings and database to act on (default: this
    installation's, from the environment)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args, context or command_context()) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bad setting or file: one line (app.commands.failures)
        from app.commands.failures import report

        code = report(exc)
        if code is None:
            raise
        return code


def command_context() -> Context:
    """The context of a command: this installation's Settings, its database opened on first use
    (a command acts as the user its `--as` names, which the handler resolves)."""
    from app.config import get_settings
    from app.context import Context

    return Context(get_settings())


if __name__ == "__main__":
    sys.exit(main())
