"""OpenAI-compatible streaming client (client.py); the endpoint registry and router, and the
reader of a server's Prometheus /metrics (metrics_parse.py), live beside it."""

from app.llm.client import ChatStream, LLMClient, OpenAIClient, make_client
from app.llm.errors import LLMError

__all__ = ["ChatStream", "LLMClient", "LLMError", "OpenAIClient", "make_client"]
