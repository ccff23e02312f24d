"""Full-width digits (０１２３４５６７８９), held once: Chinese text writes numbers either way.

`TO_FULL_WIDTH` writes ASCII digits full-width; `FROM_FULL_WIDTH` reads full-width digits
(and the full-width point ．) back as ASCII, so that `int` or `Decimal` can parse them.
"""

from __future__ import annotations

HALF_WIDTH_DIGITS = "0123456789"
FULL_WIDTH_DIGITS = "０１２３４５６７８９"
ARABIC_DIGITS = HALF_WIDTH_DIGITS + FULL_WIDTH_DIGITS  # either width
TO_FULL_WIDTH = str.maketrans(HALF_WIDTH_DIGITS, FULL_WIDTH_DIGITS)
FROM_FULL_WIDTH = str.maketrans(FULL_WIDTH_DIGITS + "．", HALF_WIDTH_DIGITS + ".")


def full_width(n: int) -> str:
    """`n` in full-width digits: 12 → １２."""
    return str(n).translate(TO_FULL_WIDTH)
