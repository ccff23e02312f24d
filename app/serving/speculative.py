"""The decoding loop: plain or speculative, one request at a time on one KV-cache sequence.

Every step feeds the target [pending, d1..dk] in one batched pass (k = 0 is plain decoding),
keeps the accepted drafts' KV entries, drops the rest, and the correction/bonus token becomes
the next pending token. The prompt's KV is reused for the prefix it shares with the last request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.serving.adaptive import (
    AcceptanceModel,
    Explorer,
    PassCost,
    RequestGovernor,
    plan,
    time_passes,
)
from app.serving.drafter_registry import DEFAULT_DRAFT_TOKENS
from app.serving.drafters import Draft, Drafter
from app.serving.model import MAX_INVARIANT_ROWS, Model
from app.serving.sampling import SamplingParams, next_token, verify

WARM_TEXT = "第一条 为了规范数据出境活动，保护个人信息权益，维护国家安全。"
# A draft model's proposals rest on no lookup match; their acceptance is learnt as if anchored on
# this many tokens, the bucket whose prior (0.92, adaptive.PRIOR) suits a same-family draft model.
MODEL_MATCH_LEN = 16
# Start-up calibration times passes at two context lengths, near the start of a prompt and deep
# into one (the longest pass ends at CALIBRATION_FAR): the cost fit is linear in context length,
# so two points fix that slope; rows double up to a full verify pass (k_max + 1) for the curve.
# With K = 16 that is 5 sizes x 2 contexts x 5 repetitions, measured on a 2-core machine: 4.5 s
# at load 4, 16-22 s at load 10-15 (minutes while llama.cpp's threads still spun at their
# barriers, see model.py); app/serving/calibration.py keeps the result, so a server times passes
# only on its first start with a model file on a machine.
CALIBRATION_NEAR = 150
CALIBRATION_FAR = 600
CALIBRATION_ROWS = (1, 2, 4, 8)


def time_passes_at(
    model: Model,
    contexts: Sequence[int],
    sizes: Sequence[int],
    reps: int = 5,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[int, int, float]]:
    """(rows, context length, median seconds) of target passes over each number of rows, after
    each number of tokens of a statute-like text; the KV cache is left empty. `progress(done,
    total)` after each context length."""
    warm = model.tokenize(WARM_TEXT * 40)  # about 2,000 tokens
    if max(contexts) + max(sizes) > len(warm):
        raise ValueError(f"contexts up to {len(warm) - max(sizes)} tokens only")
    out: list[tuple[int, int, float]] = []
    model.truncate(0)
    for context in sorted(contexts):
        model.decode(warm[len(model.cached) : context], 1)

        def run(n: int, context: int = context) -> None:
            model.decode(warm[context : context + n], n)
            model.truncate(context)

        out += [(n, context, seconds) for n, seconds in time_passes(run, sizes, reps)]
        if progress is not None:
            progress(len(out) // len(sizes), len(contexts))
    model.truncate(0)
    return out


@dataclass
class Request:
    prompt: list[int]
    max_tokens: int
    params: SamplingParams = field(default_factory=SamplingParams)
    seed: int | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


@dataclass
class Step:
    """Tokens produced by one target pass, and what was drafted for it."""

    tokens: list[int]
    drafted: int = 0
    accepted: int = 0
    finish: str | None = None  # "stop" (end of generation), "length", "cancelled"


class Engine:
    """Runs requests against the target, optionally with a drafter and adaptive draft length."""

    def __init__(
        self,
        model: Model,
        drafter: Drafter | None = None,
        *,
        k_max: int = DEFAULT_DRAFT_TOKENS,
        adaptive: bool = True,
        draft_cost: float = 0.0,
    ) -> None:
        self.model = model
        self.drafter = drafter
        self.k_max = min(k_max, MAX_INVARIANT_ROWS - 1)  # keep verify batches batch-invariant
        self.adaptive = adaptive
        self.draft_cost = draft_cost  # cost of drafting one token, relative to a target step
        self.cost = PassCost()
        self.explorer = Explorer()
        self.last_reused = 0  # prompt tokens of the last request served from the prefix cache
        self._acceptance: dict[tuple[bool, str], AcceptanceModel] = {}

    def acceptance(self, params: SamplingParams, source: str) -> AcceptanceModel:
        """Acceptance estimates per (greedy or sampling, draft source), learnt across requests."""
        key = (params.greedy, source)
        if key not in self._acceptance:
            self._acceptance[key] = AcceptanceModel()
        return self._acceptance[key]

    @property
    def method(self) -> str:
        return self.drafter.method if self.drafter else "off"

    def calibration_grid(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(rows, context lengths) of the passes `calibrate` times."""
        sizes = tuple(sorted({*CALIBRATION_ROWS, self.k_max + 1}))
        return sizes, (CALIBRATION_NEAR, CALIBRATION_FAR - 1 - self.k_max)

    def calibrate(self, progress: Callable[[int, int], None] | None = None) -> PassCost:
        """Time passes of 1..k_max+1 rows near the start and deep into a context (see
        CALIBRATION_NEAR); they seed the cost model, which then keeps learning from real
        passes. `progress(done, total)` after each context length."""
        sizes, contexts = self.calibration_grid()
        self.cost = PassCost(time_passes_at(self.model, contexts, sizes, progress=progress))
        return self.cost

    def generate(self, req: Request) -> Iterator[Step]:
        """Yield one Step per target pass until end of generation, max_tokens or cancellation."""
        model = self.model
        # prompt tokens whose KV was kept; a request cancelled mid-prefill stops there
        self.last_reused = model.prefill(req.prompt, req.cancelled.is_set)
        rng = np.random.default_rng(req.seed)
        tokens = list(req.prompt)
        governor = RequestGovernor(self.cost)
        if self.drafter is not None:
            self.drafter.start(req.prompt, req.params, rng)
        produced = 0
        while produced < req.max_tokens:
            if req.cancelled.is_set():
                yield Step([], finish="cancelled")
                return
            room = min(req.max_tokens - produced - 1, model.n_ctx - len(model.cached) - 1)
            if room < 0:
                yield Step([], finish="length")
                return
            step = self._step(tokens, room, req.params, rng, governor, fixed=req.seed is not None)
            for i, tok in enumerate(step.tokens):
                if tok in model.eog:
                    step.tokens = step.tokens[:i]
                    step.finish = "stop"
                    break
            tokens.extend(step.tokens)
            produced += len(step.tokens)
            if step.finish is None and produced >= req.max_tokens:
                step.finish = "length"
            yield step
            if step.finish:
                return

    def _draft(
        self,
        tokens: Sequence[int],
        room: int,
        params: SamplingParams,
        governor: RequestGovernor,
        *,
        fixed: bool = False,
    ) -> Draft:
        """The draft to verify (maybe empty), with the match length and acceptance source it is
        learnt under, and q if the drafter sampled. `fixed`: the drafter's full proposal, as
        for a non-adaptive engine (a seeded request: the adaptive length depends on what the
        server has learnt from other traffic, and with it which random draws a position gets,
        so the same seed would not give the same text twice)."""
        if self.drafter is None or room <= 0:
            return Draft([])
        if not self.adaptive or fixed:
            return self.drafter.propose(tokens, min(self.k_max, room))
        if not governor.allowed():
            return Draft([])
        if self.draft_cost > 0:  # a draft model: decide k before paying for the proposal
            acceptance = self.acceptance(params, "model")
            survival = acceptance.survival(MODEL_MATCH_LEN, self.k_max)
            k = min(plan(survival, self.k_max, self.cost, self.draft_cost, len(tokens))[0], room)
            if k == 0:
                acceptance.skipped(MODEL_MATCH_LEN)
                k = min(self.explorer.size(), self.k_max, room)
            if k == 0:
                return Draft([])
            d = self.drafter.propose(tokens, k)
            return Draft(d.tokens, MODEL_MATCH_LEN, q=d.q, source=d.source)
        d = self.drafter.propose(tokens, min(self.k_max, room))
        chosen, chosen_value, declined = Draft([]), 0.0, Draft([])
        for cand in (d, d.fallback):  # the corpus's proposal and the context's, if both exist
            if cand is None or not cand.tokens:
                continue
            tag = governor.tag(cand.source)
            acceptance = self.acceptance(params, tag)
            survival = acceptance.survival(cand.match_len, len(cand.tokens))
            k, value = plan(survival, len(cand.tokens), self.cost, 0.0, len(tokens))
            if k == 0:
                acceptance.skipped(cand.match_len)
                if len(cand.tokens) > len(declined.tokens):
                    declined = Draft(cand.tokens, cand.match_len, cand.q, tag)
            elif value > chosen_value:
                q = cand.q[:k] if cand.q is not None else None
                chosen, chosen_value = Draft(cand.tokens[:k], cand.match_len, q, tag), value
        if chosen.tokens or not declined.tokens:
            return chosen
        k = self.explorer.size()  # now and then verify a declined proposal: its pass is timed
        q = declined.q[:k] if declined.q is not None else None
        return Draft(declined.tokens[:k], declined.match_len, q, declined.source) if k else chosen

    def _step(
        self,
        tokens: list[int],
        room: int,
        params: SamplingParams,
        rng: np.random.Generator,
        governor: RequestGovernor,
        *,
        fixed: bool = False,
    ) -> Step:
        model = self.model
        proposal = self._draft(tokens, room, params, governor, fixed=fixed)
        draft = proposal.tokens
        t0 = time.perf_counter()
        logits = model.decode([tokens[-1], *draft], len(draft) + 1)
        if self.drafter is not None and self.adaptive:
            self.cost.observe(len(draft) + 1, len(tokens), time.perf_counter() - t0)
        if not draft:
            governor.missed = False
            return Step([next_token(logits[0], params, rng)])
        n_acc, nxt = verify(logits, draft, params, rng, proposal.q)
        model.truncate(len(model.cached) - (len(draft) - n_acc))
        self.acceptance(params, proposal.source).record(proposal.match_len, len(draft), n_acc)
        governor.missed = n_acc < len(draft)
        governor.record(len(draft), n_acc + 1, self.draft_cost * len(draft), len(tokens))
        return Step([*draft[:n_acc], nxt], drafted=len(draft), accepted=n_acc)
