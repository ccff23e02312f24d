"""Streaming chat client for any OpenAI-compatible endpoint (the embedded server, vLLM, ...).

`ChatStream` turns a stream of chat-completion chunks into text deltas plus per-request stats,
and never raises: a failure ends the iteration with status "error" and a bilingual message,
keeping the partial text. The same ChatStream drives the real client and test fakes.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from app.config import EndpointConfig, Settings
from app.domain import GenerationParams, GenerationStats, StreamStatus
from app.llm import net
from app.llm.errors import (
    LLMError,
    explain,
    is_connection_loss,
    no_model,
    server_stopped,
    unknown_endpoint,
)
from app.llm.reported import SHOWN_CHARS, checked, count
from app.llm.sse import Queued, Refused, SSEChunks

if TYPE_CHECKING:
    import httpx
    import openai

Messages = Sequence[Mapping[str, str]]
COUNT_TIMEOUT_S = 5.0  # counting tokens after a stop must not hold the page for long
ChunkSource = Callable[[], Iterable[Any]]  # opens the request, yields ChatCompletionChunk-likes
TextCounter = Callable[[str], int | None]  # tokens in a piece of output text (the tokenizer)


class ChatStream:
    """One streaming request. Iterate for text deltas; read .text/.status/.stats afterwards."""

    def __init__(
        self,
        open_chunks: ChunkSource,
        *,
        model: str = "",
        describe_error: Callable[[BaseException], str] | None = None,
        count_text: TextCounter | None = None,
    ) -> None:
        self._open = open_chunks
        self._count = count_text
        self._describe = describe_error or (lambda exc: str(explain(exc, "", 0.0)))
        self._source: Iterable[Any] | None = None
        self._cancelled = threading.Event()
        self._started = False
        self._parts: list[str] = []
        self.model = model
        # requests the server will serve before this one, while it says so (SSE comments)
        self.queued: int | None = None
        self.status = StreamStatus.RUNNING
        self.error: str | None = None
        self.finish_reason: str | None = None
        self.stats = GenerationStats()
        self._t0 = 0.0
        self._ttft: float | None = None
        self._last_text_at: float | None = None
        self._first_text = ""
        self._chunks_with_text = 0
        self._usage: tuple[int | None, int | None] = (None, None)
        self._spec: tuple[int | None, int | None, str | None] = (None, None, None)
        self._refused: dict[str, str] = {}  # reported numbers that are not counts (reported.py)

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def cancel(self) -> None:
        """Stop at the next chunk; closing the response makes the server free the slot."""
        self._cancelled.set()
        self._close_source()

    def __iter__(self) -> Generator[str, None, None]:
        if self._started:
            return
        self._started = True
        self._t0 = time.monotonic()
        try:
            yield from self._deltas()
        except Exception as exc:  # noqa: BLE001 - every failure becomes status "error"
            self._finish(
                StreamStatus.STOPPED if self._cancelled.is_set() else StreamStatus.ERROR, exc
            )
        except BaseException:  # KeyboardInterrupt / GeneratorExit: the caller stopped us
            self._finish(StreamStatus.STOPPED)
            raise
        else:
            stopped = self._cancelled.is_set()
            self._finish(StreamStatus.STOPPED if stopped else StreamStatus.COMPLETE)

    def _deltas(self) -> Iterator[str]:
        if self._cancelled.is_set():
            return
        self._source = self._open()
        for chunk in self._source:
            if self._cancelled.is_set():
                return
            if isinstance(chunk, Refused):  # a reported number that is not a count
                self._refused[chunk.name] = chunk.value
                continue
            if isinstance(chunk, Queued):
                if chunk.ahead != self.queued:  # an empty delta: the caller shows the queue
                    self.queued = chunk.ahead
                    yield ""
                continue
            self.queued = None
            delta = self._absorb(chunk)
            if delta:
                yield delta

    def _absorb(self, chunk: Any) -> str:
        """Record model, usage, spec_decode and finish_reason; return the chunk's text."""
        self.model = getattr(chunk, "model", None) or self.model
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self._usage = (
                checked("usage.prompt_tokens", usage.prompt_tokens, self._refused),
                checked("usage.completion_tokens", usage.completion_tokens, self._refused),
            )
        spec = _spec_decode(chunk, self._refused)
        if spec is not None:
            self._spec = spec
        text = ""
        for choice in getattr(chunk, "choices", None) or ():
            content = getattr(choice.delta, "content", None) if choice.delta else None
            if content:
                text += content
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        if text:
            self._last_text_at = time.monotonic() - self._t0
            if self._ttft is None:
                self._ttft = self._last_text_at
                self._first_text = text
            self._chunks_with_text += 1
            self._parts.append(text)
        return text

    def _finish(self, status: StreamStatus, exc: BaseException | None = None) -> None:
        self._close_source()
        self.status = status
        if status == StreamStatus.ERROR and exc is not None:
            died = self._parts and is_connection_loss(exc)  # it answered, then went away
            self.error = str(server_stopped()) if died else self._describe(exc)
        self.stats = self._stats()

    def _stats(self) -> GenerationStats:
        """Tokens from usage, else the tokenizer, else the chunk count (flagged as an estimate);
        the decode rate over the tokens after the first chunk (see GenerationStats)."""
        prompt_tokens, completion = self._usage
        estimated = False
        if completion is None:
            completion = self._counted(self.text) if self._parts else 0
        if completion is None:
            completion, estimated = self._chunks_with_text, True
        decode_tokens: int | None = None
        decode_s: float | None = None
        if self._ttft is not None and self._last_text_at is not None:
            first = self._counted(self._first_text)
            if first is not None:  # time and tokens from the first chunk to the last
                decode_tokens, decode_s = (
                    max(0, completion - first),
                    self._last_text_at - self._ttft,
                )
            else:  # no tokenizer: the rate over the whole request, never inflated
                decode_tokens, decode_s = completion, self._last_text_at
        return GenerationStats(
            ttft_s=self._ttft,
            total_s=time.monotonic() - self._t0,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion,
            draft_tokens=self._spec[0],
            accepted_tokens=self._spec[1],
            spec_method=self._spec[2],
            decode_tokens=decode_tokens,
            decode_s=decode_s,
            tokens_estimated=estimated,
            refused=tuple(sorted(self._refused.items())),
        )

    def _counted(self, text: str) -> int | None:
        if self._count is None or not text:
            return None
        try:
            return self._count(text)
        except Exception:  # noqa: BLE001 - a count we cannot get is simply unknown
            return None

    def _close_source(self) -> None:
        close = getattr(self._source, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):  # a dead connection must not fail the run
                close()


def _spec_decode(
    chunk: Any, refused: dict[str, str]
) -> tuple[int | None, int | None, str | None] | None:
    """`spec_decode` from the final chunk (top level, or inside usage), if the server sends it
    (a number that is not a count is refused: app.llm.reported)."""
    for holder in (chunk, getattr(chunk, "usage", None)):
        extra = getattr(holder, "model_extra", None) or {}
        spec = extra.get("spec_decode") if isinstance(extra, dict) else None
        if spec is None and isinstance(holder, Mapping):
            spec = holder.get("spec_decode")
        if isinstance(spec, Mapping):
            method = spec.get("method")
            return (
                checked("spec_decode.draft_tokens", spec.get("draft_tokens"), refused),
                checked("spec_decode.accepted_tokens", spec.get("accepted_tokens"), refused),
                method[:SHOWN_CHARS] if isinstance(method, str) else None,
            )
    return None


class LLMClient(Protocol):
    """What the app needs from a model server."""

    def stream_chat(self, messages: Messages, params: GenerationParams) -> ChatStream: ...

    def models(self) -> list[str]: ...

    def context_limit(self) -> int | None: ...

    def count_tokens(self, messages: Messages) -> int | None: ...


class OpenAIClient:
    """LLMClient over the `openai` package, for one OpenAI-compatible endpoint. The package is
    imported at the first request (0.3 s of CPU), not when the client is made: a draft the app
    assembles asks no model."""

    def __init__(
        self, endpoint: EndpointConfig, *, timeout_s: float = 120.0, connect_timeout_s: float = 5.0
    ) -> None:
        self.endpoint = endpoint
        self.base_url = endpoint.base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._model: str | None = endpoint.model
        self._context: int | None = None

    @functools.cached_property
    def _client(self) -> openai.OpenAI:
        import openai

        return openai.OpenAI(
            base_url=self.base_url,
            api_key=self.endpoint.api_key or "not-needed",
            timeout=openai.Timeout(self.timeout_s, connect=self.connect_timeout_s),
            max_retries=0,
            http_client=openai.DefaultHttpxClient(verify=net.tls()),  # openai's defaults
        )

    def _describe(self, exc: BaseException) -> str:
        return str(explain(exc, self.base_url, self.timeout_s))

    def _list(self) -> list[Any]:
        import openai

        try:
            return list(self._client.models.list().data)
        except openai.APIError as exc:
            raise explain(exc, self.base_url, self.timeout_s) from exc

    def models(self) -> list[str]:
        """Model ids the server lists; raises LLMError (bilingual) when it cannot be reached."""
        return [m.id for m in self._list()]

    def model(self) -> str:
        """The configured model, else the first one the server lists."""
        if self._model is None:
            ids = self.models()
            if not ids:
                raise no_model(self.base_url)
            self._model = ids[0]
        return self._model

    def model_key(self) -> str:
        """The model's identity for what is measured of it: its id, and `@digest` where the
        server names its file's fingerprint (the embedded server does; vLLM does not)."""
        wanted = self.model()
        for entry in self._list():
            digest = (entry.model_extra or {}).get("digest")
            if entry.id == wanted and isinstance(digest, str) and digest:
                return f"{wanted}@{digest}"
        return wanted

    def context_limit(self) -> int | None:
        """max_model_len as /v1/models reports it (vLLM and the embedded server do), or None."""
        if self._context is None:
            try:
                entries = self._list()
                wanted = self.model()
            except LLMError:
                return None
            for entry in entries:
                extra = entry.model_extra or {}
                if entry.id == wanted and count(extra.get("max_model_len")):
                    self._context = count(extra["max_model_len"])
        return self._context

    def count_tokens(self, messages: Messages) -> int | None:
        """Prompt tokens via POST /tokenize (vLLM's API, chat template applied), or None."""
        return self._tokenize({"messages": [dict(m) for m in messages]}, self._httpx_timeout())

    def count_text(self, text: str) -> int | None:
        """Tokens in a piece of generated text (POST /tokenize, no special tokens), or None."""
        return self._tokenize({"prompt": text, "add_special_tokens": False}, COUNT_TIMEOUT_S)

    def _tokenize(self, body: dict[str, Any], timeout: httpx.Timeout | float) -> int | None:
        import httpx

        root = self.base_url.removesuffix("/v1")
        try:
            resp = net.post(
                f"{root}/tokenize",
                json={"model": self.model(), **body},
                headers=self._headers(),
                timeout=timeout,
            )
            resp.raise_for_status()
            found = resp.json().get("count")
        except (
            LLMError,
            httpx.HTTPError,
            ValueError,
            AttributeError,
        ):  # AttributeError: not an object
            return None
        return count(found)

    def _headers(self) -> dict[str, str]:
        key = self.endpoint.api_key
        return {} if key in ("", "not-needed") else {"Authorization": f"Bearer {key}"}

    def _httpx_timeout(self) -> httpx.Timeout:
        import httpx

        return httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s)

    def _extra_body(self) -> dict[str, Any] | None:
        """The endpoint's chat_template_kwargs (e.g. Qwen3's enable_thinking), when set."""
        kwargs = self.endpoint.chat_template_kwargs
        return {"chat_template_kwargs": dict(kwargs)} if kwargs else None

    def stream_chat(self, messages: Messages, params: GenerationParams) -> ChatStream:
        """Start a streaming chat completion (opened lazily, on first iteration). The response
        is read by SSEChunks, which also hands on the server's queue comments; the timeout is
        httpx's read timeout, the longest silence between bytes, never the total."""

        def open_chunks() -> Iterable[Any]:
            import openai

            # untyped: any server's model id
            create: Any = self._client.chat.completions.with_raw_response.create
            raw = create(
                model=self.model(),
                messages=[dict(m) for m in messages],
                stream=True,
                stream_options={"include_usage": True},
                temperature=params.temperature,
                top_p=params.top_p,
                max_tokens=params.max_tokens,
                seed=openai.omit if params.seed is None else params.seed,
                stop=list(params.stop) if params.stop else openai.omit,
                extra_body=self._extra_body(),
            )
            return SSEChunks(raw.http_response)

        return ChatStream(
            open_chunks,
            model=self._model or "",
            describe_error=self._describe,
            count_text=self.count_text,
        )


def make_client(name: str, settings: Settings) -> OpenAIClient:
    """A client for the endpoint called `name` in Settings.all_endpoints(); LLMError if unknown."""
    endpoints = settings.all_endpoints()
    if name not in endpoints:
        raise unknown_endpoint(name, list(endpoints))
    return OpenAIClient(
        endpoints[name],
        timeout_s=settings.request_timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
    )
