"""Drafters: n-gram prompt lookup, the corpus suffix automaton, and adaptive draft length."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from app.serving.adaptive import (
    AcceptanceModel,
    Explorer,
    PassCost,
    RequestGovernor,
    expected_tokens,
    geometric,
    plan,
    time_passes,
)
from app.serving.corpus import Corpus
from app.serving.drafters import Draft, NgramDrafter, NgramIndex, RetrievalDrafter, continue_from
from app.serving.model import Model
from app.serving.sampling import SamplingParams
from app.serving.speculative import Engine
from app.serving.suffix_index import Matcher, SuffixAutomaton
from app.serving.text import TextAssembler

NEAR, FAR = 150, 600


def best_k(survival: np.ndarray, k_max: int, cost: PassCost, context: int = 0) -> int:
    return plan(survival, k_max, cost, context=context)[0]


def machine(n: int, context: int, per_row: float = 0.0025) -> float:
    """Seconds of an n-row pass on a made-up CPU: fixed cost, attention, rows, rows' attention."""
    m, x = n - 1, context / 1000
    return 0.008 + 0.004 * x + per_row * m + 0.002 * m * x


def seed(per_row: float = 0.0025) -> list[tuple[int, int, float]]:
    return [(n, c, machine(n, c, per_row)) for c in (NEAR, FAR) for n in (1, 2, 4, 8, 17)]


COST = PassCost(seed())


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
    assert best_k(geometric(0.3, 8), 8, COST) == 0  # weak matches: plain decoding is faster
    assert best_k(geometric(0.97, 16), 16, COST) >= 8  # strong matches: draft long
    # deep into a context a long verify pass costs more, so the same acceptance drafts less
    far, near = (best_k(geometric(0.95, 16), 16, COST, context=c) for c in (2000, NEAR))
    assert 0 < far < near
    assert expected_tokens(np.ones(4))[3] == 5
    assert expected_tokens(geometric(0.5, 3))[2] == pytest.approx(1.875)


def test_acceptance_learns_that_drafts_survive_whole() -> None:
    model = AcceptanceModel()
    prior = model.survival(40, 16)
    assert prior[0] == pytest.approx(0.95) and prior[-1] == pytest.approx(0.95**16)
    for _ in range(200):  # copied passages: half broken at their first token, half accepted whole
        model.record(40, 16, 0)
        model.record(40, 16, 16)
    learnt = model.survival(40, 16)
    assert learnt[0] == pytest.approx(0.5, abs=0.03)
    assert learnt[-1] == pytest.approx(0.5, abs=0.03)  # no further losses after the first token
    # the same per-token acceptance rate (16/17) read as independent coin flips drafts short
    assert best_k(learnt, 16, COST) == 16 > best_k(geometric(16 / 17, 16), 16, COST)
    for _ in range(300):
        model.record(40, 8, 0)  # the matches stopped paying: stop drafting them
    assert best_k(model.survival(40, 16), 16, COST) == 0
    stopped = model.survival(40, 1)[0]
    for _ in range(300):
        model.skipped(40)  # not drafting them drifts back to the prior, so they are re-tried
    assert stopped < 0.2 < 0.85 < model.survival(40, 1)[0]


def test_pass_cost_fits_the_timed_passes_and_grows_with_context() -> None:
    for n, c in ((1, NEAR), (17, NEAR), (9, 400), (17, FAR)):
        assert COST.seconds(n, c) == pytest.approx(machine(n, c), rel=1e-6)
    assert COST(1, 2000) == 1.0
    near, mid, far = COST(17, NEAR), COST(17, (NEAR + FAR) // 2), COST(17, FAR)
    assert near == pytest.approx(machine(17, NEAR) / machine(1, NEAR))
    assert 1.0 < near < mid < far <= 17.0
    assert all(COST(n, FAR) <= COST(n + 1, FAR) for n in range(1, 24))


def test_pass_cost_learns_a_dearer_machine_from_traffic() -> None:
    dear = PassCost(seed(per_row=0.005))
    cost = PassCost(seed(per_row=0.0005), refit_every=8)  # start-up said: batching is cheap
    before = best_k(geometric(0.85, 16), 16, cost, context=NEAR)
    for _ in range(40):  # but the passes really served cost ten times as much per extra row
        for n in (1, 3, 17):
            cost.observe(n, NEAR, machine(n, NEAR, per_row=0.005))
    assert cost(17, NEAR) == pytest.approx(dear(17, NEAR), rel=0.1)
    assert best_k(geometric(0.85, 16), 16, cost, context=NEAR) < before


def test_pass_cost_ignores_outliers_and_needs_a_seed() -> None:
    cost = PassCost(seed(), refit_every=1)
    cost.observe(17, NEAR, 100 * machine(17, NEAR))  # a stall: dropped
    assert not cost.recent
    assert cost(17, NEAR) == pytest.approx(COST(17, NEAR))
    with pytest.raises(ValueError):
        PassCost([])


def test_time_passes_interleaves_sizes_and_takes_medians() -> None:
    calls: list[int] = []
    clock = iter(range(1000))

    def fake_decode(n: int) -> None:
        calls.append(n)

    times = time_passes(fake_decode, (1, 4, 17), reps=3)
    assert calls == [1, 4, 17] * 3
    assert [n for n, _ in times] == [1, 4, 17]
    assert all(t >= 0 for _, t in times)
    del clock


def test_governor_switches_off_a_request_whose_drafts_do_not_pay() -> None:
    gov = RequestGovernor(COST, window=3)
    for _ in range(3):
        gov.record(16, 1, context=FAR)  # 16 drafted, none accepted, expensive passes
    assert not gov.allowed()
    assert gov.tag("context") == "context"
    gov.missed = True  # acceptance after a corrected token is learnt apart
    assert gov.tag("context") == "context+miss"
    paying = RequestGovernor(COST, window=3)
    for _ in range(3):
        paying.record(8, 9, context=NEAR)
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


def _corpus(tmp_path: Path, text: str) -> Corpus:
    (tmp_path / "approved.md").write_text(text, encoding="utf-8")
    return Corpus(lambda t: [ord(c) for c in t], None, tmp_path)  # one token per character


def test_retrieval_proposes_the_corpus_with_the_context_as_fallback(tmp_path: Path) -> None:
    drafter = RetrievalDrafter(_corpus(tmp_path, "the processor shall notify the regulator"))
    params, rng = SamplingParams(), np.random.default_rng(0)
    context = [ord(c) for c in "shall notify the data subject; a processor shall notify the "]
    drafter.start(context, params, rng)
    d = drafter.propose(context, 9)
    assert d.source == "corpus" and "".join(map(chr, d.tokens)) == "regulator"
    assert d.fallback is not None and d.fallback.source == "context"
    assert "".join(map(chr, d.fallback.tokens)) == "data subj"
    alone = [ord(c) for c in "nothing in common with it"]
    drafter.start(alone, params, rng)
    assert drafter.propose(alone, 4).fallback is None


class _TwoSources:
    """Always proposes 7s from the corpus, with 8s from the context as the fallback."""

    method = "retrieval"

    def start(
        self, prompt: Sequence[int], params: SamplingParams, rng: np.random.Generator
    ) -> None:
        pass

    def propose(self, tokens: Sequence[int], k: int) -> Draft:
        return Draft([7] * k, 40, source="corpus", fallback=Draft([8] * k, 40, source="context"))


def test_engine_takes_the_proposal_whose_record_is_better() -> None:
    engine = Engine(cast(Model, None), _TwoSources(), k_max=16)
    engine.cost = COST
    params = SamplingParams()
    for _ in range(100):  # the corpus's proposals keep failing here, the context's hold
        engine.acceptance(params, "corpus").record(40, 16, 0)
        engine.acceptance(params, "context").record(40, 16, 16)
    draft = engine._draft([1, 2, 3], 16, params, RequestGovernor(COST))
    tokens, source = draft.tokens, draft.source
    assert source == "context" and tokens == [8] * 16
    for _ in range(300):
        engine.acceptance(params, "context").record(40, 16, 0)  # now neither pays
    assert engine._draft([1, 2, 3], 16, params, RequestGovernor(COST)).tokens == []


def test_a_fit_calibrated_under_load_heals_once_the_load_is_gone() -> None:
    """Calibrated while the machine was busy, extra rows looked ten times dearer than they are:
    no draft pays. Timing only the single-row passes it then serves, the fit would never learn
    otherwise; with the explorer verifying a declined proposal now and then, the multi-row passes
    are timed too and drafting resumes within a few hundred tokens."""
    survival = geometric(0.85, 8)

    def serve(explore: bool, passes: int = 300) -> int:
        cost = PassCost(seed(per_row=0.025))  # the busy start
        explorer = Explorer()
        assert best_k(survival, 8, cost, context=NEAR) == 0
        for _ in range(passes):
            k = best_k(survival, 8, cost, context=NEAR)
            if k == 0 and explore:
                k = explorer.size()
            cost.observe(k + 1, NEAR, machine(k + 1, NEAR))  # the machine, now idle
        return best_k(survival, 8, cost, context=NEAR)

    assert serve(explore=False) == 0  # never heals by itself
    assert serve(explore=True) > 0


def test_the_explorer_drafts_every_nth_declined_proposal_in_turn_sizes() -> None:
    explorer = Explorer(every=3, sizes=(2, 4))
    assert [explorer.size() for _ in range(9)] == [0, 0, 2, 0, 0, 4, 0, 0, 2]


def test_pass_cost_keeps_a_pass_much_faster_than_the_fit() -> None:
    cost = PassCost(seed(), refit_every=1)
    cost.observe(1, NEAR, machine(1, NEAR) / 50)  # the load is gone: not an outlier
    assert len(cost.recent) == 1
