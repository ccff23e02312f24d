"""The route's facts read from a drafting form's values (the fields the transfer types share).

The field names and the meaning of each select value are declared here once; the document
types' meta.yaml use the same names and choices (test_route_form checks they agree)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from app.route.engine import RouteDecision, TransferFacts, decide
from app.route.rules import Exemption

CIIO_FIELD = "is_ciio"
IMPORTANT_FIELD = "important_data"
INDIVIDUALS_FIELD = "individuals_count"
SENSITIVE_FIELD = "sensitive_count"
EXEMPTION_FIELD = "exemption"
# how many of the counted individuals are the part the chosen exemption covers (blank: not said)
EXEMPT_INDIVIDUALS_FIELD = "exempt_individuals"
EXEMPT_SENSITIVE_FIELD = "exempt_sensitive"
COUNT_FIELDS = (
    INDIVIDUALS_FIELD,
    SENSITIVE_FIELD,
    EXEMPT_INDIVIDUALS_FIELD,
    EXEMPT_SENSITIVE_FIELD,
)

# 尚未认定: an operator is a CIIO once the protection department has notified it of its
# identification (关键信息基础设施安全保护条例第十条); until then the non-CIIO thresholds apply.
YES_NO: dict[str, bool] = {"是": True, "否": False, "尚未认定": False}
EXEMPTION_CHOICES: dict[str, Exemption | None] = {
    "无": None,
    "订立、履行个人作为一方当事人的合同": "contract",
    "依法实施跨境人力资源管理": "hr",
    "紧急情况下保护生命健康和财产安全": "emergency",
    "境外收集的个人信息经境内处理后出境": "foreign-collected",
    "国际贸易等活动中收集和产生的数据，不含个人信息或者重要数据": "trade",
    "自由贸易试验区内向境外提供负面清单外的数据": "ftz",
}


# 1200000 or 1,200,000 (ASCII digits only); at most 12 digits: far beyond any count of people,
# and far below the length at which int() refuses a string (4,300 digits)
COUNT = re.compile(r"[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+")
MAX_COUNT_DIGITS = 12


def parse_count(value: str) -> int | None:
    """A non-negative whole number written plainly or with commas between thousands (1200000,
    1,200,000); else None: misplaced commas (1,0,0 is not 100) and numbers longer than any count
    of people (MAX_COUNT_DIGITS) are not counts."""
    text = value.strip()
    if not COUNT.fullmatch(text):
        return None
    digits = text.replace(",", "")
    return int(digits) if len(digits) <= MAX_COUNT_DIGITS else None


def form_counts(values: Mapping[str, str]) -> tuple[int | None, int | None]:
    """(individuals, sensitive) as the form gives them (None: missing or malformed; a blank
    sensitive count is 0): how the route, the facts check, the outline's conditions and its
    prose gates all read the form's counts."""
    individuals = parse_count(str(values.get(INDIVIDUALS_FIELD) or ""))
    sensitive_raw = str(values.get(SENSITIVE_FIELD) or "").strip()
    return individuals, parse_count(sensitive_raw) if sensitive_raw else 0


def exempt_counts(values: Mapping[str, str]) -> tuple[int | None, int | None]:
    """(exempt individuals, exempt sensitive) as the form gives them: None where blank or
    malformed (the form's own validation reports a malformed count)."""

    def read(name: str) -> int | None:
        raw = str(values.get(name) or "").strip()
        return parse_count(raw) if raw else None

    return read(EXEMPT_INDIVIDUALS_FIELD), read(EXEMPT_SENSITIVE_FIELD)


def exempt_part_too_large(values: Mapping[str, str]) -> bool:
    """The exempt part the form names is larger than the count it is part of."""
    individuals, sensitive = form_counts(values)
    exempt, exempt_sensitive = exempt_counts(values)
    return (exempt or 0) > (individuals or 0) or (exempt_sensitive or 0) > (sensitive or 0)


def facts_from_values(values: Mapping[str, str]) -> TransferFacts | None:
    """The facts if the form holds all of them (a blank sensitive count is 0; a blank exempt
    part is not said); else None, also when the exempt part exceeds its count."""
    ciio = YES_NO.get(str(values.get(CIIO_FIELD) or ""))
    important = YES_NO.get(str(values.get(IMPORTANT_FIELD) or ""))
    individuals, sensitive = form_counts(values)
    exemption_raw = str(values.get(EXEMPTION_FIELD) or "无")
    if None in (ciio, important, individuals, sensitive) or exemption_raw not in EXEMPTION_CHOICES:
        return None
    if exempt_part_too_large(values):
        return None
    exemption = EXEMPTION_CHOICES[exemption_raw]
    exempt, exempt_sensitive = exempt_counts(values)
    return TransferFacts(
        ciio=bool(ciio),
        important_data=bool(important),
        individuals=int(individuals or 0),
        sensitive=int(sensitive or 0),
        exemptions=frozenset({exemption}) if exemption else frozenset(),
        exempt_individuals=exempt,
        exempt_sensitive=exempt_sensitive,
    )


def decision_from_values(values: Mapping[str, str]) -> RouteDecision | None:
    """The route the form's facts lead to, or None while a fact is missing or malformed."""
    facts = facts_from_values(values)
    return decide(facts) if facts is not None else None
