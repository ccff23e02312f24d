"""The route engine: every route, every edge (以上 includes, 不满 excludes) and every exemption."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.route import TransferFacts, decide

N, Y = False, True
M, HK, WAN = 1_000_000, 100_000, 10_000


def facts(
    ciio: bool = N, important: bool = N, people: int = 0, sensitive: int = 0, *exempt: str
) -> TransferFacts:
    return TransferFacts(ciio, important, people, sensitive, frozenset(exempt))  # type: ignore[arg-type]


def part(given: TransferFacts, people: int | None, sensitive: int | None = None) -> TransferFacts:
    """`given` with the exempt part the form names (how many are the exemption's own data)."""
    return replace(given, exempt_individuals=people, exempt_sensitive=sensitive)


SA, SC, EX = "security_assessment", "standard_contract_or_certification", "exempt"

# (facts, route, rule, first basis as (statute, article, item))
TABLE = [
    # non-CIIO, personal information (sensitive excluded): the 10万 and 100万 edges
    (facts(N, N, 1), EX, "below_thresholds", ("促进和规范数据跨境流动规定", 5, 4)),
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
    # CIIO: any personal information at all
    (facts(Y, N, 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (facts(Y, N, 0, 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (facts(Y, N, HK - 1), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    # neither personal information nor important data, CIIO or not: nothing is triggered
    (facts(Y, N, 0, 0), EX, "no_personal_information", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, N, 0, 0), EX, "no_personal_information", ("促进和规范数据跨境流动规定", 7, None)),
    (
        facts(N, N, 0, 0, "hr"),
        EX,
        "no_personal_information",
        ("促进和规范数据跨境流动规定", 7, None),
    ),
    # important data: always the assessment, CIIO or not, with or without personal information
    (facts(N, Y, 0), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(Y, Y, 0), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    (facts(N, Y, HK - 1), SA, "important_data", ("促进和规范数据跨境流动规定", 7, None)),
    # exemptions (art. 5(1)-(3), art. 4) cover only their own data: exempt when the form says
    # every individual counted is that part, CIIO included ...
    (
        part(facts(N, N, 5 * M, 2 * WAN, "contract"), 5 * M, 2 * WAN),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (
        part(facts(N, N, 5 * M, 0, "hr"), 5 * M),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (
        part(facts(N, N, 0, 2 * WAN, "emergency"), None, 2 * WAN),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (
        part(facts(Y, N, M, 0, "contract"), M),
        EX,
        "exemption",
        ("促进和规范数据跨境流动规定", 5, None),
    ),
    (
        part(facts(N, N, M, WAN, "foreign-collected"), M, WAN),
        EX,
        "foreign_collected",
        ("促进和规范数据跨境流动规定", 4, None),
    ),
    (
        part(facts(Y, N, 1, 0, "foreign-collected"), 1),
        EX,
        "foreign_collected",
        ("促进和规范数据跨境流动规定", 4, None),
    ),
    # ... and otherwise the rest is counted: the exempt part only comes off the count
    (
        part(facts(N, N, 150_000, 0, "hr"), 5_000),
        SC,
        "individuals_contract",
        ("促进和规范数据跨境流动规定", 8, None),
    ),
    (
        part(facts(N, N, 150_000, 0, "hr"), 60_000),
        EX,
        "below_thresholds",
        ("促进和规范数据跨境流动规定", 5, 4),
    ),
    (part(facts(Y, N, 150_000, 0, "hr"), 5_000), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (
        part(facts(N, N, M + 5, WAN, "contract"), 5, WAN),
        SA,
        "individuals_assessment",
        ("促进和规范数据跨境流动规定", 7, 2),
    ),
    # while the form does not say which part is exempt, every individual counts
    (
        facts(N, N, 150_000, 0, "hr"),
        SC,
        "individuals_contract",
        ("促进和规范数据跨境流动规定", 8, None),
    ),
    (
        facts(N, N, 5 * M, 0, "contract"),
        SA,
        "individuals_assessment",
        ("促进和规范数据跨境流动规定", 7, 2),
    ),
    (facts(N, N, 5_000, 0, "hr"), EX, "below_thresholds", ("促进和规范数据跨境流动规定", 5, 4)),
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
    (
        part(facts(N, N, 2 * M, 0, "ftz"), 2 * M),
        EX,
        "free_trade_zone",
        ("促进和规范数据跨境流动规定", 6, None),
    ),
    (part(facts(Y, N, 5, 0, "ftz"), 5), SA, "ciio", ("促进和规范数据跨境流动规定", 7, 1)),
    (
        part(facts(N, N, 2 * M, 0, "ftz"), M),
        SA,
        "individuals_assessment",
        ("促进和规范数据跨境流动规定", 7, 2),
    ),
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
    decision = decide(part(facts(N, N, 5 * M, 0, "hr", "emergency"), 5 * M))
    assert "人力资源管理" in decision.explanation.zh and "紧急情况" in decision.explanation.zh
    assert "HR management" in decision.explanation.en
    assert "人数不论多少" not in decision.explanation.zh
    assert "whatever the number" not in decision.explanation.en


def test_an_exemption_never_covers_the_other_data_and_asks_which_part_it_is() -> None:
    """150,000 customers and the HR exemption: the route is counted on the customers; while the
    form does not name the employees' part, the explanation asks for it."""
    unknown = decide(facts(N, N, 150_000, 0, "hr"))
    assert unknown.route == SC and "人数不论多少" not in unknown.explanation.zh
    assert "只及于" in unknown.explanation.zh and "请填写属于该情形的人数" in unknown.explanation.zh
    assert "150,000人" in unknown.explanation.zh
    known = decide(part(facts(N, N, 150_000, 0, "hr"), 5_000))
    assert "其中5,000人个人信息（不含敏感个人信息）属于该情形" in known.explanation.zh
    assert "145,000人" in known.explanation.zh and "请填写" not in known.explanation.zh
    assert "5,000 individuals' personal information" in known.explanation.en


def test_the_exempt_part_cannot_exceed_its_count() -> None:
    with pytest.raises(ValueError):
        part(facts(N, N, 10, 0, "hr"), 11)
    with pytest.raises(ValueError):
        part(facts(N, N, 10, 2, "hr"), 10, 3)


@pytest.mark.parametrize(
    ("given", "what", "gap", "then"),
    [
        (facts(N, N, 50, WAN - 1), "敏感个人信息", "差额为1，", "申报数据出境安全评估"),
        (
            facts(N, N, M - 50_000),
            "个人信息（不含敏感个人信息）",
            "差额为50,000，",
            "申报数据出境安全评估",
        ),
        (
            facts(N, N, HK - 1),
            "个人信息（不含敏感个人信息）",
            "差额为1，",
            "订立个人信息出境标准合同",
        ),
        # the exempt part does not count towards the threshold
        (
            part(facts(N, N, 50, WAN + 500, "hr"), None, 1_000),
            "敏感个人信息",
            "差额为500，",
            "申报",
        ),
    ],
)
def test_a_count_just_below_a_threshold_is_to_be_watched(
    given: TransferFacts, what: str, gap: str, then: str
) -> None:
    """9,999 sensitive individuals: one short of 1万人, counted from 1 January, to be monitored."""
    (watch,) = decide(given).watch
    assert watch.zh.startswith(what) and gap in watch.zh and then in watch.zh
    assert "自当年1月1日起累计计算" in watch.zh and "持续监测" in watch.zh
    assert "keep monitoring" in watch.en


@pytest.mark.parametrize(
    "given",
    [
        facts(N, N, 50, 8_999),  # below 90 % of the threshold
        facts(Y, N, 50, WAN - 1),  # a CIIO is assessed already: crossing changes nothing
        facts(N, N, 0, 0),
    ],
)
def test_no_watch_where_nothing_is_near_or_nothing_would_change(given: TransferFacts) -> None:
    assert decide(given).watch == ()


def test_no_personal_information_says_nothing_is_triggered_not_zero_people() -> None:
    decision = decide(facts(N, N, 0, 0))
    assert "不触发" in decision.route_text.zh and "不触发" in decision.explanation.zh
    assert "0人" not in decision.explanation.zh and "不满10万人" not in decision.explanation.zh
    trade = decide(facts(N, N, 0, 0, "trade"))
    assert trade.rule == "trade_no_personal_information" and trade.basis[0].article == 3


def test_free_trade_zone_lists_are_said_to_be_out_of_scope() -> None:
    note = decide(facts(N, N, 0)).scope_note
    assert "自由贸易试验区" in note.zh and "free trade zone" in note.en.lower()
