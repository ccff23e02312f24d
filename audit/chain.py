"""Hash chain of the audit log: canonical JSON, row hashes and the verification walk.

Pure functions, no database: the store feeds them rows. A row's hash is the sha256
of the canonical JSON (sorted keys, no spaces, UTF-8) of its table name and every
column except the hash itself, including `seq` and `prev_hash`, so a row can be
neither altered, moved, reordered nor removed without the walk noticing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audit.domain import Bilingual, ChainFault, ChainReport

GENESIS_HASH = "0" * 64
HEAD_TABLE = "audit_chain_head"


def canonical_json(value: Any) -> bytes:
    """Deterministic JSON bytes; raises ValueError on NaN/Infinity and TypeError on non-JSON."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def normalise(value: Any) -> Any:
    """`value` as it will read back from a JSON column (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))


def utc_naive(moment: datetime) -> datetime:
    """Timestamps are stored as naive UTC with microseconds (both SQLite and PostgreSQL keep it)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def timestamp_text(moment: datetime) -> str:
    return utc_naive(moment).isoformat(timespec="microseconds")


def row_hash(table: str, content: Mapping[str, Any]) -> str:
    """sha256 hex of a row's content; datetimes are hashed as naive-UTC ISO text."""
    hashed = {
        key: timestamp_text(value) if isinstance(value, datetime) else value
        for key, value in content.items()
    }
    return hashlib.sha256(canonical_json({"table": table, "row": hashed})).hexdigest()


@dataclass(frozen=True)
class Link:
    """One chained row as the verifier sees it: its stored hashes and the recomputed one."""

    table: str
    id: int
    seq: int
    prev_hash: str
    stored_hash: str
    computed_hash: str


def walk(links: Iterable[Link], *, head_seq: int, head_hash: str) -> ChainReport:
    """Check links in seq order against each other and the chain head; stop at the first fault."""
    checked = 0
    expected_seq, expected_prev = 1, GENESIS_HASH
    previous: Link | None = None
    for link in links:
        fault = _link_fault(link, previous, expected_seq, expected_prev, head_seq)
        if fault is not None:
            return ChainReport(False, checked, fault, head_seq, head_hash)
        checked += 1
        previous = link
        expected_seq, expected_prev = link.seq + 1, link.stored_hash
    fault = _head_fault(previous, head_seq, head_hash)
    return ChainReport(fault is None, checked, fault, head_seq, head_hash)


def _link_fault(
    link: Link, previous: Link | None, expected_seq: int, expected_prev: str, head_seq: int
) -> ChainFault | None:
    if link.computed_hash != link.stored_hash:
        return ChainFault(
            link.table, link.id, Bilingual("内容被篡改", "content altered (hash mismatch)")
        )
    if link.seq < expected_seq:
        return ChainFault(
            link.table,
            link.id,
            Bilingual(f"序号 {link.seq} 重复", f"duplicate seq {link.seq}"),
        )
    if link.seq > head_seq:
        return ChainFault(
            link.table,
            link.id,
            Bilingual("链头之后插入的行", "row inserted beyond the chain head"),
        )
    if link.seq > expected_seq:
        gap = f"{expected_seq}..{link.seq - 1}"
        return ChainFault(
            link.table,
            link.id,
            Bilingual("前序行被删除", f"preceding row(s) seq {gap} deleted"),
        )
    if link.prev_hash != expected_prev:
        if previous is None:
            return ChainFault(
                link.table,
                link.id,
                Bilingual("首行未接创世哈希", "first row not from genesis"),
            )
        return ChainFault(
            previous.table,
            previous.id,
            Bilingual(
                "行及其哈希被改写", "row and its hash rewritten (next row's link does not match)"
            ),
        )
    return None


def _head_fault(last: Link | None, head_seq: int, head_hash: str) -> ChainFault | None:
    last_seq = last.seq if last else 0
    if head_seq > last_seq:
        gap = f"{last_seq + 1}..{head_seq}"
        return ChainFault(
            HEAD_TABLE, 1, Bilingual("末尾行被删除", f"newest row(s) seq {gap} deleted")
        )
    if last is not None and head_hash != last.stored_hash:
        return ChainFault(
            last.table,
            last.id,
            Bilingual("行及其哈希被改写", "row and its hash rewritten (chain head differs)"),
        )
    return None
