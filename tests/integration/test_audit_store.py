"""The audit store on a real database (SQLite file; PostgreSQL when reachable)."""

from __future__ import annotations

import dataclasses
import subprocess
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from audit import chain, store
from audit.db import all_metadata, current_revision, migrate
from audit.models import Generation
from audit.vocabulary import EventKind
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def test_complete_generation_round_trips(db_session_factory: sessionmaker[Session]) -> None:
    record = make_record()
    with db_session_factory() as session:
        logged = store.log_generation(record, session=session)
        session.commit()
    with db_session_factory() as session:
        stored = store.get_generation(logged.id, session=session)
    assert stored is not None and stored.row_hash == logged.row_hash and stored.seq == 1
    assert stored.created_at == logged.created_at
    expected = dataclasses.replace(
        record, params={**record.params, "stop": ["。"]}, findings=list(record.findings)
    )
    assert stored.record == expected


@pytest.mark.parametrize(
    ("status", "error"), [("stopped", None), ("error", "连接中断 / connection lost")]
)
def test_unfinished_generation_is_logged_with_partial_text(
    db_session_factory: sessionmaker[Session], status: str, error: str | None
) -> None:
    partial = "一、申报主体\n依据《数据出"
    record = make_record(
        output_text=partial, status=status, error_message=error, completion_tokens=9
    )
    with db_session_factory() as session:
        store.log_generation(make_record(), session=session)
        logged = store.log_generation(record, session=session)
        session.commit()
    with db_session_factory() as session:
        stored = store.get_generation(logged.id, session=session)
        found = store.search_generations(session=session, status=status)
    assert stored is not None
    assert (stored.record.status, stored.record.output_text) == (status, partial)
    assert stored.record.error_message == error
    assert [g.id for g in found] == [logged.id]


def test_search_filters_and_pages(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory() as session:
        for i in range(5):
            store.log_generation(make_record(output_text=f"草稿 {i}"), session=session)
        store.log_generation(
            make_record(user_name="bob", doc_type="nda_points", output_text="保密 100% 条款"),
            session=session,
        )
        session.commit()
    with db_session_factory() as session:
        newest = store.search_generations(session=session, limit=2)
        page2 = store.search_generations(session=session, user_name="alice", limit=2, offset=2)
        pct = store.search_generations(session=session, text="100%")
        no_pct = store.search_generations(session=session, text="0%")  # % is literal, not wildcard
        by_type = store.search_generations(session=session, doc_type="nda_points")
        alice_count = store.count_generations(session=session, user_name="alice")
    assert [g.id for g in newest] == [6, 5]
    assert [g.preview for g in page2] == ["草稿 2", "草稿 1"]
    assert [g.user_name for g in pct] == ["bob"] and [g.id for g in no_pct] == [6]
    assert [g.id for g in by_type] == [6] and alice_count == 5
    assert newest[1].error_count == 1


def test_bad_records_are_refused(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory() as session:
        with pytest.raises(ValueError):
            store.log_generation(make_record(status="done"), session=session)
        with pytest.raises(ValueError):
            store.log_generation(make_record(ttft_s=float("nan")), session=session)
        with pytest.raises(ValueError):
            store.log_generation(make_record(params={"t": float("inf")}), session=session)
        with pytest.raises(ValueError, match="findings"):
            store.log_generation(make_record(findings=[object()]), session=session)
        session.rollback()
        assert store.verify_chain(session=session).checked == 0


def _seed_chain(factory: sessionmaker[Session]) -> None:
    """generations 1 and 2, event 1, generation 3 (seq 1..4)."""
    with factory() as session:
        store.log_generation(make_record(), session=session)
        store.log_generation(make_record(output_text="第二份草稿"), session=session)
        store.append_event(
            session=session, actor="admin", kind="endpoint.switch", payload={"to": "vllm"}
        )
        store.log_generation(make_record(status="stopped", output_text="部分"), session=session)
        session.commit()


def _rewrite_with_new_hash(engine: Engine) -> None:
    """A forger who alters generation 2 and recomputes its own hash."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE generations SET output_text = 'forged' WHERE id = 2"))
    with Session(engine) as session:
        row = session.get(Generation, 2)
        assert row is not None
        columns = Generation.__table__.columns
        content = {c.key: getattr(row, c.key) for c in columns if c.key != "row_hash"}
    new_hash = chain.row_hash("generations", content)
    with engine.begin() as conn:
        conn.execute(text("UPDATE generations SET row_hash = :h WHERE id = 2"), {"h": new_hash})


TAMPERING = {
    "output_text": ("UPDATE generations SET output_text = 'x' WHERE id = 2", ("generations", 2)),
    "findings": ("UPDATE generations SET findings = '[]' WHERE id = 2", ("generations", 2)),
    "timing": ("UPDATE generations SET ttft_s = 0.001 WHERE id = 1", ("generations", 1)),
    "event": ('UPDATE audit_events SET payload = \'{"to":"x"}\'', ("audit_events", 1)),
    "delete_middle": ("DELETE FROM generations WHERE id = 2", ("audit_events", 1)),
    "delete_newest": ("DELETE FROM generations WHERE id = 3", ("audit_chain_head", 1)),
    "rewrite_hash": (None, ("generations", 2)),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_tampering_is_caught(
    db_engine: Engine, db_session_factory: sessionmaker[Session], case: str
) -> None:
    _seed_chain(db_session_factory)
    with db_session_factory() as session:
        clean = store.verify_chain(session=session)
    assert clean.ok and clean.checked == 4 and clean.first_bad is None

    sql, (table, row_id) = TAMPERING[case]
    if sql is None:
        _rewrite_with_new_hash(db_engine)
    else:
        with db_engine.begin() as conn:
            conn.execute(text(sql))
    with db_session_factory() as session:
        report = store.verify_chain(session=session)
    assert not report.ok and report.first_bad is not None
    assert (report.first_bad.table, report.first_bad.id) == (table, row_id), report.first_bad


def _cli(db_url: str, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI on this database, with its own data directory (spool, checkpoints)."""
    return run_lexspec(*args, env={"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(data)})


def test_cli_audit_verify_names_the_altered_row(
    db_url: str, db_engine: Engine, db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    _seed_chain(db_session_factory)  # no checkpoint yet: the CLI's first start anchors the chain
    ok = _cli(db_url, tmp_path, "audit", "verify")
    assert ok.returncode == 0, ok.stderr
    assert "4 rows checked" in ok.stdout

    with db_engine.begin() as conn:
        conn.execute(text("UPDATE generations SET total_s = 99 WHERE id = 3"))
    bad = _cli(db_url, tmp_path, "audit", "verify")
    assert bad.returncode == 1
    assert "generations id=3" in bad.stderr and "Traceback" not in bad.stderr

    with db_engine.begin() as conn:  # an earlier deletion is now the first fault
        conn.execute(text("DELETE FROM generations WHERE id = 2"))
    deleted = _cli(db_url, tmp_path, "audit", "verify")
    assert deleted.returncode == 1
    assert "audit_events id=1" in deleted.stderr and "deleted" in deleted.stderr


def test_concurrent_writers_all_land(db_session_factory: sessionmaker[Session]) -> None:
    writers, per_writer = 4, 5
    barrier = threading.Barrier(writers)
    failures: list[BaseException] = []

    def write(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            for n in range(per_writer):
                if index % 2:  # a transaction that reads before it appends
                    with db_session_factory.begin() as session:
                        store.search_generations(session=session, limit=1)
                        store.append_event(
                            session=session,
                            actor=f"w{index}",
                            kind=EventKind.ENDPOINT_SWITCH,
                            payload={"n": n},
                        )
                else:  # a plain session: BEGIN IMMEDIATE on SQLite
                    with db_session_factory() as session:
                        store.log_generation(make_record(user_name=f"w{index}"), session=session)
                        session.commit()
        except BaseException as exc:  # noqa: BLE001 - surfaced in the main thread below
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    with db_session_factory() as session:
        report = store.verify_chain(session=session)
        seqs = session.scalars(
            text("SELECT seq FROM generations UNION ALL SELECT seq FROM audit_events")
        ).all()
    assert report.ok, report.first_bad
    assert report.checked == writers * per_writer
    assert sorted(seqs) == list(range(1, writers * per_writer + 1))


def test_schema_comes_from_migrations_and_matches_models(db_engine: Engine) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from audit.db import alembic_config

    if db_engine.dialect.name == "sqlite":
        with db_engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    assert [current_revision(db_engine)] == heads
    with db_engine.connect() as conn:  # read as Alembic reads it
        assert MigrationContext.configure(conn).get_current_revision() == heads[0]
    migrate(db_engine)  # idempotent
    with db_engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), all_metadata())
    assert diff == []
