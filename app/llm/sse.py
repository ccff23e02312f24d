"""A streamed chat completion read line by line from the HTTP response, so that the server's
SSE comments are seen too: the embedded server says `: queued N ahead` while a request waits
behind others (and `: running` while it is silent in prefill); the `openai` package's own
stream reader drops comments. Other servers' comments (a proxy's `: ping`) read as "not
queued"; a server that sends none (vLLM) simply never says.

Data lines become the same `ChatCompletionChunk` objects the `openai` package yields, an
`{"error": ...}` event raises `openai.APIError` as its reader does, and `close()` closes the
response from any thread (Stop), which ends a read that is waiting on a slow server. The
`usage` counts are checked before the chunk is (app.llm.reported): a usage with a number that
is not a count (`1e20`, 2**64, -1) is left out of the chunk (its `spec_decode` kept) and a
`Refused` item names each such number, so the stream goes on and counts the text itself.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.llm.reported import checked

if TYPE_CHECKING:  # read once a stream is open, when the client has imported them
    from openai.types.chat import ChatCompletionChunk

QUEUED = re.compile(r":\s*queued (\d+) ahead")


@dataclass(frozen=True)
class Queued:
    """A comment between chunks: `ahead` requests are before this one; None: not queued."""

    ahead: int | None


@dataclass(frozen=True)
class Refused:
    """A number the server reported that is not a count: left out (app.llm.reported)."""

    name: str
    value: str


USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


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

    def __iter__(self) -> Iterator[ChatCompletionChunk | Queued | Refused]:
        """Transport failures become the `openai` errors its own reader raises: a read timeout
        (silence longer than the client's timeout) APITimeoutError, a lost connection (or
        close() from another thread) APIConnectionError."""
        import openai

        request = self._response.request
        try:
            yield from self._items()
        except self._http.TimeoutException as exc:
            raise openai.APITimeoutError(request=request) from exc
        except self._http.TransportError as exc:
            raise openai.APIConnectionError(request=request) from exc

    def _items(self) -> Iterator[ChatCompletionChunk | Queued | Refused]:
        import openai
        from openai.types.chat import ChatCompletionChunk

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
                refused: dict[str, str] = {}
                body = _screened(body, refused)
                yield from (Refused(name, value) for name, value in refused.items())
                yield ChatCompletionChunk.model_validate(body)

    def close(self) -> None:
        self._response.close()


def _screened(body: Any, refused: dict[str, str]) -> Any:
    """`body` without a `usage` that holds a number no count can be (its `spec_decode`, if
    any, moved to the top level); `refused` names each such number."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return body
    for name in USAGE_COUNTS:
        checked(f"usage.{name}", usage.get(name), refused)
    if not refused:
        return body
    screened = {**body, "usage": None}
    if "spec_decode" in usage and "spec_decode" not in body:
        screened["spec_decode"] = usage["spec_decode"]
    return screened
