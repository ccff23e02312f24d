"""Shared fixtures: real embedded LLM servers, real databases, the acting contexts tests build
from their own Settings."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.servers import embedded_server

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session, sessionmaker

    from app.context import Context

MakeContext = Callable[..., "Context"]


@pytest.fixture
def make_context(tmp_path: Path) -> Iterator[MakeContext]:
    """`make_context(factory=None, **settings)`: an acting context (app.context) from Settings of
    the test's own (keywords override the environment; the data directory is a temp dir unless
    given), on `factory`'s database or else the one those Settings name. What a page or a
    command would build, handed in (`app.cli.main(argv, context=...)`) instead of set through
    LEXSPEC_* variables; the engines opened for it are disposed afterwards."""
    from app import database
    from app.config import Settings
    from app.context import Context

    def build(factory: sessionmaker[Session] | None = None, **settings: object) -> Context:
        settings.setdefault("data_dir", tmp_path / "data")
        return Context(Settings(**settings), factory)  # type: ignore[arg-type]

    yield build
    database.reset()


@pytest.fixture
def zh_context(make_context: MakeContext) -> Context:
    """Chinese messages and the bundled statute catalogue (no firm file)."""
    return make_context(lang="zh", statutes_file=None)


def app_context() -> Context:
    """The context the pages and commands build from the environment (app.cli.command_context),
    for a test that configures a page or a subprocess through LEXSPEC_* variables and must
    act on the same installation."""
    from app.cli import command_context

    return command_context()


@contextmanager
def app_session() -> Iterator[Session]:
    """A unit of work on the database of `app_context()`."""
    with app_context().session() as session:
        yield session


@pytest.fixture
def cheap_argon2() -> Iterator[None]:
    """Real argon2id with the cheapest parameters, so account tests stay fast on a small machine
    (a module opts in with `pytest.mark.usefixtures("cheap_argon2")`)."""
    from argon2 import PasswordHasher, profiles

    from audit import users

    previous = users.use_password_hasher(PasswordHasher.from_parameters(profiles.CHEAPEST))
    yield
    users.use_password_hasher(previous)


@pytest.fixture(scope="session")
def llm_base_url() -> Iterator[str]:
    """A real embedded server with n-gram speculative decoding, shared by the session."""
    with embedded_server("ngram") as url:
        yield url


@pytest.fixture(scope="session")
def drafting_url() -> Iterator[str]:
    """An n-gram server that drafts on every step (--fixed-k). The adaptive default may rightly
    decide that drafting does not pay on a loaded machine, so a test that needs drafts to happen
    (counters that move, acceptance that rises) uses this one."""
    with embedded_server("ngram", "--num-speculative-tokens", "4", "--fixed-k") as url:
        yield url


@pytest.fixture(scope="session")
def plain_llm_base_url() -> Iterator[str]:
    """A real embedded server without speculation (the plain arm)."""
    with embedded_server("off") as url:
        yield url


# --- real databases: a temp SQLite file per test, and PostgreSQL when it answers ---

POSTGRES_DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_test_url() -> str:
    """LEXSPEC_TEST_POSTGRES_URL (CI sets it), else the local default."""
    import os

    return os.environ.get("LEXSPEC_TEST_POSTGRES_URL") or POSTGRES_DEFAULT_URL


@functools.cache
def _postgres_problem(url: str) -> str | None:
    """None when PostgreSQL at `url` accepts a connection, else why not (checked once)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any failure means: skip, and say why
        return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
    finally:
        engine.dispose()
    return None


# Modules whose database tests run on SQLite only: they exercise a page or a service over store
# paths that run on PostgreSQL in their own modules (test_audit_store: the generation record;
# test_review_store, test_audit_anchor: audit events), so a second backend adds time, not cover.
SQLITE_ONLY_MODULES = frozenset({"unit/test_generation.py", "integration/test_approvals.py"})


@pytest.hookimpl(tryfirst=True)  # before pytest reads the parametrize marks and fixture params
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`db_url` on SQLite alone for SQLITE_ONLY_MODULES (unless the test chose its backends)."""
    module = metafunc.definition.path.relative_to(Path(__file__).parent).as_posix()
    if "db_url" not in metafunc.fixturenames or module not in SQLITE_ONLY_MODULES:
        return
    chosen = any(
        "db_url" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    )
    if not chosen:
        metafunc.definition.add_marker(pytest.mark.parametrize("db_url", ["sqlite"], indirect=True))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL of an empty database: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lexspec.db'}"
        return
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    base = postgres_test_url()
    problem = _postgres_problem(base)
    if problem is not None:
        pytest.skip(
            f"PostgreSQL not reachable at {base} ({problem}); set LEXSPEC_TEST_POSTGRES_URL"
        )
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture
def db_engine(db_url: str) -> Iterator[Engine]:
    """An engine on `db_url` with the schema created by the Alembic migrations."""
    from audit.db import make_engine, migrate

    engine = make_engine(db_url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


TEST_AUDIT_KEY = bytes(range(32))  # the audit key of the fixtures' databases (audit.coverage)


def keyed_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on `engine` holding the test audit key, as app.database's hold the anchor's:
    they sign the rows they cover and check the signatures they read (audit.coverage)."""
    from audit.coverage import sign_covers
    from audit.db import make_session_factory

    return sign_covers(make_session_factory(engine), lambda: TEST_AUDIT_KEY)


@pytest.fixture
def audit_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The installation's audit key for this test, TEST_AUDIT_KEY in a file that
    LEXSPEC_AUDIT_KEY_FILE names: the fixtures' sessions, the app in this process and the
    command line in a subprocess all sign and check with it."""
    from app.config import get_settings

    path = tmp_path / "keys" / "audit.key"
    path.parent.mkdir(mode=0o700)
    path.write_text(TEST_AUDIT_KEY.hex() + "\n", encoding="ascii")
    path.chmod(0o600)
    monkeypatch.setenv("LEXSPEC_AUDIT_KEY_FILE", str(path))
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


@pytest.fixture
def db_session_factory(db_engine: Engine, audit_key_file: Path) -> sessionmaker[Session]:
    """Sessions on a migrated real database (parametrised: SQLite file, PostgreSQL), with the
    installation's audit key (`audit_key_file`)."""
    return keyed_factory(db_engine)


def acting(
    name: str, *, session: Session | None = None, factory: sessionmaker[Session] | None = None
) -> object:
    """The account called `name` (the acting User that app services take), from a session or
    a session factory."""
    from audit.users import get_user

    if session is None:
        assert factory is not None
        with factory() as own:
            return acting(name, session=own)
    user = get_user(name, session=session)
    assert user is not None, f"no user {name}"
    return user
