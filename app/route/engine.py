"""Decide the cross-border transfer route from a handful of facts (pure, table-driven).

`decide(facts)` walks the ordered rules of rules.yaml and returns the first that holds, with
its basis, a bilingual explanation carrying the thresholds, what would change the route (each
fact moved to the nearest edge, decided again) and the counts to watch (a count within reach of
a threshold that would change the route: counts run from 1 January, so they only grow).

An exemption covers only the personal information it is about (规定第四条、第五条、第六条: the
employees' data of cross-border HR management, not the customers'): the form says how many of
the individuals are the exempt part (`exempt_individuals`, `exempt_sensitive`) and the rest is
counted; while it does not say, every individual is counted and the explanation asks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from app.domain import Bilingual
from app.route.rules import Basis, Exemption, Route, Rule, Rules, RulesError, load_rules

# the exemptions that free personal information (art. 3 frees only data without any)
PERSONAL_EXEMPTIONS: frozenset[Exemption] = frozenset(
    {"contract", "hr", "emergency", "foreign-collected", "ftz"}
)


@dataclass(frozen=True)
class TransferFacts:
    """The facts the route follows from; counts are since 1 January of the current year.

    `exempt_individuals` / `exempt_sensitive`: how many of the counted individuals are the part
    the chosen exemption covers (None: not said; only read with an exemption of PERSONAL_EXEMPTIONS)."""

    ciio: bool
    important_data: bool
    individuals: int  # personal information, sensitive excluded
    sensitive: int  # sensitive personal information
    exemptions: frozenset[Exemption] = field(default_factory=frozenset)
    exempt_individuals: int | None = None
    exempt_sensitive: int | None = None

    def __post_init__(self) -> None:
        counts = (self.individuals, self.sensitive, self.exempt_individuals, self.exempt_sensitive)
        if any(c is not None and c < 0 for c in counts):
            raise ValueError("counts must be non-negative integers")
        if (self.exempt_individuals or 0) > self.individuals or (
            self.exempt_sensitive or 0
        ) > self.sensitive:
            raise ValueError("the exempt part cannot exceed the count it is part of")

    @property
    def personal_exemption(self) -> bool:
        """An exemption that frees personal information is chosen."""
        return bool(self.exemptions & PERSONAL_EXEMPTIONS)

    @property
    def exempt_part_known(self) -> bool:
        return self.personal_exemption and (
            self.exempt_individuals is not None or self.exempt_sensitive is not None
        )

    @property
    def counted_individuals(self) -> int:
        """Individuals (sensitive excluded) outside the exempt part: what the thresholds count."""
        exempt = self.exempt_individuals or 0 if self.exempt_part_known else 0
        return self.individuals - exempt

    @property
    def counted_sensitive(self) -> int:
        exempt = self.exempt_sensitive or 0 if self.exempt_part_known else 0
        return self.sensitive - exempt


@dataclass(frozen=True)
class RouteDecision:
    route: Route
    rule: str
    basis: tuple[Basis, ...]
    explanation: Bilingual
    changes: tuple[Bilingual, ...]
    scope_note: Bilingual
    route_text: Bilingual
    watch: tuple[Bilingual, ...] = ()  # counts within reach of a threshold that changes the route

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
            "watch_zh": [w.zh for w in self.watch],
            "watch_en": [w.en for w in self.watch],
            "scope_note_zh": self.scope_note.zh,
            "scope_note_en": self.scope_note.en,
        }


def _count_at_least(attr: str, rules: Rules, arg: str) -> Callable[[TransferFacts], bool]:
    """The count outside the exempt part reaches the threshold (以上 includes the number)."""
    threshold = rules.thresholds[arg].value if arg in rules.thresholds else int(arg)
    return lambda f: int(getattr(f, f"counted_{attr}")) >= threshold


def _condition(name: str, rules: Rules) -> Callable[[TransferFacts], bool]:
    """The predicate a `when` entry names (CONDITIONS), bound to its argument after a colon."""
    head, _, arg = name.partition(":")
    if head == "important_data":
        return lambda f: f.important_data
    if head == "ciio":
        return lambda f: f.ciio
    if head == "no_personal_information":
        return lambda f: f.individuals == 0 and f.sensitive == 0
    if head == "all_exempt":  # every individual counted is in the exempt part the form names
        return lambda f: f.exempt_part_known and f.counted_individuals + f.counted_sensitive == 0
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
    "all_exempt",
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
    """The rule's text with the counted figures, after the exempt-part note where it applies."""
    chosen = [rules.exemptions[e][1] for e in rules.exemptions if e in facts.exemptions]
    named = Bilingual(zh="；".join(c.zh for c in chosen), en="; ".join(c.en for c in chosen))
    values = {
        "individuals": f"{facts.counted_individuals:,}",
        "sensitive": f"{facts.counted_sensitive:,}",
    }
    zh = rule.text.zh.format(**values, exemptions=named.zh)
    en = rule.text.en.format(**values, exemptions=named.en)
    note = _exempt_part_note(rule, facts, rules)
    if note is None:
        return Bilingual(zh=zh, en=en)
    exempted = [
        (rules.exempt_part[attr], f"{n:,}")
        for attr, n in (
            ("individuals", facts.exempt_individuals),
            ("sensitive", facts.exempt_sensitive),
        )
        if n
    ]
    part = Bilingual(
        zh="和".join(t.zh.format(n=n) for t, n in exempted) or "0人",
        en=" and ".join(t.en.format(n=n) for t, n in exempted) or "no individuals",
    )
    return Bilingual(
        zh=note.zh.format(exemptions=named.zh, exempt_part=part.zh) + zh,
        en=note.en.format(exemptions=named.en, exempt_part=part.en) + " " + en,
    )


def _exempt_part_note(rule: Rule, facts: TransferFacts, rules: Rules) -> Bilingual | None:
    """Before a rule that counts: which part the chosen exemption frees, or that the form has
    not said (then every individual is counted). None where no such exemption is chosen or the
    rule does not count individuals (`counts: true` in rules.yaml marks those that do)."""
    if not (facts.personal_exemption and rule.counts):
        return None
    return rules.exempt_part["known" if facts.exempt_part_known else "unknown"]


def _with_count(facts: TransferFacts, attr: str, value: int) -> TransferFacts:
    """The facts with the counted (non-exempt) part of `attr` at `value`."""
    exempt = getattr(facts, f"exempt_{attr}") or 0 if facts.exempt_part_known else 0
    if attr == "individuals":
        return replace(facts, individuals=value + exempt)
    return replace(facts, sensitive=value + exempt)


Variation = tuple[str, str, int, TransferFacts]  # (group, change key, value, varied facts)


def _variations(facts: TransferFacts, rules: Rules) -> list[Variation]:
    """Each fact moved to the edges of the thresholds, nearest first, one group per direction."""
    out: list[Variation] = []
    edges: dict[str, set[int]] = {"individuals": set(), "sensitive": {0, 1}}
    for t in rules.thresholds.values():
        edges[t.counts] |= {t.value, t.value - 1}
    for attr, key in (("individuals", "individuals_to"), ("sensitive", "sensitive_to")):
        current = int(getattr(facts, f"counted_{attr}"))
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


def _watch(facts: TransferFacts, route: Route, rules: Rules) -> tuple[Bilingual, ...]:
    """Each counted figure within reach of a threshold (at least rules.watch_share of it) whose
    crossing changes the route: how far it is, and that the count runs on from 1 January."""
    found: list[Bilingual] = []
    for threshold in rules.thresholds.values():
        current = int(getattr(facts, f"counted_{threshold.counts}"))
        if not threshold.value * rules.watch_share <= current < threshold.value:
            continue
        other = matching_rule(_with_count(facts, threshold.counts, threshold.value), rules).route
        if other == route:
            continue
        what = rules.watch_what[threshold.counts]
        values = {"count": f"{current:,}", "gap": f"{threshold.value - current:,}"}
        found.append(
            Bilingual(
                zh=rules.watch.zh.format(
                    **values,
                    what=what.zh,
                    threshold=threshold.watch.zh,
                    route=rules.routes[other].zh,
                ),
                en=rules.watch.en.format(
                    **values,
                    what=what.en,
                    threshold=threshold.watch.en,
                    route=rules.routes[other].en,
                ),
            )
        )
    return tuple(found)


def decide(facts: TransferFacts, rules: Rules | None = None) -> RouteDecision:
    """The route these facts take, why, what would change it and which counts to watch."""
    rules = rules or load_rules()
    rule = matching_rule(facts, rules)
    return RouteDecision(
        route=rule.route,
        rule=rule.id,
        basis=rule.basis,
        explanation=_explain(rule, facts, rules),
        changes=_changes(facts, rule.route, rules),
        scope_note=rules.scope_note,
        route_text=rule.route_text or rules.routes[rule.route],
        watch=_watch(facts, rule.route, rules),
    )
