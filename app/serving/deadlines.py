"""Deadlines for requests that arrive slowly: a client that opens a connection and sends half
a request (the headers, or the body, a byte now and then) must not hold the server's
connection for minutes (a slow-loris).

uvicorn closes an idle keep-alive connection after `timeout_keep_alive`, but it has no
deadline for a request's head: every byte that arrives restarts the wait. The protocol that
`deadline_protocol(head_timeout_s)` makes (uvicorn's h11 protocol, given to uvicorn as its
`http` class) closes a connection whose request line and headers are not all in that many
seconds after the connection opened (or after the previous response); the body has
`body_timeout_s` (ServerState) from the moment the app starts reading it (the server's body
reader: 408 after it). `lexspec serve --head-timeout/--body-timeout` set them; the defaults are
HEAD_TIMEOUT_S and BODY_TIMEOUT_S. This module imports uvicorn only when the protocol is made,
so the command line can show the defaults without it.
"""

from __future__ import annotations

from typing import Any

HEAD_TIMEOUT_S = 10  # the request line and every header
BODY_TIMEOUT_S = 30  # the whole body (2 MB at most: MAX_BODY_BYTES)
KEEP_ALIVE_S = 5  # uvicorn's default, said here: an idle connection between requests


def deadline_protocol(head_timeout_s: float) -> type:
    """uvicorn's h11 protocol with a deadline of `head_timeout_s` for each request's head."""
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlineH11(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the head is in: the deadline is met
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self._arm()  # the next request on this connection gets its own deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(head_timeout_s, self._head_late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return DeadlineH11
