"""A streamed chat completion read line by line from the HTTP response, so that the server's
SSE comments are seen too: the embedded server says `: queued N ahead` while a request waits
behind others (and `: running` while it is silent in prefill); the `openai` package's own
stream reader drops comments. Other servers' comments (a proxy's `: ping`) read as "not
queued"; a server that sends none (vLLM) simply never says.

Data lines become the same `ChatCompletionChunk` objects the `openai` package yields, an
`{"error": ...}` event raises `openai.APIError` as its reader does, and `close()` closes the
response from any thread (Stop), which ends a read that is waiting on a slow server.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletionChunk

QUEUED = re.compile(r":\s*queued (\d+) ahead")


@dataclass(frozen=True)
class Queued:
    """A comment between chunks: `ahead` requests are before this one; None: not queued."""

    ahead: int | None


def queue_note(line: str) -> Queued:
    """The queue position an SSE comment line gives (None when it gives none)."""
    match = QUEUED.match(line)
    return Queued(int(match.group(1)) if match else None)


class SSEChunks:
    """Iterate for ChatCompletionChunk and Queued items until `data: [DONE]`."""

    def __init__(self, response: Any) -> None:
        """`response`: the raw streamed response of the `openai` client, an httpx (or, in
        newer `openai` releases, httpx2) Response; its own library's errors are caught."""
        self._response = response
        self._http = importlib.import_module(type(response).__module__.partition(".")[0])

    def __iter__(self) -> Iterator[ChatCompletionChunk | Queued]:
        """Transport failures become the `openai` errors its own reader raises: a read timeout
        (silence longer than the client's timeout) APITimeoutError, a lost connection (or
        close() from another thread) APIConnectionError."""
        request = self._response.request
        try:
            yield from self._items()
        except self._http.TimeoutException as exc:
            raise openai.APITimeoutError(request=request) from exc
        except self._http.TransportError as exc:
            raise openai.APIConnectionError(request=request) from exc

    def _items(self) -> Iterator[ChatCompletionChunk | Queued]:
        for line in self._response.iter_lines():
            if line.startswith(":"):
                yield queue_note(line)
            elif line.startswith("data:"):
                data = line.removeprefix("data:").strip()
                if data == "[DONE]":
                    return
                body = json.loads(data)
                if isinstance(body, dict) and body.get("error") is not None:
                    error = body["error"]
                    message = error.get("message") if isinstance(error, dict) else str(error)
                    raise openai.APIError(
                        str(message or "stream error"), self._response.request, body=error
                    )
                yield ChatCompletionChunk.model_validate(body)

    def close(self) -> None:
        self._response.close()
