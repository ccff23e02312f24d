"""Token choice and the speculative acceptance rule.

Temperature 0 is greedy (argmax on the raw logits, no vocab-sized temporaries). Above 0 the
target distribution p is softmax(logits / T) restricted to the top-p nucleus; a drafted token x
drawn from q is accepted with probability min(1, p(x) / q(x)) and, on rejection, the
replacement is drawn from normalise(max(0, p - q)), so the output follows p exactly.
A deterministic drafter is the special case where q is a point mass on x.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0
    top_p: float = 1.0

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0


def probs(logits: np.ndarray, params: SamplingParams) -> np.ndarray:
    """The target distribution: softmax(logits / T), then the top-p nucleus, renormalised."""
    x = logits.astype(np.float64) / params.temperature
    x -= x.max()
    p = np.exp(x)
    p /= p.sum()
    if params.top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        cum = np.cumsum(p[order])
        keep = int(np.searchsorted(cum, params.top_p)) + 1  # smallest set with mass >= top_p
        mask = np.zeros_like(p)
        mask[order[:keep]] = p[order[:keep]]
        p = mask / mask.sum()
    return p


def draw(p: np.ndarray, rng: np.random.Generator) -> int:
    """One sample from a (possibly unnormalised) non-negative vector."""
    cum = np.cumsum(p)
    idx = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
    return min(idx, len(p) - 1)


def next_token(logits: np.ndarray, params: SamplingParams, rng: np.random.Generator) -> int:
    """A token from the target alone (no draft to check)."""
    if params.greedy:
        return int(np.argmax(logits))
    return draw(probs(logits, params), rng)


def accept_point(p: np.ndarray, x: int, rng: np.random.Generator) -> tuple[bool, int]:
    """Rejection step for a point-mass draft: accept with p(x); else draw from p without x."""
    if rng.random() < p[x]:
        return True, x
    residual = p.copy()
    residual[x] = 0.0
    return False, draw(residual, rng)


def accept_full(p: np.ndarray, q: np.ndarray, x: int, rng: np.random.Generator) -> tuple[bool, int]:
    """Rejection step for a draft x ~ q: accept with min(1, p/q); else draw from (p - q)+."""
    if q[x] <= 0.0 or rng.random() < min(1.0, p[x] / q[x]):
        return True, x
    residual = np.maximum(p - q, 0.0)
    if residual.sum() <= 0.0:
        return False, draw(p, rng)
    return False, draw(residual, rng)


def verify(
    logits: np.ndarray,
    draft: list[int],
    params: SamplingParams,
    rng: np.random.Generator,
    q_rows: np.ndarray | None = None,
) -> tuple[int, int]:
    """Check drafts against target rows (row i predicts draft[i]; the last row is the bonus).

    Returns (number of drafts accepted, the next token: correction or bonus).
    """
    for i, x in enumerate(draft):
        row = logits[i]
        if params.greedy:
            best = int(np.argmax(row))
            if best != x:
                return i, best
            continue
        p = probs(row, params)
        if q_rows is None:
            ok, tok = accept_point(p, x, rng)
        else:
            ok, tok = accept_full(p, q_rows[i], x, rng)
        if not ok:
            return i, tok
    return len(draft), next_token(logits[len(draft)], params, rng)
