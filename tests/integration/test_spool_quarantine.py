"""An unreadable spool line is moved aside and blocks nothing (real files, real databases).

Issue: one truncated line (`{"record": {"user_name": "half`) made every later draft fail and
lose its record; a line with an unknown field raised TypeError. Now such a line goes,
verbatim, to the quarantine file next to the spool (0600, kept), `lexspec audit verify` and
the Monitor page's service report it, and the other records reach the log in order.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from app.database import spool_status
from app.drafting.recording import keep
from audit.spool import SPOOL_FILE, Spool
from audit.spool import mac as spool_mac
from tests.conftest import app_context
from tests.integration.test_audit_faults import app_settings, logged_texts, outcome, use_database
from tests.page_markdown import shown
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration
__all__ = ["app_settings"]  # the fixture, shared with test_audit_faults

TRUNCATED = b'{"record": {"user_name": "half'


def _line(key: bytes | None = None, **record_overrides: object) -> bytes:
    """A spool line as Spool.append writes it (MAC'd with `key`), with fields changed or added."""
    record = {**json.loads(json.dumps(make_record().__dict__, default=list)), **record_overrides}
    line: dict[str, object] = {"spooled_at": "2026-12-01T00:00:00+00:00", "record": record}
    if key is not None:
        line["mac"] = spool_mac(key, line)
    return json.dumps(line).encode()


# each bad line is signed with the spool key, so it is refused for its own reason
BAD_LINES: dict[str, Callable[[bytes], bytes]] = {
    "truncated JSON": lambda key: TRUNCATED,
    "not UTF-8": lambda key: b'{"record": "\xff\xfe"}',
    "unknown field": lambda key: _line(key, output_text="unknown", colour="blue"),
    "missing field": lambda key: _signed(key, {"record": {"user_name": "alice"}}),
    "wrong type": lambda key: _line(key, output_text="wrong", completion_tokens="many"),
    "bool for a number": lambda key: _line(key, output_text="wrong", total_s=True),
    "unknown status": lambda key: _line(key, output_text="wrong", status="done"),
    "not a mapping": lambda key: _line(key, output_text="wrong", field_values=["a", "b"]),
    "too long for its column": lambda key: _line(key, output_text="wrong", user_name="x" * 65),
    "no record": lambda key: _signed(key, {"spooled_at": "2026-12-01"}),
    "no MAC (hand-written)": lambda key: _line(None, output_text="forged"),
}


def _signed(key: bytes, line: dict[str, object]) -> bytes:
    return json.dumps({**line, "mac": spool_mac(key, line)}).encode()


def _spool(tmp_path: Path) -> Spool:
    return Spool(tmp_path / "data" / SPOOL_FILE)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_line_is_quarantined_and_the_rest_replays_in_order(
    case: str,
    db_url: str,
    db_engine: object,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_database(db_url, monkeypatch)
    spool = _spool(tmp_path)
    key = spool.key()
    before = _line(key, output_text="暂存一")
    after = _line(key, output_text="暂存二")
    bad = BAD_LINES[case](key)
    spool.path.write_bytes(before + b"\n" + bad + b"\n" + after + b"\n")

    kept = keep(
        outcome("新的一份"), user_name="alice", ctx=app_context()
    )  # what `lexspec draft` and the page call
    assert kept.generation_id is not None and kept.problem is None, kept.problem
    assert logged_texts(db_url) == ["暂存一", "暂存二", "新的一份"]
    assert spool.pending() == 0
    [entry] = spool.quarantine_entries()
    assert entry.raw == bad and entry.reason  # verbatim, kept, with why
    assert _mode(spool.quarantine_path) == 0o600
    status = spool_status(app_context().settings)  # what the Monitor page shows
    assert (status.pending, status.quarantined) == (0, 1)
    assert status.quarantine_path == spool.quarantine_path


def test_a_line_cut_short_at_the_end_does_not_swallow_the_next(
    db_url: str, db_engine: object, app_settings: None, tmp_path: Path
) -> None:
    spool = _spool(tmp_path)
    spool.path.parent.mkdir(parents=True)
    spool.path.write_bytes(TRUNCATED)  # a crash mid-write: no newline
    spool.append(make_record(output_text="之后的"))
    with spool.draining() as waiting:
        assert [r.output_text for r in waiting] == ["之后的"]
    assert [e.raw for e in spool.quarantine_entries()] == [TRUNCATED]
    assert spool.pending() == 0


def test_start_replays_around_a_bad_line_and_verify_reports_it(
    db_url: str, db_engine: object, tmp_path: Path
) -> None:
    """The first use of the database (here: `lexspec audit verify`) replays the spool too."""
    spool = _spool(tmp_path)
    spool.append(make_record(output_text="暂存的"))
    with spool.path.open("ab") as handle:
        handle.write(TRUNCATED + b"\n")
    env = {"LEXSPEC_DATA_DIR": str(tmp_path / "data"), "LEXSPEC_DATABASE_URL": db_url}
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    assert "1 unreadable spool line(s) moved to the quarantine file" in verified.stderr
    assert str(spool.quarantine_path) in verified.stderr
    assert "1 rows checked" in verified.stdout
    assert logged_texts(db_url) == ["暂存的"]
    again = run_lexspec("audit", "verify", env=env)  # kept, and still reported
    assert again.returncode == 1 and "quarantine" in again.stderr
    assert [e.raw for e in spool.quarantine_entries()] == [TRUNCATED]


def test_spool_files_are_private(tmp_path: Path) -> None:
    spool = _spool(tmp_path)
    spool.append(make_record())
    assert _mode(spool.path) == 0o600
    assert _mode(spool.path.parent) == 0o700  # the directory we created


def test_the_monitor_page_shows_the_spool_and_its_quarantine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, audit_db: str
) -> None:
    """The admin's Monitor page (AppTest, real database) reports both, from spool_status()."""
    from tests.integration.test_pages_apptest import (
        DEAD_URL,
        _monitor_page,
        _use,
        make_user,
        page_as,
    )

    _use(monkeypatch, tmp_path, DEAD_URL)
    try:
        admin = make_user("boss", "admin")  # first use of the database: nothing spooled yet
        spool = Spool(tmp_path / SPOOL_FILE)
        spool.path.write_bytes(TRUNCATED + b"\n")
        assert (
            keep(outcome("写入"), user_name="boss", ctx=app_context()).generation_id is not None
        )  # quarantines
        spool.append(make_record(output_text="等待中"))  # as a failed write would leave it
        at = page_as(_monitor_page, admin)
        assert not at.exception
        warnings = [shown(w.value) for w in at.warning]
        errors = [shown(e.value) for e in at.error]
        assert any("1 audit record(s) wait in the spool" in w for w in warnings), warnings
        assert any(
            "1 spool line(s) could not be read back" in e and str(spool.quarantine_path) in e
            for e in errors
        ), errors
    finally:
        from app import database
        from app.config import get_settings

        get_settings.cache_clear()
        database.reset()


def test_a_record_the_log_refuses_is_set_aside_not_lost(
    db_url: str,
    db_engine: object,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_database(db_url, monkeypatch)
    refused = keep(
        outcome("太长的用户名"), user_name="x" * 65, ctx=app_context()
    )  # longer than its column
    assert refused.generation_id is None and refused.problem is not None
    assert "refused" in refused.problem.text("en")
    spool = _spool(tmp_path)
    assert str(spool.quarantine_path) in refused.problem.text("en")
    [entry] = spool.quarantine_entries()
    assert json.loads(entry.raw)["record"]["output_text"] == "太长的用户名"
    assert "longer than 64" in entry.reason
    later = keep(outcome("之后的"), user_name="alice", ctx=app_context())  # blocks nothing
    assert later.generation_id is not None and logged_texts(db_url) == ["之后的"]
