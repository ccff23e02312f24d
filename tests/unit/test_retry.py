"""Which database failures are retried (audit.retry), table-driven, and the bounded backoff."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy.exc import DatabaseError, OperationalError

from audit.retry import WRITE_ATTEMPTS, is_transient, retrying


class _PgError(Exception):
    """A driver error carrying a SQLSTATE, as psycopg's do."""

    def __init__(self, message: str, sqlstate: str | None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


CASES = [
    (OperationalError("x", {}, sqlite3.OperationalError("database is locked")), True),
    (OperationalError("x", {}, sqlite3.OperationalError("database is busy")), True),
    (OperationalError("x", {}, _PgError("could not serialize access", "40001")), True),
    (OperationalError("x", {}, _PgError("deadlock detected", "40P01")), True),
    (OperationalError("x", {}, _PgError("terminating connection", "57P01")), True),
    (OperationalError("x", {}, _PgError("connection failed: Connection refused", None)), True),
    (OperationalError("x", {}, sqlite3.OperationalError("no such table: users")), False),
    (DatabaseError("x", {}, sqlite3.DatabaseError("file is not a database")), False),
    (ValueError("not a database error"), False),
]


@pytest.mark.parametrize(("error", "transient"), CASES)
def test_is_transient(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient


def test_retries_a_transient_failure_with_growing_waits_then_gives_up() -> None:
    waits: list[float] = []
    calls = 0

    def locked() -> int:
        nonlocal calls
        calls += 1
        raise OperationalError("x", {}, sqlite3.OperationalError("database is locked"))

    with pytest.raises(OperationalError):
        retrying(locked, sleep=waits.append)
    assert calls == WRITE_ATTEMPTS and waits == [0.2, 0.4, 0.8]


def test_succeeds_after_a_blip_and_never_retries_a_real_error() -> None:
    outcomes: list[BaseException | int] = [
        OperationalError("x", {}, sqlite3.OperationalError("database is locked")),
        7,
    ]

    def flaky() -> int:
        item = outcomes.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    assert retrying(flaky, sleep=lambda _s: None) == 7
    calls = 0

    def broken() -> None:
        nonlocal calls
        calls += 1
        raise DatabaseError("x", {}, sqlite3.DatabaseError("file is not a database"))

    with pytest.raises(DatabaseError):
        retrying(broken, sleep=lambda _s: None)
    assert calls == 1
