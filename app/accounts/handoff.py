"""The session cookie, set by the web server itself so that it can be HttpOnly (no script in
the page can read it) — the handoff between a page run and that server.

A Streamlit page run talks to the browser over a websocket and cannot set a cookie; a script
it draws could (`document.cookie`), but then the cookie cannot be HttpOnly and any script on
the page can read the token. So the page run `offer`s the token (or the cookie's removal)
here under a one-time code, draws a fixed one-line script that POSTs only that code to
HANDOFF_PATH, and the web server's route (app/web.py) `take`s the offer and answers with the
`Set-Cookie` header: HttpOnly, SameSite=Strict, Secure over https. A code is random (32
bytes), used once and good for HANDOFF_S: one seen by someone else is worth nothing after the
page has used it, and the token itself never appears in the page. Offers live in this
process's memory (the page runs and the route share the server's process). No streamlit and
no web framework here.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from http.cookies import SimpleCookie

COOKIE = "lexspec_session"
HANDOFF_PATH = "/lexspec/session"
HANDOFF_S = 300.0  # a code not yet used (a page run cut short before its script ran)


@dataclass(frozen=True)
class Offer:
    """What the route sets: the token for `max_age` seconds, or (token None) the cookie's end."""

    token: str | None
    max_age: int
    expires: float


class Handoffs:
    """One-time codes for cookies waiting to be set by the web server."""

    def __init__(self) -> None:
        self._offers: dict[str, Offer] = {}
        self._lock = threading.Lock()

    def offer(self, token: str | None, *, max_age: int, now: float) -> str:
        """A code the page's script hands the route; expired offers are dropped meanwhile."""
        code = secrets.token_urlsafe(32)
        with self._lock:
            self._offers = {c: o for c, o in self._offers.items() if o.expires > now}
            self._offers[code] = Offer(token, max_age, now + HANDOFF_S)
        return code

    def take(self, code: str, *, now: float) -> Offer | None:
        """The offer of `code`, once, while it is fresh; None for any other code."""
        with self._lock:
            found = self._offers.pop(code, None)
        return found if found is not None and found.expires > now else None


HANDOFFS = Handoffs()  # the server process's one
CODE_CHARS = 64  # a code is 43 characters; a longer body is not one


def set_cookie_header(body: bytes, *, https: bool, now: float) -> str | None:
    """The `Set-Cookie` header the route answers a POSTed code with: the offered token (or
    its removal), HttpOnly, SameSite=Strict, Path=/, Secure over https; None when `body` is
    not a fresh code (the route answers 403)."""
    offer = HANDOFFS.take(body[:CODE_CHARS].decode("ascii", "replace"), now=now)
    if offer is None:
        return None
    cookie: SimpleCookie = SimpleCookie()
    cookie[COOKIE] = offer.token or ""
    morsel = cookie[COOKIE]
    morsel["path"], morsel["httponly"], morsel["samesite"] = "/", True, "Strict"
    morsel["max-age"] = offer.max_age if offer.token is not None else 0
    if https:
        morsel["secure"] = True
    return morsel.OutputString()
