"""Drafters: n-gram prompt lookup, the corpus suffix automaton, and adaptive draft length."""

from __future__ import annotations

import numpy as np
import pytest

from app.serving.adaptive import AcceptanceModel, best_k, expected_tokens
from app.serving.drafters import NgramDrafter, NgramIndex
from app.serving.sampling import SamplingParams
from app.serving.suffix_index import Matcher, SuffixAutomaton
from app.serving.text import TextAssembler

COST = {1: 1.0, 2: 2.0, 4: 2.5, 8: 3.4, 16: 4.4}


def _brute_longest(corpus: list[int], context: list[int]) -> int:
    best = 0
    for n in range(1, len(context) + 1):
        suffix = context[-n:]
        if any(corpus[i : i + n] == suffix for i in range(len(corpus) - n + 1)):
            best = n
    return best


@pytest.mark.parametrize(
    ("tokens", "expected", "match"),
    [
        ([1, 2, 3, 4, 9, 1, 2, 3], [4, 9, 1], 3),  # continue after the earlier 1 2 3
        ([5, 6, 7, 8, 5, 6], [7, 8, 5], 2),
        ([1, 2, 3, 4], [], 0),  # nothing repeats
        ([1, 2, 1, 2, 7, 1, 2], [7, 1, 2], 2),  # the latest occurrence wins
    ],
)
def test_ngram_lookup(tokens: list[int], expected: list[int], match: int) -> None:
    drafter = NgramDrafter(min_n=2, max_n=4)
    drafter.start(tokens, SamplingParams(), np.random.default_rng(0))
    draft = drafter.propose(tokens, 3)
    assert draft.tokens == expected
    assert draft.match_len == match


def test_ngram_index_is_incremental() -> None:
    index = NgramIndex(2, 3)
    tokens = [1, 2, 3]
    index.update(tokens)
    assert index.lookup(tokens, 2).tokens == []
    tokens += [1, 2]
    index.update(tokens)
    assert index.lookup(tokens, 2).tokens == [3, 1]


def test_suffix_automaton_longest_match_agrees_with_brute_force() -> None:
    rng = np.random.default_rng(3)
    corpus = [int(t) for t in rng.integers(0, 4, 300)]
    sam = SuffixAutomaton(corpus)
    for _ in range(200):
        context = [int(t) for t in rng.integers(0, 4, int(rng.integers(1, 15)))]
        length, end = sam.longest_match(context)
        assert length == _brute_longest(corpus, context)
        if length:
            assert corpus[end - length + 1 : end + 1] == context[-length:]


def test_matcher_proposes_what_followed_and_stops_at_document_end() -> None:
    sam = SuffixAutomaton.from_documents([[10, 11, 12, 13, 14], [20, 21, 11, 12, 30]])
    m = Matcher(sam)
    for tok in [99, 10, 11, 12]:
        m.feed(tok)
    assert m.length == 3
    assert m.propose(5) == [13, 14]  # no tokens from the next document
    m.feed(77)  # no match any more
    assert m.length == 0 and m.propose(3) == []


def test_adaptive_length_drafts_only_when_it_pays() -> None:
    assert best_k(0.3, 8, COST) == 0  # weak matches: plain decoding is faster
    assert best_k(0.97, 16, COST) >= 8  # strong matches: draft long
    assert expected_tokens(1.0, 4) == 5
    model = AcceptanceModel()
    before = model.estimate(40)
    for _ in range(50):
        model.record(40, 8, 0)
    assert model.estimate(40) < before < 1.0


def test_text_assembler_handles_split_utf8_and_stop_strings() -> None:
    pieces = ["第".encode()[:2], "第".encode()[2:] + "一条".encode(), b" END", b" more"]
    asm = TextAssembler(pieces, stop=["END"])
    out = asm.feed([0]) + asm.feed([1]) + asm.feed([2]) + asm.feed([3]) + asm.flush()
    assert out == "第一条 "
    assert asm.stopped


class _FakeVocab:
    """Just the two attributes check_vocab reads."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.n_vocab = len(pieces)


def test_draft_model_with_other_vocabulary_is_refused() -> None:
    from app.serving.drafters import VocabMismatch, check_vocab

    target = _FakeVocab([f"t{i}".encode() for i in range(1000)])
    check_vocab(target, _FakeVocab(list(target.pieces)))  # same vocabulary: accepted
    with pytest.raises(VocabMismatch, match="1001 vs 1000"):
        check_vocab(target, _FakeVocab([*target.pieces, b"x"]))
    other = list(target.pieces)
    other[0] = b"different"
    with pytest.raises(VocabMismatch, match="token 0"):
        check_vocab(target, _FakeVocab(other))
