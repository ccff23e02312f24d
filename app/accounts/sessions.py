"""Browser sessions: the check every page run makes against the account as it is now, and the
signed, expiring token that lets a reload (or a bookmarked page) find its user again.

A token is `user id . credential version . role . issued-at . created . HMAC-SHA256` under a
secret key kept in a file (0600, created on first start; `Settings.session_key_file`), `created`
being the account's creation time (microseconds since 1970): an account made anew under the
same id (a database re-created or restored, the session key kept) is another account, and an
old token names none of it. It is refused when the signature is wrong, when it is older than
the idle limit (`Settings.session_idle_hours`; the page re-issues it while the user works) or
dated in the future (beyond CLOCK_SKEW_S), and when the account changed since it was issued:
disabled, deleted, a password change or reset, signing out (each raises the account's
credential version, audit.users), another role, or (for a reload) the account row changed
outside LexSpec (the chain covers the credential version, audit.coverage). No streamlit here;
app/pages/session_gate.py keeps the token in a cookie and calls these on every page run.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy.orm import Session

from audit import users
from audit.domain import User
from audit.files import secret_key

KEY_BYTES = 32
CLOCK_SKEW_S = 60.0  # a token dated later than this ahead of now was not issued by this clock
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# why a session ended: the account was disabled or removed, its credentials changed (password,
# sign-out elsewhere, role), it was idle too long, or its token was not ours
SessionEnd = Literal["disabled", "gone", "credentials", "expired", "invalid"]


@dataclass(frozen=True)
class Claims:
    """What a valid token says: whose session, for which credential version and role, since when."""

    user_id: int
    credential_version: int
    role: str
    issued_at: float
    created: int  # the account's creation time, microseconds since 1970 (created_of)


@dataclass(frozen=True)
class Checked:
    """The outcome of a check: the user as the database has them now (None: signed out, and
    `ended` says why); `role_changed` when the session goes on with another role."""

    user: User | None
    ended: SessionEnd | None = None
    role_changed: bool = False


def session_key(path: Path) -> bytes:
    """The secret key in `path`, created (random, mode 0600) when the file does not exist yet."""
    key = secret_key(path, KEY_BYTES)
    if key is None:
        raise ValueError(f"session key file {path} is damaged; delete it to make a new one")
    return key


def _signature(key: bytes, payload: str) -> str:
    digest = hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def created_of(user: User) -> int:
    """The account's creation time as the token carries it: microseconds since 1970, exact."""
    return (user.created_at.astimezone(UTC) - _EPOCH) // timedelta(microseconds=1)


def issue(user: User, *, key: bytes, now: float) -> str:
    """A token for `user`'s session as of `now` (their current credential version and role,
    and the account's creation)."""
    payload = f"{user.id}.{user.credential_version}.{user.role}.{int(now)}.{created_of(user)}"
    return f"{payload}.{_signature(key, payload)}"


def read(token: str, *, key: bytes) -> Claims | None:
    """The claims of a token signed with `key`, else None (forged, altered, garbled)."""
    payload, _, signature = token.strip().rpartition(".")
    if not payload or not hmac.compare_digest(_signature(key, payload), signature):
        return None
    parts = payload.split(".")
    if len(parts) != 5:
        return None
    user_id, version, role, issued, created = parts
    try:
        return Claims(int(user_id), int(version), role, float(issued), int(created))
    except ValueError:
        return None


def _account(user_id: int, version: int, created: int, *, session: Session) -> User | SessionEnd:
    """The account now, or why a session made for credential `version` of the account created
    at `created` no longer holds (another account under the same id: gone)."""
    current = users.get_user_by_id(user_id, session=session)
    if current is None or created_of(current) != created:
        return "gone"
    if current.disabled:
        return "disabled"
    if current.credential_version != version:
        return "credentials"
    return current


def recheck(
    user: User, *, last_seen: float | None, now: float, idle_s: float, session: Session
) -> Checked:
    """The signed-in `user` re-read for this page run: signed out when idle for more than
    `idle_s`, disabled, removed or their credentials changed; their new role (downgraded or
    not) when an admin changed it, signed out when the role was set outside LexSpec."""
    if last_seen is not None and now - last_seen > idle_s:
        return Checked(None, "expired")
    current = _account(user.id, user.credential_version, created_of(user), session=session)
    if isinstance(current, str):
        return Checked(None, current)
    if current.name != user.name:
        return Checked(None, "gone")
    if current.role == user.role:
        return Checked(current)
    if users.changed_outside(current.id, session=session):  # a role set in the database
        return Checked(None, "credentials")
    return Checked(current, role_changed=True)


def restore(token: str, *, key: bytes, now: float, idle_s: float, session: Session) -> Checked:
    """The user a reload's token names, if it is ours, fresh and the account unchanged since,
    and not changed outside LexSpec (a reload signs in again, and sign-in refuses such an
    account: a credential version lowered in the database must not revive a token)."""
    claims = read(token, key=key)
    if claims is None or claims.issued_at > now + CLOCK_SKEW_S:  # from the future: not ours
        return Checked(None, "invalid")
    if now - claims.issued_at > idle_s:
        return Checked(None, "expired")
    current = _account(claims.user_id, claims.credential_version, claims.created, session=session)
    if isinstance(current, str):
        return Checked(None, current)
    if current.role != claims.role or users.changed_outside(current.id, session=session):
        return Checked(None, "credentials")
    return Checked(current)


def end_everywhere(user: User, *, session: Session) -> None:
    """Sign-out: every session and token of this account ends (its credential version rises)."""
    users.end_sessions(user.id, session=session)
