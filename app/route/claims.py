"""The one reader of what a text says about a form's facts: `Facts` (what the form says, read by
`read_facts`) and `read_claims(text, facts)`: every count of people (exact, labelled 人数：N,
bounded or approximate, a share said to be sensitive, a counting period) and every date, each
with its `Verdict`. The facts check (app/route/facts.py) and the outline's prose.wrong_fact
gate (app/outline/gates.py) both read claims here and differ only in their `Policy`: what each
does with a verdict.

Which count is meant: the count's own words (up to the next comma or 和) when they name a
category (敏感个人信息 → the sensitive count, 个人信息 → the individuals), else its clause when it
names one, else the words before it in its sentence (…8千人，不足1万人 counts what the sentence
did); 其中 N人 may also be the sensitive part of the total. A number is a statutory threshold
when it is one of the rules' thresholds (app/route/rules.yaml: 1万, 10万, 100万); a rule's
condition (…10万人以上个人信息的, 数据处理者, 门槛) or a hypothetical (若, 如果, 例如) is not the
client's count. A date counts as a field's when that field's words surround it (申报日期 …,
… 生效). Bounds, approximations, shares and periods are read by app/validation/count_claims.py.
Counts that are parts of another (App 60万人、小程序60万人; 上述…均已向境外提供; 其中…) and shares
of a total the text states (约占用户总数的一半) are read by app/route/totals.py; the types (`Facts`,
`Claim`, `Policy`) are in app/route/claim_types.py. Pure functions over the text."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.route.claim_types import (
    CHECK,
    GATE,
    INDIVIDUALS,
    SENSITIVE,
    Claim,
    ClaimKind,
    Facts,
    Policy,
    Sentences,
    Verdict,
    about_client,
    clause_of,
    client_names,
    read_facts,
    statutory_thresholds,
)
from app.route.totals import gathered, total_share_claims
from app.validation.count_claims import (
    BOUND_AFTER,
    PEOPLE_AFTER,
    RULE_PERIOD,
    Bound,
    about_sensitive,
    bound_at,
    is_population,
    other_periods,
    shares,
    states_a_rule,
)
from app.validation.quantities import Quantity, dates, quantities
from app.validation.route_claims import LATER, skipped_spans

# form field -> (words before the date, words after it) that make a date the field's date
DATE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "filing_date": (("申报日期", "申报时间", "拟于"), ("申报", "提交申报")),
    "contract_effective_date": (("生效日期", "生效时间"), ("生效", "起生效")),
}
THRESHOLD_BEFORE = re.compile(r"(不满|未满|超过|达到|满|低于|少于|不足|逾|第|至|超出)\s*$")
THRESHOLD_AFTER = re.compile(r"^\s*(?:名|位|个)?(?:人|用户|个人)?(?:以上|以下|以内|及以上|或以上)")
RULE_SENTENCE = re.compile(r"数据处理者|以上|不满|门槛|阈值|《")
HYPOTHETICAL = re.compile(r"若|如果|假如|倘若|一旦|例如|比如|" + LATER)
COUNT_LABEL = re.compile(r"人数\s*[：:，,为是]?\s*$")  # 人数：0 (a count with no 人 after it)
NOUN_END = re.compile(r"[，,。；;、）)0-9０-９/]|和|及|与|以及")  # where a count's own words end
OTHER_WORD = re.compile(r"[ \t]*[\u4e00-\u9fff%％]")  # a word after a number: 三种, 四分之三, 10%


def _category(text: str, q: Quantity, label: str) -> bool:
    """Whether the count q is of sensitive personal information: its own words when they name a
    category (120万人个人信息和8000人敏感个人信息: each its own), else its label."""
    own = NOUN_END.split(text[q.end : q.end + 16], maxsplit=1)[0]
    if about_sensitive(own):
        return True
    return False if "个人信息" in own else about_sensitive(label)


def _exempt_parts(sensitive: bool, facts: Facts) -> set[int]:
    """Where the form names the part an exemption covers: that part and the counted rest."""
    transfer = facts.transfer
    if transfer is None or not transfer.exempt_part_known:
        return set()
    if sensitive:
        return {transfer.exempt_sensitive or 0, transfer.counted_sensitive}
    return {transfer.exempt_individuals or 0, transfer.counted_individuals}


def _allowed(sensitive: bool, label: str, facts: Facts) -> tuple[set[int], int | None]:
    """(the values a count may state, the form's value) for a count of that category."""
    if sensitive:
        return {facts.sensitive or 0} | _exempt_parts(True, facts), facts.sensitive
    expected = facts.individuals
    if expected is None:
        return set(), None
    allowed = {expected, expected + (facts.sensitive or 0)} | _exempt_parts(False, facts)
    if "其中" in label and facts.sensitive:
        allowed.add(facts.sensitive)
    return allowed, expected


def _count_verdict(
    text: str,
    q: Quantity,
    bound: Bound | None,
    sentence: str,
    clause: str,
    allowed: set[int],
    facts: Facts,
) -> Verdict:
    """The verdict on the count q, with its bound if any, that may state `allowed`."""
    aside: Verdict = "aside" if q.value in allowed | statutory_thresholds() else "unconfirmed"
    hypothetical = bool(HYPOTHETICAL.search(sentence))
    if bound is not None:
        # a bound counts only in a sentence about the client, not in a rule's condition
        if hypothetical or states_a_rule(clause) or not about_client(sentence, facts):
            return aside
        if bound.stated not in statutory_thresholds() and all(bound.slips(v) for v in allowed):
            return "contradicts"  # 逾3.5万 for 350,000: true, but a slip of the order
        return "agrees" if any(bound.allows(v) for v in allowed) else "contradicts"
    if q.value in allowed:
        return "agrees"
    before, after = text[max(0, q.start - 4) : q.start], text[q.end : q.end + 8]
    if THRESHOLD_BEFORE.search(before) or THRESHOLD_AFTER.match(after) or hypothetical:
        return aside
    if q.value in statutory_thresholds() and RULE_SENTENCE.search(sentence):
        return aside
    return "contradicts"


def _labelled(text: str, q: Quantity) -> bool:
    """人数：0, 人数为150万: a count after a 人数 label (not 人数三种, 人数四分之三)."""
    if not COUNT_LABEL.search(text, max(0, q.start - 8), q.start):
        return False
    if "\n" in text[q.start : q.end] or not OTHER_WORD.match(text, q.end):
        return True  # the line or the sentence ends after the number
    return bool(BOUND_AFTER.match(text, q.end))


def _count_claims(text: str, facts: Facts, sentences: Sentences) -> Iterator[Claim]:
    """Every count of people (a number before 人/名/位/用户, or after a 人数 label)."""
    for q in quantities(text):
        people = PEOPLE_AFTER.match(text, q.end)
        if not (people or _labelled(text, q)):
            continue
        start, sentence = sentences.at(q.start)
        clause = clause_of(sentence, q.start - start, q.end - start)
        # a clause that names no category (…8千人，不足1万人) counts what the sentence did
        label = clause if "个人信息" in clause else sentence[: q.start - start]
        sensitive = _category(text, q, label)
        allowed, expected = _allowed(sensitive, label, facts)
        if expected is None:
            continue
        bound = bound_at(text, q)
        # an exact figure is its own bound: the route it would lead to is decided at its value
        written = bound or Bound("ge", q.value, q.start, q.end)
        verdict = _count_verdict(text, q, bound, sentence, clause, allowed, facts)
        if is_population(clause) and not sensitive:
            # 注册用户90万人: what the transfer is drawn from, not its count (which a prose gate
            # still cannot confirm unless the form holds it)
            verdict = "aside" if q.value in allowed | statutory_thresholds() else "unconfirmed"
        yield Claim(
            "count",
            written.start,
            written.end,
            text[q.start : people.end() if people else q.end],
            verdict,
            f"{expected:,}",
            SENSITIVE if sensitive else INDIVIDUALS,
            expected,
            written,
            exact=bound is None,
        )


def _share_claims(text: str, facts: Facts, sentences: Sentences) -> Iterator[Claim]:
    """A share of the count said to be sensitive (其中约三分之一为敏感个人信息), read as a count:
    the share of the count stated in the sentence (or of the form's total) against the form's
    sensitive count, in a sentence about the client."""
    if facts.individuals is None:
        return
    skipped = skipped_spans(text)
    total = facts.individuals + (facts.sensitive or 0)
    expected = facts.sensitive or 0
    for begin, end in sentences.spans:
        sentence = text[begin:end]
        if any(a <= begin < b for a, b in skipped) or HYPOTHETICAL.search(sentence):
            continue
        if not about_client(sentence, facts):
            continue
        for share in shares(sentence):
            counts = [
                q.value
                for q in quantities(sentence[: share.start])
                if PEOPLE_AFTER.match(sentence, q.end)
            ]
            base = counts[-1] if counts else total
            bound = Bound(
                share.kind, round(share.share * base), begin + share.start, begin + share.end
            )
            verdict: Verdict = "agrees" if bound.allows(expected) else "contradicts"
            quoted = text[bound.start : bound.end]
            yield Claim(
                "share",
                bound.start,
                bound.end,
                quoted,
                verdict,
                f"{expected:,}",
                SENSITIVE,
                expected,
                bound,
            )


def _period_claims(text: str, facts: Facts, sentences: Sentences) -> Iterator[Claim]:
    """A counting period other than the rules' in a sentence that states the client's count."""
    if not facts.transfer_form:
        return
    skipped = skipped_spans(text)
    for begin, end in sentences.spans:
        sentence = text[begin:end]
        if any(a <= begin < b for a, b in skipped) or HYPOTHETICAL.search(sentence):
            continue
        if not about_client(sentence, facts) or not _states_count(sentence):
            continue
        for m in other_periods(sentence):
            yield Claim(
                "period",
                begin + m.start(),
                begin + m.end(),
                m.group(0),
                "contradicts",
                RULE_PERIOD,
                ("计算期间", "counting period"),
            )


def _states_count(sentence: str) -> bool:
    return any(PEOPLE_AFTER.match(sentence, q.end) for q in quantities(sentence))


def _date_claims(text: str, facts: Facts) -> Iterator[Claim]:
    """Every date: a field's (its words around it) against that field, else any of the form's."""
    for mention in dates(text):
        before, after = text[max(0, mention.start - 8) : mention.start], text[mention.end :][:6]
        named = [
            facts.dates[name]
            for name, (words_before, words_after) in DATE_FIELDS.items()
            if name in facts.dates
            and (
                any(w in before for w in words_before) or after.lstrip("起").startswith(words_after)
            )
        ]
        wrong = [d for d in named if d != mention.value]
        verdict: Verdict = "contradicts" if wrong else "agrees"
        if not named and mention.value not in facts.dates.values():
            verdict = "unconfirmed"
        yield Claim(
            "date",
            mention.start,
            mention.end,
            text[mention.start : mention.end],
            verdict,
            (wrong[0] if wrong else mention.value).isoformat(),
            ("日期", "date"),
        )


def read_claims(text: str, facts: Facts) -> list[Claim]:
    """Everything the text says about the form's counts, counting period and dates, in order."""
    sentences = Sentences(text)
    counts = gathered(text, list(_count_claims(text, facts, sentences)), facts, sentences)
    found = [
        *counts,
        *_share_claims(text, facts, sentences),
        *total_share_claims(text, facts, sentences),
        *_period_claims(text, facts, sentences),
        *_date_claims(text, facts),
    ]
    return sorted(found, key=lambda c: (c.start, c.end))


__all__ = [
    "CHECK",
    "GATE",
    "Claim",
    "ClaimKind",
    "Facts",
    "Policy",
    "Verdict",
    "client_names",
    "read_claims",
    "read_facts",
]
