"""The command line's one handler for failures a user can fix: one line on stderr, no
traceback. Bad settings, a database URL with an unknown scheme, a file that is not a
database or a path that cannot be created exit with 2; a refused account operation
(a taken name) and a database that does not answer (try again later) exit with 1. Anything else is a bug
and keeps its traceback."""

from __future__ import annotations

import sys

BAD_INPUT = 2
UNAVAILABLE = 1
REFUSED = 1


def explain(exc: BaseException) -> tuple[str, int] | None:
    """(the line to print, the exit code) for an expected failure, else None."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError
    from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError

    from app.domain import BilingualError, validation_reasons
    from app.i18n import cli_text
    from audit.db import MigrationLockTimeout
    from audit.retry import is_transient
    from audit.users import UserError

    if isinstance(exc, UserError):  # a refused account operation (a taken name, ...)
        return cli_text("cli.failure.error", detail=exc), REFUSED
    if isinstance(exc, BilingualError):
        return cli_text("cli.failure.error", detail=exc), BAD_INPUT
    if isinstance(exc, ValidationError):
        return cli_text("cli.failure.bad_setting", detail=validation_reasons(exc)), BAD_INPUT
    if isinstance(exc, SettingsError):  # a LEXSPEC_ value that is not even JSON
        return cli_text("cli.failure.bad_setting", detail=_first_line(exc)), BAD_INPUT
    if isinstance(exc, ArgumentError | NoSuchModuleError):
        return cli_text("cli.failure.bad_url", detail=_first_line(exc)), BAD_INPUT
    if isinstance(exc, DatabaseError):
        reason = _first_line(exc.orig or exc)
        if is_transient(exc) or isinstance(exc, MigrationLockTimeout):
            return cli_text("cli.failure.no_database", detail=reason), UNAVAILABLE
        return cli_text("cli.failure.bad_database", detail=reason), BAD_INPUT
    if isinstance(exc, MigrationLockTimeout):
        return cli_text("cli.failure.migration_waiting", detail=exc), UNAVAILABLE
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return cli_text("cli.failure.bad_file", where=where, detail=exc.strerror or exc), BAD_INPUT
    return None


def report(exc: BaseException) -> int | None:
    """Print the one line for `exc` and return its exit code; None when it is not expected."""
    explained = explain(exc)
    if explained is None:
        return None
    line, code = explained
    print(line, file=sys.stderr)
    return code


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else type(value).__name__
