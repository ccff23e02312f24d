"""The web server's entry point: `streamlit run app/web.py` serves app/main.py as Streamlit's
ASGI App, plus LexSpec's own route that sets the session cookie HttpOnly
(app/accounts/handoff.py says why a page run cannot). Everything else is Streamlit's."""

from __future__ import annotations

import time

import streamlit as st
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.accounts.handoff import COOKIE, HANDOFF_PATH, HANDOFFS

CODE_CHARS = 64  # a code is 43 characters; a body longer than this is not one


async def set_session_cookie(request: Request) -> Response:
    """POST a one-time code: 204 with the cookie it stands for set (or removed), HttpOnly;
    403 for any other body."""
    body = await request.body()
    offer = HANDOFFS.take(body[:CODE_CHARS].decode("ascii", "replace"), now=time.time())
    if offer is None:
        return Response(status_code=403)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    if offer.token is None:
        response.delete_cookie(COOKIE, path="/", secure=secure, httponly=True, samesite="strict")
    else:
        response.set_cookie(
            COOKIE, offer.token, max_age=offer.max_age, path="/",
            secure=secure, httponly=True, samesite="strict",
        )  # fmt: skip
    return response


app = st.App("main.py", routes=[Route(HANDOFF_PATH, set_session_cookie, methods=["POST"])])
