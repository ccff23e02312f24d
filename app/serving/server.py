"""The embedded OpenAI-compatible HTTP server (Starlette): chat and text completions, models,
tokenize, health and Prometheus metrics. Generation runs on the model worker thread; tokenization runs
on a thread of its own, so a large prompt never holds up the event loop (and /health).

Every error, including unknown routes, wrong methods, oversized or malformed bodies and
unexpected failures, is OpenAI's JSON error body with a 4xx/5xx status."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from app.domain import Bilingual
from app.serving.completions import Prompt, check_token_ids, parse_completion
from app.serving.deadlines import BODY_TIMEOUT_S
from app.serving.metrics import Metrics
from app.serving.model import TemplateError
from app.serving.protocol import (
    ApiError,
    GenerationRequest,
    Message,
    TokenizeRequest,
    check_length,
    check_text,
    parse,
    parse_chat,
)
from app.serving.sampling import SamplingParams
from app.serving.shapes import ChatShape, Shape, TextShape
from app.serving.speculative import Engine, Request
from app.serving.worker import Job, Worker

MAX_BODY_BYTES = 2 * 1024 * 1024  # 2 MB: far above the context (4,096 tokens is ~20 kB of text)
# A streamed request silent this long (queued behind others, or in prefill) gets an SSE comment
# saying where it is: far below any client's read timeout, and a gone client is noticed soon.
KEEPALIVE_S = 1.0
# The server's cap: the most a completion generates when its request sets no max_tokens (absent
# or null; a text completion's own default, 16, is lower). A request may ask for more, up to the
# room its prompt leaves in the context (`lexspec serve --max-tokens` sets it).
DEFAULT_MAX_TOKENS = 1024


@dataclass
class ServerState:
    engine: Engine
    worker: Worker
    metrics: Metrics
    model_name: str
    max_tokens: int = DEFAULT_MAX_TOKENS  # a completion's length when the request gives none
    digest: str = ""  # the model file's fingerprint (serving/launch.file_digest), in /v1/models
    body_timeout_s: float = BODY_TIMEOUT_S  # a half-sent body is answered 408 after it

    @property
    def max_model_len(self) -> int:
        return self.engine.model.n_ctx


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


def _too_large() -> ApiError:
    return ApiError(
        413,
        f"请求体超过 {MAX_BODY_BYTES // (1024 * 1024)} MB / "
        f"the body is larger than {MAX_BODY_BYTES // (1024 * 1024)} MB",
    )


async def _json_body(request: HttpRequest) -> Any:
    """The parsed body; 413 past MAX_BODY_BYTES (read no further), 408 when it has not all
    arrived within the server's body deadline, 400 when it is not JSON."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _too_large()
    deadline = request.app.state.lexspec.body_timeout_s
    data = bytearray()
    try:
        async with asyncio.timeout(deadline):  # a half-sent body holds nothing for long
            async for part in request.stream():
                data += part
                if len(data) > MAX_BODY_BYTES:
                    raise _too_large()
    except TimeoutError:
        raise ApiError(
            408,
            str(
                Bilingual(
                    f"请求体未在 {deadline:g} 秒内传完",
                    f"the body did not arrive within {deadline:g} s",
                )
            ),
        ) from None
    try:
        body = json.loads(data)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        reason = "too deeply nested" if isinstance(exc, RecursionError) else str(exc)
        raise ApiError(
            400, str(Bilingual("请求体不是有效的 JSON", f"the body is not valid JSON: {reason}"))
        ) from exc
    check_text(body)
    return body


def _check_model(state: ServerState, body: dict[str, Any]) -> None:
    name = body.get("model")
    if name not in (None, "", state.model_name, state.engine.model.path.name):
        raise ApiError(
            404,
            str(
                Bilingual(
                    f"模型 `{name}` 不存在",
                    f"the model `{name}` does not exist (served: {state.model_name})",
                )
            ),
            param="model",
        )


def _sse(body: dict[str, Any]) -> str:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


def _where(state: ServerState, job: Job) -> str:
    """An SSE comment saying where a silent request is: queued behind N, or running (prefill)."""
    ahead = state.worker.ahead(job)
    return ": running\n\n" if ahead is None else f": queued {ahead} ahead\n\n"


async def _next_event(job: Job) -> tuple[str, Any] | None:
    """The job's next event, or None after KEEPALIVE_S of silence."""
    try:
        return await asyncio.wait_for(job.events.get(), KEEPALIVE_S)
    except TimeoutError:
        return None


async def _stream(state: ServerState, job: Job, shape: Shape) -> AsyncIterator[str]:
    """SSE chunks; while the request waits behind others (or is silent in prefill), a comment
    every KEEPALIVE_S says so. OpenAI clients skip comments; a client's read timeout then counts
    silence only, and a client that has gone is noticed at the next write even while queued."""
    try:
        opening = shape.opening()
        if opening is not None:
            yield _sse(opening)
        if state.worker.ahead(job):
            yield _where(state, job)
        while True:
            event = await _next_event(job)
            if event is None:
                yield _where(state, job)
                continue
            kind, payload = event
            if kind == "delta":
                body = shape.delta(payload)
            elif kind == "done":
                body = shape.closing(payload)
            else:
                body = ApiError(500, str(payload), kind="server_error").body()
            yield _sse(body)
            if kind != "delta":
                break
        yield "data: [DONE]\n\n"
    finally:
        job.request.cancelled.set()  # the client left (or we finished): free the slot


async def _client_gone(request: HttpRequest) -> None:
    """Return once the client has disconnected (the body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _collect_while_connected(request: HttpRequest, job: Job, shape: Shape) -> Response:
    """The whole completion, unless the client leaves first: then the job is cancelled, which
    frees the worker at its next step (or prefill piece, or before it starts) instead of
    finishing a response nobody will read."""
    collect = asyncio.ensure_future(_collect(job, shape))
    gone = asyncio.ensure_future(_client_gone(request))
    try:
        done, _ = await asyncio.wait({collect, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        collect.cancel()  # a no-op once it is done; else its `finally` cancels the job
    if collect in done:
        return collect.result()
    return Response(status_code=499)  # nobody reads it (nginx's "client closed request")


async def _collect(job: Job, shape: Shape) -> JSONResponse:
    parts: list[str] = []
    try:
        while True:
            kind, payload = await job.events.get()
            if kind == "delta":
                parts.append(payload)
            elif kind == "error":
                return _error(ApiError(500, str(payload), kind="server_error"))
            else:
                break
    finally:
        job.request.cancelled.set()
    return JSONResponse(shape.whole("".join(parts), payload))


async def _chat_tokens(state: ServerState, messages: list[Message]) -> list[int]:
    """The prompt's tokens, computed off the event loop (a 2 MB prompt takes seconds)."""
    try:
        return await asyncio.to_thread(state.engine.model.chat_tokens, messages)
    except TemplateError as exc:
        raise ApiError(
            400,
            str(
                Bilingual(
                    "聊天模板拒绝了这些消息", f"the chat template refused the messages: {exc}"
                )
            ),
            param="messages",
        ) from exc


def _make_job(
    state: ServerState, prompt: list[int], gen: GenerationRequest, prompt_param: str
) -> Job:
    limit = state.max_model_len
    default = min(gen.default_max_tokens or state.max_tokens, state.max_tokens)
    max_tokens = check_length(
        len(prompt), gen.max_tokens, limit, default=default, prompt_param=prompt_param
    )
    params = SamplingParams(temperature=gen.temperature, top_p=gen.top_p)
    req = Request(prompt=prompt, max_tokens=max_tokens, params=params, seed=gen.seed)
    return Job(request=req, stop=gen.stop, loop=asyncio.get_running_loop())


async def _respond(
    request: HttpRequest, state: ServerState, job: Job, shape: Shape, *, stream: bool
) -> Response:
    state.worker.submit(job)
    if stream:
        return StreamingResponse(_stream(state, job, shape), media_type="text/event-stream")
    return await _collect_while_connected(request, job, shape)


async def chat_completions(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    try:
        body = await _json_body(request)
        chat = parse_chat(body)
        _check_model(state, body)
        prompt = await _chat_tokens(state, chat.messages)
        job = _make_job(state, prompt, chat, "messages")
    except ApiError as exc:
        return _error(exc)
    shape = ChatShape(state.model_name, state.engine.method)
    return await _respond(request, state, job, shape, stream=chat.stream)


async def _completion_prompt(state: ServerState, prompt: Prompt) -> tuple[list[int], str]:
    """The prompt's tokens (a string is tokenized off the event loop, with BOS as vLLM does)
    and its text (for echo)."""
    model = state.engine.model
    if isinstance(prompt, str):
        tokens = await asyncio.to_thread(model.tokenize, prompt, special=True, add_bos=True)
        text = prompt
    else:
        tokens = check_token_ids(prompt, model.n_vocab)
        text = b"".join(model.pieces[t] for t in tokens).decode("utf-8", "replace")
    if not tokens:
        raise ApiError(
            400, str(Bilingual("prompt 不能为空", "prompt must not be empty")), param="prompt"
        )
    return tokens, text


async def completions(request: HttpRequest) -> Response:
    """/v1/completions: the same engine, metrics and validation as chat (completions.py)."""
    state: ServerState = request.app.state.lexspec
    try:
        body = await _json_body(request)
        req = parse_completion(body)
        _check_model(state, body)
        tokens, text = await _completion_prompt(state, req.prompt)
        job = _make_job(state, tokens, req, "prompt")
    except ApiError as exc:
        return _error(exc)
    shape = TextShape(state.model_name, state.engine.method, echo=text if req.echo else "")
    return await _respond(request, state, job, shape, stream=req.stream)


async def tokenize(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    model = state.engine.model
    try:
        body = await _json_body(request)
        req = parse(TokenizeRequest, body)
        _check_model(state, body)
        if req.messages is not None:
            tokens = await _chat_tokens(state, req.messages)
        elif req.prompt is not None:
            bos = req.add_special_tokens
            tokens = await asyncio.to_thread(model.tokenize, req.prompt, add_bos=bos)
        else:
            raise ApiError(
                400,
                str(Bilingual("需要 messages 或 prompt", "give messages or prompt")),
                param="prompt",
            )
    except ApiError as exc:
        return _error(exc)
    return JSONResponse(
        {"count": len(tokens), "max_model_len": state.max_model_len, "tokens": tokens}
    )


async def models(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    entry = {
        "id": state.model_name,
        "object": "model",
        "created": 0,
        "owned_by": "lexspec",
        "max_model_len": state.max_model_len,
        "speculative": state.engine.method,
    }
    if state.digest:  # which file this is, whatever it is called (the writing measure's key)
        entry["digest"] = state.digest
    return JSONResponse({"object": "list", "data": [entry]})


async def health(request: HttpRequest) -> Response:
    return PlainTextResponse("ok")


async def metrics(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    return PlainTextResponse(state.metrics.render(), media_type="text/plain; version=0.0.4")


async def _http_error(request: HttpRequest, exc: Exception) -> Response:
    """Unknown routes (404) and wrong methods (405), as JSON."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        message = str(
            Bilingual(f"{request.method} 不适用于 {request.url.path}", "method not allowed")
        )
    elif exc.status_code == 404:
        message = str(Bilingual("没有这个地址", f"no such route: {request.url.path}"))
    else:
        message = exc.detail
    response = _error(ApiError(exc.status_code, message))
    response.headers.update(exc.headers or {})
    return response


async def _server_error(request: HttpRequest, exc: Exception) -> Response:
    """A failure nobody foresaw: still JSON (the traceback goes to the server log)."""
    return _error(
        ApiError(
            500, str(Bilingual("服务内部错误", f"internal server error: {type(exc).__name__}"))
        )
    )


def make_app(state: ServerState) -> Starlette:
    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/completions", completions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/tokenize", tokenize, methods=["POST"]),
        Route("/v1/tokenize", tokenize, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes, exception_handlers={HTTPException: _http_error, Exception: _server_error}
    )
    app.state.lexspec = state
    return app
