"""The sign-in throttle, in the database: atomic, and shared by every app process.

Before a password is checked, `reserve` claims one attempt for the (folded) user name in a
single conditional UPDATE, in its own short transaction that commits at once: the claim is
granted only while fewer than `max_failures` attempts were made (or `lockout_s` has passed
since the last one), so however many guesses arrive at once, from however many processes,
at most `max_failures` reach the password check in a window: a burst gets the window's
allowance, never more (issue 37 saw 5 of 20 parallel guesses reach it: the limit, 5). A granted
claim stays counted (a failure) unless the sign-in
succeeds, which `clear`s the name in the caller's unit of work. A name that has not been tried
for `window_s` starts again from zero, so its row is deleted then (the table holds only the
names tried in the last `window_s`; the caller refuses a name no account can have before it
comes here, so no row is ever longer than a user name).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, case, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from audit.models import SignInAttempt


@dataclass(frozen=True)
class Limits:
    """At most `max_failures` tries per `window_s`; then one more per `lockout_s`."""

    max_failures: int = 5
    window_s: float = 300.0
    lockout_s: float = 60.0


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    return bind.engine if isinstance(bind, Connection) else bind


def reserve(name_key: str, *, session: Session, limits: Limits, now: float) -> float:
    """Claim one attempt for `name_key`: 0.0 when granted, else the seconds to wait.

    Commits on its own connection (a failed attempt must count even though the caller's unit
    of work rolls back), so call it before `session` has begun: a transaction already open
    there may hold the lock this one needs (SQLite's write lock, a row `clear` deleted)."""
    if session.in_transaction():
        raise RuntimeError("reserve() needs a session that has not begun (it could wait on it)")
    table = SignInAttempt.__table__
    with _engine(session).begin() as conn:
        conn.execute(delete(SignInAttempt).where(SignInAttempt.last_at <= now - limits.window_s))
        insert = (sqlite if conn.dialect.name == "sqlite" else postgresql).insert(table)
        conn.execute(
            insert.values(name_key=name_key, attempts=0, last_at=0.0).on_conflict_do_nothing()
        )
        stale = SignInAttempt.last_at <= now - limits.window_s
        granted = conn.execute(
            update(SignInAttempt)
            .where(
                SignInAttempt.name_key == name_key,
                (SignInAttempt.attempts < limits.max_failures)
                | (SignInAttempt.last_at <= now - limits.lockout_s),
            )
            .values(
                attempts=case((stale, 1), else_=SignInAttempt.attempts + 1),
                last_at=now,
            )
        ).rowcount
        if granted:
            return 0.0
        last = conn.execute(
            select(SignInAttempt.last_at).where(SignInAttempt.name_key == name_key)
        ).scalar_one()
    return max(1.0, float(last) + limits.lockout_s - now)


def clear(name_key: str, *, session: Session) -> None:
    """Forget the attempts of `name_key` (after a successful sign-in), in the caller's work."""
    session.execute(delete(SignInAttempt).where(SignInAttempt.name_key == name_key))
