"""Standing attacker suite: the audit log (SQLite and PostgreSQL, real files, the real CLI).

Each test names the attack (database access, file access) and what must hold. Issue 31:
a change made in the database was absorbed by the next account event; a hand-written spool
line was replayed as a genuine generation; one spooled record with a NUL blocked the whole
replay on PostgreSQL. docs/architecture.md ("What the audit log guarantees") states what
each attacker can still do; the tests here check each of those claims.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import SignInError, sign_in
from app.drafting.recording import keep
from audit import store, users
from audit.spool import SPOOL_FILE, Spool
from audit.spool import mac as spool_mac
from audit.storable import REPLACEMENT
from audit.vocabulary import EventKind
from tests.conftest import app_context
from tests.integration.test_account_coverage import _accounts, _faults
from tests.integration.test_audit_faults import app_settings, logged_texts, outcome, use_database
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
__all__ = ["app_settings"]


def _role_to_admin(engine: Engine) -> int:
    """The attack of issue 31, item 1: promote alice in the database, outside LexSpec."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE users SET role = 'admin' WHERE name = 'alice'"))
        return int(conn.execute(text("SELECT id FROM users WHERE name = 'alice'")).scalar_one())


ACCOUNT_EVENTS = {
    "reset-password": lambda s: users.reset_password("alice", session=s, actor="root"),
    "set-role": lambda s: users.set_role("alice", "drafter", session=s, actor="root"),
    "disable": lambda s: users.set_disabled("alice", True, session=s, actor="root"),
    "change-password": lambda s: users.change_password("alice", "new horse 1", "x" * 12, session=s),
}


def _alice_with_password(factory: sessionmaker[Session]) -> None:
    _accounts(factory)  # ends with alice holding a one-time password
    with factory.begin() as session:
        users.set_role("alice", "reviewer", session=session, actor="root")
    with factory.begin() as session:  # a known password for alice, through LexSpec
        row_password = users.reset_password("alice", session=session, actor="root")
    with factory.begin() as session:
        users.change_password("alice", row_password, "new horse 1", session=session)


@pytest.mark.parametrize("event", sorted(ACCOUNT_EVENTS))
def test_attack_db_role_change_is_not_absorbed_by_the_next_account_event(
    event: str, db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Database attacker: `UPDATE users SET role='admin'`, then an ordinary account event.
    Must hold: the event is refused (AccountChanged, nothing chained) and verify keeps
    reporting the row."""
    _alice_with_password(db_session_factory)
    alice_id = _role_to_admin(db_engine)
    with db_session_factory() as session:
        before = store.chain_head(session=session)
    with db_session_factory.begin() as session, pytest.raises(users.AccountChanged) as refused:
        ACCOUNT_EVENTS[event](session)
    assert "changed outside LexSpec" in refused.value.message_en
    with db_session_factory() as session:
        assert store.chain_head(session=session) == before  # nothing chained
    assert [(f.table, f.id) for f in _faults(db_session_factory)] == [("users", alice_id)]


def test_attack_db_role_change_does_not_sign_in_nor_rehash(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Database attacker promotes alice; alice signs in with her right password, with argon2
    parameters that would rehash. Must hold: no sign-in as admin, no rehash event, still
    reported."""
    _alice_with_password(db_session_factory)
    alice_id = _role_to_admin(db_engine)
    previous = users.use_password_hasher(PasswordHasher())  # stronger: a rehash is due
    try:
        with db_session_factory() as session, pytest.raises(SignInError) as refused:
            sign_in("alice", "new horse 1", session=session)
            session.commit()
    finally:
        users.use_password_hasher(previous)
    assert "changed outside LexSpec" in refused.value.message_en
    with db_session_factory() as session:
        kinds = {e.kind for e in store.list_events(session=session)}
    assert "user.password_rehashed" not in kinds
    assert [(f.table, f.id) for f in _faults(db_session_factory)] == [("users", alice_id)]


def test_attack_db_role_change_then_cli_reset_exits_1_and_verify_still_reports(
    db_url: str, db_engine: Engine, db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """The issue's sequence through the real CLI. Must hold: `user reset-password` refuses in
    one line (exit 1, no traceback); `audit verify` exits 1 naming the row, before and after."""
    _accounts(db_session_factory)
    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    alice_id = _role_to_admin(db_engine)
    reset = run_lexspec("user", "reset-password", "alice", env=env)
    assert reset.returncode == 1 and "Traceback" not in reset.stderr, reset.stderr
    assert len(reset.stderr.strip().splitlines()) == 1 and "changed outside" in reset.stderr
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 1
    assert f"users id={alice_id}: changed outside LexSpec" in verified.stderr, verified.stderr


# --- the spool: file attackers --------------------------------------------------------------


def _forged(key: bytes | None, **overrides: object) -> bytes:
    record = {**json.loads(json.dumps(make_record().__dict__, default=list)), **overrides}
    line: dict[str, object] = {"spooled_at": "2026-12-01T00:00:00+00:00", "record": record}
    if key is not None:
        line["mac"] = spool_mac(key, line)
    return json.dumps(line, ensure_ascii=False).encode()


def test_attack_forged_spool_lines_are_quarantined_never_replayed(
    db_url: str,
    db_engine: Engine,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """File attacker (cannot read the spool key) appends lines: hand-written (no MAC), signed
    with a key of their own, and a genuine line with its user changed. Must hold: none is
    replayed, each is quarantined with its reason, the genuine lines and later drafts go in,
    and verify reports the quarantine."""
    use_database(db_url, monkeypatch)
    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.append(make_record(output_text="真的一"))
    genuine = spool.path.read_bytes().rstrip(b"\n")
    edited = genuine.replace(b'"user_name": "alice"', b'"user_name": "root"')
    assert edited != genuine
    forged = [
        _forged(None, output_text="伪造一", user_name="root"),
        _forged(b"k" * 32, output_text="伪造二", user_name="root"),
        edited,
    ]
    with spool.path.open("ab") as handle:
        handle.write(b"\n".join(forged) + b"\n")
    spool.append(make_record(output_text="真的二"))

    kept = keep(outcome("新的"), user_name="alice", ctx=app_context())
    assert kept.generation_id is not None and kept.problem is None, kept.problem
    assert logged_texts(db_url) == ["真的一", "真的二", "新的"]
    entries = spool.quarantine_entries()
    assert [e.raw for e in entries] == forged
    assert [e.reason.split(":")[0] for e in entries] == [
        "no MAC",
        "MAC does not verify",
        "MAC does not verify",
    ]
    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 1 and "3 unreadable spool line(s)" in verified.stderr
    assert "1 × no MAC: not written by LexSpec" in verified.stderr, verified.stderr


def test_attack_a_replaced_spool_key_quarantines_lines_not_replays_them(
    db_url: str,
    db_engine: Engine,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """File attacker swaps the spool key for one they know, then writes lines with it. Must
    hold: the lines spooled under the old key are quarantined (not lost, not replayed) — the
    MAC cannot tell the attacker's lines from the genuine ones, so none of them is trusted."""
    use_database(db_url, monkeypatch)
    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.append(make_record(output_text="原密钥下"))
    spool.key_path.write_text("00" * 32 + "\n", encoding="ascii")  # the attacker's key
    with spool.path.open("ab") as handle:
        handle.write(_forged(bytes(32), output_text="伪造") + b"\n")
    keep(outcome("新的"), user_name="alice", ctx=app_context())
    texts = logged_texts(db_url)
    assert "原密钥下" not in texts and len(spool.quarantine_entries()) == 1
    assert "伪造" in texts  # documented: whoever holds the key can forge a line


# --- one bad record never stops the log -----------------------------------------------------

NUL_TEXT = "第一条\x00第二条"


def test_attack_a_nul_in_a_spooled_record_blocks_nothing(
    db_url: str,
    db_engine: Engine,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model output, a form value (key and value) and a user prompt holding NUL wait in the
    spool between good records. Must hold: all go in, in order, the NUL stored as U+FFFD on
    both backends, and the chain verifies (the hash covers what the database holds)."""
    use_database(db_url, monkeypatch)
    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.append(make_record(output_text="之前"))
    spool.append(
        make_record(
            output_text=NUL_TEXT,
            user_prompt="提示\x00",
            field_values={"company\x00": "某某\x00公司"},
        )
    )
    spool.append(make_record(output_text="之后"))
    kept = keep(outcome("新的\x00一份"), user_name="alice", ctx=app_context())
    assert kept.generation_id is not None and kept.problem is None, kept.problem
    stored = NUL_TEXT.replace("\x00", REPLACEMENT)
    assert logged_texts(db_url) == ["之前", stored, "之后", f"新的{REPLACEMENT}一份"]
    assert spool.pending() == 0 and spool.quarantined() == 0


def test_nul_in_events_and_revisions_is_stored_alike(
    db_session_factory: sessionmaker[Session],
) -> None:
    """NUL in an event payload and in a saved revision's text (typed by a user). Must hold: the
    write succeeds on both backends and the chain verifies."""
    from audit.revisions import append_revision, list_revisions

    with db_session_factory.begin() as session:
        logged = store.log_generation(make_record(output_text="原文"), session=session)
        store.append_event(
            session=session,
            actor="a\x00",
            kind=EventKind.ENDPOINT_SWITCH,
            payload={"k\x00": ["v\x00"]},
        )
    with db_session_factory.begin() as session:
        append_revision(logged.id, "改后\x00的文本", session=session, user_name="alice", base=0)
    with db_session_factory() as session:
        assert store.verify_chain(session=session).ok
        event = store.list_events(session=session, kind=EventKind.ENDPOINT_SWITCH)[0]
        assert list_revisions(logged.id, session=session)[-1].text == f"改后{REPLACEMENT}的文本"
    assert event.actor == f"a{REPLACEMENT}" and event.payload == {
        f"k{REPLACEMENT}": [f"v{REPLACEMENT}"]
    }


def test_a_record_the_database_refuses_at_replay_is_set_aside_and_the_rest_go_in(
    db_url: str,
    db_engine: Engine,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A spooled record with a token count beyond PostgreSQL's 32-bit integer column (SQLite
    would keep 64 bits) sits between good ones. Must hold: it is set aside with the reason,
    on every backend alike (the log's range, audit.store.record_values, issue 37), the rest go
    in, in order; nothing waits."""
    use_database(db_url, monkeypatch)
    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.append(make_record(output_text="之前"))
    spool.append(make_record(output_text="太大", prompt_tokens=2**40))
    spool.append(make_record(output_text="之后"))
    kept = keep(outcome("新的"), user_name="alice", ctx=app_context())
    assert kept.generation_id is not None and kept.problem is None, kept.problem
    texts = logged_texts(db_url)
    assert spool.pending() == 0
    assert texts == ["之前", "之后", "新的"]
    [entry] = spool.quarantine_entries()
    assert json.loads(entry.raw)["record"]["output_text"] == "太大"
    assert "prompt_tokens is not a count" in entry.reason


def test_what_a_file_attacker_can_still_do_with_genuine_lines(
    db_url: str,
    db_engine: Engine,
    app_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """File attacker without the key copies a genuine spool line and deletes another spool's
    content. Documented, not prevented (docs/architecture.md): a copy replays once per copy,
    and a deleted spool's records are lost with nothing left to report them."""
    use_database(db_url, monkeypatch)
    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.append(make_record(output_text="复制的"))
    line = spool.path.read_bytes()
    spool.path.write_bytes(line + line)
    keep(outcome("新的"), user_name="alice", ctx=app_context())
    assert logged_texts(db_url) == ["复制的", "复制的", "新的"]
    spool.append(make_record(output_text="被删的"))
    spool.path.write_bytes(b"")
    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 0, verified.stderr  # nothing says "被删的" ever existed
    assert "被删的" not in logged_texts(db_url)
