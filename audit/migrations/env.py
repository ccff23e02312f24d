"""Alembic environment: runs on the connection handed over by audit.db.migrate.

Offline mode (SQL script output) is supported for reviewing a migration by hand;
pass the database URL as the `sqlalchemy.url` main option.
"""

from __future__ import annotations

from alembic import context

from audit.db import all_metadata, make_engine

config = context.config
target_metadata = all_metadata()


def run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.begin() as own_connection:
            _run_on(own_connection)
        engine.dispose()
        return
    _run_on(connection)


def _run_on(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode for ALTER TABLE
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
