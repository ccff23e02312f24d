"""Accounts, roles, sign-in and history visibility on a real database."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import (
    PermissionDenied,
    current_user,
    has_role,
    remember,
    require_role,
    sign_out,
)
from app.context import Context
from app.drafting import history
from audit import store, users
from audit.domain import User
from audit.users import UserError
from tests.conftest import MakeContext
from tests.records import make_record
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
REPO = Path(__file__).resolve().parents[2]


def test_create_and_authenticate(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        created = users.create_user("alice", "drafter", "correct horse", session=session)
    with db_session_factory() as session:
        ok = users.authenticate("alice", "correct horse", session=session)
        wrong = users.authenticate("alice", "wrong horse!", session=session)
        unknown = users.authenticate("mallory", "correct horse", session=session)
    assert ok == created and ok.role == "drafter" and not ok.must_change_password
    assert wrong is None and unknown is None


def test_password_is_stored_as_argon2_hash(db_session_factory: sessionmaker[Session]) -> None:
    from audit.models import User as UserRow

    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    with db_session_factory() as session:
        row = session.query(UserRow).one()
    assert row.password_hash.startswith("$argon2id$") and "correct horse" not in row.password_hash


class _RecordingHasher(PasswordHasher):
    """argon2's own hasher, recording the parameters of every hash it verifies."""

    def __init__(self, **parameters: int) -> None:
        super().__init__(**parameters)
        self.verified: list[str] = []

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        text = hash.decode() if isinstance(hash, bytes) else hash
        self.verified.append(text.rsplit("$", 2)[0])  # $argon2id$v=19$m=..,t=..,p=..
        return super().verify(hash, password)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_unknown_user_costs_a_hash_verification(db_session_factory: sessionmaker[Session]) -> None:
    """An unknown name costs the same work as a wrong password (one verification of a hash
    with the same parameters), so response times do not reveal which names exist."""
    hasher = _RecordingHasher(time_cost=2, memory_cost=32768, parallelism=1)
    users.use_password_hasher(hasher)
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    verified = {}
    for name in ("alice", "nobody"):
        hasher.verified.clear()
        with db_session_factory() as session:
            assert users.authenticate(name, "not the password", session=session) is None
        verified[name] = list(hasher.verified)
    assert verified["nobody"] == verified["alice"] == ["$argon2id$v=19$m=32768,t=2,p=1"]


@pytest.mark.parametrize(
    ("name", "role", "password", "code"),
    [
        ("alice", "drafter", "another pass", "name_taken"),
        ("bob", "boss", "long enough", "bad_role"),
        ("bob", "drafter", "short", "weak_password"),
        ("two words", "drafter", "long enough", "bad_name"),
        ("  ", "drafter", "long enough", "bad_name"),
    ],
)
def test_bad_account_input_is_refused(
    db_session_factory: sessionmaker[Session], name: str, role: str, password: str, code: str
) -> None:
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    with db_session_factory() as session, pytest.raises(UserError) as caught:
        users.create_user(name, role, password, session=session)
    assert caught.value.code == code and caught.value.message_zh and caught.value.message_en


def test_first_run_admin_is_created_once(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        password = users.ensure_first_admin(session=session)
    with db_session_factory.begin() as session:
        again = users.ensure_first_admin(session=session)
    assert password is not None and again is None
    with db_session_factory.begin() as session:
        admin = users.authenticate("admin", password, session=session)
        assert admin is not None and admin.role == "admin" and admin.must_change_password
        changed = users.change_password("admin", password, "a new passphrase", session=session)
    assert not changed.must_change_password
    with db_session_factory() as session:
        assert users.authenticate("admin", password, session=session) is None
        assert users.authenticate("admin", "a new passphrase", session=session) is not None
        kinds = [e.kind for e in store.list_events(session=session)]
        assert store.verify_chain(session=session).ok
    assert kinds == ["user.password_changed", "user.created"]


def test_no_first_admin_when_the_name_is_taken(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        users.create_user("admin", "drafter", "correct horse", session=session)
        assert users.ensure_first_admin(session=session) is None
        assert [u.role for u in users.list_users(session=session)] == ["drafter"]


def test_change_password_needs_the_old_one(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", "correct horse", session=session)
    with db_session_factory() as session, pytest.raises(UserError) as caught:
        users.change_password("alice", "wrong horse!", "a new passphrase", session=session)
    assert caught.value.code == "bad_credentials"


def _user(role: str, name: str = "u") -> User:
    from datetime import UTC, datetime

    return User(1, name, role, False, datetime.now(UTC))


@pytest.mark.parametrize(
    ("role", "needed", "allowed"),
    [
        ("drafter", ("drafter",), True),
        ("drafter", ("admin",), False),
        ("reviewer", ("drafter",), False),
        ("reviewer", ("reviewer", "drafter"), True),
        ("admin", ("reviewer",), True),
        ("admin", ("admin",), True),
    ],
)
def test_role_checks(role: str, needed: tuple[str, ...], allowed: bool) -> None:
    user = _user(role)
    assert has_role(user, *needed) is allowed
    if allowed:
        assert require_role(user, *needed) is user
    else:
        with pytest.raises(PermissionDenied) as caught:
            require_role(user, *needed)
        assert caught.value.message("en").startswith("This needs")


def test_nobody_signed_in_is_denied() -> None:
    with pytest.raises(PermissionDenied):
        require_role(None, "drafter")


def test_current_user_helpers_use_the_given_state() -> None:
    state: dict[str, object] = {}
    assert current_user(state) is None
    remember(state, _user("drafter", "alice"))
    assert (user := current_user(state)) is not None and user.name == "alice"
    sign_out(state)
    assert current_user(state) is None


def test_history_visibility(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        mine = store.log_generation(make_record(user_name="alice"), session=session).id
        theirs = store.log_generation(make_record(user_name="bob"), session=session).id
    alice, admin = _user("drafter", "alice"), _user("admin", "root")
    with db_session_factory() as session:
        own = history.search(session=session, actor=alice)
        sneaky = history.search(user_name="bob", session=session, actor=alice)
        everyone = history.search(session=session, actor=admin)
        only_bob = history.search(user_name="bob", session=session, actor=admin)
        assert history.reopen(mine, session=session, actor=alice).record.user_name == "alice"
        assert history.reopen(theirs, session=session, actor=admin).record.user_name == "bob"
        with pytest.raises(PermissionDenied):
            history.reopen(theirs, session=session, actor=alice)
        with pytest.raises(LookupError):
            history.reopen(999, session=session, actor=admin)
    assert [g.id for g in own.items] == [mine] == [g.id for g in sneaky.items]
    assert own.total == 1 and not own.has_more
    assert [g.id for g in everyone.items] == [theirs, mine]
    assert [g.id for g in only_bob.items] == [theirs]


def _cli(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_lexspec(*args, env={"LEXSPEC_DATABASE_URL": db_url})


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_cli_user_commands(db_url: str, db_session_factory: sessionmaker[Session]) -> None:
    given = _cli(db_url, "user", "add", "carol", "--role", "reviewer", "--password", "pass word 1")
    generated = _cli(db_url, "user", "add", "dave", "--role", "drafter")
    taken = _cli(db_url, "user", "add", "dave", "--role", "drafter", "--password", "whatever12")
    listing = _cli(db_url, "user", "list")
    assert given.returncode == 0 and generated.returncode == 0, (given.stderr, generated.stderr)
    password = generated.stdout.strip().splitlines()[-1].split(": ")[-1]
    assert taken.returncode == 1 and "dave" in taken.stderr and "Traceback" not in taken.stderr
    assert "carol" in listing.stdout and "reviewer" in listing.stdout
    with db_session_factory() as session:
        carol = users.authenticate("carol", "pass word 1", session=session)
        dave = users.authenticate("dave", password, session=session)
    assert carol is not None and carol.role == "reviewer" and not carol.must_change_password
    assert dave is not None and dave.must_change_password


def test_cli_db_upgrade_reports_the_revision(tmp_path: Path) -> None:
    result = _cli(f"sqlite:///{tmp_path / 'fresh.db'}", "db", "upgrade")
    assert result.returncode == 0, result.stderr
    assert "(empty) ->" in result.stdout


@pytest.fixture
def app_database(db_url: str, db_engine: object, make_context: MakeContext) -> Context:
    """A context whose Settings name the test database, for the app services."""
    return make_context(database_url=db_url)


def test_app_services_on_the_configured_database(app_database: Context) -> None:
    from app import accounts

    scope = app_database.session
    with scope() as s:
        one_time = accounts.first_run_admin(session=s)
    with scope() as s:
        assert one_time is not None and accounts.first_run_admin(session=s) is None
    with scope() as s:
        admin = accounts.sign_in("admin", one_time, session=s)
    with scope() as s:
        admin = accounts.change_password(one_time, "admin passphrase", session=s, actor=admin)
    with scope() as s:
        drafter, generated = accounts.add_user("erin", "drafter", session=s, actor=admin)
    with scope() as s:
        assert generated is not None
        assert accounts.sign_in("erin", generated, session=s).must_change_password
    with pytest.raises(PermissionDenied), scope() as s:
        accounts.add_user("frank", "admin", "long enough", session=s, actor=drafter)
    with scope() as s:
        assert [u.name for u in accounts.list_users(session=s, actor=admin)] == ["admin", "erin"]
    with scope() as s:
        reset = accounts.reset_user_password("erin", session=s, actor=admin)
    with scope() as s:
        assert accounts.sign_in("erin", reset, session=s).name == "erin"

    with pytest.raises(RuntimeError), scope() as session:
        store.log_generation(make_record(user_name="erin"), session=session)
        raise RuntimeError("rolled back")
    with scope() as session:
        store.log_generation(make_record(user_name="erin"), session=session)
    with scope() as s:
        page = history.search(session=s, actor=drafter)
        reopened = history.reopen(page.items[0].id, session=s, actor=drafter)
    assert page.total == 1 and reopened.record.user_name == "erin"
    with scope() as session:
        assert store.verify_chain(session=session).ok
