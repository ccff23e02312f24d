"""Standing attacker suite: links in the data folder (issue 37, item 1).

Attack (file access to the data directory, not the database): put a symbolic link, or a hard
link, where LexSpec keeps one of its files, pointing at another file (the database, the
checkpoints, a key), then run any command. Before: `ln -s lexspec.db audit-spool.jsonl` and
`lexspec user list` truncated the database (every row and account lost); a link at the
checkpoint file emptied it, at the audit key zeroed it. Must hold: the file linked to keeps
every byte, the database keeps its rows, nothing is written through the link, and the refusal
is one line that names the path (audit.files). Real files, a real SQLite database, the real
command line in-process and one run of the real entry point.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from app import database
from app.accounts import sessions
from app.cli import main
from app.context import Context
from audit.files import UnsafePath, write_private
from tests.conftest import MakeContext, MigratedTemplates
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]

# every file LexSpec keeps in the data directory (a SQLite installation's defaults)
KEPT = [
    "audit-spool.jsonl",
    "audit-spool.quarantine.jsonl",
    "audit-spool.key",
    "lexspec.db.checkpoints.jsonl",
    "lexspec.db.audit-key",
    "lexspec.db.migrate.lock",
    "lexspec.db-wal",
    "lexspec.db-shm",
    "lexspec.db-journal",
    "active_endpoint.json",
]
COMMANDS = [
    ["user", "list"],
    ["user", "add", "bob", "--role", "reviewer", "--password", "long enough"],
    ["audit", "verify"],
]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def installation(
    make_context: MakeContext, tmp_path: Path, migrated_templates: MigratedTemplates
) -> tuple[Context, Path]:
    """A SQLite installation with an account, a chain and a checkpoint, and no process open
    (its database starts as a copy of the migrated template: the first start is not under test)."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    migrated_templates.copy_into(f"sqlite:///{data / 'lexspec.db'}")
    ctx = make_context(lang="en", data_dir=data)
    argv = ["user", "add", "alice", "--role", "drafter", "--password", "long enough"]
    assert main(argv, context=ctx) == 0
    database.reset()
    return ctx, tmp_path / "data"


def _names(db: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return [name for (name,) in conn.execute("SELECT name FROM users ORDER BY id")]


def _run(argv: list[str], ctx: Context, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv, context=ctx)
    finally:
        database.reset()
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name", KEPT)
@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_attack_a_link_in_the_data_folder_writes_nothing_through_it(
    name: str,
    link: str,
    installation: tuple[Context, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The file linked to is a copy of the database (another client's data, say): LexSpec's own
    writes to its database must not hide a write through the link."""
    ctx, data = installation
    victim = tmp_path / "victim.db"
    victim.write_bytes((data / "lexspec.db").read_bytes())
    before = _digest(victim)
    planted = data / name
    planted.unlink(missing_ok=True)
    if link == "symbolic":
        planted.symlink_to(victim)
    else:
        os.link(victim, planted)
    capsys.readouterr()
    for argv in COMMANDS:
        code, err = _run(argv, ctx, capsys)
        assert "Traceback" not in err, (argv, err)
        if code == 2:  # refused: one line naming the path
            assert len(err.strip().splitlines()) == 1 and str(planted) in err, (argv, err)
        else:
            assert code in (0, 1), (argv, code, err)
    assert _digest(victim) == before
    assert planted.is_symlink() if link == "symbolic" else planted.stat().st_nlink == 2
    planted.unlink()
    assert _names(data / "lexspec.db")[:1] == ["alice"]  # every row is still there


def test_attack_the_issues_spool_link_then_any_command(tmp_path: Path) -> None:
    """The issue's sequence, through the real entry point: the database keeps its users, and
    verify names the link in one line and exits 1."""
    data = tmp_path / "data"
    env = {"LEXSPEC_DATA_DIR": str(data), "LEXSPEC_LANG": "en"}
    added = run_lexspec(
        "user", "add", "alice", "--role", "drafter", "--password", "long enough", env=env
    )
    assert added.returncode == 0, added.stderr
    before = _digest(data / "lexspec.db")
    (data / "audit-spool.jsonl").symlink_to(data / "lexspec.db")
    listed = run_lexspec("user", "list", env=env)
    assert listed.returncode == 0 and "alice" in listed.stdout, listed.stderr
    assert "Traceback" not in listed.stderr
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    refusals = [line for line in verified.stderr.splitlines() if "symbolic link" in line]
    assert refusals and all(str(data / "audit-spool.jsonl") in line for line in refusals)
    assert _digest(data / "lexspec.db") == before  # nothing written: not even the WAL moved it
    assert _names(data / "lexspec.db") == ["alice"]


def test_attack_a_link_at_the_database_itself_is_refused(
    make_context: MakeContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("a client's file\n", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "lexspec.db").symlink_to(elsewhere)
    code, err = _run(["user", "list"], make_context(lang="en", data_dir=data), capsys)
    assert code == 2 and str(data / "lexspec.db") in err and len(err.strip().splitlines()) == 1
    assert elsewhere.read_text(encoding="utf-8") == "a client's file\n"


def test_attack_a_link_at_the_session_key_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.key"
    real.write_text("00" * 32 + "\n", encoding="ascii")
    link = tmp_path / "session.key"
    link.symlink_to(real)
    with pytest.raises(UnsafePath) as refused:
        sessions.session_key(link)
    assert str(link) in refused.value.message_en
    assert real.read_text(encoding="ascii") == "00" * 32 + "\n"


@pytest.mark.parametrize(
    "write",
    [
        lambda out: ["export", "IN", "--out", str(out)],
        lambda out: [
            "clauses",
            "export",
            "--type",
            "cross-border-filing-guide",
            "--file",
            str(out),
        ],
    ],
    ids=["export", "clauses-export"],
)
def test_attack_an_output_path_that_is_a_link_is_refused(
    write: Callable[[Path], list[str]],
    installation: tuple[Context, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A draft, an export or a report is never written through a link (the file linked to
    keeps its bytes); what LexSpec does write is 0600."""
    ctx, data = installation
    source = tmp_path / "draft.md"
    source.write_text("一、总则\n本协议适用于数据出境。\n", encoding="utf-8")
    victim = data / "lexspec.db"
    before = _digest(victim)
    out = tmp_path / "out.docx"
    out.symlink_to(victim)
    argv = [str(source) if a == "IN" else a for a in write(out)]
    code, err = _run(argv, ctx, capsys)
    assert code == 2 and str(out) in err and "Traceback" not in err, err
    assert _digest(victim) == before
    out.unlink()
    assert _run(argv, ctx, capsys)[0] == 0
    assert out.stat().st_mode & 0o777 == 0o600


def test_a_file_replaced_whole_is_never_half_written_nor_shared(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "report.json"
    write_private(target, b"{}")
    target.chmod(0o644)
    write_private(target, b'{"a": 1}')
    assert target.read_bytes() == b'{"a": 1}' and target.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]  # no temp left
