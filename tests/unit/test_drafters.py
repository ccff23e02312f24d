"""Drafters: n-gram prompt lookup, the corpus suffix automaton, and adaptive draft length."""

from __future__ import annotations

import numpy as np
import pytest

from app.serving.adaptive import (
    AcceptanceModel,
    PassCost,
    RequestGovernor,
    best_k,
    calibrate,
    expected_tokens,
)
from app.serving.drafters import NgramDrafter, NgramIndex, continue_from
from app.serving.sampling import SamplingParams
from app.serving.suffix_index import Matcher, SuffixAutomaton
from app.serving.text import TextAssembler

COST = PassCost(
    {1: 1.0, 2: 2.0, 4: 2.5, 8: 3.4, 16: 4.4}, {1: 1.0, 2: 2.0, 4: 3.0, 8: 5.0, 16: 8.0}
)


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
        ([4, 1, 2, 1, 2], [1, 2, 1], 2),  # a loop runs on through the draft itself
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


def test_continuation_of_a_recent_match_runs_on_cyclically() -> None:
    tokens = [9, 5, 6, 7, 5, 6, 7]
    assert continue_from(tokens, 1, 2) == [5, 6]  # inside the context: a plain copy
    assert continue_from(tokens, 4, 7) == [5, 6, 7, 5, 6, 7, 5]  # period 3 continued
    assert continue_from(tokens, 6, 3) == [7, 7, 7]  # a run of one token


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
    # deep into a context a long verify pass costs more, so the same acceptance drafts less
    assert 0 < best_k(0.9, 16, COST, context=COST.far) < best_k(0.9, 16, COST, context=COST.near)
    assert expected_tokens(1.0, 4) == 5
    model = AcceptanceModel()
    before = model.estimate(40)
    for _ in range(50):
        model.record(40, 8, 0)
    assert model.estimate(40) < before < 1.0


def test_pass_cost_grows_with_context_and_stays_monotone() -> None:
    near, mid, far = COST(17, 0), COST(17, (COST.near + COST.far) // 2), COST(17, COST.far)
    assert near == pytest.approx(4.4 + 0.125) and far == pytest.approx(8.0 + 3.0 / 8)
    assert near < mid < far
    assert COST(1, 10_000) == 1.0 and COST(17, 10_000) <= COST(17, 10 * COST.far)


def test_calibration_is_clamped_and_monotone() -> None:
    cost = calibrate(lambda n: None, pairs=1)  # no time spent at all: clamped to the band
    assert cost[1] == 1.0
    assert all(cost[a] <= cost[b] for a, b in zip((1, 2, 4, 8), (2, 4, 8, 16), strict=True))


def test_governor_switches_off_a_request_whose_drafts_do_not_pay() -> None:
    gov = RequestGovernor(COST, window=3)
    for _ in range(3):
        gov.record(16, 1, context=COST.far)  # 16 drafted, none accepted, expensive passes
    assert not gov.allowed()
    assert gov.tag("context") == "context"
    gov.missed = True  # acceptance after a corrected token is learnt apart
    assert gov.tag("context") == "context+miss"
    paying = RequestGovernor(COST, window=3)
    for _ in range(3):
        paying.record(8, 9, context=COST.near)
    assert paying.allowed()


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
