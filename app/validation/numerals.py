"""Chinese and Arabic numeral conversion for article and list numbers (第一千二百六十条, 第１５条)."""

from __future__ import annotations

from functools import lru_cache

from app.validation.widths import FROM_FULL_WIDTH

DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
UNITS = {"十": 10, "百": 100, "千": 1000}
WAN = 10_000
CHINESE_NUMERAL_CHARS = "".join(DIGITS) + "".join(UNITS) + "万"
_ZH_DIGITS = "零一二三四五六七八九"


def _below_wan(text: str) -> int | None:
    """Value of a numeral under 10,000 written with units (一千二百六十, 十五, 一百零五)."""
    total, digit, last_unit = 0, None, 10_000
    for ch in text:
        if ch in DIGITS:
            if digit is not None and digit != 0:
                return None  # two digits in a row without a unit ("二三")
            digit = DIGITS[ch]
        elif ch in UNITS:
            unit = UNITS[ch]
            if unit >= last_unit:
                return None  # units must decrease (no "十百")
            total += (digit or 1) * unit  # 十五, 一千零十: a missing digit is one
            digit, last_unit = None, unit
        else:
            return None
    return total + (digit or 0)


def chinese_to_int(text: str) -> int | None:
    """Parse a Chinese numeral (十五, 一千二百六十, 两百, 一〇五 digit by digit); None if malformed."""
    if not text or any(ch not in CHINESE_NUMERAL_CHARS for ch in text):
        return None
    if not any(ch in UNITS or ch == "万" for ch in text):
        # digit-by-digit form such as 一〇五; a bare 零 is zero
        return int("".join(str(DIGITS[ch]) for ch in text))
    high, _, low = text.rpartition("万")
    if "万" in high:
        return None
    high_value = _below_wan(high) if high else 0
    low_value = _below_wan(low) if low else 0
    if high_value is None or low_value is None or ("万" in text and not high):
        return None
    value = high_value * WAN + low_value
    return value if value > 0 or text in ("零", "〇") else None


def int_to_chinese(value: int) -> str:
    """Write 1..99,999,999 the way statutes number articles (十五, 一百零五, 一千二百六十)."""
    if value <= 0 or value >= WAN * WAN:
        raise ValueError(f"out of range: {value}")
    if value >= WAN:
        high, low = divmod(value, WAN)
        head = int_to_chinese(high) + "万"
        if low == 0:
            return head
        return head + ("零" if low < 1000 else "") + _below_wan_to_chinese(low, leading=False)
    return _below_wan_to_chinese(value, leading=True)


def _below_wan_to_chinese(value: int, *, leading: bool) -> str:
    parts: list[str] = []
    pending_zero = False
    for unit, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = (value // unit) % 10
        if digit == 0:
            pending_zero = bool(parts)
            continue
        if pending_zero:
            parts.append("零")
            pending_zero = False
        if unit == 10 and digit == 1 and not parts and leading:
            parts.append("十")  # 十五, not 一十五
        else:
            parts.append(_ZH_DIGITS[digit] + name)
    return "".join(parts)


@lru_cache(maxsize=4096)
def parse_number(text: str) -> int | None:
    """Value of an Arabic (ASCII or full-width) or Chinese numeral; None if it is neither (cached:
    drafts repeat the same few numbers)."""
    arabic = text.translate(FROM_FULL_WIDTH)
    if arabic.isascii() and arabic.isdigit():
        return int(arabic)
    return chinese_to_int(text)
