"""Gold items: one seeded error per draft, of a known kind, deterministic given the seed."""

from __future__ import annotations

import re

import pytest

from app.studies.design import GOLD_KINDS
from app.studies.gold import SEEDERS, seed_error, seed_gold
from app.studies.stats import CatchRate, GoldVerdict, catch_rates, caught

DRAFT = """一、适用情形
依据《数据出境安全评估办法》第四条，本公司拟向境外提供 120000 人的个人信息。
二、申报材料
根据该办法第十条，准备申报材料 3 份，于2024年3月22日提交。
三、其他事项
无。
"""


def test_every_gold_kind_has_a_seeder() -> None:
    assert set(SEEDERS) == set(GOLD_KINDS)


@pytest.mark.parametrize("seed", range(12))
def test_wrong_article_changes_one_article_number(seed: int) -> None:
    seeded = seed_error(DRAFT, "wrong_article", seed)
    assert seeded is not None and seeded.kind == "wrong_article"
    assert seeded.before in ("第四条", "第十条") and seeded.after != seeded.before
    assert re.fullmatch(r"第[一二三四五六七八九十]+条", seeded.after)
    assert seeded.text == DRAFT.replace(seeded.before, seeded.after, 1)


@pytest.mark.parametrize("seed", range(12))
def test_wrong_count_changes_a_count_never_a_date(seed: int) -> None:
    seeded = seed_error(DRAFT, "wrong_count", seed)
    assert seeded is not None
    assert (seeded.before, seeded.after) in (("120000", "12000"), ("3", "30"))
    assert "2024年3月22日" in seeded.text


@pytest.mark.parametrize("seed", range(12))
def test_missing_section_removes_a_later_section(seed: int) -> None:
    seeded = seed_error(DRAFT, "missing_section", seed)
    assert seeded is not None
    assert seeded.before in ("二、申报材料", "三、其他事项")
    assert seeded.before not in seeded.text and "一、适用情形" in seeded.text
    assert len(seeded.text) < len(DRAFT)


@pytest.mark.parametrize("kind", list(GOLD_KINDS))
def test_deterministic_given_the_seed(kind: str) -> None:
    assert seed_error(DRAFT, kind, 7) == seed_error(DRAFT, kind, 7)


@pytest.mark.parametrize(
    ("text", "kind", "expected_kind"),
    [
        ("一、范围\n正文。\n二、义务\n正文。\n", "wrong_article", "missing_section"),
        ("依据第五条。", "missing_section", "wrong_article"),
        ("共有 25 名员工。", "wrong_article", "wrong_count"),
        ("只有一段，没有数字也没有条文。", "wrong_article", None),
    ],
)
def test_seed_gold_falls_back_to_a_kind_the_draft_allows(
    text: str, kind: str, expected_kind: str | None
) -> None:
    seeded = seed_gold(text, kind, 1)
    if expected_kind is None:
        assert seeded is None
    else:
        assert seeded is not None and seeded.kind == expected_kind and seeded.text != text


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        (GoldVerdict("li", 4, 0), True),  # the harmed dimension scored at the threshold
        (GoldVerdict("li", 6, 0), False),
        (GoldVerdict("li", 9, 1), True),  # a hard error reported
        (GoldVerdict("li", None, 0), False),  # no dimension covers it: only a hard error
        (GoldVerdict("li", None, 2), True),
    ],
)
def test_caught_when_a_hard_error_or_a_low_score(verdict: GoldVerdict, expected: bool) -> None:
    assert caught(verdict, 5) is expected


def test_catch_rates_flag_reviewers_below_the_threshold() -> None:
    verdicts = [
        GoldVerdict("li", 3, 0),
        GoldVerdict("li", 9, 1),
        GoldVerdict("wang", 8, 0),
        GoldVerdict("wang", 2, 0),
        GoldVerdict("wang", None, 0),
        GoldVerdict("zhao", 9, 0),
    ]
    assert catch_rates(verdicts, 5, 0.5) == [
        CatchRate("li", 2, 2, 1.0, False),
        CatchRate("wang", 3, 1, pytest.approx(1 / 3), True),
        CatchRate("zhao", 1, 0, 0.0, True),
    ]
