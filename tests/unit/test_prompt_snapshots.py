"""PromptSnapshots' bookkeeping (app.serving.model): which snapshot a prompt gets, which are kept
within the budget. The KV bytes are stand-ins here; tests/integration/test_lossless.py restores
real ones and compares logits."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from app.serving.model import PromptSnapshots, _snapshot_name, shared_prefix


def state(size: int) -> ctypes.Array[ctypes.c_uint8]:
    return (ctypes.c_uint8 * size)()


def test_the_longest_shared_prefix_wins_within_the_limit() -> None:
    snapshots = PromptSnapshots(1000)
    snapshots.keep([1, 2, 3, 4], lambda: state(10))
    snapshots.keep([1, 2, 9, 9, 9], lambda: state(10))
    found = snapshots.best([1, 2, 3, 4, 5], limit=4)
    assert found == ((1, 2, 3, 4), 4)
    found = snapshots.best([1, 2, 3, 4, 5], limit=3)
    assert found is not None and found[1] == 3
    assert snapshots.best([7, 1, 2], limit=2) is None


def test_a_longer_prompt_replaces_its_prefix_and_a_held_one_is_not_copied_again() -> None:
    snapshots = PromptSnapshots(1000)
    copies: list[int] = []

    def copy(size: int) -> ctypes.Array[ctypes.c_uint8]:
        copies.append(size)
        return state(size)

    snapshots.keep([1, 2, 3], lambda: copy(30))
    snapshots.keep([1, 2, 3, 4, 5], lambda: copy(50))
    snapshots.keep([1, 2, 3, 4], lambda: copy(40))  # inside the one kept: no copy
    assert list(snapshots.kept) == [(1, 2, 3, 4, 5)] and copies == [30, 50]


def test_the_least_recently_used_go_first_and_nothing_exceeds_the_budget() -> None:
    snapshots = PromptSnapshots(100)
    snapshots.keep([1, 1], lambda: state(40))
    snapshots.keep([2, 2], lambda: state(40))
    snapshots.best([1, 1, 5], limit=2)  # [1, 1] used: [2, 2] is now the oldest
    snapshots.keep([3, 3], lambda: state(40))
    assert list(snapshots.kept) == [(1, 1), (3, 3)] and snapshots.size == 80
    snapshots.keep([4, 4], lambda: state(101))  # larger than the whole budget: not kept
    assert (4, 4) not in snapshots.kept
    off = PromptSnapshots(0)
    off.keep([1, 2], lambda: state(1))
    assert not off.kept


def test_shared_prefix_counts_leading_equal_tokens_up_to_the_limit() -> None:
    assert shared_prefix([1, 2, 3], [1, 2, 4], 10) == 2
    assert shared_prefix([1, 2, 3], [1, 2, 3], 2) == 2
    assert shared_prefix([], [1], 5) == 0


def test_snapshots_in_a_directory_are_shared_and_dropped_oldest_first(tmp_path: Path) -> None:
    """Two servers on one directory: what one keeps the other finds and reads back byte for
    byte; the directory's budget drops the least recently used file; other files are no
    snapshots (a link is never followed, a name that is not its tokens' is not taken)."""
    one, other = PromptSnapshots(150, tmp_path), PromptSnapshots(150, tmp_path)
    first = state(40)
    first[0], first[39] = 7, 9
    one.keep([1, 2, 3], lambda: first)
    found = other.best([1, 2, 3, 4], limit=3)
    assert found == ((1, 2, 3), 3)
    assert bytes(other.state((1, 2, 3)) or b"") == bytes(first)
    other.keep([5, 6], lambda: state(40))
    os.utime(tmp_path / _snapshot_name((5, 6)), (1, 1))  # [5, 6] now the least recently used
    one.keep([8, 9], lambda: state(40))
    other.best([8, 9, 1], limit=2)
    assert set(other.kept) == {(1, 2, 3), (8, 9)}
    (tmp_path / "notes.kv").write_bytes(b"LXKV1" + (1).to_bytes(4, "little") + b"\0" * 4)
    (tmp_path / f"{'0' * 32}.kv").symlink_to(tmp_path / _snapshot_name((1, 2, 3)))
    fresh = PromptSnapshots(150, tmp_path)
    fresh.best([0], limit=1)
    assert set(fresh.kept) == {(1, 2, 3), (8, 9)}
    one.forget((1, 2, 3))
    assert other.best([1, 2, 3, 4], limit=3) is None
    assert other.state((1, 2, 3)) is None  # gone: another server dropped it


def test_a_snapshot_that_cannot_be_written_is_skipped_not_raised(tmp_path: Path) -> None:
    """The prompt was computed; a copy the directory refuses (here a directory stands where its
    file would go) is left out and the draft goes on."""
    (tmp_path / _snapshot_name((1, 2, 3))).mkdir()
    snapshots = PromptSnapshots(1000, tmp_path)
    snapshots.keep([1, 2, 3], lambda: state(10))
    assert (1, 2, 3) not in snapshots.kept
    assert snapshots.best([1, 2, 3, 4], limit=3) is None
