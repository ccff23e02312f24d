"""OpenAI-compatible streaming client (client.py); endpoint registry and router live beside it."""

from app.llm.client import ChatStream, LLMClient, OpenAIClient, make_client
from app.llm.errors import LLMError

__all__ = ["ChatStream", "LLMClient", "LLMError", "OpenAIClient", "make_client"]
