"""The one table of full-width digits, both ways."""

from __future__ import annotations

from decimal import Decimal

import pytest

from app.validation.widths import ARABIC_DIGITS, FROM_FULL_WIDTH, FULL_WIDTH_DIGITS, full_width


@pytest.mark.parametrize(("n", "written"), [(0, "０"), (7, "７"), (12, "１２"), (2024, "２０２４")])
def test_full_width_writes_and_reads_back(n: int, written: str) -> None:
    assert full_width(n) == written
    assert int(written.translate(FROM_FULL_WIDTH)) == n


def test_from_full_width_reads_the_point_and_leaves_other_text() -> None:
    assert Decimal("１２．５".translate(FROM_FULL_WIDTH)) == Decimal("12.5")
    assert "第３条（一）".translate(FROM_FULL_WIDTH) == "第3条（一）"
    assert set(ARABIC_DIGITS) == set("0123456789") | set(FULL_WIDTH_DIGITS)
