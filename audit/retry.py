"""Retrying a database write that met a transient lock or connection blip.

Transient: SQLite's "database is locked"/"busy" (a writer held the file past the busy
timeout), PostgreSQL serialization failures and deadlocks (40001, 40P01), a server
shutting down or starting (57P01–57P03) and lost or refused connections (class 08, a
connection SQLAlchemy invalidated). Anything else (a bad URL, a file that is not a
database, a constraint) fails at once. The whole unit of work is run again from the
start, so `work` must be safe to repeat (it is: nothing is committed until it ends).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

T = TypeVar("T")

WRITE_ATTEMPTS = 4
FIRST_DELAY_S = 0.2
MAX_DELAY_S = 2.0
TRANSIENT_SQLSTATES = frozenset({"40001", "40P01", "57P01", "57P02", "57P03"})
TRANSIENT_WORDS = ("database is locked", "database is busy", "connection", "server closed")


def is_transient(exc: BaseException) -> bool:
    """True for a lock or connection problem that may be gone a moment later."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    code = getattr(exc.orig, "sqlstate", None) or ""
    if code in TRANSIENT_SQLSTATES or code.startswith("08"):
        return True
    text = str(exc.orig).lower()
    return any(word in text for word in TRANSIENT_WORDS)


def retrying(
    work: Callable[[], T],
    *,
    attempts: int = WRITE_ATTEMPTS,
    first_delay_s: float = FIRST_DELAY_S,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """`work()`, run again after a transient failure, at most `attempts` times in all, waiting
    first_delay_s, then twice as long each time (at most MAX_DELAY_S); the last failure is
    raised."""
    delay = first_delay_s
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except DBAPIError as exc:
            if attempt == attempts or not is_transient(exc):
                raise
        sleep(delay)
        delay = min(delay * 2, MAX_DELAY_S)
    raise AssertionError("unreachable")  # pragma: no cover
