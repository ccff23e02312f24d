"""`when:` conditions of outline parts, list entries and clauses: a small declarative language
over the form's facts and the transfer route (no Python eval).

A condition is a mapping; every entry must hold. An entry is `fact: test`, or a combinator:
`any_of: [condition, ...]` (one holds) and `none_of: [condition, ...]` (none holds). A test is
a value (equal), a list of values (one of them), or a mapping of operators: `not` (a value or a
list: none of them), `at_least` (>=), `below` (<), `filled` (true: not empty; false: empty).

    when:
      route: standard_contract_or_certification
      sensitive: {at_least: 1}
      exemption: [无, ""]

Facts: every form field by name (its text as entered, "" when empty) and the derived
`route` (security_assessment | standard_contract_or_certification | exempt | "" when the type
has no route or a fact is missing), `route_rule` (the rule id of app/route/rules.yaml), `ciio`
and `important` (true/false), `individuals` and `sensitive` (whole numbers), and `doc_year`
(the year of the document's date, else of today: a text in force from 1 January of a year, as
the 2026 certification measures and amended Cybersecurity Law, is cited from that year on).
Pure functions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.route.engine import RouteDecision
from app.route.form import (
    CIIO_FIELD,
    IMPORTANT_FIELD,
    YES_NO,
    form_counts,
    parse_count,
)

DERIVED_FACTS = (
    "route",
    "route_rule",
    "ciio",
    "important",
    "individuals",
    "sensitive",
    "doc_year",
)
COMBINATORS = ("any_of", "none_of")
OPERATORS = ("not", "at_least", "below", "filled")
Facts = Mapping[str, object]


class ConditionError(ValueError):
    """A `when:` that cannot be read: an unknown fact or operator, or a malformed test."""


@dataclass(frozen=True)
class Test:
    """One fact's test: `op` is eq | in | not | at_least | below | filled."""

    fact: str
    op: str
    value: Any

    def holds(self, facts: Facts) -> bool:
        actual = facts.get(self.fact)
        if self.op == "filled":
            return bool(actual not in (None, "")) == bool(self.value)
        if self.op in ("at_least", "below"):
            number = _number(actual)
            if number is None:
                return False
            return bool(number >= self.value if self.op == "at_least" else number < self.value)
        matches = any(_same(actual, v) for v in self.value)
        return not matches if self.op == "not" else matches


@dataclass(frozen=True)
class Condition:
    """All `tests` hold, one of each `any_of` group holds and no `none_of` condition holds.
    The empty condition always holds."""

    tests: tuple[Test, ...] = ()
    any_of: tuple[Condition, ...] = ()
    none_of: tuple[Condition, ...] = ()

    def holds(self, facts: Facts) -> bool:
        return (
            all(t.holds(facts) for t in self.tests)
            and (not self.any_of or any(c.holds(facts) for c in self.any_of))
            and not any(c.holds(facts) for c in self.none_of)
        )

    @property
    def empty(self) -> bool:
        return not (self.tests or self.any_of or self.none_of)


ALWAYS = Condition()


def _number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return parse_count(str(value)) if value not in (None, "") else None


def _same(actual: object, expected: object) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, int) and not isinstance(actual, int):
        return _number(actual) == expected
    return str(actual if actual is not None else "") == str(expected)


def _test(fact: str, raw: object) -> Test:
    if isinstance(raw, list):
        return Test(fact, "in", tuple(raw))
    if not isinstance(raw, dict):
        return Test(fact, "in", (raw,))
    if len(raw) != 1 or next(iter(raw)) not in OPERATORS:
        raise ConditionError(
            f"{fact}: a test is a value, a list or one of {', '.join(OPERATORS)}, got {raw!r}"
        )
    op, value = next(iter(raw.items()))
    if op in ("at_least", "below") and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConditionError(f"{fact}: {op} needs a whole number, got {value!r}")
    if op == "filled" and not isinstance(value, bool):
        raise ConditionError(f"{fact}: filled is true or false, got {value!r}")
    if op == "not":
        value = tuple(value) if isinstance(value, list) else (value,)
    return Test(fact, op, value)


def parse_condition(raw: object, known: Iterable[str]) -> Condition:
    """The condition a `when:` mapping states; ConditionError names an unknown fact."""
    if raw is None:
        return ALWAYS
    if not isinstance(raw, dict):
        raise ConditionError(f"when: must be a mapping of fact: test, got {raw!r}")
    names = set(known)
    tests: list[Test] = []
    groups: dict[str, tuple[Condition, ...]] = {"any_of": (), "none_of": ()}
    for key, value in raw.items():
        if key in COMBINATORS:
            if not isinstance(value, list) or not value:
                raise ConditionError(f"{key}: needs a list of conditions")
            groups[key] = tuple(parse_condition(v, names) for v in value)
        elif key in names:
            tests.append(_test(str(key), value))
        else:
            raise ConditionError(f"unknown fact {key!r} (known: {', '.join(sorted(names))})")
    return Condition(tuple(tests), groups["any_of"], groups["none_of"])


def known_facts(field_names: Iterable[str]) -> tuple[str, ...]:
    """The facts a document type's conditions may test: its fields and the derived facts."""
    return (*field_names, *DERIVED_FACTS)


def condition_facts(
    values: Mapping[str, str], decision: RouteDecision | None, *, day: dt.date | None = None
) -> dict[str, object]:
    """The facts conditions are evaluated on, from the form's (validated) values, the route the
    draft's context decided (None: the type is not about a transfer) and the document's date
    (None: today, as the citation checks read it)."""
    facts: dict[str, object] = {name: str(value) for name, value in values.items()}
    individuals, sensitive = form_counts(values)
    facts.update(
        route=decision.route if decision else "",
        route_rule=decision.rule if decision else "",
        ciio=YES_NO.get(str(values.get(CIIO_FIELD) or "")),
        important=YES_NO.get(str(values.get(IMPORTANT_FIELD) or "")),
        individuals=individuals,
        sensitive=sensitive,
        doc_year=(day or dt.date.today()).year,
    )
    return facts
