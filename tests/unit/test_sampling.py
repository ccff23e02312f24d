"""The rejection sampler must reproduce the target distribution exactly (chi-square tests)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from app.serving.sampling import (
    SamplingParams,
    accept_full,
    accept_point,
    draw,
    probs,
    verify,
)

P = np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
Q = np.array([0.1, 0.1, 0.5, 0.05, 0.05, 0.2])
N = 40_000


def _counts(samples: list[int], n: int) -> np.ndarray:
    return np.bincount(np.asarray(samples), minlength=n)


def test_full_q_draft_reproduces_target() -> None:
    """x ~ q, accept with min(1, p/q), else draw from (p - q)+: the result is distributed as p."""
    rng = np.random.default_rng(1234)
    out = []
    for _ in range(N):
        x = draw(Q, rng)
        _, tok = accept_full(P, Q, x, rng)
        out.append(tok)
    counts = _counts(out, len(P))
    assert chisquare(counts, P * N).pvalue > 0.001
    assert not np.allclose(counts / N, Q, atol=0.02)  # and it is not just q


@pytest.mark.parametrize("x", [0, 2, 5])
def test_point_mass_draft_reproduces_target(x: int) -> None:
    """A deterministic drafter (q = point mass on x) still yields exactly p."""
    rng = np.random.default_rng(99 + x)
    out = [accept_point(P, x, rng)[1] for _ in range(N)]
    assert chisquare(_counts(out, len(P)), P * N).pvalue > 0.001


def test_acceptance_rate_matches_theory() -> None:
    """The accept probability is sum(min(p, q)) for x ~ q."""
    rng = np.random.default_rng(7)
    accepted = sum(accept_full(P, Q, draw(Q, rng), rng)[0] for _ in range(N))
    assert abs(accepted / N - np.minimum(P, Q).sum()) < 0.01


def test_probs_applies_temperature_and_top_p() -> None:
    logits = np.log(P).astype(np.float32)
    p = probs(logits, SamplingParams(temperature=1.0, top_p=1.0))
    assert np.allclose(p, P, atol=1e-6)
    nucleus = probs(logits, SamplingParams(temperature=1.0, top_p=0.7))
    assert np.allclose(nucleus, [0.5, 0.3125, 0.1875, 0, 0, 0], atol=1e-6)  # 0.4+0.25+0.15 >= 0.7
    sharp = probs(logits, SamplingParams(temperature=0.5))
    assert sharp[0] > P[0]


def test_verify_with_top_p_never_emits_outside_nucleus() -> None:
    logits = np.log(np.tile(P, (3, 1))).astype(np.float32)
    params = SamplingParams(temperature=1.0, top_p=0.7)
    rng = np.random.default_rng(5)
    for _ in range(2000):
        n_acc, nxt = verify(logits, [5, 4], params, rng)  # drafts outside the nucleus
        assert n_acc == 0 and nxt in (0, 1, 2)


def test_verify_two_positions_reproduces_target() -> None:
    """End to end over two draft positions with full q rows: each emitted token follows p."""
    logits = np.log(np.tile(P, (3, 1))).astype(np.float32)
    params = SamplingParams(temperature=1.0)
    rng = np.random.default_rng(2024)
    first = []
    for _ in range(N // 2):
        d = [draw(Q, rng), draw(Q, rng)]
        n_acc, nxt = verify(logits, d, params, rng, np.tile(Q, (2, 1)))
        first.append(d[0] if n_acc >= 1 else nxt)
    assert chisquare(_counts(first, len(P)), P * (N // 2)).pvalue > 0.001


def test_greedy_verify_accepts_argmax_prefix() -> None:
    logits = np.zeros((4, 6), dtype=np.float32)
    for row, best in enumerate([3, 1, 2, 5]):
        logits[row, best] = 1.0
    rng = np.random.default_rng(0)
    assert verify(logits, [3, 1, 2], SamplingParams(), rng) == (3, 5)  # all accepted + bonus
    assert verify(logits, [3, 4, 2], SamplingParams(), rng) == (1, 1)  # correction at position 1
