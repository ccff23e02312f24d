"""The chain anchored outside the database: signed checkpoints catch truncation, rewrites and
rows LexSpec did not write (real databases, real files, the real command line).

The issue's attacks: deleting the newest row and moving `audit_chain_head` back, and rewriting
a row and recomputing every hash, both passed `lexspec audit verify` ("intact").
"""

from __future__ import annotations

import json
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, text, update
from sqlalchemy.orm import Session

from audit import chain, store
from audit.models import ChainHead, Event
from audit.vocabulary import EventKind
from tests.conftest import app_session
from tests.integration.test_audit_faults import use_database
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration


@pytest.fixture
def app_db(
    db_url: str, db_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """The app on `db_url` with its own data directory; the CLI's environment for the same."""
    from app import database
    from app.config import get_settings

    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    use_database(db_url, monkeypatch)
    yield env
    database.reset()
    get_settings.cache_clear()


def _write(n: int) -> None:
    """`n` commits through the app's unit of work, each one generation and one event."""
    for i in range(n):
        with app_session() as session:
            store.log_generation(make_record(output_text=f"草稿 {i}"), session=session)
            store.append_event(
                session=session, actor="admin", kind=EventKind.ENDPOINT_SWITCH, payload={"i": i}
            )


def _verify(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return run_lexspec("audit", "verify", *extra, env=env)


def _files() -> tuple[Path, Path]:
    from app.config import get_settings

    settings = get_settings()
    return settings.resolved_audit_key_file, settings.resolved_audit_checkpoint_file


def _rehash_from(engine: Engine, seq: int) -> None:
    """A forger with database write access: recompute every hash from `seq` on, and the head."""
    with Session(engine) as session:
        rows: list[Any] = sorted(
            (r for m in store.CHAINED for r in session.scalars(select(m).where(m.seq >= seq))),
            key=lambda r: r.seq,
        )
        previous = session.scalar(
            select(Event.row_hash).where(Event.seq == seq - 1)
        ) or store.hashes_at([seq - 1], session=session).get(seq - 1, chain.GENESIS_HASH)
        for row in rows:
            row.prev_hash = previous
            content = {c.key: getattr(row, c.key) for c in row.__table__.columns}
            content.pop("row_hash")
            row.row_hash = previous = chain.row_hash(row.__tablename__, content)
        session.execute(update(ChainHead).values(last_seq=rows[-1].seq, last_hash=previous))
        session.commit()


def test_checkpoints_are_written_private_and_printable(app_db: dict[str, str]) -> None:
    _write(3)
    key, checkpoints = _files()
    for path in (key, checkpoints):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    lines = [json.loads(line) for line in checkpoints.read_text().splitlines()]
    assert [(c["first"], c["seq"]) for c in lines] == [(1, 2), (3, 4), (5, 6)]  # one per commit
    printed = run_lexspec("audit", "checkpoint", env=app_db)
    assert printed.returncode == 0, printed.stderr
    newest = json.loads(printed.stdout)
    assert newest == lines[-1] and set(newest) == {"first", "seq", "hash", "at", "sig"}
    ok = _verify(app_db)
    assert ok.returncode == 0, ok.stderr
    assert "6 rows checked" in ok.stdout and "Newest checkpoint: seq 6" in ok.stdout


def test_deleting_the_newest_row_and_moving_the_head_back_is_truncation(
    app_db: dict[str, str], db_engine: Engine
) -> None:
    _write(2)
    with db_engine.begin() as conn:  # the attack: delete seq 4, head back to seq 3
        conn.execute(text("DELETE FROM audit_events WHERE seq = 4"))
        last = conn.execute(text("SELECT row_hash FROM generations WHERE seq = 3")).scalar_one()
        conn.execute(text("UPDATE audit_chain_head SET last_seq = 3, last_hash = :h"), {"h": last})
    result = _verify(app_db)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "truncation" in result.stderr and "seq 4" in result.stderr, result.stderr


def test_rewriting_a_row_and_every_hash_after_it_is_caught(
    app_db: dict[str, str], db_engine: Engine
) -> None:
    _write(3)
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE generations SET output_text = '伪造' WHERE seq = 3"))
    _rehash_from(db_engine, 3)  # the chain itself is consistent again
    with Session(db_engine) as session:
        assert store.verify_chain(session=session).first_bad is None
    result = _verify(app_db)
    assert result.returncode == 1, (result.stdout, _files()[1].read_text())
    assert "rewrite" in result.stderr and "seq 4, 6" in result.stderr, result.stderr


def test_a_row_appended_outside_lexspec_is_vouched_for_by_no_checkpoint(
    app_db: dict[str, str], db_engine: Engine
) -> None:
    _write(1)
    with Session(db_engine) as session:  # a forger appends a well-linked row of their own
        store.append_event(session=session, actor="mallory", kind="user.created", payload={})
        session.commit()
    result = _verify(app_db)
    assert result.returncode == 1
    assert "rows seq 3 are vouched for by no checkpoint" in result.stderr, result.stderr


def test_a_forged_checkpoint_line_is_reported(app_db: dict[str, str]) -> None:
    _write(1)
    _, checkpoints = _files()
    line = json.loads(checkpoints.read_text())
    forged = {**line, "seq": 99, "first": 99}  # signed with no key
    with checkpoints.open("a") as handle:
        handle.write(json.dumps(forged) + "\n")
    result = _verify(app_db)
    assert result.returncode == 1 and "1 checkpoint line(s) with a bad signature" in result.stderr


def test_a_kept_checkpoint_catches_what_a_forger_with_the_files_too_can_hide(
    app_db: dict[str, str], db_engine: Engine
) -> None:
    """With database and file access the forger re-anchors a rewritten chain; the line the
    admin printed and kept elsewhere still catches it."""
    _write(2)
    kept = run_lexspec("audit", "checkpoint", env=app_db).stdout.strip()
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE generations SET output_text = '伪造' WHERE seq = 1"))
    _rehash_from(db_engine, 1)
    _files()[1].unlink()  # the checkpoint file is gone: the next start anchors what it finds
    assert _verify(app_db).returncode == 0  # the limit, as docs/architecture.md says
    caught = _verify(app_db, "--checkpoint", kept)
    assert caught.returncode == 1 and "rewrite" in caught.stderr, caught.stderr


def test_a_bad_checkpoint_argument_is_one_line_exit_2(app_db: dict[str, str]) -> None:
    result = _verify(app_db, "--checkpoint", '{"seq": "x"}')
    assert result.returncode == 2 and "not a checkpoint line" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_the_locations_come_from_settings(app_db: dict[str, str], tmp_path: Path) -> None:
    env = {
        **app_db,
        "LEXSPEC_AUDIT_KEY_FILE": str(tmp_path / "keys" / "anchor.key"),
        "LEXSPEC_AUDIT_CHECKPOINT_FILE": str(tmp_path / "elsewhere" / "checkpoints.jsonl"),
    }
    added = run_lexspec(
        "user", "add", "carol", "--role", "reviewer", "--password", "long enough", env=env
    )
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "keys" / "anchor.key").exists()
    assert len((tmp_path / "elsewhere" / "checkpoints.jsonl").read_text().splitlines()) == 1
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
    assert _verify(env).returncode == 0


def test_a_damaged_key_file_is_one_line_not_a_traceback(app_db: dict[str, str]) -> None:
    _write(1)
    key, _ = _files()
    key.write_text("not hex\n")
    result = _verify(app_db)
    assert (
        result.returncode == 2 and "audit key file" in result.stderr and "damaged" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_a_unit_of_work_with_savepoints_is_anchored_once_as_a_whole(
    app_db: dict[str, str],
) -> None:
    """Creating an account releases a savepoint; a savepoint is not a commit. Two accounts and a
    rolled-back savepoint in one unit of work: one checkpoint, for every row the unit appended."""
    from audit import users

    with app_session() as session:
        users.create_user("anchor-a", "drafter", "password-123456", session=session)
        with pytest.raises(RuntimeError), session.begin_nested():
            store.append_event(
                session=session, actor="admin", kind=EventKind.ENDPOINT_SWITCH, payload={}
            )
            raise RuntimeError("rolled back to the savepoint")
        users.create_user("anchor-b", "drafter", "password-123456", session=session)
    _, checkpoints = _files()
    lines = [json.loads(line) for line in checkpoints.read_text().splitlines()]
    assert [(c["first"], c["seq"]) for c in lines] == [(1, 2)]
    ok = _verify(app_db)
    assert ok.returncode == 0, ok.stderr
    assert "2 rows checked" in ok.stdout and "Newest checkpoint: seq 2" in ok.stdout
