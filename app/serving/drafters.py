"""Drafters behind one small interface: propose up to k tokens that may follow a context.

- `NgramDrafter`: prompt lookup over the request's own prompt + generated tokens.
- `RetrievalDrafter`: the same, plus a suffix-automaton lookup in the local corpus
  (earlier approved outputs, prompt-library texts); the longer match is proposed, with the
  context's proposal as a fallback that the engine takes when its record is better.
- `ModelDrafter`: a small GGUF draft model with the target's vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.domain import Bilingual
from app.serving.corpus import Corpus
from app.serving.model import Model
from app.serving.sampling import SamplingParams, draw, probs
from app.serving.suffix_index import Matcher

MAX_EXTEND = 64  # how far back a match is measured (a strength signal, not a hard limit)
CORPUS_MIN_MATCH = 8  # shorter corpus matches are mostly chance phrases in a large corpus


@dataclass
class Draft:
    """Proposed tokens; `q` holds the drafter's distributions when it sampled (else point mass)."""

    tokens: list[int]
    match_len: int = 0  # tokens of context the proposal is anchored on (0: not a lookup)
    q: np.ndarray | None = None
    source: str = "context"  # context | corpus | model: acceptance is learnt per source
    fallback: Draft | None = None  # another source's proposal (the context's, when the corpus won)


class Drafter(Protocol):
    method: str

    def start(
        self, prompt: Sequence[int], params: SamplingParams, rng: np.random.Generator
    ) -> None:
        """Begin a request whose context starts with `prompt`."""

    def propose(self, tokens: Sequence[int], k: int) -> Draft:
        """Up to k tokens to follow `tokens` (the prompt plus everything generated so far)."""


class NgramIndex:
    """Latest position following each n-gram (min_n..max_n) of a growing token list."""

    def __init__(self, min_n: int, max_n: int) -> None:
        self.min_n, self.max_n = min_n, max_n
        self.tables: dict[int, dict[tuple[int, ...], int]] = {
            n: {} for n in range(min_n, max_n + 1)
        }
        self.indexed = 0  # continuation positions registered so far: 1..indexed

    def update(self, tokens: Sequence[int]) -> None:
        """Register every n-gram that has at least one following token."""
        for j in range(max(self.indexed, 1), len(tokens)):
            for n, table in self.tables.items():
                if j >= n:
                    table[tuple(tokens[j - n : j])] = j
        self.indexed = max(self.indexed, len(tokens))

    def lookup(self, tokens: Sequence[int], k: int) -> Draft:
        """Continue the longest n-gram suffix seen earlier; match_len is measured backwards."""
        size = len(tokens)
        for n in range(self.max_n, self.min_n - 1, -1):
            if size <= n:
                continue
            j = self.tables[n].get(tuple(tokens[size - n :]))
            if j is None:
                continue
            match = n
            while (
                match < MAX_EXTEND
                and j - match - 1 >= 0
                and (tokens[j - match - 1] == tokens[size - match - 1])
            ):
                match += 1
            return Draft(continue_from(tokens, j, k), match_len=match)
        return Draft([])


def continue_from(tokens: Sequence[int], j: int, k: int) -> list[int]:
    """Up to k tokens copied from position j on, running on through the copy itself.

    When the match is recent (a repetitive passage), its continuation reaches the end of the
    context after a few tokens; copying on through what was just drafted continues the cycle,
    so a loop of period p yields k tokens instead of p.
    """
    size = len(tokens)
    out = list(tokens[j : min(j + k, size)])
    while len(out) < k:
        out.append(out[j + len(out) - size])
    return out


class NgramDrafter:
    """Prompt lookup: the context's own earlier text is the draft."""

    method = "ngram"

    def __init__(self, min_n: int = 2, max_n: int = 5) -> None:
        self.min_n, self.max_n = min_n, max_n
        self.index = NgramIndex(min_n, max_n)

    def start(
        self, prompt: Sequence[int], params: SamplingParams, rng: np.random.Generator
    ) -> None:
        self.index = NgramIndex(self.min_n, self.max_n)

    def propose(self, tokens: Sequence[int], k: int) -> Draft:
        self.index.update(tokens)
        return self.index.lookup(tokens, k)


class RetrievalDrafter(NgramDrafter):
    """Prompt lookup plus the longest match in the corpus suffix automaton."""

    method = "retrieval"

    def __init__(self, corpus: Corpus, min_n: int = 2, max_n: int = 5) -> None:
        super().__init__(min_n, max_n)
        self.corpus = corpus
        self.matcher = Matcher(corpus.sam)
        self.fed = 0

    def start(
        self, prompt: Sequence[int], params: SamplingParams, rng: np.random.Generator
    ) -> None:
        super().start(prompt, params, rng)
        self.corpus.refresh()
        self.matcher = Matcher(self.corpus.sam)
        self.fed = 0

    def propose(self, tokens: Sequence[int], k: int) -> Draft:
        for tok in tokens[self.fed :]:
            self.matcher.feed(tok)
        self.fed = len(tokens)
        local = super().propose(tokens, k)
        if self.matcher.length >= max(CORPUS_MIN_MATCH, local.match_len + 1):
            found = self.matcher.propose(k)
            if found:
                fallback = local if local.tokens else None
                return Draft(found, self.matcher.length, source="corpus", fallback=fallback)
        return local


class VocabMismatch(ValueError):
    """The draft model's tokenizer differs from the target's."""


def check_vocab(target: Model, draft: Model, samples: int = 512) -> None:
    """Refuse a draft model whose vocabulary differs (size, then a token-by-token sample)."""
    if target.n_vocab != draft.n_vocab:
        raise VocabMismatch(
            str(
                Bilingual(
                    "草稿模型词表与目标模型不一致",
                    f"draft vocabulary differs from the target's: "
                    f"{draft.n_vocab} vs {target.n_vocab} tokens",
                )
            )
        )
    step = max(1, target.n_vocab // samples)
    for tok in range(0, target.n_vocab, step):
        if target.pieces[tok] != draft.pieces[tok]:
            raise VocabMismatch(
                str(
                    Bilingual(
                        "草稿模型词表与目标模型不一致",
                        f"draft vocabulary differs from the target's: "
                        f"token {tok} is {target.pieces[tok]!r} vs {draft.pieces[tok]!r}",
                    )
                )
            )


class ModelDrafter:
    """A small draft model run autoregressively; samples from q when the request samples."""

    method = "draft_model"

    def __init__(self, model: Model) -> None:
        self.model = model
        self.params = SamplingParams()
        self.rng = np.random.default_rng(0)

    def start(
        self, prompt: Sequence[int], params: SamplingParams, rng: np.random.Generator
    ) -> None:
        self.params, self.rng = params, rng

    def propose(self, tokens: Sequence[int], k: int) -> Draft:
        model = self.model
        if len(tokens) + k >= model.n_ctx:
            return Draft([])
        n = model.reuse_prefix(tokens)
        row = model.decode(tokens[n:], 1)[0]
        out: list[int] = []
        qs: list[np.ndarray] = []
        for i in range(k):
            if self.params.greedy:
                tok = int(np.argmax(row))
            else:
                q = probs(row, self.params)
                tok = draw(q, self.rng)
                qs.append(q)
            out.append(tok)
            if i + 1 < k:
                row = model.decode([tok], 1)[0]
        return Draft(out, q=np.stack(qs) if qs else None, source="model")
