"""What LexSpec writes to disk is private: files 0600, the directories it creates 0700.

Issue: the SQLite database (client data, argon2 hashes) and the spool were 0644, readable by
every local user. Real files, the real command line, a real SQLite database.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from audit.db import make_engine, migrate
from audit.spool import SPOOL_FILE, Spool
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_everything_the_app_writes_is_private(tmp_path: Path) -> None:
    data = tmp_path / "firm" / "data"  # neither directory exists yet
    env = {
        "LEXSPEC_DATA_DIR": str(data),
        "LEXSPEC_DATABASE_URL": f"sqlite:///{data / 'lexspec.db'}",
    }
    added = run_lexspec(
        "user", "add", "alice", "--role", "drafter", "--password", "long enough", env=env
    )
    assert added.returncode == 0, added.stderr
    Spool(data / SPOOL_FILE).append(make_record())  # as a failed audit write would
    files = sorted(p.name for p in data.iterdir())
    assert {
        "lexspec.db",
        "lexspec.db.audit-key",
        "lexspec.db.checkpoints.jsonl",
        SPOOL_FILE,
    } <= set(files)
    assert {p.name: _mode(p) for p in data.iterdir()} == dict.fromkeys(files, 0o600)
    assert _mode(data) == 0o700 and _mode(data.parent) == 0o700


def test_sqlite_wal_files_follow_the_database(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db' / 'lexspec.db'}")
    try:
        migrate(engine)
        with engine.connect() as conn:  # WAL mode: -wal and -shm exist while a connection is open
            conn.exec_driver_sql("SELECT 1")
            wal = [p for p in (tmp_path / "db").iterdir() if p.name.endswith(("-wal", "-shm"))]
            assert wal and all(_mode(p) == 0o600 for p in wal)
    finally:
        engine.dispose()


def test_an_existing_world_readable_database_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "lexspec.db"
    path.parent.mkdir(mode=0o750)  # an existing directory (a volume, say) is left as it is
    os.chmod(path.parent, 0o750)
    path.touch()
    os.chmod(path, 0o644)
    engine = make_engine(f"sqlite:///{path}")
    engine.dispose()
    assert _mode(path) == 0o600
    assert _mode(path.parent) == 0o750
