"""The cross-border transfer route (security assessment, standard contract or certification,
exempt) decided from the facts by the table of rules in rules.yaml."""

from app.route.engine import RouteDecision, TransferFacts, decide
from app.route.rules import EXEMPTIONS, ROUTES, Basis, Exemption, Route, RulesError, load_rules

__all__ = [
    "EXEMPTIONS",
    "ROUTES",
    "Basis",
    "Exemption",
    "Route",
    "RouteDecision",
    "RulesError",
    "TransferFacts",
    "decide",
    "load_rules",
]
