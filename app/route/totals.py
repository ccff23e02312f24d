"""Counts a text states as parts or shares of another: a share of a total it states (注册用户90万人
……约占用户总数的一半) and counts that add up to the client's (App 60万人、小程序60万人; 上述个人信息
均已向境外提供; 其中 parts). Readers for app/route/claims.py, over its `Claim`s."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from app.route.claim_types import (
    INDIVIDUALS,
    SENSITIVE,
    Claim,
    Facts,
    Sentences,
    Verdict,
    clause_of,
)
from app.validation.count_claims import (
    GATHERS,
    PEOPLE_AFTER,
    TRANSFER_WORDS,
    Bound,
    about_sensitive,
    is_population,
    total_shares,
)
from app.validation.quantities import quantities
from app.validation.route_claims import skipped_spans

HYPOTHETICAL = re.compile(r"若|如果|假如|倘若|一旦|例如|比如")


def total_share_claims(text: str, facts: Facts, sentences: Sentences) -> Iterator[Claim]:
    """A share of a total the text states (注册用户90万人……约占用户总数的一半), read as a count of
    the individuals transferred (or, said of sensitive information, of the sensitive ones)."""
    if facts.individuals is None:
        return
    bases: list[tuple[int, int]] = []  # (offset, value) of each population count stated
    for q in quantities(text):
        if PEOPLE_AFTER.match(text, q.end):
            start, sentence = sentences.at(q.start)
            if is_population(clause_of(sentence, q.start - start, q.end - start)):
                bases.append((q.start, q.value))
    if not bases:
        return
    skipped = skipped_spans(text)
    for begin, end in sentences.spans:
        sentence = text[begin:end]
        if HYPOTHETICAL.search(sentence) or any(a <= begin < b for a, b in skipped):
            continue
        for share in total_shares(sentence):
            at = begin + share.start
            earlier = [v for pos, v in bases if pos < at and "\n\n" not in text[pos:at]]
            if not earlier:
                continue
            sensitive = about_sensitive(clause_of(sentence, share.start, share.end))
            expected = (facts.sensitive or 0) if sensitive else facts.individuals
            bound = Bound(share.kind, round(share.share * earlier[-1]), at, begin + share.end)
            yield Claim(
                "share",
                bound.start,
                bound.end,
                text[bound.start : bound.end],
                "agrees" if bound.allows(expected) else "contradicts",
                f"{expected:,}",
                SENSITIVE if sensitive else INDIVIDUALS,
                expected,
                bound,
            )


def gathered(text: str, claims: list[Claim], facts: Facts, sentences: Sentences) -> list[Claim]:
    """Counts that are parts of one count: listed in one sentence (App 60万人、小程序60万人) or
    gathered by a later one (上述个人信息均已向境外提供 / 上述…合计120万人), and parts after 其中.
    Parts are not the client's count each: their sum is (one claim spanning them), or the total
    the gathering sentence states is (the parts then say nothing of their own)."""
    index = {span: i for i, span in enumerate(sentences.spans)}
    out = list(claims)
    exact = [
        c
        for c in claims
        if c.kind == "count" and c.exact and c.verdict in ("agrees", "contradicts")
    ]
    groups: list[list[Claim]] = []
    parts_of: Claim | None = None  # the total a 其中 just divided
    for claim in exact:
        span = sentences.span_of(claim.start)
        here = index.get(span, -1)
        last = groups[-1][-1] if groups else None
        there = index.get(sentences.span_of(last.start), -2) if last else -2
        between = text[last.end : claim.start] if last and here == there else ""
        if last is not None and ("其中" in between or (parts_of is not None and here == there)):
            parts_of = parts_of or last
            if claim.what == parts_of.what and claim.verdict == "contradicts":
                # a part of the total: not the client's count (a gate cannot confirm it)
                out[out.index(claim)] = replace(claim, verdict="unconfirmed")
            continue  # a part after 其中 is never one of a list that adds up
        parts_of = None
        gathering = bool(GATHERS.search(text, span[0], claim.start))  # 上述…合计 N: the total
        if (
            last is not None
            and last.what == claim.what
            and here - there in (0, 1)
            and not gathering
        ):
            groups[-1].append(claim)
        else:
            groups.append([claim])
    for group in groups:
        sentence_ids = [index.get(sentences.span_of(c.start), -1) for c in group]
        tail = sentences.spans[sentence_ids[-1] : sentence_ids[-1] + 3]
        after = [(max(a, group[-1].end), b) for a, b in tail]
        closing = next((s for s in after if GATHERS.search(text, s[0], s[1])), None)
        first = sentences.spans[sentence_ids[0]] if sentence_ids[0] >= 0 else (0, 0)
        listed = (
            len(group) >= 2
            and sentence_ids.count(sentence_ids[0]) == len(group)
            and bool(TRANSFER_WORDS.search(text, first[0], first[1]))
        )
        if not (closing or listed) or any(c not in out for c in group):
            continue
        total = [c for c in claims if closing and closing[0] <= c.start < closing[1]]
        for claim in group:
            # with a total stated, the parts say nothing of their own (a gate cannot confirm them)
            out[out.index(claim)] = replace(claim, verdict="unconfirmed")
        if total:
            continue  # the gathering sentence states the total: judged on its own
        for claim in group:
            out.remove(replace(claim, verdict="unconfirmed"))
        out.append(_sum_claim(text, group))
    return sorted(out, key=lambda c: (c.start, c.end))


def _sum_claim(text: str, parts: list[Claim]) -> Claim:
    first, last = parts[0], parts[-1]
    value = sum(c.bound.stated for c in parts if c.bound is not None)
    expected = first.form_count or 0
    verdict: Verdict = "agrees" if value == expected else "contradicts"
    bound = Bound("ge", value, first.start, last.end)
    return replace(
        first, end=last.end, quoted=text[first.start : last.end], verdict=verdict, bound=bound
    )
