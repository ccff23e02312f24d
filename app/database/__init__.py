"""The app's database: one engine per process from Settings, migrated on first use.

`session_scope()` is the unit of work: it commits when the block ends, rolls back
when it raises. Keep blocks short (the audit chain is locked from an append to the
commit). Pages and commands own it; services take the session and never commit.
`write(work)` runs a unit of work again after a transient lock or connection blip
(audit.retry). On first use the engine is migrated (once, under a lock: audit.db)
the chain is anchored if no checkpoint exists yet (app.database.anchoring), and the audit spool
(audit.spool, in the data directory) is replayed; `spool_status()` counts what still waits.
Every commit that extends the chain writes a signed checkpoint outside the database.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.config import get_settings
from app.database.anchoring import anchor_first_start, watch
from audit.db import make_engine, make_session_factory, migrate
from audit.retry import retrying
from audit.spool import SPOOL_FILE, Spool

T = TypeVar("T")
log = logging.getLogger(__name__)
_first_use = threading.Lock()  # page threads may race to create (and migrate) the engine


@lru_cache(maxsize=1)
def _migrated_engine() -> Engine:
    engine = make_engine(get_settings().resolved_database_url)
    migrate(engine)
    factory = watch(make_session_factory(engine))
    anchor_first_start(factory)
    replay_spool(factory)
    return engine


def spool() -> Spool:
    """The audit spool of this installation (a file in the data directory)."""
    return Spool(get_settings().data_dir / SPOOL_FILE)


@dataclass(frozen=True)
class SpoolStatus:
    """Records waiting in the spool, and unreadable lines kept in its quarantine file."""

    pending: int
    quarantined: int
    spool_path: Path
    quarantine_path: Path
    reasons: Mapping[str, int] = field(default_factory=dict)  # why lines were set aside, how many


def spool_status() -> SpoolStatus:
    """How many records wait in the spool and how many lines sit in its quarantine: what the
    Monitor page shows and `lexspec audit verify` counts."""
    target = spool()
    reasons = Counter(entry.reason for entry in target.quarantine_entries())
    return SpoolStatus(
        target.pending(), sum(reasons.values()), target.path, target.quarantine_path, reasons
    )


def replay_spool(factory: sessionmaker[Session]) -> int:
    """Append spooled generations to the log (oldest first), each in a savepoint of its own;
    how many went in. A record the database refuses is set aside with the reason
    (audit.store.log_each). A failure leaves them spooled for the next write (and is logged,
    not raised: starting must not fail for it)."""
    from sqlalchemy.exc import SQLAlchemyError

    from audit.store import Refusal, log_each

    target = spool()
    try:
        with target.draining() as waiting:
            if not waiting:
                return 0
            with factory.begin() as session:
                outcomes = log_each(waiting, session=session)
            for record, outcome in zip(waiting, outcomes, strict=True):
                if isinstance(outcome, Refusal):
                    target.set_aside(record, outcome.reason)
            return sum(1 for outcome in outcomes if not isinstance(outcome, Refusal))
    except (SQLAlchemyError, OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("audit spool not replayed yet: %s", exc)
        return 0


def get_engine() -> Engine:
    """The engine for LEXSPEC_DATABASE_URL (default: SQLite in the data directory), migrated."""
    with _first_use:
        return _migrated_engine()


@lru_cache(maxsize=1)
def get_session_factory() -> sessionmaker[Session]:
    """Sessions whose commits that extend the audit chain are checkpointed (app.database.anchoring)."""
    return watch(make_session_factory(get_engine()))


@contextmanager
def session_scope(factory: sessionmaker[Session] | None = None) -> Iterator[Session]:
    """A session that commits on success and rolls back on error (factory: for tests)."""
    session = (factory or get_session_factory())()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def write(work: Callable[[Session], T], factory: sessionmaker[Session] | None = None) -> T:
    """`work(session)` in its own session_scope, run again from the start after a transient
    lock or connection failure (bounded backoff, audit.retry); other errors are raised."""

    def once() -> T:
        with session_scope(factory) as session:
            return work(session)

    return retrying(once)


def reset() -> None:
    """Forget the cached engine (after Settings changed, e.g. in tests)."""
    with _first_use:
        if _migrated_engine.cache_info().currsize:
            _migrated_engine().dispose()
        get_session_factory.cache_clear()
        _migrated_engine.cache_clear()
