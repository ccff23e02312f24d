"""The app's database: one engine per process from Settings, migrated on first use.

`session_scope()` is the unit of work: it commits when the block ends, rolls back
when it raises. Keep blocks short (the audit chain is locked from an append to the
commit).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.config import get_settings
from audit.db import make_engine, make_session_factory, migrate

_first_use = threading.Lock()  # page threads may race to create (and migrate) the engine


@lru_cache(maxsize=1)
def _migrated_engine() -> Engine:
    engine = make_engine(get_settings().resolved_database_url)
    migrate(engine)
    return engine


def get_engine() -> Engine:
    """The engine for LEXSPEC_DATABASE_URL (default: SQLite in the data directory), migrated."""
    with _first_use:
        return _migrated_engine()


@lru_cache(maxsize=1)
def get_session_factory() -> sessionmaker[Session]:
    return make_session_factory(get_engine())


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


def reset() -> None:
    """Forget the cached engine (after Settings changed, e.g. in tests)."""
    with _first_use:
        if _migrated_engine.cache_info().currsize:
            _migrated_engine().dispose()
        get_session_factory.cache_clear()
        _migrated_engine.cache_clear()
