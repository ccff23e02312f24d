"""Engines, sessions and schema migrations for the audit database.

SQLite (the default, a file in the data directory) runs in WAL mode with foreign
keys on; its transactions start with BEGIN DEFERRED unless a connection asks for
BEGIN IMMEDIATE through the `sqlite_begin` execution option (sessions from
`make_session_factory` and the chain appenders do, so writers queue instead of
failing). The database file is created 0600 (audit.files). PostgreSQL works through any
`postgresql+psycopg://` URL.

Migrations run once however many processes first touch a fresh database: `migrate`
takes a lock first (PostgreSQL: a transaction-level advisory lock; SQLite: an exclusive
lock on the file `<database>.migrate.lock` beside it), both with a bounded wait, and
then lets Alembic upgrade whatever is still missing. A process that finds the schema
at head already takes no lock at all. On SQLite, foreign keys are off while a migration runs
(SQLite's procedure for recreating a table, which batch migrations do) and every reference
is checked before it commits.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from audit.files import open_stream, private_path, refuse_link
from audit.storable import normalise_on_flush

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")  # the files SQLite writes beside a database
MIGRATION_LOCK_WAIT_S = 120.0  # a migration of a big log may take a while; then give up
PG_MIGRATION_LOCK_KEY = 7_406_813_501  # any fixed bigint, the same in every process


class MigrationLockTimeout(TimeoutError):
    """Another process held the migration lock for longer than the wait allows."""


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets its parent directory created and its pragmas set."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return _create(url, pool_pre_ping=True, **kwargs)
    timeout_s = _sqlite_timeout(parsed)  # a bad ?timeout= is refused before any file is made
    engine = _create(
        parsed.difference_update_query(["timeout"]),
        connect_args={"timeout": timeout_s},
        **kwargs,
    )
    if parsed.database and parsed.database != ":memory:":
        database = Path(parsed.database)
        private_path(database)  # 0600 before SQLite opens it (-wal/-shm follow its mode)
        _sqlite_files_unlinked(database)
        event.listen(engine, "do_connect", lambda *_: _sqlite_files_unlinked(database))
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _create(url: str | URL, **kwargs: Any) -> Engine:
    """create_engine, with a driver that is not installed reported as a bad URL (ArgumentError)
    rather than the ImportError of the dialect's module."""
    try:
        return create_engine(url, **kwargs)
    except ImportError as exc:
        backend = make_url(url).drivername
        raise ArgumentError(
            f"the database driver for {backend} is not installed ({exc.name or exc})"
        ) from exc


def _sqlite_files_unlinked(database: Path) -> None:
    """Before every connection: neither the database nor a file SQLite keeps beside it is a
    link (SQLite would write through one: audit.files.UnsafePath instead). Checked without
    opening them (audit.files.private_path says why)."""
    for suffix in ("", *SQLITE_COMPANIONS):
        refuse_link(Path(f"{database}{suffix}"))


def _sqlite_timeout(parsed: URL) -> float:
    """`?timeout=SECONDS` in a SQLite URL shortens (or lengthens) the wait for a locked file;
    ArgumentError (a bad URL) unless it is a finite number of 0 or more."""
    raw = str(parsed.query.get("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000))
    try:
        timeout_s = float(raw)
    except ValueError:
        timeout_s = math.nan
    if not 0 <= timeout_s < math.inf:
        raise ArgumentError(f"?timeout must be a number of seconds, 0 or more, not {raw!r}")
    return timeout_s


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module so BEGIN is ours to emit.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
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
    Text is stored alike on every backend (audit.storable: NUL and lone surrogates replaced).
    """
    bind = engine
    if engine.dialect.name == "sqlite":
        bind = engine.execution_options(sqlite_begin="IMMEDIATE")
    return normalise_on_flush(sessionmaker(bind=bind, expire_on_commit=False))


def all_metadata() -> MetaData:
    """Base.metadata with every table module imported (Alembic's autogenerate target); the
    modules are listed once, in audit/tables.py (imported when asked: an engine or a session
    needs no table module)."""
    from audit.tables import METADATA

    return METADATA


def alembic_config(
    connection: Connection | None = None, cover_key: Callable[[], bytes] | None = None
) -> Any:
    """An Alembic Config built in code, so no alembic.ini is needed in the working directory;
    `cover_key` is the audit key for a migration that signs covered rows (0012)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    config.attributes["cover_key"] = cover_key
    return config


def head_revision() -> str | None:
    """The newest revision in audit/migrations: the highest-numbered script, since each is named
    after its revision ("0015_working_states.py" holds "0015") in one line of history. Read from
    the names, not by Alembic, which imports every script to find it (0.2 s of CPU in each
    process that opens a database); tests/unit/test_migration_names.py holds the two readings
    equal."""
    names = script_revisions()
    return names[-1] if names else None


def script_revisions() -> list[str]:
    """The revisions the migration scripts' names give, oldest first ("0015_working_states.py")."""
    return sorted(p.name.split("_", 1)[0] for p in (MIGRATIONS_DIR / "versions").glob("*_*.py"))


def migrate(
    engine: Engine, revision: str = "head", *, cover_key: Callable[[], bytes] | None = None
) -> bool:
    """Bring the schema to `revision` (Alembic `upgrade head` by default), once, under a lock;
    True when this call ran the upgrade.
    `cover_key`: the audit key, which migration 0012 needs to sign the covered rows of a
    database that has some (app.database passes the anchor's key).

    Safe to call from many processes at the same moment on a fresh database: one migrates,
    the others wait (at most MIGRATION_LOCK_WAIT_S) and then find nothing left to do (read
    again under the lock, as before it, without Alembic: importing it and its scripts costs
    each process 0.3 s of CPU).
    """
    if revision == "head" and current_revision(engine) == head_revision():
        return False  # the usual case
    with (
        _file_lock(engine),
        engine.connect() as connection,
        _foreign_keys_deferred(connection),
        connection.begin(),
    ):
        if engine.dialect.name == "postgresql":
            wait_ms = int(MIGRATION_LOCK_WAIT_S * 1000)
            connection.exec_driver_sql(f"SET LOCAL lock_timeout = {wait_ms}")
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_MIGRATION_LOCK_KEY})")
        if revision == "head" and _revision(connection) == head_revision():
            return False  # another process has just migrated it
        from alembic import command

        command.upgrade(alembic_config(connection, cover_key), revision)
        _check_foreign_keys(connection)
    return True


@contextmanager
def _foreign_keys_deferred(connection: Connection) -> Iterator[None]:
    """SQLite: foreign keys off while migrating, as SQLite's own procedure for altering a table
    asks (a batch migration recreates a table, and dropping a table that other rows reference
    fails while they are on); `_check_foreign_keys` then checks every reference before the
    commit. The pragma only takes effect outside a transaction, hence the raw connection."""
    raw = connection.connection.driver_connection if connection.dialect.name == "sqlite" else None
    if raw is not None:
        raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        if raw is not None:
            raw.execute("PRAGMA foreign_keys=ON")


def _check_foreign_keys(connection: Connection) -> None:
    """SQLite: refuse (roll back) a migration that left a row referring to a missing one."""
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
        if broken:
            raise RuntimeError(f"the migration broke foreign keys: {broken[:10]}")


@contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    """SQLite: hold an exclusive lock on `<database>.migrate.lock` (nothing for others)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:":
        yield
        return
    import fcntl

    deadline = time.monotonic() + MIGRATION_LOCK_WAIT_S
    with open_stream(Path(f"{database}.migrate.lock"), "ab") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise MigrationLockTimeout(
                        f"another process is migrating {database} (waited {MIGRATION_LOCK_WAIT_S:g} s)"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_revision(engine: Engine) -> str | None:
    """The schema's Alembic revision, None for an empty database."""
    with engine.connect() as connection:
        return _revision(connection)


def _revision(connection: Connection) -> str | None:
    """The row of Alembic's version table (`alembic_version`, as Alembic reads it; one line of
    history, so one row at most), None when there is none."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise RuntimeError(f"the database has {len(rows)} schema revisions: {sorted(rows)}")
    return str(rows[0]) if rows else None
