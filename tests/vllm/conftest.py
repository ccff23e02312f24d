"""Fixtures for the opt-in vLLM tests: scripts/test-vllm.sh starts a real vLLM (CPU build)
server and passes its URL in VLLM_BASE_URL; without it these tests skip."""

from __future__ import annotations

import os

import pytest

from app.config import EndpointConfig


@pytest.fixture(scope="session")
def vllm_base_url() -> str:
    url = os.environ.get("VLLM_BASE_URL")
    if not url:
        pytest.skip("no vLLM server: run `make test-vllm` (scripts/test-vllm.sh)")
    return url


@pytest.fixture(scope="session")
def vllm_endpoint(vllm_base_url: str) -> EndpointConfig:
    return EndpointConfig(base_url=vllm_base_url, label="vLLM CPU, ngram K=4")
