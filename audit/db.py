"""Engines, sessions and schema migrations for the audit database.

SQLite (the default, a file in the data directory) runs in WAL mode with foreign
keys on; its transactions start with BEGIN DEFERRED unless a connection asks for
BEGIN IMMEDIATE through the `sqlite_begin` execution option (sessions from
`make_session_factory` and the chain appenders do, so writers queue instead of
failing). PostgreSQL works through any
`postgresql+psycopg://` URL.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# every module that declares tables on audit.models.Base (a missing one is skipped)
MODEL_MODULES = ("audit.models", "audit.review_models")
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets its parent directory created and its pragmas set."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, **kwargs)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module so BEGIN is ours to emit.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def _sqlite_on_begin(conn: Connection) -> None:
    mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
    if mode not in ("DEFERRED", "IMMEDIATE", "EXCLUSIVE"):
        raise ValueError(f"unknown sqlite_begin mode {mode!r}")
    conn.exec_driver_sql(f"BEGIN {mode}")


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded attributes after commit (domain objects are built from them).

    On SQLite every session transaction begins IMMEDIATE: a deferred transaction that has
    read and then appends to the audit chain could not upgrade to a write lock while
    another writer is active ("database is locked"); taking it up front makes writers
    queue on the busy timeout instead. WAL readers outside sessions are not blocked.
    """
    bind = engine
    if engine.dialect.name == "sqlite":
        bind = engine.execution_options(sqlite_begin="IMMEDIATE")
    return sessionmaker(bind=bind, expire_on_commit=False)


def all_metadata() -> MetaData:
    """Base.metadata with every table module imported (Alembic's autogenerate target)."""
    for name in MODEL_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    from audit.models import Base

    return Base.metadata


def alembic_config(connection: Connection | None = None) -> Any:
    """An Alembic Config built in code, so no alembic.ini is needed in the working directory."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision` (Alembic `upgrade head` by default)."""
    from alembic import command

    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), revision)


def current_revision(engine: Engine) -> str | None:
    """The schema's Alembic revision, None for an empty database."""
    from alembic.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
