"""Arms that wrote byte-identical drafts are found per pair and case, before review."""

from __future__ import annotations

from datetime import UTC, datetime

from app.studies.domain import Arm, ItemStatus, Study, StudyCase, StudyItem
from app.studies.sameness import identical_arms


def _study(n_arms: int, n_cases: int) -> Study:
    arms = tuple(Arm(i, i - 1, f"arm{i}", "e", {}) for i in range(1, n_arms + 1))
    cases = tuple(StudyCase(10 + c, c, {}) for c in range(n_cases))
    return Study(1, "s", "t", "boss", datetime.now(UTC), arms, cases, ("rita",), None, None)


def _item(n: int, arm: int, case: int, text: str, **kw: object) -> StudyItem:
    status = kw.pop("status", ItemStatus.COMPLETE)
    return StudyItem(n, case, arm, status, text, None, None, **kw)  # type: ignore[arg-type]


def test_identical_everywhere_some_cases_and_not_at_all() -> None:
    study = _study(3, 2)
    items = [
        _item(1, 1, 10, "甲"), _item(2, 2, 10, "甲"), _item(3, 3, 10, "乙"),
        _item(4, 1, 11, "丙"), _item(5, 2, 11, "丙"), _item(6, 3, 11, "丙 "),  # a space differs
    ]  # fmt: skip
    (pair,) = identical_arms(study, items)
    assert (pair.a, pair.b, pair.identical, pair.cases, pair.everywhere) == (
        "arm1", "arm2", 2, 2, True,
    )  # fmt: skip
    items[4] = _item(5, 2, 11, "丁")
    (pair,) = identical_arms(study, items)
    assert (pair.identical, pair.cases, pair.everywhere) == (1, 2, False)


def test_gold_copies_and_drafts_not_generated_are_left_out() -> None:
    study = _study(2, 2)
    items = [
        _item(1, 1, 10, "甲"), _item(2, 2, 10, "甲", status=ItemStatus.PENDING),
        _item(3, 1, 11, "乙"), _item(4, 2, 11, "丙"),
        _item(5, 1, 11, "丙", gold_kind="repealed", source_item_id=3),
    ]  # fmt: skip
    assert identical_arms(study, items) == []
