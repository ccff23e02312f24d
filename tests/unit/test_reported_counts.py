"""A number a model server reports is used as a count only when it is one (app.llm.reported)."""

from __future__ import annotations

import math

import pytest

from app.llm.reported import checked, count
from audit.domain import COUNT_MAX


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, 0),
        (12, 12),
        (12.0, 12),
        (COUNT_MAX, COUNT_MAX),
        (COUNT_MAX + 1, None),
        (2**64, None),
        (1e20, None),
        (-1, None),
        (1.5, None),
        (math.nan, None),
        (math.inf, None),
        (True, None),
        ("12", None),
        ([12], None),
    ],
)
def test_count(value: object, expected: int | None) -> None:
    assert count(value) == expected


def test_checked_names_what_it_refused_and_keeps_unknown_as_unknown() -> None:
    refused: dict[str, str] = {}
    assert checked("usage.prompt_tokens", 7, refused) == 7
    assert checked("usage.completion_tokens", None, refused) is None
    assert checked("usage.total_tokens", "x" * 100, refused) is None
    assert list(refused) == ["usage.total_tokens"] and len(refused["usage.total_tokens"]) == 40
