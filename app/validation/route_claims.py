"""Where a draft tells the client which transfer route applies, and whether that is the route
the form's facts lead to (`facts.route_mismatch`).

A sentence counts as a conclusion about the client when it names the client (贵公司, 该公司,
本公司, the company's name) or concludes (因此, 综上, 据此); questions, conditions (若, 如果,
是否) and the common-mistakes section (which describes wrong conclusions on purpose) are not
conclusions; nor is advice for when a count reaches a threshold (达到1万人时…改为申报安全评估,
累计人数达到…的，应当…, 届时). Within a clause, a negation (无需, 免予, 不适用 ...) before 安全评估 or 标准合同
denies that route; a duty (应当, 需要, 适用 ...) before it asserts it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

SENTENCE = re.compile(r"[^。；;！？!?\n]+")
CLAUSE = re.compile(r"[^，,：:]+")
HEADING = re.compile(r"【([^】\n]{1,20})】")
SKIP_SECTIONS = ("常见错误",)
SUBJECT = re.compile(r"(贵|该|本|你|我)(公司|司|单位|企业|集团)|委托人|因此|综上|据此|结论")
# advice for later: a count that reaches a threshold ("达到1万人时", "超过…后", "累计人数达到…的，",
# "届时") is a condition, for the route conclusions here and for the counts (app/route/claims.py)
LATER = r"(?:达到|超过|增至|累计至)[^，,。；;]{0,30}?(?:时|之后|以后|后|的[，,])|届时"
NOT_A_CLAIM = re.compile(
    r"若|如果|假如|倘若|一旦|如属|如为|是否|能否|误以为|误认为|错误地|混淆|误将|例如|比如|？|\?|"
    + LATER
)
NEGATION = re.compile(
    r"无需|不需要|不需|无须|不必|免予|免于|不用|不适用|不触发|未触发|不属于|不应|不能|不可|不得|无法"
)
DUTY = re.compile(r"应当|应|需要|需|须|必须|触发|适用|属于|可以|可|通过|申报|订立|签订|备案")
OBJECTS = {"assessment": re.compile(r"安全评估"), "contract": re.compile(r"标准合同|保护认证")}


@dataclass(frozen=True)
class Claim:
    start: int
    end: int
    asserts: frozenset[str]  # "assessment" / "contract" asserted for the client
    denies: frozenset[str]  # "assessment" / "contract" denied


def skipped_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the sections whose sentences are not conclusions (常见错误)."""
    heads = list(HEADING.finditer(text))
    spans = []
    for i, head in enumerate(heads):
        if any(s in head.group(1) for s in SKIP_SECTIONS):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            spans.append((head.start(), end))
    return spans


def _clause_claims(clause: str) -> tuple[set[str], set[str]]:
    asserts, denies = set(), set()
    for name, pattern in OBJECTS.items():
        found = pattern.search(clause)
        if not found:
            continue
        before = clause[: found.start()]
        if NEGATION.search(before):
            denies.add(name)
        elif DUTY.search(before):
            asserts.add(name)
    return asserts, denies


def claims(text: str, client_names: tuple[str, ...] = ()) -> Iterator[Claim]:
    """The route conclusions the draft states about the client."""
    skipped = skipped_spans(text)
    names = [n for n in client_names if len(n) >= 2]
    for m in SENTENCE.finditer(text):
        sentence = m.group(0)
        if any(a <= m.start() < b for a, b in skipped) or NOT_A_CLAIM.search(sentence):
            continue
        if not (SUBJECT.search(sentence) or any(n in sentence for n in names)):
            continue
        asserts: set[str] = set()
        denies: set[str] = set()
        for clause in CLAUSE.finditer(sentence):
            a, d = _clause_claims(clause.group(0))
            asserts |= a
            denies |= d
        if asserts or denies:
            yield Claim(m.start(), m.end(), frozenset(asserts), frozenset(denies - asserts))


def contradicts(claim: Claim, route: str) -> bool:
    """True when the claim tells the client something other than `route`."""
    if route == "security_assessment":
        return "assessment" in claim.denies or claim.asserts == {"contract"}
    if route == "standard_contract_or_certification":
        return "assessment" in claim.asserts or "contract" in claim.denies
    return bool(claim.asserts)  # exempt: neither is needed
