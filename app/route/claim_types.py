"""What the one reader of claims (app/route/claims.py) works with: `Facts` (what the form says,
`read_facts`), `Claim` (one thing a text says about them, with its `Verdict`), the `Policy` each
reader of claims applies (CHECK: the facts check; GATE: the outline's prose gate), how the text
names the client (app/route/client.py) and its sentences."""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from app.route import client
from app.route.engine import RouteDecision, TransferFacts
from app.route.form import INDIVIDUALS_FIELD, facts_from_values, form_counts
from app.route.rules import load_rules
from app.validation.count_claims import Bound
from app.validation.route_claims import SENTENCE

INDIVIDUALS = ("人数", "individuals")
SENSITIVE = ("敏感个人信息人数", "sensitive individuals")

Verdict = Literal["agrees", "aside", "unconfirmed", "contradicts"]
# agrees: what the form says (a bound or approximation the form's count satisfies)
# aside: not a statement of the client's count (a threshold, a rule's condition, a
#   hypothetical), written with the form's figure or a statutory threshold
# unconfirmed: not a statement of the client's count either, but with a figure that is neither
#   the form's nor a threshold; or a date that is none of the form's and no field's words name
# contradicts: the client's count, period or a field's date, and not what the form says
ClaimKind = Literal["count", "share", "period", "date"]


@dataclass(frozen=True)
class Facts:
    """What the form says, as a draft or a part of it is read against it; `known` is the text a
    writer may quote (the form's values and, for an outline part, the facts block and its
    clause)."""

    company: str = ""
    recipient: str = ""
    individuals: int | None = None
    sensitive: int | None = None
    dates: Mapping[str, dt.date] = field(default_factory=dict)  # every field holding a date
    transfer_form: bool = False  # the form holds the transfer's counts (individuals_count)
    decision: RouteDecision | None = None
    transfer: TransferFacts | None = None  # the facts the route follows from (a count's route)
    known: str = ""


def read_facts(
    values: Mapping[str, object], decision: RouteDecision | None = None, known: str = ""
) -> Facts:
    """The facts of a form's values, with the route its context decided and the text a writer
    may quote (to which the form's values are added)."""
    text = {name: str(value if value is not None else "") for name, value in values.items()}
    day: dict[str, dt.date] = {}
    for name, value in text.items():
        try:
            day[name] = dt.date.fromisoformat(value.strip())
        except ValueError:
            continue
    individuals, sensitive = form_counts(text)
    return Facts(
        company=text.get("company_name", "").strip(),
        recipient=text.get("recipient", "").strip(),
        individuals=individuals,
        sensitive=sensitive,
        dates=day,
        transfer_form=INDIVIDUALS_FIELD in text,
        decision=decision,
        transfer=facts_from_values(text),
        known="\n".join((known, *text.values())),
    )


@dataclass(frozen=True)
class Claim:
    """One thing a text says about the facts: [start, end) spans it (a bound's words with its
    number); `quoted` is how it is written (a count with its 人) as a writer might quote it."""

    kind: ClaimKind
    start: int
    end: int
    quoted: str
    verdict: Verdict
    expected: str = ""  # what the form says instead
    what: tuple[str, str] = INDIVIDUALS
    form_count: int | None = None  # the form's count (count and share claims)
    bound: Bound | None = None  # the figure as written (count and share claims)
    exact: bool = False  # a count written without a bound or approximation

    @property
    def sensitive(self) -> bool:
        return self.what == SENSITIVE


@dataclass(frozen=True)
class Policy:
    """What a reader of claims objects to: the verdicts it flags, and those it lets through
    when the claim is written as in the text the writer may quote."""

    flags: frozenset[Verdict]
    quotable: frozenset[Verdict] = frozenset()

    def flagged(self, claims: list[Claim], known: str) -> list[Claim]:
        return [
            c
            for c in claims
            if c.verdict in self.flags and not (c.verdict in self.quotable and c.quoted in known)
        ]


# the facts check reports what contradicts the form; a prose gate also rejects what it cannot
# confirm, unless the part may quote it
CHECK = Policy(flags=frozenset({"contradicts"}))
GATE = Policy(flags=frozenset({"contradicts", "unconfirmed"}), quotable=frozenset({"unconfirmed"}))


def statutory_thresholds() -> frozenset[int]:
    """The counts the rules draw lines at (rules.yaml thresholds): always allowed in a text."""
    return frozenset(t.value for t in load_rules().thresholds.values())


def client_names(facts: Facts) -> tuple[str, ...]:
    """The client's name as a text may write it (app/route/client.py: in full, without its
    company form, its short name 明川公司)."""
    return client.client_names(facts.company)


def about_client(sentence: str, facts: Facts) -> bool:
    return client.about_client(sentence, client_names(facts))


class Sentences:
    """The sentences of a text, found once (route_claims.SENTENCE)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans = [(m.start(), m.end()) for m in SENTENCE.finditer(text)]

    def span_of(self, offset: int) -> tuple[int, int]:
        i = bisect_right(self.spans, (offset, len(self.text) + 1)) - 1
        return self.spans[i] if i >= 0 else (0, 0)

    def at(self, offset: int) -> tuple[int, str]:
        """The sentence holding `offset` (its start and text)."""
        i = bisect_right(self.spans, (offset, len(self.text) + 1)) - 1
        if i >= 0 and self.spans[i][0] <= offset < self.spans[i][1]:
            return self.spans[i][0], self.text[self.spans[i][0] : self.spans[i][1]]
        return offset, ""


def clause_of(sentence: str, start: int, end: int) -> str:
    """The part of the sentence between the full-width commas around [start, end)."""
    left = sentence.rfind("，", 0, start) + 1
    right = sentence.find("，", end)
    return sentence[left : right if right >= 0 else len(sentence)]
