"""Shared fixtures: real embedded LLM servers, real databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers import embedded_server


@pytest.fixture(scope="session")
def llm_base_url() -> Iterator[str]:
    """A real embedded server with n-gram speculative decoding, shared by the session."""
    with embedded_server("ngram") as url:
        yield url


@pytest.fixture(scope="session")
def plain_llm_base_url() -> Iterator[str]:
    """A real embedded server without speculation (the plain arm)."""
    with embedded_server("off") as url:
        yield url
