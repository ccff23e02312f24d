"""The embedded OpenAI-compatible HTTP server (Starlette): chat completions, models, tokenize,
health and Prometheus metrics. Generation runs on the model worker thread."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from app.serving.metrics import Metrics
from app.serving.protocol import (
    ApiError,
    ChatRequest,
    check_length,
    chunk,
    completion_id,
    parse_chat,
)
from app.serving.sampling import SamplingParams
from app.serving.speculative import Engine, Request
from app.serving.worker import Job, Outcome, Worker


@dataclass
class ServerState:
    engine: Engine
    worker: Worker
    metrics: Metrics
    model_name: str

    @property
    def max_model_len(self) -> int:
        return self.engine.model.n_ctx


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


async def _json_body(request: HttpRequest) -> Any:
    try:
        return await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"请求体不是有效的 JSON / the body is not valid JSON: {exc}") from exc


def _check_model(state: ServerState, body: dict[str, Any]) -> None:
    name = body.get("model")
    if name not in (None, "", state.model_name, state.engine.model.path.name):
        raise ApiError(
            404,
            f"模型 `{name}` 不存在 / the model `{name}` does not exist (served: {state.model_name})",
            param="model",
        )


def _usage(out: Outcome, method: str) -> dict[str, Any]:
    return {
        "usage": {
            "prompt_tokens": out.prompt_tokens,
            "completion_tokens": out.completion_tokens,
            "total_tokens": out.prompt_tokens + out.completion_tokens,
        },
        "spec_decode": {
            "draft_tokens": out.draft_tokens,
            "accepted_tokens": out.accepted_tokens,
            "method": method,
        },
    }


def _finish(reason: str) -> str:
    return "length" if reason == "length" else "stop"


async def _stream(state: ServerState, job: Job, cid: str) -> AsyncIterator[str]:
    model, method = state.model_name, state.engine.method
    try:
        first = chunk(cid, model, {"role": "assistant", "content": ""})
        yield f"data: {json.dumps(first, ensure_ascii=False)}\n\n"
        while True:
            kind, payload = await job.events.get()
            if kind == "delta":
                body = chunk(cid, model, {"content": payload})
            elif kind == "done":
                body = chunk(cid, model, {}, _finish(payload.finish_reason)) | _usage(
                    payload, method
                )
            else:
                body = ApiError(500, str(payload), kind="server_error").body()
            yield f"data: {json.dumps(body, ensure_ascii=False)}\n\n"
            if kind != "delta":
                break
        yield "data: [DONE]\n\n"
    finally:
        job.request.cancelled.set()  # the client left (or we finished): free the slot


async def _collect(state: ServerState, job: Job, cid: str) -> JSONResponse:
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
    body = {
        "id": cid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": state.model_name,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "".join(parts)},
                "finish_reason": _finish(payload.finish_reason),
            }
        ],
    } | _usage(payload, state.engine.method)
    return JSONResponse(body)


def _make_job(state: ServerState, chat: ChatRequest) -> Job:
    prompt = state.engine.model.chat_tokens(chat.messages)
    max_tokens = check_length(len(prompt), chat.max_tokens, state.max_model_len)
    params = SamplingParams(temperature=chat.temperature, top_p=chat.top_p)
    req = Request(prompt=prompt, max_tokens=max_tokens, params=params, seed=chat.seed)
    return Job(request=req, stop=chat.stop, loop=asyncio.get_running_loop())


async def chat_completions(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    try:
        body = await _json_body(request)
        chat = parse_chat(body)
        _check_model(state, body)
        job = _make_job(state, chat)
    except ApiError as exc:
        return _error(exc)
    state.worker.submit(job)
    cid = completion_id()
    if chat.stream:
        return StreamingResponse(_stream(state, job, cid), media_type="text/event-stream")
    return await _collect(state, job, cid)


async def tokenize(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    model = state.engine.model
    try:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise ApiError(400, "请求体必须是 JSON 对象 / the body must be a JSON object")
        _check_model(state, body)
        if "messages" in body:
            tokens = model.chat_tokens(parse_chat({"messages": body["messages"]}).messages)
        elif isinstance(body.get("prompt"), str):
            tokens = model.tokenize(
                body["prompt"], add_bos=bool(body.get("add_special_tokens", True))
            )
        else:
            raise ApiError(400, "需要 messages 或 prompt / give messages or prompt", param="prompt")
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
    return JSONResponse({"object": "list", "data": [entry]})


async def health(request: HttpRequest) -> Response:
    return PlainTextResponse("ok")


async def metrics(request: HttpRequest) -> Response:
    state: ServerState = request.app.state.lexspec
    return PlainTextResponse(state.metrics.render(), media_type="text/plain; version=0.0.4")


def make_app(state: ServerState) -> Starlette:
    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/tokenize", tokenize, methods=["POST"]),
        Route("/v1/tokenize", tokenize, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    app.state.lexspec = state
    return app
