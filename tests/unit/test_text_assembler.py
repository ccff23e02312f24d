"""Streamed text from token pieces: a character split between tokens or cut off at the end
never reaches the client as U+FFFD."""

from __future__ import annotations

import pytest

from app.serving.text import TextAssembler

ZHONG = "中".encode()  # 3 bytes: e4 b8 ad
# token id -> bytes: pieces of 中, a whole word, and ASCII
PIECES = [ZHONG[:1], ZHONG[1:2], ZHONG[2:], ZHONG[:2], "条款".encode(), b" end", ZHONG[1:]]


@pytest.mark.parametrize(
    ("steps", "deltas", "tail"),
    [
        ([[0], [1], [2]], ["", "", "中"], ""),  # one byte per token
        ([[3], [2], [4]], ["", "中", "条款"], ""),  # two bytes, then the last one
        ([[0], [6, 4]], ["", "中条款"], ""),
        ([[4], [3]], ["条款", ""], ""),  # cut by max_tokens after 2 of 3 bytes: dropped
        ([[0]], [""], ""),
        ([[3], [5]], ["", " end"], ""),  # a character the model broke off: dropped
        ([[1], [4]], ["", "条款"], ""),  # a stray continuation byte: dropped
    ],
)
def test_incomplete_characters_are_held_back_then_dropped(
    steps: list[list[int]], deltas: list[str], tail: str
) -> None:
    asm = TextAssembler(PIECES)
    assert [asm.feed(step) for step in steps] == deltas
    assert asm.flush() == tail
    assert "\ufffd" not in asm.text


def test_a_real_replacement_character_is_kept() -> None:
    """U+FFFD the model actually wrote (its three bytes) is text like any other."""
    asm = TextAssembler(["\ufffd".encode()])
    assert asm.feed([0]) + asm.flush() == "\ufffd"


def test_stop_string_after_a_split_character() -> None:
    asm = TextAssembler(PIECES, stop=["end"])
    out = asm.feed([3]) + asm.feed([2, 5]) + asm.feed([4]) + asm.flush()
    assert out == "中 " and asm.stopped
