"""User accounts: argon2 password hashes, roles, the first-run admin.

Every account change (creation, role, disabling, password, signing out, which raises the
credential version) is appended to the audit chain as an event that carries the digest of
the account row after it (audit.coverage), so a change made directly in the database is
caught by `lexspec audit verify`; an account that differs from its last chained digest is
neither signed in nor changed (AccountChanged), so no later event absorbs the difference;
only signing out still ends its sessions, unchained. Authentication costs one argon2
verification whether or not the user exists, so response time does not reveal which names
are registered.
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import case, exc, func, or_, select
from sqlalchemy.orm import Session

from audit.coverage import CoveredRowChanged, check_unchanged, covers
from audit.domain import BilingualError, User
from audit.models import User as UserRow
from audit.models import fold_name
from audit.store import append_event
from audit.vocabulary import EventKind, Role

FIRST_ADMIN_NAME = "admin"
MIN_PASSWORD_LENGTH = 8
MAX_NAME_LENGTH = 64
MAX_NAME_KEY_LENGTH = 80  # the folded name's column (NFKC can lengthen a name)


class UserError(BilingualError, ValueError):
    """Bad input or a refused account operation, with a message in both languages."""

    def __init__(self, code: str, message_zh: str, message_en: str) -> None:
        super().__init__(message_zh, message_en)
        self.code = code


class AccountChanged(UserError):
    """The account row differs from what the audit chain last recorded (changed in the
    database, outside LexSpec): no change is made to it and it cannot sign in, so no new
    event absorbs the difference; `lexspec audit verify` keeps reporting it."""

    def __init__(self, cause: CoveredRowChanged) -> None:
        super().__init__("changed_outside", cause.bilingual.zh, cause.bilingual.en)


def _guard(row: UserRow, *, session: Session) -> None:
    """Refuse to act on an account changed outside LexSpec (audit.coverage.check_unchanged)."""
    try:
        check_unchanged("users", row.id, session=session)
    except CoveredRowChanged as exc:
        raise AccountChanged(exc) from None


class _Hashing:
    """The password hasher in use and a hash of a random secret made with the same parameters."""

    def __init__(self, hasher: PasswordHasher) -> None:
        self.hasher = hasher
        self._dummy: str | None = None

    @property
    def dummy(self) -> str:
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_hex(16))
        return self._dummy


_hashing = _Hashing(PasswordHasher())  # argon2id, RFC 9106 low-memory profile


def use_password_hasher(hasher: PasswordHasher) -> PasswordHasher:
    """Swap the argon2 parameters (tests use cheap ones); returns the previous hasher."""
    global _hashing
    previous, _hashing = _hashing.hasher, _Hashing(hasher)
    return previous


def _hasher() -> PasswordHasher:
    return _hashing.hasher


def _dummy_hash() -> str:
    return _hashing.dummy


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _domain(row: UserRow) -> User:
    return User(
        row.id,
        row.name,
        row.role,
        row.must_change_password,
        row.created_at.replace(tzinfo=UTC),
        disabled=bool(row.disabled),
        credential_version=int(row.credential_version or 0),
    )


def name_key(name: str) -> str:
    """The name as compared for uniqueness and sign-in: NFKC-normalised and case-folded."""
    return fold_name(name)


def generate_password() -> str:
    """A random one-time password (16 URL-safe characters)."""
    return secrets.token_urlsafe(12)


def check_name(name: str) -> str:
    cleaned = name.strip()
    too_long = len(cleaned) > MAX_NAME_LENGTH or len(name_key(cleaned)) > MAX_NAME_KEY_LENGTH
    if not cleaned or too_long or any(_unprintable(c) for c in cleaned):
        raise UserError(
            "bad_name",
            f"用户名须为 1–{MAX_NAME_LENGTH} 个字符，不含空格或控制字符",
            f"A user name must be 1–{MAX_NAME_LENGTH} characters with no spaces or control characters",
        )
    return cleaned


def _unprintable(char: str) -> bool:
    """Spaces and control, format (zero-width), surrogate or unassigned characters."""
    return char.isspace() or unicodedata.category(char).startswith("C")


def check_role(role: str) -> Role:
    if role not in list(Role):
        raise UserError(
            "bad_role",
            f"未知角色 {role!r}，可选：{', '.join(Role)}",
            f"Unknown role {role!r}; choose one of: {', '.join(Role)}",
        )
    return Role(role)


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(
            "weak_password",
            f"密码至少需要 {MIN_PASSWORD_LENGTH} 个字符",
            f"A password needs at least {MIN_PASSWORD_LENGTH} characters",
        )
    return password


def _row(name: str, *, session: Session) -> UserRow | None:
    """The account called `name`, compared regardless of case (an exact spelling first: names
    that differed only in case before migration 0003 keep their own accounts)."""
    query = (
        select(UserRow)
        .where(or_(UserRow.name == name, UserRow.name_key == name_key(name)))
        .order_by(case((UserRow.name == name, 0), else_=1))
        .limit(1)
    )
    return session.scalars(query).first()


def create_user(
    name: str,
    role: str,
    password: str,
    *,
    session: Session,
    must_change_password: bool = False,
    actor: str = "system",
) -> User:
    """Create an account; raises UserError for a bad name, role or password, or a taken name."""
    name, role = check_name(name), check_role(role)
    check_password(password)
    taken = UserError("name_taken", f"用户名 {name} 已存在", f"The user name {name} is taken")
    if _row(name, session=session) is not None:
        raise taken
    row = UserRow(
        name=name,
        name_key=name_key(name),
        role=role,
        password_hash=_hasher().hash(password),
        must_change_password=must_change_password,
        created_at=_now(),
    )
    try:
        with session.begin_nested():
            session.add(row)
    except exc.IntegrityError:
        raise taken from None
    _chain(row, EventKind.USER_CREATED, session=session, actor=actor, role=role)
    return _domain(row)


def authenticate(name: str, password: str, *, session: Session) -> User | None:
    """The user when the password matches and the account is enabled, else None (same cost
    for unknown names)."""
    row = _row(name.strip(), session=session)
    if row is None:
        _verify(_dummy_hash(), password)
        return None
    if not _verify(row.password_hash, password) or row.disabled:
        return None
    _guard(row, session=session)  # a role or hash set in the database does not sign in
    if _hasher().check_needs_rehash(row.password_hash):
        row.password_hash = _hasher().hash(password)
        _chain(row, EventKind.USER_PASSWORD_REHASHED, session=session, actor=row.name)
    return _domain(row)


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def change_password(name: str, old_password: str, new_password: str, *, session: Session) -> User:
    """Set a new password after checking the old one; clears must_change_password."""
    row = _row(name, session=session)
    if row is None or not _verify(row.password_hash, old_password):
        raise UserError("bad_credentials", "原密码不正确", "The current password is wrong")
    _guard(row, session=session)
    check_password(new_password)
    if new_password == old_password:
        raise UserError("same_password", "新密码不能与原密码相同", "The new password must differ")
    row.password_hash = _hasher().hash(new_password)
    row.must_change_password = False
    row.password_changed_at = _now()
    _end_sessions(row)
    _chain(row, EventKind.USER_PASSWORD_CHANGED, session=session, actor=name)
    return _domain(row)


def reset_password(name: str, *, session: Session, actor: str = "system") -> str:
    """Give `name` a new one-time password (returned) that must be changed at next sign-in."""
    row = _row(name, session=session)
    if row is None:
        raise UserError("unknown_user", f"没有用户 {name}", f"No user named {name}")
    _guard(row, session=session)
    password = generate_password()
    row.password_hash = _hasher().hash(password)
    row.must_change_password = True
    row.password_changed_at = _now()
    _end_sessions(row)
    _chain(row, EventKind.USER_PASSWORD_RESET, session=session, actor=actor)
    return password


def set_disabled(name: str, disabled: bool, *, session: Session, actor: str) -> User:
    """Disable an account (it can no longer sign in) or enable it again; an admin cannot
    disable their own account (so there is always someone to undo it)."""
    row = _row(name, session=session)
    if row is None:
        raise UserError("unknown_user", f"没有用户 {name}", f"No user named {name}")
    if disabled and name_key(row.name) == name_key(actor):
        raise UserError("disable_self", "不能停用自己的账户", "You cannot disable your own account")
    _guard(row, session=session)
    row.disabled = disabled
    _end_sessions(row)
    kind = EventKind.USER_DISABLED if disabled else EventKind.USER_ENABLED
    _chain(row, kind, session=session, actor=actor)
    return _domain(row)


def set_role(name: str, role: str, *, session: Session, actor: str) -> User:
    """Give `name` another role; an admin cannot demote themselves (someone must stay admin)."""
    role = check_role(role)
    row = _row(name, session=session)
    if row is None:
        raise UserError("unknown_user", f"没有用户 {name}", f"No user named {name}")
    if role != Role.ADMIN and row.role == Role.ADMIN and name_key(row.name) == name_key(actor):
        raise UserError("demote_self", "不能取消自己的管理员角色", "You cannot demote yourself")
    _guard(row, session=session)
    previous, row.role = row.role, role
    _chain(
        row, EventKind.USER_ROLE_CHANGED, session=session, actor=actor, role=role, previous=previous
    )
    return _domain(row)


def _chain(row: UserRow, kind: EventKind, *, session: Session, actor: str, **details: str) -> None:
    """Append the account change to the chain, with the digest of the row as it now stands
    (audit.coverage: `lexspec audit verify` catches any later change made outside LexSpec)."""
    session.flush()
    payload = {"name": row.name, **details, "covers": [covers("users", row.id, session=session)]}
    append_event(session=session, actor=actor, kind=kind, payload=payload)


def _end_sessions(row: UserRow) -> None:
    """Raise the account's credential version: every session made for an older one ends."""
    row.credential_version = int(row.credential_version or 0) + 1


def end_sessions(user_id: int, *, session: Session) -> User | None:
    """Sign the account out everywhere (its open browser sessions and session tokens), acting
    as its user. The raised version is chained (audit.coverage: lowering it in the database
    would revive the ended sessions), except on an account changed outside LexSpec: its
    sessions still end, but no event absorbs the outside change (verify keeps reporting it)."""
    row = session.get(UserRow, user_id)
    if row is None:
        return None
    outside = changed_outside(user_id, session=session)
    _end_sessions(row)
    if outside:
        session.flush()
    else:
        _chain(row, EventKind.USER_SIGNED_OUT, session=session, actor=row.name)
    return _domain(row)


def changed_outside(user_id: int, *, session: Session) -> bool:
    """Whether the account differs from what the audit chain last recorded for it (changed in
    the database, outside LexSpec): a session whose role moved that way ends."""
    try:
        check_unchanged("users", user_id, session=session)
    except CoveredRowChanged:
        return True
    return False


def get_user_by_id(user_id: int, *, session: Session) -> User | None:
    """The account as it is now (a page run re-reads it: disabled, role, credentials)."""
    row = session.get(UserRow, user_id)
    return None if row is None else _domain(row)


def get_user(name: str, *, session: Session) -> User | None:
    row = _row(name, session=session)
    return None if row is None else _domain(row)


def list_users(*, session: Session) -> list[User]:
    return [_domain(row) for row in session.scalars(select(UserRow).order_by(UserRow.name))]


def ensure_first_admin(*, session: Session) -> str | None:
    """On first run (no admin yet) create user "admin" with a one-time password that must be
    changed at first sign-in; return that password, else None (also when the name "admin" is
    already taken by a non-admin: then add an admin with `lexspec user add NAME --role admin`)."""
    admins = session.scalar(select(func.count(UserRow.id)).where(UserRow.role == Role.ADMIN))
    if admins or _row(FIRST_ADMIN_NAME, session=session) is not None:
        return None
    password = generate_password()
    try:
        create_user(
            FIRST_ADMIN_NAME, Role.ADMIN, password, session=session, must_change_password=True
        )
    except UserError:
        return None  # another process created it at the same moment
    return password
