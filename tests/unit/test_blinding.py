"""Blinding: reviewer-facing types cannot carry the arm, and A/B positions are balanced."""

from __future__ import annotations

import dataclasses
import typing
from collections import Counter

import pytest

from app.studies import domain as rd
from app.studies.design import plan_queue
from app.studies.domain import (
    BlindDraft,
    BlindPair,
    BlindVerdict,
    ReviewError,
    ReviewerStudy,
    VerdictInput,
    present_text,
    validate_verdict,
)

REVIEWER_FACING = (BlindPair, BlindDraft, BlindVerdict, ReviewerStudy)
FORBIDDEN = (
    "arm",
    "label",
    "endpoint",
    "model",
    "item",
    "generation",
    "speculat",
    "token_",
    "tokens",
    "ttft",
    "seconds",
    "time",
    "_s",
    "draft_",
    "accepted",
    "params",
    "seed",
)


def _field_names(cls: type, seen: set[type] | None = None) -> list[str]:
    """Every field name reachable from a reviewer-facing dataclass, nested types included."""
    seen = seen if seen is not None else set()
    if cls in seen:
        return []
    seen.add(cls)
    names = []
    hints = typing.get_type_hints(cls, vars(rd))
    for f in dataclasses.fields(cls):
        names.append(f.name)
        for arg in _flatten(hints[f.name]):
            if dataclasses.is_dataclass(arg) and isinstance(arg, type):
                names.extend(_field_names(arg, seen))
    return names


def _flatten(tp: object) -> list[object]:
    args = typing.get_args(tp)
    return [tp, *(a for arg in args for a in _flatten(arg))]


@pytest.mark.parametrize("cls", REVIEWER_FACING)
def test_reviewer_facing_types_have_no_field_that_names_the_arm(cls: type) -> None:
    for name in _field_names(cls):
        if name == "token":  # the opaque per-reviewer handle, mapped to the item server-side
            continue
        assert not any(bad in name for bad in FORBIDDEN), f"{cls.__name__}.{name}"
    assert "id" not in {f.name for f in dataclasses.fields(BlindDraft)}


def test_only_the_study_list_carries_an_id_and_it_is_the_study() -> None:
    ids = [
        (c.__name__, f.name)
        for c in REVIEWER_FACING
        for f in dataclasses.fields(c)
        if f.name.endswith("id")
    ]
    assert ids == [("ReviewerStudy", "id")]


def test_serialised_blind_pair_reveals_nothing_but_text() -> None:
    verdict = BlindVerdict(8, 7, 9, ("第四条应为第三条",), "ok", 0)
    pair = BlindPair(
        position=2,
        total=5,
        doc_type="cross-border-filing-guide",
        values={"company": "某公司"},
        drafts=(
            BlindDraft("A", "tok-a-9f8e7d6c5b4a3210", "一、适用情形", verdict),
            BlindDraft("B", "tok-b-0123456789abcdef", "一、适用情形", None),
        ),
    )
    dumped = repr(dataclasses.asdict(pair)) + repr(pair)
    for secret in ("speculative", "plain", "ngram", "SmolLM", "endpoint", "ttft", "tokens_per"):
        assert secret not in dumped


@pytest.mark.parametrize("n", range(1, 13))
def test_plan_is_a_permutation_with_balanced_a_b(n: int) -> None:
    cases = list(range(100, 100 + n))
    for seed in range(50):
        plan = plan_queue(cases, seed)
        assert sorted(p.case_id for p in plan) == cases
        assert [p.position for p in plan] == list(range(1, n + 1))
        arm0_a = sum(p.arm0_is_a for p in plan)
        assert arm0_a in (n // 2, (n + 1) // 2)


def test_plan_is_deterministic_per_seed_and_differs_between_seeds() -> None:
    cases = list(range(10))
    assert plan_queue(cases, 42) == plan_queue(cases, 42)
    orders = {tuple(p.case_id for p in plan_queue(cases, seed)) for seed in range(20)}
    assert len(orders) == 20


def test_each_case_is_shown_as_a_about_half_the_time_across_reviewers() -> None:
    cases = list(range(6))
    counts: Counter[int] = Counter()
    seeds = range(400)
    for seed in seeds:
        counts.update(p.case_id for p in plan_queue(cases, seed) if p.arm0_is_a)
    for case in cases:
        assert 0.4 < counts[case] / len(seeds) < 0.6
    # odd n: the extra pair falls to either arm about equally often
    odd = Counter(sum(p.arm0_is_a for p in plan_queue(range(5), s)) for s in seeds)
    assert set(odd) == {2, 3} and 0.4 < odd[3] / len(seeds) < 0.6


def test_present_text_formats_both_arms_identically() -> None:
    assert present_text("一、范围\r\n内容  \r\n\r\n") == present_text("\n一、范围\n内容\n")
    assert present_text("a\rb") == "a\nb"


@pytest.mark.parametrize(
    ("verdict", "ok"),
    [
        (VerdictInput(0, 10, 5), True),
        (VerdictInput(11, 5, 5), False),
        (VerdictInput(5, -1, 5), False),
        (VerdictInput(5, 5, 5.5), False),  # type: ignore[arg-type]
        (VerdictInput(True, 5, 5), False),  # type: ignore[arg-type]
        (VerdictInput(5, 5, 5, ("x" * 1001,)), False),
        (VerdictInput(5, 5, 5, (), "y" * 5001), False),
    ],
)
def test_validate_verdict(verdict: VerdictInput, ok: bool) -> None:
    if ok:
        assert validate_verdict(verdict) == verdict
        return
    with pytest.raises(ReviewError) as err:
        validate_verdict(verdict)
    assert err.value.message_zh and err.value.message_en
    assert err.value.message("en") == err.value.message_en


def test_validate_verdict_cleans_error_list_and_counts() -> None:
    clean = validate_verdict(VerdictInput(5, 5, 5, (" 法条号错误 ", "", "  "), " 好 "))
    assert clean.hard_errors == ("法条号错误",) and clean.hard_error_count == 1
    assert clean.comment == "好"
