"""The app's database: one engine per installation's Settings, migrated on first use.

`session_scope(factory)` is the unit of work: it commits when the block ends, rolls back
when it raises. Keep blocks short (the audit chain is locked from an append to the
commit). Pages and commands own it (through their app.context.Context); services take the
session and never commit. Everything here takes the Settings it works for (one engine per
database URL and place of the spool and checkpoints, kept for the process).
`write(work, factory)` runs a unit of work again after a transient lock or connection blip
(audit.retry). Its sessions hold the audit key (the anchor's), with which they sign and check
the rows the chain covers (audit.coverage). On first use the engine is migrated (once, under a
lock: audit.db, with the key for the migrations that sign)
the chain is anchored if no checkpoint exists yet (app.database.anchoring), and the audit spool
(audit.spool, in the data directory) is replayed; `spool_status(settings)` counts what still waits.
Every commit that extends the chain writes a signed checkpoint outside the database.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.database.anchoring import anchor_first_start, chain_position, watch
from app.domain import Bilingual, describe
from audit.anchor import Anchor
from audit.coverage import sign_covers
from audit.db import make_engine, make_session_factory, migrate
from audit.retry import retrying
from audit.spool import SPOOL_FILE, Spool

T = TypeVar("T")
log = logging.getLogger(__name__)
_first_use = threading.Lock()  # page threads may race to create (and migrate) the engine


@dataclass(frozen=True)
class _Place:
    """Where an installation keeps its record: the database, the spool, the checkpoints."""

    database_url: str
    spool_path: Path
    key_file: Path
    checkpoint_file: Path

    @classmethod
    def of(cls, settings: Settings) -> _Place:
        return cls(
            settings.resolved_database_url,
            spool(settings).path,
            settings.resolved_audit_key_file,
            settings.resolved_audit_checkpoint_file,
        )


_opened: dict[_Place, tuple[Engine, sessionmaker[Session]]] = {}


def _migrated(place: _Place) -> tuple[Engine, sessionmaker[Session]]:
    """The engine of `place`, migrated, its chain anchored and its spool replayed on first use
    (hold `_first_use`); and its checkpointed sessions (app.database.anchoring)."""
    if place in _opened:
        return _opened[place]
    engine = make_engine(place.database_url)
    target = Anchor(place.key_file, place.checkpoint_file)
    before = chain_position(engine)
    migrated = migrate(engine, cover_key=target.key)  # 0012 signs covered rows with the key
    factory = sign_covers(watch(make_session_factory(engine), target), target.key)
    anchor_first_start(factory, target, migrated_from=before if migrated else None)
    replay_spool(factory, Spool(place.spool_path))
    _opened[place] = engine, factory
    return engine, factory


def spool(settings: Settings) -> Spool:
    """The audit spool of the installation of `settings` (a file in its data directory)."""
    return Spool(settings.data_dir / SPOOL_FILE)


@dataclass(frozen=True)
class SpoolStatus:
    """Records waiting in the spool, and unreadable lines kept in its quarantine file."""

    pending: int
    quarantined: int
    spool_path: Path
    quarantine_path: Path
    reasons: Mapping[str, int] = field(default_factory=dict)  # why lines were set aside, how many
    problem: Bilingual | None = None  # the spool or its quarantine cannot be read (a link, ...)


def spool_status(settings: Settings) -> SpoolStatus:
    """How many records wait in the spool and how many lines sit in its quarantine: what the
    Monitor page shows and `lexspec audit verify` counts; `problem` when either file cannot be
    read (a link put in its place is refused, never followed: audit.files)."""
    target = spool(settings)
    try:
        reasons = Counter(entry.reason for entry in target.quarantine_entries())
        pending = target.pending()
    except OSError as exc:
        return SpoolStatus(0, 0, target.path, target.quarantine_path, problem=describe(exc))
    return SpoolStatus(pending, sum(reasons.values()), target.path, target.quarantine_path, reasons)


def replay_spool(factory: sessionmaker[Session], target: Spool) -> int:
    """Append spooled generations to the log (oldest first), each in a savepoint of its own;
    how many went in. A record the database refuses is set aside with the reason
    (audit.store.log_each). A failure leaves them spooled for the next write (and is logged,
    not raised: starting must not fail for it)."""
    from sqlalchemy.exc import SQLAlchemyError

    from audit.store import Refusal, log_each

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


def get_engine(settings: Settings) -> Engine:
    """The engine for `settings.resolved_database_url` (default: SQLite in the data directory),
    migrated on first use."""
    with _first_use:
        return _migrated(_Place.of(settings))[0]


def get_session_factory(settings: Settings) -> sessionmaker[Session]:
    """Sessions whose commits that extend the audit chain are checkpointed (app.database.anchoring)."""
    with _first_use:
        return _migrated(_Place.of(settings))[1]


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session of `factory` that commits on success and rolls back on error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def write(work: Callable[[Session], T], factory: sessionmaker[Session]) -> T:
    """`work(session)` in its own session_scope, run again from the start after a transient
    lock or connection failure (bounded backoff, audit.retry); other errors are raised."""

    def once() -> T:
        with session_scope(factory) as session:
            return work(session)

    return retrying(once)


def reset() -> None:
    """Dispose of and forget the cached engines (a test that is done with its database)."""
    with _first_use:
        for engine, _ in _opened.values():
            engine.dispose()
        _opened.clear()
