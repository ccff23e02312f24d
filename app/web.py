"""The web server's entry point: `streamlit run app/web.py` serves app/main.py as Streamlit's
ASGI App, plus LexSpec's own route that sets the session cookie HttpOnly
(app/accounts/handoff.py says why a page run cannot). Everything else is Streamlit's."""

from __future__ import annotations

import time

import streamlit as st
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.accounts.handoff import HANDOFF_PATH, set_cookie_header


async def set_session_cookie(request: Request) -> Response:
    """POST a one-time code: 204 with the cookie it stands for set (or removed), HttpOnly;
    403 for any other body. Secure when the request came over https (or a TLS proxy says so)."""
    https = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    header = set_cookie_header(await request.body(), https=https, now=time.time())
    if header is None:
        return Response(status_code=403)
    return Response(status_code=204, headers={"Set-Cookie": header, "Cache-Control": "no-store"})


app = st.App("main.py", routes=[Route(HANDOFF_PATH, set_session_cookie, methods=["POST"])])
