"""Suffix automaton over token ids: the longest suffix of a growing context found in a corpus.

Built once per corpus version in O(N). A `Matcher` follows a request's context one token at a
time (amortised O(1) per token) and proposes what followed the longest match in the corpus.
Documents are joined with distinct negative separators so that no match spans two documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class SuffixAutomaton:
    """Suffix automaton of one token sequence; `first_end[s]` is where state s first ends."""

    def __init__(self, tokens: Sequence[int]) -> None:
        self.tokens = list(tokens)
        self.next: list[dict[int, int]] = [{}]
        self.link = [-1]
        self.length = [0]
        self.first_end = [-1]
        last = 0
        for i, tok in enumerate(self.tokens):
            last = self._extend(last, tok, i)

    @classmethod
    def from_documents(cls, docs: Iterable[Sequence[int]]) -> SuffixAutomaton:
        joined: list[int] = []
        for n, doc in enumerate(docs):
            joined.extend(doc)
            joined.append(-1 - n)
        return cls(joined)

    def _new_state(self, length: int, first_end: int) -> int:
        self.next.append({})
        self.link.append(-1)
        self.length.append(length)
        self.first_end.append(first_end)
        return len(self.length) - 1

    def _extend(self, last: int, tok: int, pos: int) -> int:
        nxt, link, length = self.next, self.link, self.length
        cur = self._new_state(length[last] + 1, pos)
        p = last
        while p != -1 and tok not in nxt[p]:
            nxt[p][tok] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
            return cur
        q = nxt[p][tok]
        if length[p] + 1 == length[q]:
            link[cur] = q
            return cur
        clone = self._new_state(length[p] + 1, self.first_end[q])
        nxt[clone] = dict(nxt[q])
        link[clone] = link[q]
        while p != -1 and nxt[p].get(tok) == q:
            nxt[p][tok] = clone
            p = link[p]
        link[q] = link[cur] = clone
        return cur

    def longest_match(self, context: Sequence[int]) -> tuple[int, int]:
        """(length, end position in the corpus) of the longest suffix of context in the corpus."""
        m = Matcher(self)
        for tok in context:
            m.feed(tok)
        return m.length, (self.first_end[m.state] if m.length else -1)

    def continuation(self, state: int, k: int) -> list[int]:
        """Up to k tokens that followed the first occurrence of `state`, stopping at a separator."""
        start = self.first_end[state] + 1
        out: list[int] = []
        for tok in self.tokens[start : start + k]:
            if tok < 0:
                break
            out.append(tok)
        return out


class Matcher:
    """Tracks the longest suffix of a context (fed token by token) that occurs in the corpus."""

    __slots__ = ("length", "sam", "state")

    def __init__(self, sam: SuffixAutomaton) -> None:
        self.sam = sam
        self.state = 0
        self.length = 0

    def feed(self, tok: int) -> None:
        sam = self.sam
        state, length = self.state, self.length
        while state > 0 and tok not in sam.next[state]:
            state = sam.link[state]
            length = sam.length[state]
        nxt = sam.next[state].get(tok)
        if nxt is None:
            self.state, self.length = 0, 0
        else:
            self.state, self.length = nxt, length + 1

    def propose(self, k: int) -> list[int]:
        if self.length == 0:
            return []
        return self.sam.continuation(self.state, k)
