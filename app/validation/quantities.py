"""Counts and dates written in a draft: Arabic or Chinese numerals, with 万/亿 units.

120万 = 一百二十万 = 1,200,000; 1.2万 = 12,000; 3亿 = 300,000,000; 1.2百万 = 1,200,000;
0.5千万 = 5,000,000; 12.5万 = 125,000; 8千 = 8,000; 1亿2000万 = 120,000,000;
12万8千 = 128,000; 二〇二五年三月十五日.
Pure functions over text; offsets are Python str indices."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from app.validation.numerals import chinese_to_int, parse_number
from app.validation.widths import FROM_FULL_WIDTH

_ZH_NUM = "零〇一二两三四五六七八九十百千万亿"
_ARABIC = r"[0-9０-９]{1,3}(?:,[0-9０-９]{3})+(?![0-9０-９])|[0-9０-９]+(?:[.．][0-9０-９]+)?"
NUMBER = re.compile(
    rf"(?P<arabic>{_ARABIC})\s*(?P<unit>万亿|亿|千万|百万|十万|万|千)?|(?P<zh>[{_ZH_NUM}]+)"
)
_UNITS = {
    "": 1,
    "千": 1_000,
    "万": 10_000,
    "十万": 100_000,
    "百万": 1_000_000,
    "千万": 10_000_000,
    "亿": 100_000_000,
    "万亿": 1_000_000_000_000,
}


@dataclass(frozen=True)
class Quantity:
    start: int
    end: int
    value: int
    raw: str


def chinese_value(text: str) -> int | None:
    """一百二十万 → 1200000, 三亿五千万 → 350000000; None if malformed."""
    if "亿" in text:
        high, _, low = text.partition("亿")
        high_value = chinese_to_int(high) if high else None
        low_value = chinese_to_int(low.removeprefix("零")) if low.strip("零") else 0
        if high_value is None or low_value is None or "亿" in low:
            return None
        return high_value * 100_000_000 + low_value
    return chinese_to_int(text)


def arabic_value(digits: str, unit: str) -> int | None:
    """'1,200,000' → 1200000; '1.2' with 万 → 12000; a fraction that is not whole → None."""
    try:
        value = Decimal(digits.translate(FROM_FULL_WIDTH).replace(",", "")) * _UNITS[unit]
    except InvalidOperation:
        return None
    return int(value) if value == value.to_integral_value() else None


def _read(m: re.Match[str]) -> tuple[int | None, int]:
    """(value, unit multiplier) of one NUMBER match; a Chinese numeral counts as unit 1."""
    if m.group("arabic"):
        unit = m.group("unit") or ""
        return arabic_value(m.group("arabic"), unit), _UNITS[unit]
    return chinese_value(m.group("zh")), 1


def quantities(text: str) -> Iterator[Quantity]:
    """Every number in the text with its value (a bare 十 or 万 included; callers filter).

    Mixed units written together are one number: 1亿2000万 = 120,000,000, 12万8千 = 128,000
    (the second part directly after the first, in a smaller unit and below the first's unit)."""
    pending: tuple[int, int, int, int] | None = None  # start, end, value, unit
    for m in NUMBER.finditer(text):
        value, unit = _read(m)
        if value is None:
            continue
        if pending is not None:
            start, end, high, high_unit = pending
            if m.start() == end and m.group("arabic") and unit < high_unit and value < high_unit:
                pending = None
                yield Quantity(start, m.end(), high + value, text[start : m.end()])
                continue
            yield Quantity(start, end, high, text[start:end])
        pending = (m.start(), m.end(), value, unit) if unit >= 10_000 else None
        if pending is None:
            yield Quantity(m.start(), m.end(), value, m.group(0))
    if pending is not None:
        start, end, high, _ = pending
        yield Quantity(start, end, high, text[start:end])


_DATE = re.compile(
    rf"(?P<y>[0-9０-９]{{4}}|[{_ZH_NUM}]{{4}})\s*年\s*(?P<m>[0-9０-９]{{1,2}}|[{_ZH_NUM}]{{1,3}})\s*月"
    rf"\s*(?P<d>[0-9０-９]{{1,2}}|[{_ZH_NUM}]{{1,3}})\s*[日号]"
    r"|(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})(?!\d)"
)


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    value: dt.date


def _year(text: str) -> int | None:
    if all(ch in "零〇一二三四五六七八九" for ch in text):
        return int("".join(str(chinese_to_int(ch) or 0) for ch in text))
    return parse_number(text)


def dates(text: str) -> Iterator[DateMention]:
    """Dates written 2025年3月15日, 二〇二五年三月十五日, 2025-03-15 or 2025/3/15."""
    for m in _DATE.finditer(text):
        parts = (m.group("y"), m.group("m"), m.group("d"))
        if parts[0] is None:
            parts = (m.group("iy"), m.group("im"), m.group("id"))
        year = _year(parts[0])
        month, day = parse_number(parts[1]), parse_number(parts[2])
        if year is None or month is None or day is None:
            continue
        try:
            yield DateMention(m.start(), m.end(), dt.date(year, month, day))
        except ValueError:
            continue
