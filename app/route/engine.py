"""Decide the cross-border transfer route from a handful of facts (pure, table-driven).

`decide(facts)` walks the ordered rules of rules.yaml and returns the first that holds, with
its basis, a bilingual explanation carrying the thresholds, and what would change the route
(each fact moved to the nearest edge, decided again)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from app.domain import Bilingual
from app.route.rules import Basis, Exemption, Route, Rule, Rules, RulesError, load_rules


@dataclass(frozen=True)
class TransferFacts:
    """The facts the route follows from; counts are since 1 January of the current year."""

    ciio: bool
    important_data: bool
    individuals: int  # personal information, sensitive excluded
    sensitive: int  # sensitive personal information
    exemptions: frozenset[Exemption] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if self.individuals < 0 or self.sensitive < 0:
            raise ValueError("counts must be non-negative integers")


@dataclass(frozen=True)
class RouteDecision:
    route: Route
    rule: str
    basis: tuple[Basis, ...]
    explanation: Bilingual
    changes: tuple[Bilingual, ...]
    scope_note: Bilingual
    route_text: Bilingual

    def basis_text(self) -> str:
        return "、".join(b.label() for b in self.basis)

    def to_dict(self) -> dict[str, object]:
        return {
            "route": self.route,
            "rule": self.rule,
            "basis": [b.to_dict() for b in self.basis],
            "explanation_zh": self.explanation.zh,
            "explanation_en": self.explanation.en,
            "changes_zh": [c.zh for c in self.changes],
            "changes_en": [c.en for c in self.changes],
            "scope_note_zh": self.scope_note.zh,
            "scope_note_en": self.scope_note.en,
        }


def _count_at_least(attr: str, rules: Rules, arg: str) -> Callable[[TransferFacts], bool]:
    threshold = rules.thresholds[arg].value if arg in rules.thresholds else int(arg)
    return lambda f: int(getattr(f, attr)) >= threshold  # 以上 includes the number itself


def _condition(name: str, rules: Rules) -> Callable[[TransferFacts], bool]:
    """The predicate a `when` entry names (CONDITIONS), bound to its argument after a colon."""
    head, _, arg = name.partition(":")
    if head == "important_data":
        return lambda f: f.important_data
    if head == "ciio":
        return lambda f: f.ciio
    if head == "no_personal_information":
        return lambda f: f.individuals == 0 and f.sensitive == 0
    if head == "exemption":
        wanted = set(arg.split("|"))
        return lambda f: bool(wanted & f.exemptions)
    if head in ("individuals_at_least", "sensitive_at_least"):
        return _count_at_least(head.removesuffix("_at_least"), rules, arg)
    raise RulesError(f"未知条件：{name}", f"Unknown rule condition: {name}")


CONDITIONS = (
    "important_data",
    "ciio",
    "no_personal_information",
    "exemption",
    "individuals_at_least",
    "sensitive_at_least",
)


def matching_rule(facts: TransferFacts, rules: Rules) -> Rule:
    for rule in rules.rules:
        if all(_condition(c, rules)(facts) for c in rule.when):
            return rule
    raise RulesError("没有适用的规则", "No rule applies (the last rule must have no condition)")


def _explain(rule: Rule, facts: TransferFacts, rules: Rules) -> Bilingual:
    chosen = [e for e in rules.exemptions if e in facts.exemptions]
    values = {
        "individuals": f"{facts.individuals:,}",
        "sensitive": f"{facts.sensitive:,}",
        "exemptions_zh": "；".join(rules.exemptions[e][1].zh for e in chosen),
        "exemptions_en": "; ".join(rules.exemptions[e][1].en for e in chosen),
    }
    zh = rule.text.zh.format(**values, exemptions=values["exemptions_zh"])
    en = rule.text.en.format(**values, exemptions=values["exemptions_en"])
    return Bilingual(zh=zh, en=en)


def _with_count(facts: TransferFacts, attr: str, value: int) -> TransferFacts:
    if attr == "individuals":
        return replace(facts, individuals=value)
    return replace(facts, sensitive=value)


Variation = tuple[str, str, int, TransferFacts]  # (group, change key, value, varied facts)


def _variations(facts: TransferFacts, rules: Rules) -> list[Variation]:
    """Each fact moved to the edges of the thresholds, nearest first, one group per direction."""
    out: list[Variation] = []
    edges: dict[str, set[int]] = {"individuals": set(), "sensitive": {0, 1}}
    for t in rules.thresholds.values():
        edges[t.counts] |= {t.value, t.value - 1}
    for attr, key in (("individuals", "individuals_to"), ("sensitive", "sensitive_to")):
        current = int(getattr(facts, attr))
        above = sorted(v for v in edges[attr] if v > current)
        below = sorted((v for v in edges[attr] if v < current), reverse=True)
        out += [(f"{attr}+", key, v, _with_count(facts, attr, v)) for v in above]
        out += [(f"{attr}-", key, v, _with_count(facts, attr, v)) for v in below]
    ciio = "ciio_off" if facts.ciio else "ciio_on"
    out.append((ciio, ciio, 0, replace(facts, ciio=not facts.ciio)))
    important = "important_off" if facts.important_data else "important_on"
    out.append((important, important, 0, replace(facts, important_data=not facts.important_data)))
    if facts.exemptions:
        out.append(("exemption", "exemption_off", 0, replace(facts, exemptions=frozenset())))
    else:
        exempted = replace(facts, exemptions=frozenset({"contract"}))
        out.append(("exemption", "exemption_on", 0, exempted))
    return out


def _changes(facts: TransferFacts, route: Route, rules: Rules) -> tuple[Bilingual, ...]:
    """The nearest change in each direction of each fact that gives another route."""
    found: list[Bilingual] = []
    done: set[str] = set()
    for group, key, value, varied in _variations(facts, rules):
        other = matching_rule(varied, rules).route
        if other == route or group in done:
            continue
        done.add(group)
        change = rules.changes[key]
        then, target = rules.changes["then"], rules.routes[other]
        found.append(
            Bilingual(
                zh=then.zh.format(change=change.zh.format(value=f"{value:,}"), route=target.zh),
                en=then.en.format(change=change.en.format(value=f"{value:,}"), route=target.en),
            )
        )
    return tuple(found)


def decide(facts: TransferFacts, rules: Rules | None = None) -> RouteDecision:
    """The route these facts take, why, and what would change it."""
    rules = rules or load_rules()
    rule = matching_rule(facts, rules)
    return RouteDecision(
        route=rule.route,
        rule=rule.id,
        basis=rule.basis,
        explanation=_explain(rule, facts, rules),
        changes=_changes(facts, rule.route, rules),
        scope_note=rules.scope_note,
        route_text=rules.routes[rule.route],
    )
