"""The audit log under concurrency and faults, on real databases (SQLite file; PostgreSQL).

- Many processes that first touch a fresh database at once: migrations run once (under a
  lock) and every write lands (a transient lock is retried).
- A database that cannot be written when a generation ends: the outcome waits in the spool
  and enters the hash chain, in order, at the next write or start.
- Migration 0003 gives existing users a case-insensitive key without locking anybody out.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text

from app.cli import main
from app.domain import GenerationStats, RenderedPrompt
from app.drafting.context import DraftContext
from app.drafting.outcome import GenerationOutcome
from audit import store
from audit.db import make_engine, make_session_factory, migrate
from tests.conftest import (
    TEST_AUDIT_KEY,
    MakeContext,
    app_context,
    keyed_factory,
    postgres_database,
)
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
WRITERS = 8
ROUNDS = 5  # fresh databases, each first touched by all the writers at once

# One writer process: say it is ready, then for each round wait for its starting gun and write
# one generation through the app's own path to that round's fresh database and data directory
# (first use migrates; the write is retried on a transient lock). The imports are paid once,
# so the rounds race on the migration itself.
WRITER = """
import os, sys, time
from pathlib import Path
from app.cli import command_context
from app.config import get_settings
from audit.store import log_generation
from tests.records import make_record

gate, name, places = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
(gate / f"ready-{name}").touch()
for round_, place in enumerate(places):
    data_dir, url = place.split("|", 1)
    give_up = time.monotonic() + 600  # the test is gone: do not poll for ever
    while not (gate / f"go-{round_}").exists():
        if time.monotonic() > give_up:
            sys.exit(f"{name}: no starting gun for round {round_}")
        time.sleep(0.01)
    os.environ.update(LEXSPEC_DATA_DIR=data_dir, LEXSPEC_DATABASE_URL=url)
    get_settings.cache_clear()
    ctx = command_context()
    ctx.write(lambda session: log_generation(make_record(user_name=name), session=session))
    (gate / f"done-{round_}-{name}").touch()
"""


@contextmanager
def fresh_databases(db_url: str, tmp_path: Path) -> Iterator[list[str]]:
    """ROUNDS empty databases on the backend of `db_url` (which is the first of them)."""
    if db_url.startswith("sqlite"):
        yield [db_url, *(f"sqlite:///{tmp_path / f'round{n}.db'}" for n in range(1, ROUNDS))]
        return
    with ExitStack() as made:
        yield [db_url, *(made.enter_context(postgres_database(db_url)) for _ in range(1, ROUNDS))]


def wait_for(paths: list[Path], writers: list[subprocess.Popen[str]]) -> None:
    """Until every path exists; a writer that failed fails the test with its stderr (one that
    has written every round ends with 0); a hang fails after 300 s."""
    give_up = time.monotonic() + 300
    while not all(p.exists() for p in paths):
        failed = [w for w in writers if w.poll() not in (None, 0)]
        assert not failed, [w.stderr.read() for w in failed if w.stderr]
        assert time.monotonic() < give_up, [p.name for p in paths if not p.exists()]
        time.sleep(0.01)


def test_fresh_databases_many_processes_every_row_lands(
    db_url: str, tmp_path: Path, make_context: MakeContext, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    with fresh_databases(db_url, tmp_path) as urls:
        places = [(tmp_path / f"data{n}", url) for n, url in enumerate(urls)]
        argv = [f"{data}|{url}" for data, url in places]
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(gate), f"writer{i}", *argv],
                cwd=REPO,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(WRITERS)
        ]
        try:
            names = [f"writer{i}" for i in range(WRITERS)]
            wait_for([gate / f"ready-{name}" for name in names], writers)
            for round_, (data, url) in enumerate(places):
                (gate / f"go-{round_}").touch()
                wait_for([gate / f"done-{round_}-{name}" for name in names], writers)
                ctx = make_context(database_url=url, data_dir=data)
                capsys.readouterr()
                code = main(["audit", "verify"], context=ctx)  # the writers' checkpoints too
                out, err = capsys.readouterr()
                assert code == 0 and f"{WRITERS} rows checked" in out, (round_, err)
                engine = make_engine(url)
                with engine.connect() as conn:
                    written = conn.execute(text("SELECT user_name FROM generations")).scalars()
                    assert sorted(written) == names, f"round {round_}"
                engine.dispose()
        finally:
            for writer in writers:  # all gone, whatever failed
                if writer.poll() is None:
                    writer.kill()
                writer.wait()
                if writer.stderr:
                    writer.stderr.close()


# --- the spool -------------------------------------------------------------------------------


def outcome(text_: str) -> GenerationOutcome:
    rendered = RenderedPrompt(
        doc_type="filing_guide",
        template_id="filing_guide",
        template_version="1",
        template_hash="ab" * 32,
        system="system",
        user="user",
        values={"company": "某某科技有限公司"},
    )
    return GenerationOutcome(
        context=DraftContext(rendered.doc_type, rendered.values, rendered=rendered),
        endpoint_name="embedded",
        model="m",
        speculative_label="",
        text=text_,
        status="complete",
        error=None,
        stats=GenerationStats(),
        check=None,
    )


@pytest.fixture
def app_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Settings whose data directory (and so the spool) is a temp dir; reset afterwards."""
    from app import database
    from app.config import get_settings

    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path / "data"))
    yield
    database.reset()
    get_settings.cache_clear()


def use_database(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from app import database
    from app.config import get_settings

    monkeypatch.setenv("LEXSPEC_DATABASE_URL", url)
    get_settings.cache_clear()
    database.reset()


def logged_texts(url: str) -> list[str]:
    engine = make_engine(url)
    factory = make_session_factory(engine)
    with factory() as session:
        assert store.verify_chain(session=session).ok
        rows = session.execute(text("SELECT output_text FROM generations ORDER BY seq"))
        texts = list(rows.scalars())
    engine.dispose()
    return texts


def closed_port_url(db_url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(db_url).set(port=1).render_as_string(hide_password=False)


def test_unreachable_database_spools_then_replays_in_order(
    db_url: str, db_engine: object, app_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drafting page's and `lexspec draft`'s record path (app.drafting.recording.keep)."""
    from app.database import spool
    from app.drafting.recording import keep
    from app.pages.draft_run import record_line

    if db_url.startswith("sqlite"):  # a writer holds the file past the (short) wait
        blocker = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        use_database(db_url + "?timeout=0.2", monkeypatch)
    else:  # PostgreSQL is away (nothing listens on the port)
        use_database(closed_port_url(db_url), monkeypatch)
    first = keep(outcome("第一份"), user_name="alice", ctx=app_context())  # as `lexspec draft` does
    second = keep(outcome("第二份"), user_name="alice", ctx=app_context())  # as the page does
    page_message = record_line(second, "zh")  # what the page says
    assert first.generation_id is None and first.spooled and second.generation_id is None
    assert first.problem is not None and "spool" in first.problem.text("en")
    assert "未能写入审计日志" in page_message and "暂存" in page_message
    assert spool(app_context().settings).pending() == 2

    if db_url.startswith("sqlite"):
        blocker.rollback()
        blocker.close()
    use_database(db_url, monkeypatch)  # the database is back
    third = keep(outcome("第三份"), user_name="alice", ctx=app_context())
    assert third.generation_id is not None and third.problem is None
    assert spool(app_context().settings).pending() == 0
    assert logged_texts(db_url) == ["第一份", "第二份", "第三份"]


def test_audit_verify_reports_spooled_records_until_replayed(
    db_url: str, db_engine: object, tmp_path: Path
) -> None:
    from audit.spool import SPOOL_FILE, Spool
    from tests.records import make_record

    data = tmp_path / "data"
    Spool(data / SPOOL_FILE).append(make_record(output_text="暂存的"))
    away = closed_port_url(db_url) if db_url.startswith("postgresql") else db_url
    if db_url.startswith("sqlite"):
        away = f"sqlite:///{tmp_path / 'not-a-db'}"
        (tmp_path / "not-a-db").write_bytes(b"this is not a database" * 100)
    env = {"LEXSPEC_DATA_DIR": str(data), "LEXSPEC_DATABASE_URL": away}
    down = run_lexspec("audit", "verify", env=env)
    assert down.returncode != 0 and "1 spooled record(s) not yet in the chain" in down.stderr
    assert "Traceback" not in down.stderr

    up = run_lexspec("audit", "verify", env={**env, "LEXSPEC_DATABASE_URL": db_url})
    assert up.returncode == 0, up.stderr
    assert "1 rows checked" in up.stdout and "spooled" not in up.stderr
    assert logged_texts(db_url) == ["暂存的"]


# --- migration 0003 --------------------------------------------------------------------------


def test_0003_keys_existing_names_without_locking_anyone_out(db_url: str) -> None:
    from argon2 import PasswordHasher, profiles

    from audit import users

    engine = make_engine(db_url)
    migrate(engine, "0002")
    hasher = PasswordHasher.from_parameters(profiles.CHEAPEST)
    with engine.begin() as conn:
        for name in ("Alice", "alice", "bob"):
            conn.execute(
                text(
                    "INSERT INTO users (name, role, password_hash, must_change_password,"
                    " created_at) VALUES (:n, 'drafter', :h, false, CURRENT_TIMESTAMP)"
                ),
                {"n": name, "h": hasher.hash(f"{name} password")},
            )
    migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)  # 0012 signs the accounts' digests
    previous = users.use_password_hasher(hasher)
    try:
        with keyed_factory(engine).begin() as session:
            keys = session.execute(text("SELECT name, name_key FROM users ORDER BY id")).all()
            assert [tuple(k) for k in keys] == [
                ("Alice", "alice"),
                ("alice", "alice#2"),
                ("bob", "bob"),
            ]
            assert users.authenticate("Alice", "Alice password", session=session) is not None
            assert users.authenticate("alice", "alice password", session=session) is not None
            with pytest.raises(users.UserError, match="taken"):
                users.create_user("ALICE", "drafter", "long enough", session=session)
            with pytest.raises(users.UserError, match="taken"):
                users.create_user("BOB", "drafter", "long enough", session=session)
    finally:
        users.use_password_hasher(previous)
        engine.dispose()
