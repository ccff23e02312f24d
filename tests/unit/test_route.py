"""The route engine: every route, every edge (以上 includes, 不满 excludes) and every exemption."""

from __future__ import annotations

import pytest

from app.route import TransferFacts, decide

N, Y = False, True
M, HK, WAN = 1_000_000, 100_000, 10_000


def facts(
    ciio: bool = N, important: bool = N, people: int = 0, sensitive: int = 0, *exempt: str
) -> TransferFacts:
    return TransferFacts(ciio, important, people, sensitive, frozenset(exempt))  # type: ignore[arg-type]


SA, SC, EX = "security_assessment", "standard_contract_or_certification", "exempt"

# (facts, route, rule, first basis as (statute, article, item))
TABLE = [
    # non-CIIO, personal information (sensitive excluded): the 10万 and 100万 edges
    (facts(N, N, 0), EX, "below_thresholds", ("促进和规范数据跨境流动规定", 5, 4)),
    (facts(N, N, HK - 1), EX, "below_thresholds", ("促进和规范数据跨境流动规定", 5, 4)),
    (facts(N, N, HK), SC, "individuals_contract", ("促进和规范数据跨境流动规定", 8, None)),
    (facts(N, N, HK + 1), SC, "individuals_contract", ("促进和规范数据跨境流动规定", 8, None)),
    (facts(N, N, M - 1), SC, "individuals_contract", ("促进和规范数据跨境流动规定", 8, None)),
    (facts(N, N, M), SA, "individuals_assessment", ("促进和规范数据跨境流动规定", 7, 2)),
    (facts(N, N, M + 1), SA, "individuals_assessment", ("促进和规范数据跨境流动规定", 7, 2)),
    # non-CIIO, sensitive personal information: any at all, and the 1万 edge
    (facts(N, N, 0, 1), SC, "sensitive_contract", ("促进和规范数据跨境流动规定", 8, None)),
    (facts(N, N, 50, WAN - 1), SC, "sensitive_contract", ("促进和规范数据跨境流动规定", 8, None)),
    (facts(N, N, 0, WAN), SA, "sensitive_assessment", ("促进和规范数据跨境流动规定", 7, 2)),
    (facts(N, N, HK, WAN + 1), SA, "sensitive_assessment", ("促进和规范数据跨境流动规定", 7, 2)),
    (facts(N, N, M, WAN - 1), SA, "individuals_assessment", ("促进和规范数据跨境流动规定", 7, 2)),
    # CIIO: any personal information at all; none and no important data: nothing applies
    (facts(Y, N, 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (facts(Y, N, 0, 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (facts(Y, N, HK - 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (facts(Y, N, 0, 0), EX, "ciio_no_personal_information", ("促进和规范数据跨境流动规定", 7, 1)),
    # important data: always the assessment, CIIO or not, with or without personal information
    (facts(N, Y, 0), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(Y, Y, 0), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, Y, HK - 1), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    # exemptions (art. 5(1)-(3), art. 4) whatever the numbers, CIIO included ...
    (
        facts(N, N, 5 * M, 2 * WAN, "contract"),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (facts(N, N, 5 * M, 0, "hr"), EX, "exemption", ("促进和规范数据跨境流动规定", 5, None)),
    (
        facts(N, N, 0, 2 * WAN, "emergency"),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (facts(Y, N, M, 0, "contract"), EX, "exemption", ("促进和规范数据跨境流动规定", 5, None)),
    (
        facts(N, N, M, WAN, "foreign-collected"),
        EX,
        "foreign_collected",
        ("促进和规范数据跨境流动规定", 4, None),
    ),
    (
        facts(Y, N, 1, 0, "foreign-collected"),
        EX,
        "foreign_collected",
        ("促进和规范数据跨境流动规定", 4, None),
    ),
    # art. 3: trade and similar data exempt only without personal information
    (
        facts(N, N, 0, 0, "trade"),
        EX,
        "trade_no_personal_information",
        ("促进和规范数据跨境流动规定", 3, None),
    ),
    (
        facts(N, N, HK, 0, "trade"),
        SC,
        "individuals_contract",
        ("促进和规范数据跨境流动规定", 8, None),
    ),
    # art. 6: data outside a free trade zone's negative list, not for a CIIO (read strictly)
    (facts(N, N, 2 * M, 0, "ftz"), EX, "free_trade_zone", ("促进和规范数据跨境流动规定", 6, None)),
    (facts(Y, N, 5, 0, "ftz"), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    # ... but never for important data (art. 5 para. 2; art. 4 requires none)
    (facts(N, Y, 0, 0, "trade"), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, Y, 0, 0, "ftz"), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, Y, HK, 0, "contract"), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, Y, 0, 0, "hr"), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(Y, Y, 0, 0, "emergency"), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (
        facts(N, Y, 0, 0, "foreign-collected"),
        SA,
        "important_data",
        ("促进和规范数据跨境流动规定", 7, None),
    ),
]


@pytest.mark.parametrize(("given", "route", "rule", "basis"), TABLE)
def test_route_table(given: TransferFacts, route: str, rule: str, basis: tuple) -> None:
    decision = decide(given)
    assert (decision.route, decision.rule) == (route, rule)
    first = decision.basis[0]
    assert (first.statute, first.article, first.item) == basis


def test_every_rule_and_every_exemption_is_covered_by_the_table() -> None:
    from app.route import EXEMPTIONS, load_rules

    assert {rule for _, _, rule, _ in TABLE} == {r.id for r in load_rules().rules}
    assert {e for f, *_ in TABLE for e in f.exemptions} == set(EXEMPTIONS)


@pytest.mark.parametrize("bad", [(-1, 0), (0, -5)])
def test_counts_must_not_be_negative(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError):
        facts(N, N, *bad)


def test_the_explanation_carries_the_numbers_and_the_threshold() -> None:
    decision = decide(facts(N, N, 1_200_000, 8000))
    assert "1,200,000" in decision.explanation.zh and "100万人以上" in decision.explanation.zh
    assert "1,000,000 or more" in decision.explanation.en
    assert (
        decision.basis_text()
        == "《促进和规范数据跨境流动规定》第七条第二项、《数据出境安全评估办法》第四条"
    )


def test_what_would_change_the_route_names_the_nearest_edge_each_way() -> None:
    changes = [c.en for c in decide(facts(N, N, 150_000)).changes]
    assert any("1,000,000 individuals" in c and "security assessment" in c for c in changes)
    assert any("99,999 individuals" in c and "exempt" in c for c in changes)
    assert any("10,000 individuals' sensitive" in c for c in changes)
    assert not any("999,999" in c for c in changes)  # same route: not a change
    zh = [c.zh for c in decide(facts(N, N, M)).changes]
    assert any("999,999人" in c and "标准合同" in c for c in zh)


def test_the_exemption_explanation_names_the_circumstance() -> None:
    decision = decide(facts(N, N, 5 * M, 0, "hr", "emergency"))
    assert "人力资源管理" in decision.explanation.zh and "紧急情况" in decision.explanation.zh
    assert "HR management" in decision.explanation.en


def test_free_trade_zone_lists_are_said_to_be_out_of_scope() -> None:
    note = decide(facts(N, N, 0)).scope_note
    assert "自由贸易试验区" in note.zh and "free trade zone" in note.en.lower()
