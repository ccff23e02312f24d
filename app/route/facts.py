"""The facts check: does the draft say what the form says?

`facts.route_mismatch` (error): the draft tells the client another route than the one the
form's facts lead to (app/route). `facts.number_mismatch` (warning): the draft states a count
of individuals, a date, a company or a recipient that contradicts the form. Counts are compared
by value, however written (1,200,000 = 120万 = 一百二十万 = 1.2百万); statutory thresholds
(100万人以上, 不满10万人) and conditions are not the client's counts. A count about the client
written with a bound or an approximation (逾50万人, 约120万人) is compared as such, and a
counting period other than the rules' (自上年1月1日起, 上一年度) is reported
(app/validation/count_claims.py). Pure functions over the text."""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from app.domain import CheckResult, Finding
from app.route import RouteDecision
from app.route.engine import TransferFacts, decide
from app.route.form import INDIVIDUALS_FIELD, facts_from_values, form_counts
from app.validation.count_claims import (
    PEOPLE_AFTER,
    RULE_PERIOD,
    Bound,
    about_sensitive,
    bound_at,
    other_periods,
    shares,
    states_a_rule,
)
from app.validation.messages import finding
from app.validation.quantities import dates, quantities
from app.validation.route_claims import SENTENCE, SUBJECT, claims, contradicts, skipped_spans

# form field -> (words before the date, words after it) that make a date the field's date
DATE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "filing_date": (("申报日期", "申报时间", "拟于"), ("申报", "提交申报")),
    "contract_effective_date": (("生效日期", "生效时间"), ("生效", "起生效")),
}
THRESHOLD_BEFORE = re.compile(r"(不满|未满|超过|达到|满|低于|少于|不足|逾|第|至|超出)\s*$")
THRESHOLD_AFTER = re.compile(r"^\s*(?:名|位|个)?(?:人|用户|个人)?(?:以上|以下|以内|及以上|或以上)")
RULE_SENTENCE = re.compile(r"数据处理者|以上|不满|门槛|阈值|《")
HYPOTHETICAL = re.compile(r"若|如果|假如|倘若|一旦|例如|比如")
CN_COMPANY = re.compile(r"[\u4e00-\u9fff]{2,30}?(?:有限责任公司|股份有限公司|有限公司)")
EN_COMPANY = re.compile(
    r"[A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-.]*)*\s+"
    r"(?:Pte\.?\s*Ltd\.?|Co\.,?\s*Ltd\.?|Ltd\.?|GmbH|Inc\.?|LLC|Limited|Corporation|Corp\.?|AG|S\.A\.|B\.V\.)"
)
COMPANY_SUFFIXES = ("有限责任公司", "股份有限公司", "有限公司")
THRESHOLD_VALUES = frozenset({10_000, 100_000, 1_000_000})


@dataclass(frozen=True)
class FormFacts:
    """What the form says, as the draft is checked against it."""

    company: str = ""
    recipient: str = ""
    individuals: int | None = None
    sensitive: int | None = None
    dates: dict[str, dt.date] = field(default_factory=dict)
    decision: RouteDecision | None = None
    transfer: TransferFacts | None = None  # the facts the route follows from (a count's route)


def form_facts(values: Mapping[str, str], decision: RouteDecision | None) -> FormFacts | None:
    """The facts of a transfer form, with the route its context decided; None when the form is
    not about a transfer."""
    if INDIVIDUALS_FIELD not in values:
        return None
    day: dict[str, dt.date] = {}
    for name in DATE_FIELDS:
        try:
            day[name] = dt.date.fromisoformat(str(values.get(name) or ""))
        except ValueError:
            continue
    individuals, sensitive = form_counts(values)
    return FormFacts(
        company=str(values.get("company_name") or "").strip(),
        recipient=str(values.get("recipient") or "").strip(),
        individuals=individuals,
        sensitive=sensitive,
        dates=day,
        decision=decision,
        transfer=facts_from_values(values),
    )


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in SENTENCE.finditer(text)]


def _sentence_at(text: str, spans: list[tuple[int, int]], offset: int) -> tuple[int, str]:
    """The sentence holding `offset` (its start and text); spans from _sentence_spans."""
    i = bisect_right(spans, (offset, len(text) + 1)) - 1
    if i >= 0 and spans[i][0] <= offset < spans[i][1]:
        return spans[i][0], text[spans[i][0] : spans[i][1]]
    return offset, ""


def _clause(sentence: str, start: int, end: int) -> str:
    """The part of the sentence between the full-width commas around [start, end)."""
    left = sentence.rfind("，", 0, start) + 1
    right = sentence.find("，", end)
    return sentence[left : right if right >= 0 else len(sentence)]


def _allowed_counts(clause: str, facts: FormFacts) -> tuple[set[int], int | None, tuple[str, str]]:
    """(values the clause may state, the form's value, what is counted) for a count."""
    if about_sensitive(clause):
        return (
            {facts.sensitive or 0},
            facts.sensitive,
            ("敏感个人信息人数", "sensitive individuals"),
        )
    expected = facts.individuals
    if expected is None:
        return set(), None, ("人数", "individuals")
    allowed = {expected, expected + (facts.sensitive or 0)}
    if "其中" in clause and facts.sensitive:
        allowed.add(facts.sensitive)
    return allowed, expected, ("人数", "individuals")


def _about_client(sentence: str, facts: FormFacts) -> bool:
    names = (_core(facts.company), *_short_names(facts.company))
    return bool(SUBJECT.search(sentence)) or any(n and n in sentence for n in names)


def _count_findings(text: str, facts: FormFacts) -> list[Finding]:
    out: list[Finding] = []
    spans = _sentence_spans(text)
    for q in quantities(text):
        after, before = text[q.end : q.end + 8], text[max(0, q.start - 4) : q.start]
        if not PEOPLE_AFTER.match(after):
            continue
        bound = bound_at(text, q)
        if bound is None and (THRESHOLD_BEFORE.search(before) or THRESHOLD_AFTER.match(after)):
            continue
        start, sentence = _sentence_at(text, spans, q.start)
        if HYPOTHETICAL.search(sentence):
            continue
        clause = _clause(sentence, q.start - start, q.end - start)
        # a clause that names no category (…8千人，不足1万人) counts what the sentence did
        label = clause if "个人信息" in clause else sentence[: q.start - start]
        allowed, expected, what = _allowed_counts(label, facts)
        if expected is None:
            continue
        if bound is not None:
            # a bound counts only in a sentence about the client, not in a rule's condition
            if states_a_rule(clause) or not _about_client(sentence, facts):
                continue
            if any(bound.allows(v) for v in allowed):
                continue
            out.append(_mismatch(bound.start, bound.end, text, expected, what, facts, bound))
        elif q.value in THRESHOLD_VALUES and RULE_SENTENCE.search(sentence):
            continue
        elif q.value not in allowed:
            exact = Bound("ge", q.value, q.start, q.end)
            out.append(_mismatch(q.start, q.end, text, expected, what, facts, exact))
    return out + _share_findings(text, facts, spans) + _period_findings(text, facts, spans)


def _flipped(facts: FormFacts, sensitive: bool, bound: Bound) -> RouteDecision | None:
    """The route a count written like `bound` would lead to, when it is not the form's."""
    if facts.transfer is None or facts.decision is None:
        return None
    value = bound.stated + {"gt": 1, "lt": -1}.get(bound.kind, 0)
    value = max(0, value)
    transfer = facts.transfer
    moved = (
        replace(transfer, sensitive=value) if sensitive else replace(transfer, individuals=value)
    )
    decision = decide(moved)
    return decision if decision.route != facts.decision.route else None


def _mismatch(
    start: int,
    end: int,
    text: str,
    expected: int,
    what: tuple[str, str],
    facts: FormFacts | None = None,
    bound: Bound | None = None,
) -> Finding:
    """facts.number_mismatch, or facts.count_flips_route (an error) when the figure written
    would lead to another route than the form's."""
    sensitive = what[1] == "sensitive individuals"
    flipped = _flipped(facts, sensitive, bound) if facts and bound else None
    said = {"found": text[start:end], "what": what[0], "what_en": what[1],
            "expected": f"{expected:,}"}  # fmt: skip
    if flipped is not None and facts is not None and facts.decision is not None:
        return finding(
            "facts.count_flips_route",
            start,
            end,
            f"{expected:,}",
            **said,
            route=flipped.route_text.zh,
            route_en=flipped.route_text.en,
            form_route=facts.decision.route_text.zh,
            form_route_en=facts.decision.route_text.en,
        )
    return finding("facts.number_mismatch", start, end, f"{expected:,}", **said)


def _share_findings(text: str, facts: FormFacts, spans: list[tuple[int, int]]) -> list[Finding]:
    """A share of the count said to be sensitive (其中约三分之一为敏感个人信息), read as a count:
    the share of the count stated in the sentence (or of the form's total) against the form's
    sensitive count."""
    out: list[Finding] = []
    if facts.individuals is None:
        return out
    skipped = skipped_spans(text)
    total = facts.individuals + (facts.sensitive or 0)
    for begin, end in spans:
        sentence = text[begin:end]
        if any(a <= begin < b for a, b in skipped) or HYPOTHETICAL.search(sentence):
            continue
        if not _about_client(sentence, facts):
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
            if bound.allows(facts.sensitive or 0):
                continue
            what = ("敏感个人信息人数", "sensitive individuals")
            out.append(
                _mismatch(bound.start, bound.end, text, facts.sensitive or 0, what, facts, bound)
            )
    return out


def _period_findings(text: str, facts: FormFacts, spans: list[tuple[int, int]]) -> list[Finding]:
    """A counting period other than the rules' in a sentence that states the client's count."""
    out: list[Finding] = []
    skipped = skipped_spans(text)
    for begin, end in spans:
        sentence = text[begin:end]
        if any(a <= begin < b for a, b in skipped) or HYPOTHETICAL.search(sentence):
            continue
        if not _about_client(sentence, facts) or not _states_count(sentence):
            continue
        for m in other_periods(sentence):
            out.append(
                finding(
                    "facts.number_mismatch",
                    begin + m.start(),
                    begin + m.end(),
                    RULE_PERIOD,
                    found=m.group(0),
                    what="计算期间",
                    what_en="counting period",
                    expected=RULE_PERIOD,
                )
            )
    return out


def _states_count(sentence: str) -> bool:
    return any(PEOPLE_AFTER.match(sentence, q.end) for q in quantities(sentence))


def _date_findings(text: str, facts: FormFacts) -> list[Finding]:
    out: list[Finding] = []
    for mention in dates(text):
        before, after = text[max(0, mention.start - 8) : mention.start], text[mention.end :][:6]
        for name, (words_before, words_after) in DATE_FIELDS.items():
            expected = facts.dates.get(name)
            if expected is None or mention.value == expected:
                continue
            if any(w in before for w in words_before) or after.lstrip("起").startswith(words_after):
                out.append(
                    finding(
                        "facts.number_mismatch",
                        mention.start,
                        mention.end,
                        expected.isoformat(),
                        found=text[mention.start : mention.end],
                        what="日期",
                        what_en="date",
                        expected=expected.isoformat(),
                    )
                )
                break
    return out


def _core(name: str) -> str:
    name = re.sub(r"[（(][^）)]*[）)]\s*$", "", name).strip()
    return name


def _name_findings(text: str, facts: FormFacts) -> list[Finding]:
    known = [n for n in (_core(facts.company), _core(facts.recipient)) if n]
    if not known:
        return []
    flat = [re.sub(r"\s+", "", n).lower() for n in known]
    out: list[Finding] = []
    for pattern in (CN_COMPANY, EN_COMPANY):
        for m in pattern.finditer(text):
            found = re.sub(r"\s+", "", m.group(0)).lower()
            if any(found.endswith(k) or k.endswith(found) or k in found for k in flat):
                continue
            out.append(
                finding(
                    "facts.number_mismatch",
                    m.start(),
                    m.end(),
                    "；".join(known),
                    found=m.group(0),
                    what="公司或接收方名称",
                    what_en="company or recipient",
                    expected="；".join(known),
                )
            )
    return out


def _route_findings(text: str, facts: FormFacts) -> list[Finding]:
    decision = facts.decision
    if decision is None:
        return []
    names = tuple(n for n in (_core(facts.company), *_short_names(facts.company)) if n)
    return [
        finding(
            "facts.route_mismatch",
            claim.start,
            claim.end,
            decision.route_text.zh,
            route=decision.route_text.zh,
            route_en=decision.route_text.en,
            basis=decision.basis_text(),
        )
        for claim in claims(text, names)
        if contradicts(claim, decision.route)
    ]


def _short_names(company: str) -> tuple[str, ...]:
    core = _core(company)
    for suffix in COMPANY_SUFFIXES:
        core = core.removesuffix(suffix)
    return (core,) if len(core) >= 4 else ()


def with_facts(result: CheckResult, text: str, facts: FormFacts | None) -> CheckResult:
    """`result` with the facts findings added (unchanged when there are no facts)."""
    if facts is None:
        return result
    findings = sorted(
        (*result.findings, *check_facts(text, facts)), key=lambda f: (f.start, f.end, f.code)
    )
    return CheckResult(findings=tuple(findings), citations=result.citations)


def check_facts(text: str, facts: FormFacts) -> list[Finding]:
    """Findings where the draft contradicts the form (route, counts, dates, names)."""
    found = _route_findings(text, facts) + _count_findings(text, facts)
    found += _date_findings(text, facts) + _name_findings(text, facts)
    return sorted(found, key=lambda f: (f.start, f.end, f.code))
