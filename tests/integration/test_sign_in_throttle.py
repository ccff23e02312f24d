"""The sign-in throttle in the database: one count for every process, claimed atomically.

Real databases (SQLite file; PostgreSQL when reachable), real argon2 (cheapest parameters),
real concurrency: many threads of this process, and several processes, guess at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import FailureThrottle, SignInError, sign_in
from app.database import session_scope
from audit import users

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
REPO = Path(__file__).resolve().parents[2]
WRONG = "Wrong user name or password"  # the password was checked (and did not match)
TOO_MANY = "Too many attempts"  # refused before the password check


def _attempt(
    factory: sessionmaker[Session], password: str, throttle: FailureThrottle, name: str = "alice"
) -> str:
    """One sign-in as the page makes it (a fresh session_scope); what came of it."""
    try:
        with session_scope(factory) as session:
            return sign_in(name, password, session=session, throttle=throttle).name
    except SignInError as exc:
        return exc.message("en")


def test_limit_then_wait_then_one_more_try(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    now = [1000.0]
    throttle = FailureThrottle(max_failures=3, window_s=300, lockout_s=60, clock=lambda: now[0])
    assert _attempt(db_session_factory, "correct horse", throttle) == "alice"
    assert [_attempt(db_session_factory, "bad password", throttle) for _ in range(3)] == [WRONG] * 3
    refused = _attempt(db_session_factory, "correct horse", throttle)
    assert refused.startswith(TOO_MANY) and "60 s" in refused
    now[0] += 61  # the lockout has passed: one more try
    assert _attempt(db_session_factory, "correct horse", throttle) == "alice"
    # a success clears the count: three more tries before the next lockout
    assert [_attempt(db_session_factory, "bad password", throttle) for _ in range(3)] == [WRONG] * 3
    now[0] += 301  # a name not tried for the window starts again from zero
    assert _attempt(db_session_factory, "bad password", throttle) == WRONG


def test_a_session_already_begun_is_refused(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory() as session:
        users.list_users(session=session)  # the transaction has begun (SQLite: the write lock)
        with pytest.raises(RuntimeError, match="not begun"):
            sign_in("alice", "whatever", session=session, throttle=FailureThrottle())


def test_concurrent_wrong_guesses_in_threads(db_session_factory: sessionmaker[Session]) -> None:
    """20 guesses at once, limit 5: at most 5 reach the password check, the others wait (issue
    37 saw these 5 reach it: that is the limit, the window's allowance, never more)."""
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    throttle = FailureThrottle(max_failures=5)
    barrier = threading.Barrier(20)
    results: list[str] = []

    def guess(n: int) -> None:
        barrier.wait(timeout=60)
        results.append(_attempt(db_session_factory, f"wrong guess {n}", throttle))

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    checked = results.count(WRONG)
    refused = sum(r.startswith(TOO_MANY) for r in results)
    assert len(results) == 20 and checked + refused == 20, results
    assert checked == 5  # exactly the limit: none lost, none extra


def test_a_burst_after_the_limit_reaches_nothing(db_session_factory: sessionmaker[Session]) -> None:
    """Issue 37's burst, where the limit was already spent: 20 guesses at once after 5 wrong
    ones reach no password check, and after the lockout exactly one does."""
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    now = [1000.0]
    throttle = FailureThrottle(max_failures=5, clock=lambda: now[0])
    assert [_attempt(db_session_factory, f"wrong {n}", throttle) for n in range(5)] == [WRONG] * 5
    for burst, reached in ((0, 0), (61, 1)):
        now[0] += burst
        results = _burst(db_session_factory, throttle, 20)
        assert len(results) == 20 and results.count(WRONG) == reached, results


def _burst(factory: sessionmaker[Session], throttle: FailureThrottle, n: int) -> list[str]:
    """`n` wrong guesses at the same moment, from as many threads; what came of each."""
    barrier = threading.Barrier(n)
    results: list[str] = []

    def guess(i: int) -> None:
        barrier.wait(timeout=60)
        results.append(_attempt(factory, f"guess {i}", throttle))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


# One guessing process: wait for the starting gun, then make 5 wrong guesses through the app.
GUESSER = """
import sys, time
from pathlib import Path
from argon2 import PasswordHasher, profiles
from app.accounts import SignInError, sign_in
from app.cli import command_context
from app.database import session_scope
from audit import users

users.use_password_hasher(PasswordHasher.from_parameters(profiles.CHEAPEST))
factory = command_context().session_factory  # opened (and migrated) before the starting gun
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.01)
for n in range(5):
    try:
        with session_scope(factory) as session:
            sign_in("alice", f"wrong {n}", session=session)
    except SignInError as exc:
        print(exc.message("en"))
"""


def test_concurrent_guesses_from_several_processes(
    db_url: str, db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """4 app processes × 5 guesses at once share one count: 5 reach the password check."""
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    go = tmp_path / "go"
    env = {**os.environ, "LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", GUESSER, str(go)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    go.touch()
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    lines = [line for out, _ in outputs for line in out.splitlines()]
    assert len(lines) == 20
    assert lines.count(WRONG) == 5
    assert sum(line.startswith(TOO_MANY) for line in lines) == 15


def test_attack_names_of_any_length_and_number_leave_no_lasting_rows(
    db_session_factory: sessionmaker[Session],
) -> None:
    """Issue 37: `sign_in_attempts` kept a row per name tried, of any length, never pruned.
    Must hold: a name longer than any account's adds no row; the rows of names untried for
    the window are deleted at the next try."""
    from sqlalchemy import func, select

    from audit.models import SignInAttempt

    now = [1000.0]
    throttle = FailureThrottle(clock=lambda: now[0])
    for name in ("x" * 1_000_000, "ﷺ" * 10):  # 1 MB; ten characters NFKC makes 180
        assert _attempt(db_session_factory, "whatever", throttle, name) == WRONG
    sprayed = [f"guess{n}" for n in range(50)]
    for name in sprayed:
        assert _attempt(db_session_factory, "whatever", throttle, name) == WRONG

    def rows() -> int:
        with db_session_factory() as session:
            return int(session.scalar(select(func.count()).select_from(SignInAttempt)) or 0)

    assert rows() == len(sprayed)
    now[0] += 301  # the window has passed for every one of them
    assert _attempt(db_session_factory, "whatever", throttle, "one more") == WRONG
    assert rows() == 1
