"""Checkpoints: signing, reading back and what `check` reports (pure functions, real files)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from audit.anchor import Anchor, Checkpoint, CheckpointError, CheckpointLog, check, parse


def _cp(first: int, seq: int, head_hash: str = "h") -> Checkpoint:
    return Checkpoint(first, seq, head_hash, "2026-12-01T00:00:00+00:00", "sig")


def _messages(log: CheckpointLog, head: int, hashes: dict[int, str]) -> list[str]:
    return [m.en for m in check(log, head_seq=head, hash_at=hashes)]


@pytest.mark.parametrize(
    ("ranges", "head", "expected"),
    [
        ([(1, 3)], 3, None),
        ([(1, 1), (2, 3)], 3, None),
        ([(2, 3), (1, 1)], 3, None),  # lines arrive in any order from several processes
        ([(1, 1), (3, 3)], 3, "rows seq 2 are vouched for"),
        ([(1, 2)], 4, "rows seq 3..4 are vouched for"),
        ([], 2, "rows seq 1..2 are vouched for"),
        ([], 0, None),
    ],
)
def test_every_row_must_be_vouched_for(
    ranges: list[tuple[int, int]], head: int, expected: str | None
) -> None:
    log = CheckpointLog(tuple(_cp(a, b) for a, b in ranges), 0)
    found = _messages(log, head, dict.fromkeys(range(1, head + 1), "h"))
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0], found


def test_truncation_rewrite_and_bad_lines() -> None:
    log = CheckpointLog((_cp(1, 2, "a"), _cp(3, 5, "b")), bad=1)
    found = _messages(log, 3, {2: "changed", 3: "c"})
    assert any("bad signature" in m for m in found)
    assert any(m.startswith("truncation: a checkpoint") and "seq 5" in m for m in found)
    assert any(m.startswith("rewrite:") and "seq 2" in m for m in found)


def test_sign_read_and_parse_round_trip(tmp_path: Path) -> None:
    anchor = Anchor(tmp_path / "k" / "audit.key", tmp_path / "c" / "checkpoints.jsonl")
    written = anchor.record(1, 4, "ab" * 32)
    assert stat.S_IMODE(anchor.key_path.stat().st_mode) == 0o600
    assert anchor.read() == CheckpointLog((written,), 0)
    assert parse(written.line()) == written
    other = Anchor(tmp_path / "other.key", anchor.checkpoint_path)  # another key: not valid
    assert other.read() == CheckpointLog((), 1)
    with pytest.raises(CheckpointError):
        parse('{"first": 3, "seq": 2, "hash": "x", "at": "t", "sig": "s"}')
