"""Shared fixtures: real embedded LLM servers, real databases, the acting contexts tests build
from their own Settings."""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.servers import embedded_server

# Every model server the tests start (session servers, a test's own, a `lexspec run`) keeps its
# prompt snapshots as files in one directory, so a prompt one server computed (an example's
# parts, a writing measurement) is not computed again by the next, in this run or a later one
# on this machine: the directory is outside the checkout (LEXSPEC_TEST_CACHE_DIR, else the
# user's cache directory), as pip's cache is, so a fresh clone starts from what the last run
# computed. Its files are per model file, llama.cpp build and CPU (Model.snapshot_recipe), and
# reused KV is bit-identical to computed KV (tests/integration/test_lossless.py, which computes
# cold in directories of its own), so what a test sees of the model does not change. Set before
# any server starts; xdist's worker processes inherit it.
TEST_CACHE = Path(
    os.environ.get("LEXSPEC_TEST_CACHE_DIR")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lexspec-tests"
)
os.environ.setdefault("LEXSPEC_PROMPT_CACHE_DIR", str(TEST_CACHE / "prompt-cache"))
os.environ.setdefault("LEXSPEC_PROMPT_CACHE_MB", "4096")
# Each model server the tests start computes on one thread: the two test processes share the
# two cores, and on one thread a server does the same work for less CPU (a model report drafted
# from its example on an idle machine: 28-30 CPU-s against 34-38 on two threads).
os.environ.setdefault("LEXSPEC_N_THREADS", "1")

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
    """A database URL of an empty database: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lexspec.db'}"
        return
    base = postgres_test_url()
    problem = _postgres_problem(base)
    if problem is not None:
        pytest.skip(
            f"PostgreSQL not reachable at {base} ({problem}); set LEXSPEC_TEST_POSTGRES_URL"
        )
    with postgres_database(base) as url:
        yield url


@contextmanager
def postgres_database(server: str) -> Iterator[str]:
    """The URL of a new, empty database on the PostgreSQL server of `server` (any database's
    URL there), dropped afterwards."""
    from sqlalchemy.engine import make_url

    name = f"test_{uuid.uuid4().hex[:16]}"
    _postgres_admin(server, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        _postgres_admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')


def _postgres_admin(base: str, *statements: str) -> None:
    """Run `statements` on the server of `base` outside a transaction (CREATE/DROP DATABASE)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    admin = create_engine(base, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with admin.connect() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
    finally:
        admin.dispose()


class MigratedTemplates:
    """A database migrated once per test process and per backend, copied into each test's
    empty database: a copy costs milliseconds where the migrations cost 0.2-1 s a test.
    SQLite: a template file, copied byte for byte (mode 0600, as audit.db makes them).
    PostgreSQL: a template database, copied by `CREATE DATABASE ... TEMPLATE`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.postgres: dict[str, str] = {}  # server URL -> the template database there
        self._sqlite: bytes | None = None

    def sqlite_bytes(self) -> bytes:
        if self._sqlite is None:
            from audit.db import SQLITE_COMPANIONS, make_engine, migrate

            path = self.directory / "template.db"
            engine = make_engine(f"sqlite:///{path}")
            migrate(engine)
            engine.dispose()
            left = [s for s in SQLITE_COMPANIONS if Path(f"{path}{s}").exists()]
            assert not left, f"the SQLite template kept {left} after its engine closed"
            self._sqlite = path.read_bytes()
        return self._sqlite

    def postgres_template(self, server: str) -> str:
        """The migrated template database on `server` (an admin URL, `_admin_url`)."""
        if server not in self.postgres:
            from sqlalchemy.engine import make_url

            from audit.db import make_engine, migrate

            name = f"template_{os.getpid()}_{uuid.uuid4().hex[:8]}"
            _postgres_admin(server, f'CREATE DATABASE "{name}"')
            self.postgres[server] = name  # dropped at the end of the session, even half made
            url = make_url(server).set(database=name).render_as_string(hide_password=False)
            engine = make_engine(url)
            migrate(engine)
            engine.dispose()
        return self.postgres[server]

    def copy_into(self, url: str) -> bool:
        """Make the empty database of `url` a copy of the migrated template; False (nothing
        done) when it is not empty any more, so its caller migrates it in place."""
        from sqlalchemy.engine import make_url

        from audit.files import open_private

        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            path = Path(parsed.database or "")
            if not parsed.database or path.exists():
                return False
            data = self.sqlite_bytes()
            with os.fdopen(open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as f:
                f.write(data)
            return True
        if _has_tables(url):
            return False
        server = _admin_url(url)
        template = self.postgres_template(server)
        _postgres_admin(
            server,
            f'DROP DATABASE "{parsed.database}" WITH (FORCE)',
            f'CREATE DATABASE "{parsed.database}" TEMPLATE "{template}"',
        )
        return True

    def drop(self) -> None:
        for server, name in self.postgres.items():
            _postgres_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _admin_url(url: str) -> str:
    """The URL of the database the tests administer others from, on the server of `url`."""
    from sqlalchemy.engine import make_url

    admin = make_url(url).set(database=make_url(postgres_test_url()).database)
    return admin.render_as_string(hide_password=False)


def _has_tables(url: str) -> bool:
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    try:
        return bool(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MigratedTemplates]:
    """This test process's migrated databases, one per backend, made on first use."""
    templates = MigratedTemplates(tmp_path_factory.mktemp("migrated"))
    try:
        yield templates
    finally:
        templates.drop()


@pytest.fixture
def db_engine(db_url: str, migrated_templates: MigratedTemplates) -> Iterator[Engine]:
    """An engine on `db_url` with the schema the Alembic migrations make: a copy of this
    process's migrated template, or migrated in place when something wrote there first."""
    from audit.db import make_engine, migrate

    copied = migrated_templates.copy_into(db_url)
    engine = make_engine(db_url)
    if not copied:
        migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def audit_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, migrated_templates: MigratedTemplates
) -> str:
    """The installation's database for this test (LEXSPEC_DATABASE_URL), for the app in this
    process and the commands it starts: a SQLite file at the schema's head, a copy of this
    process's migrated template, so whatever opens it first does not migrate it again (0.2-1 s
    of CPU each time). A first start on a fresh file is what test_run_command.py,
    test_audit_faults.py and the browser tests' app do."""
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    migrated_templates.copy_into(url)
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", url)
    return url


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
