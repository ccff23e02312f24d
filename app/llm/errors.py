"""Bilingual messages for LLM failures, in one place (简体中文 first, then English)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from app.domain import BilingualError

if TYPE_CHECKING:  # imported where a failure is explained: 0.3 s of CPU a process
    import openai


class LLMError(BilingualError, RuntimeError):
    """A failure talking to a model server."""


def unknown_endpoint(name: str, known: list[str]) -> LLMError:
    names = ", ".join(known)
    return LLMError(
        f"未配置名为“{name}”的模型服务端点（已配置：{names}）。",
        f"No model endpoint named '{name}' is configured (configured: {names}).",
    )


def _server_message(exc: openai.APIStatusError) -> str:
    """The `error.message` of an OpenAI-shaped error body, else the raw body or status text."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        return json.dumps(body, ensure_ascii=False)[:500]
    return str(exc.message)[:500]


def _split_bilingual(detail: str) -> tuple[str, str]:
    """A server message already written "中文 / English" (as ours are) is split in two."""
    zh, sep, en = detail.partition(" / ")
    if sep and any("\u4e00" <= ch <= "\u9fff" for ch in zh):
        return zh, en
    return detail, detail


def explain(exc: BaseException, base_url: str, timeout_s: float) -> LLMError:
    """A bilingual LLMError for any failure of a request to base_url."""
    if isinstance(exc, LLMError):
        return exc
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return LLMError(
            f"模型服务 {base_url} 在 {timeout_s:g} 秒内没有响应，已中止。",
            f"The model server at {base_url} did not answer within {timeout_s:g} s.",
        )
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(
            f"无法连接模型服务 {base_url}（服务未启动或地址错误）。",
            f"Cannot reach the model server at {base_url} (not running, or a wrong address).",
        )
    if isinstance(exc, openai.APIStatusError):
        zh, en = _split_bilingual(_server_message(exc))
        return LLMError(
            f"模型服务返回错误 HTTP {exc.status_code}：{zh}",
            f"The model server returned HTTP {exc.status_code}: {en}",
        )
    if isinstance(exc, openai.APIError):
        return LLMError(
            f"模型服务报告错误：{exc.message}", f"The model server reported: {exc.message}"
        )
    return LLMError(
        f"生成失败（{type(exc).__name__}）：{exc}",
        f"Generation failed ({type(exc).__name__}): {exc}",
    )


def server_stopped() -> LLMError:
    """The server went away after the draft had started (not "cannot reach": it answered)."""
    return LLMError(
        "模型服务在生成过程中停止；已生成的部分文本已保留。",
        "The model server stopped while drafting; the partial text is kept.",
    )


def is_connection_loss(exc: BaseException) -> bool:
    """A dropped connection or a response cut short (not a timeout, not an HTTP error)."""
    import httpx
    import openai

    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return False
    return isinstance(exc, openai.APIConnectionError | httpx.TransportError)


def no_model(base_url: str) -> LLMError:
    return LLMError(
        f"模型服务 {base_url} 没有列出任何模型。",
        f"The model server at {base_url} lists no model.",
    )
