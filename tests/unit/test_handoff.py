"""The session cookie's handoff: a one-time code a page run offers and the web server's route
answers with the cookie, HttpOnly (app/accounts/handoff.py; the route in app/web.py is two
lines over it, and tests/e2e/test_trust_browser.py runs it in a real browser)."""

from __future__ import annotations

from app.accounts.handoff import COOKIE, HANDOFF_S, HANDOFFS, Handoffs, set_cookie_header

NOW = 1_800_000_000.0


def test_a_code_is_used_once_and_only_while_fresh() -> None:
    offers = Handoffs()
    code = offers.offer("tok", max_age=60, now=NOW)
    assert len(code) >= 43 and code != offers.offer("tok", max_age=60, now=NOW)
    taken = offers.take(code, now=NOW + 1)
    assert taken is not None and (taken.token, taken.max_age) == ("tok", 60)
    assert offers.take(code, now=NOW + 2) is None  # once
    late = offers.offer("tok", max_age=60, now=NOW)
    assert offers.take(late, now=NOW + HANDOFF_S + 1) is None  # expired
    assert offers.take("guess", now=NOW) is None


def _attributes(header: str) -> dict[str, str]:
    pairs = [part.strip().partition("=") for part in header.split(";")]
    return {k.lower(): v for k, _, v in pairs}


def test_the_cookie_is_httponly_strict_and_set_once() -> None:
    code = HANDOFFS.offer("the.token", max_age=28_800, now=NOW)
    header = set_cookie_header(code.encode(), https=False, now=NOW + 1)
    assert header is not None and header.startswith(f"{COOKIE}=the.token;")
    found = _attributes(header)
    assert found["max-age"] == "28800" and found["path"] == "/" and found["samesite"] == "Strict"
    assert "httponly" in found and "secure" not in found  # plain http here
    assert set_cookie_header(code.encode(), https=False, now=NOW + 2) is None  # used
    assert set_cookie_header(b"x" * 10_000, https=False, now=NOW) is None


def test_over_https_it_is_secure_and_removal_is_a_cookie_of_max_age_0() -> None:
    code = HANDOFFS.offer("the.token", max_age=60, now=NOW)
    assert "secure" in _attributes(set_cookie_header(code.encode(), https=True, now=NOW) or "")
    gone = set_cookie_header(
        HANDOFFS.offer(None, max_age=60, now=NOW).encode(), https=True, now=NOW
    )
    assert gone is not None and gone.startswith(f'{COOKIE}="";')
    assert _attributes(gone)["max-age"] == "0" and "httponly" in _attributes(gone)
