"""Hashing and the verification walk of the audit chain (pure logic, no database)."""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from audit import chain
from audit.chain import GENESIS_HASH, Link, row_hash, walk


def test_canonical_json_is_order_and_space_free_utf8() -> None:
    a = chain.canonical_json({"b": 1, "a": ["条款", 2.5]})
    b = chain.canonical_json({"a": ["条款", 2.5], "b": 1})
    assert a == b == '{"a":["条款",2.5],"b":1}'.encode()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_canonical_json_refuses_non_finite_numbers(bad: float) -> None:
    with pytest.raises(ValueError):
        chain.canonical_json({"x": bad})


def test_normalise_gives_what_a_json_column_reads_back() -> None:
    assert chain.normalise({"stop": ("。", "\n"), 1: None}) == {"stop": ["。", "\n"], "1": None}


def test_timestamps_hash_as_naive_utc() -> None:
    naive = datetime(2026, 1, 2, 3, 4, 5, 6)
    aware = naive.replace(tzinfo=UTC)
    shanghai = aware.astimezone(timezone(timedelta(hours=8)))
    assert row_hash("t", {"at": naive}) == row_hash("t", {"at": aware})
    assert row_hash("t", {"at": shanghai}) == row_hash("t", {"at": naive})


CONTENT: dict[str, Any] = {"id": 1, "seq": 1, "prev_hash": GENESIS_HASH, "output_text": "一、"}


@pytest.mark.parametrize(
    ("key", "value"),
    [("output_text", "一、 "), ("seq", 2), ("id", 2), ("prev_hash", "1" * 64), ("extra", None)],
)
def test_any_change_changes_the_hash(key: str, value: Any) -> None:
    assert row_hash("generations", {**CONTENT, key: value}) != row_hash("generations", CONTENT)


def test_the_table_name_is_part_of_the_hash() -> None:
    assert row_hash("generations", CONTENT) != row_hash("audit_events", CONTENT)


def build(n: int) -> list[Link]:
    """A valid chain of n links alternating between two tables."""
    links, prev = [], GENESIS_HASH
    for seq in range(1, n + 1):
        table = "generations" if seq % 2 else "audit_events"
        digest = row_hash(table, {"seq": seq, "prev_hash": prev})
        links.append(Link(table, 100 + seq, seq, prev, digest, digest))
        prev = digest
    return links


def head_of(links: list[Link]) -> dict[str, Any]:
    return {"head_seq": links[-1].seq, "head_hash": links[-1].stored_hash}


def test_a_valid_chain_verifies() -> None:
    links = build(5)
    report = walk(links, **head_of(links))
    assert report.ok and report.checked == 5 and report.first_bad is None


def test_an_empty_chain_verifies() -> None:
    report = walk([], head_seq=0, head_hash=GENESIS_HASH)
    assert report.ok and report.checked == 0


def test_altered_content_is_reported_at_that_row() -> None:
    links = build(5)
    links[2] = dataclasses.replace(links[2], computed_hash="f" * 64)
    report = walk(links, **head_of(links))
    assert not report.ok and report.checked == 2
    assert report.first_bad is not None and report.first_bad[:2] == ("generations", 103)
    assert "altered" in report.first_bad.reason.en


def test_a_rewritten_hash_is_reported_at_the_rewritten_row() -> None:
    links = build(5)
    links[1] = dataclasses.replace(links[1], stored_hash="e" * 64, computed_hash="e" * 64)
    report = walk(links, **head_of(links))
    assert report.first_bad is not None and report.first_bad[:2] == ("audit_events", 102)


def test_a_deleted_row_is_reported_at_the_next_row() -> None:
    links = build(5)
    del links[1]
    report = walk(links, **head_of(links))
    assert report.first_bad is not None and report.first_bad[:2] == ("generations", 103)
    assert "deleted" in report.first_bad.reason.en


def test_deleted_newest_rows_are_caught_by_the_head() -> None:
    links = build(5)
    report = walk(links[:3], **head_of(links))
    assert report.first_bad is not None and report.first_bad[:2] == ("audit_chain_head", 1)
    assert "4..5" in report.first_bad.reason.en


def test_a_row_beyond_the_head_is_reported() -> None:
    links = build(5)
    report = walk(links, head_seq=4, head_hash=links[3].stored_hash)
    assert report.first_bad is not None and report.first_bad[:2] == ("generations", 105)


def test_a_duplicated_seq_is_reported() -> None:
    links = build(3)
    links.insert(2, dataclasses.replace(links[1], table="generations", id=999))
    report = walk(links, **head_of(links))
    assert report.first_bad is not None and report.first_bad[:2] == ("generations", 999)
