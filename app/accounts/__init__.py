"""Sign-in, role checks and the signed-in user, for pages and commands (no streamlit here).

Role checks live here, not only in the UI: every service that needs a role calls
`require_role`. An admin may do everything; drafters draft, reviewers review.
Failed sign-ins are throttled per user name (a few tries, then a short wait), counted in the
database so that every app process shares the count and concurrent guesses cannot race it.
Like every app service, these take the session (and the acting user) keyword-only and
never commit: the page or command owns `session_scope()`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy.orm import Session

from app.domain import BilingualError, Role
from audit import throttle as attempts
from audit import users
from audit.domain import User
from audit.users import UserError

SESSION_KEY = "lexspec_user"
LIMITS = attempts.Limits()  # the sign-in limits, defined once in audit.throttle


class StateStore(Protocol):
    """Where a browser session keeps its values (st.session_state, or a dict in tests)."""

    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: str, /) -> Any: ...
    def __setitem__(self, key: str, value: Any, /) -> None: ...
    def __delitem__(self, key: str, /) -> None: ...


class PermissionDenied(BilingualError, PermissionError):
    """The user's role does not allow the action."""


class SignInError(BilingualError):
    """Sign-in refused (wrong name or password, or too many tries): one message for both."""


class FailureThrottle:
    """Failed sign-ins per name, counted in the database (audit.throttle): atomic and shared by
    every app process. At most `max_failures` tries per `window_s` reach the password check
    (however many arrive at once); after that one more per `lockout_s`."""

    def __init__(
        self,
        max_failures: int = LIMITS.max_failures,
        window_s: float = LIMITS.window_s,
        lockout_s: float = LIMITS.lockout_s,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limits = attempts.Limits(max_failures, window_s, lockout_s)
        self._clock = clock

    def reserve(self, name: str, *, session: Session) -> float:
        """Claim one try for `name`: 0 when allowed now, else the seconds to wait."""
        return attempts.reserve(name, session=session, limits=self.limits, now=self._clock())

    def succeeded(self, name: str, *, session: Session) -> None:
        attempts.clear(name, session=session)


THROTTLE = FailureThrottle()


def sign_in(
    name: str,
    password: str,
    *,
    session: Session,
    throttle: FailureThrottle = THROTTLE,
) -> User:
    """The user for a correct name and password of an enabled account; SignInError otherwise.
    Pass a session that has not begun yet: the throttle commits its count first, on its own.
    A name longer than any account's is refused before the throttle, so it adds no row."""
    key = users.name_key(name.strip())
    if len(name.strip()) > users.MAX_NAME_LENGTH or len(key) > users.MAX_NAME_KEY_LENGTH:
        raise SignInError("用户名或密码不正确", "Wrong user name or password")
    wait = throttle.reserve(key, session=session)  # atomic: at most the limit get past here
    if wait > 0:
        raise SignInError(
            f"尝试次数过多，请 {wait:.0f} 秒后再试", f"Too many attempts; try again in {wait:.0f} s"
        )
    try:
        user = users.authenticate(name, password, session=session)
    except users.AccountChanged as exc:  # the right password, but a row changed outside LexSpec
        raise SignInError(exc.message_zh, exc.message_en) from None
    if user is None:  # the reserved try stays counted as a failure
        raise SignInError("用户名或密码不正确", "Wrong user name or password")
    throttle.succeeded(key, session=session)
    return user


def has_role(user: User | None, *roles: Role) -> bool:
    """True when the user holds one of `roles` (admins hold every role)."""
    unknown = set(roles) - set(Role)
    if unknown:
        raise ValueError(f"unknown roles {sorted(unknown)}")
    return user is not None and (user.role == Role.ADMIN or user.role in roles)


def require_role(user: User | None, *roles: Role) -> User:
    """Return the user when allowed, else raise PermissionDenied (also when nobody signed in)."""
    if user is None:
        raise PermissionDenied("请先登录", "Please sign in first")
    if not has_role(user, *roles):
        wanted = ", ".join(roles)
        raise PermissionDenied(
            f"此操作需要以下角色之一：{wanted}（当前：{user.role}）",
            f"This needs one of the roles: {wanted} (you are: {user.role})",
        )
    return user


def can_see_all_history(user: User) -> bool:
    return user.role == Role.ADMIN


def change_password(old_password: str, new_password: str, *, session: Session, actor: User) -> User:
    """Change the signed-in user's own password; raises UserError with a bilingual message."""
    return users.change_password(actor.name, old_password, new_password, session=session)


def first_run_admin(*, session: Session) -> str | None:
    """Create the first admin on a fresh database; its one-time password (print it once), or None."""
    return users.ensure_first_admin(session=session)


def add_user(
    name: str, role: str, password: str | None = None, *, session: Session, actor: User
) -> tuple[User, str | None]:
    """Admin only: create an account; without a password one is generated and returned once.
    Either way the admin knows it, so the user must change it at first sign-in."""
    require_role(actor, Role.ADMIN)
    generated = users.generate_password() if not password else None
    user = users.create_user(
        name,
        role,
        password or generated or "",
        session=session,
        must_change_password=True,
        actor=actor.name,
    )
    return user, generated


def list_users(*, session: Session, actor: User) -> list[User]:
    require_role(actor, Role.ADMIN)
    return users.list_users(session=session)


def reviewer_names(*, session: Session, actor: User) -> list[str]:
    """Admin only: the enabled reviewers' names (to assign to a study)."""
    require_role(actor, Role.ADMIN)
    return [
        u.name
        for u in users.list_users(session=session)
        if u.role == Role.REVIEWER and not u.disabled
    ]


def reset_user_password(name: str, *, session: Session, actor: User) -> str:
    """Admin only: a new one-time password for `name` (shown once); the user must change it at
    the next sign-in."""
    require_role(actor, Role.ADMIN)
    return users.reset_password(name, session=session, actor=actor.name)


def set_user_role(name: str, role: str, *, session: Session, actor: User) -> User:
    """Admin only: give `name` another role (chained, like every account change)."""
    require_role(actor, Role.ADMIN)
    return users.set_role(name, role, session=session, actor=actor.name)


def set_user_disabled(name: str, disabled: bool, *, session: Session, actor: User) -> User:
    """Admin only: disable an account (it can no longer sign in) or enable it again."""
    require_role(actor, Role.ADMIN)
    return users.set_disabled(name, disabled, session=session, actor=actor.name)


def current_user(state: StateStore) -> User | None:
    """The signed-in user kept in a page's session state (e.g. st.session_state)."""
    if SESSION_KEY not in state:
        return None
    user = state[SESSION_KEY]
    return user if isinstance(user, User) else None


def remember(state: StateStore, user: User) -> None:
    state[SESSION_KEY] = user


def sign_out(state: StateStore) -> None:
    if SESSION_KEY in state:
        del state[SESSION_KEY]


__all__ = [
    "FailureThrottle",
    "PermissionDenied",
    "SignInError",
    "UserError",
    "add_user",
    "can_see_all_history",
    "change_password",
    "current_user",
    "first_run_admin",
    "has_role",
    "list_users",
    "remember",
    "require_role",
    "reset_user_password",
    "reviewer_names",
    "set_user_disabled",
    "set_user_role",
    "sign_in",
    "sign_out",
]
