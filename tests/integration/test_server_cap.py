"""The embedded server's cap on a completion's length (`lexspec serve --max-tokens`): a request
that sets no max_tokens, or sets it to null, stops at the cap, on chat and text completions,
streamed or not (before the cap, `max_tokens: null` on chat ran to the end of the context)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.servers import embedded_server

pytestmark = pytest.mark.integration

CAP = 10  # below a text completion's own default (16), so both APIs meet the server's cap
ENDPOINTS = {
    "chat/completions": {"messages": [{"role": "user", "content": "Write a long story."}]},
    "completions": {"prompt": "Once upon a time, in a small town by the sea,"},
}


@pytest.fixture(scope="module")
def capped_url() -> Iterator[str]:
    with embedded_server("off", "--max-tokens", str(CAP)) as url:
        yield url


def _usage_and_finish(response: httpx.Response, stream: bool) -> tuple[int, str]:
    """The completion's token count and its finish_reason, from the body or the last chunk."""
    assert response.status_code == 200, response.text
    if stream:
        data = [line.removeprefix("data: ") for line in response.text.splitlines()]
        body: dict[str, Any] = [json.loads(d) for d in data if d.startswith("{")][-1]
    else:
        body = response.json()
    return body["usage"]["completion_tokens"], body["choices"][0]["finish_reason"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("length", [{}, {"max_tokens": None}, {"max_completion_tokens": None}])
@pytest.mark.parametrize("stream", [False, True])
def test_a_request_without_a_length_stops_at_the_cap(
    capped_url: str, endpoint: str, length: dict[str, None], stream: bool
) -> None:
    body = ENDPOINTS[endpoint] | length | {"temperature": 0, "stream": stream}
    response = httpx.post(f"{capped_url}/{endpoint}", json=body, timeout=120)
    tokens, finish = _usage_and_finish(response, stream)
    assert 0 < tokens <= CAP and finish == "length"


def test_a_request_that_sets_its_length_is_not_cut_at_the_cap(capped_url: str) -> None:
    """The cap is for requests without a length; one that asks for more (within the context)
    gets it: cut by its own max_tokens, or ended by the model."""
    body = ENDPOINTS["chat/completions"] | {"temperature": 0, "max_tokens": CAP + 6}
    response = httpx.post(f"{capped_url}/chat/completions", json=body, timeout=120)
    tokens, finish = _usage_and_finish(response, stream=False)
    assert tokens <= CAP + 6 and (tokens > CAP or finish == "stop")
