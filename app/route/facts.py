"""The facts check: does the draft say what the form says?

`facts.route_mismatch` (error): the draft tells the client another route than the one the
form's facts lead to (app/route). `facts.number_mismatch` (warning): the draft states a count
of individuals, a date, a company or a recipient that contradicts the form. Counts are compared
by value, however written (1,200,000 = 120万 = 一百二十万 = 1.2百万); statutory thresholds
(100万人以上, 不满10万人) and conditions are not the client's counts. A count about the client
written with a bound or an approximation (逾50万人, 约120万人) is compared as such, and a
counting period other than the rules' (自上年1月1日起, 上一年度) is reported. Counts, periods
and dates are read by the one reader of claims (app/route/claims.py, the `CHECK` policy: what
contradicts the form), which the outline's prose.wrong_fact gate reads too; company names and
route conclusions are read here. Pure functions over the text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from app.domain import CheckResult, Finding
from app.route import RouteDecision
from app.route.claims import (
    CHECK,
    Claim,
    Facts,
    client_names,
    read_claims,
    read_facts,
)
from app.route.client import company_core
from app.route.engine import decide
from app.validation.count_claims import Bound
from app.validation.messages import finding
from app.validation.route_claims import claims, contradicts

CN_COMPANY = re.compile(r"[\u4e00-\u9fff]{2,30}?(?:有限责任公司|股份有限公司|有限公司)")
EN_COMPANY = re.compile(
    r"[A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-.]*)*\s+"
    r"(?:Pte\.?\s*Ltd\.?|Co\.,?\s*Ltd\.?|Ltd\.?|GmbH|Inc\.?|LLC|Limited|Corporation|Corp\.?|AG|S\.A\.|B\.V\.)"
)


def form_facts(values: Mapping[str, str], decision: RouteDecision | None) -> Facts | None:
    """The facts of a transfer form, with the route its context decided; None when the form is
    not about a transfer."""
    facts = read_facts(values, decision)
    return facts if facts.transfer_form else None


def _claim_findings(text: str, facts: Facts) -> list[Finding]:
    """The count, share, period and date claims the check reports (app/route/claims.py)."""
    out: list[Finding] = []
    for claim in CHECK.flagged(read_claims(text, facts), facts.known):
        if claim.bound is not None and claim.form_count is not None:
            out.append(_mismatch(claim, text, facts))
        else:
            out.append(
                finding(
                    "facts.number_mismatch",
                    claim.start,
                    claim.end,
                    claim.expected,
                    found=text[claim.start : claim.end],
                    what=claim.what[0],
                    what_en=claim.what[1],
                    expected=claim.expected,
                )
            )
    return out


def _flipped(facts: Facts, sensitive: bool, bound: Bound) -> RouteDecision | None:
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


def _mismatch(claim: Claim, text: str, facts: Facts) -> Finding:
    """facts.number_mismatch, or facts.count_flips_route (an error) when the figure written
    would lead to another route than the form's."""
    assert claim.bound is not None
    flipped = _flipped(facts, claim.sensitive, claim.bound)
    said = {"found": text[claim.start : claim.end], "what": claim.what[0],
            "what_en": claim.what[1], "expected": claim.expected}  # fmt: skip
    if flipped is not None and facts.decision is not None:
        return finding(
            "facts.count_flips_route",
            claim.start,
            claim.end,
            claim.expected,
            **said,
            route=flipped.route_text.zh,
            route_en=flipped.route_text.en,
            form_route=facts.decision.route_text.zh,
            form_route_en=facts.decision.route_text.en,
        )
    return finding("facts.number_mismatch", claim.start, claim.end, claim.expected, **said)


def _form_names(facts: Facts) -> list[str]:
    """Every company the form names elsewhere (a third-party assessor, a legal document's
    party): the draft may name them too."""
    values = facts.known.splitlines()
    found = [
        m.group(0) for line in values for p in (CN_COMPANY, EN_COMPANY) for m in p.finditer(line)
    ]
    return [n for n in (company_core(name) for name in found) if n]


def _name_findings(text: str, facts: Facts) -> list[Finding]:
    known = [n for n in (company_core(facts.company), company_core(facts.recipient)) if n]
    if not known:
        return []
    flat = [re.sub(r"\s+", "", n).lower() for n in (*known, *_form_names(facts))]
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


def _route_findings(text: str, facts: Facts) -> list[Finding]:
    decision = facts.decision
    if decision is None:
        return []
    names = tuple(n for n in client_names(facts) if n)
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


def with_facts(result: CheckResult, text: str, facts: Facts | None) -> CheckResult:
    """`result` with the facts findings added (unchanged when there are no facts)."""
    if facts is None:
        return result
    findings = sorted(
        (*result.findings, *check_facts(text, facts)), key=lambda f: (f.start, f.end, f.code)
    )
    return CheckResult(findings=tuple(findings), citations=result.citations, date=result.date)


def check_facts(text: str, facts: Facts) -> list[Finding]:
    """Findings where the draft contradicts the form (route, counts, dates, names)."""
    found = _route_findings(text, facts) + _claim_findings(text, facts)
    found += _name_findings(text, facts)
    return sorted(found, key=lambda f: (f.start, f.end, f.code))
