"""Chinese / Arabic numeral conversion: table cases and an int -> 中文 -> int round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.validation.numerals import chinese_to_int, int_to_chinese, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("一", 1),
        ("十", 10),
        ("十五", 15),
        ("一十五", 15),
        ("二十", 20),
        ("三十八", 38),
        ("一百", 100),
        ("一百零五", 105),
        ("一百〇五", 105),
        ("一百一十", 110),
        ("两百", 200),
        ("两千零一", 2001),
        ("一千零十", 1010),
        ("一千二百六十", 1260),
        ("九千九百九十九", 9999),
        ("一万零五", 10005),
        ("一〇五", 105),  # digit by digit
        ("零", 0),
        ("4", 4),
        ("75", 75),
        ("１５", 15),  # full-width digits
        ("１２６０", 1260),
    ],
)
def test_parse_number(text: str, value: int) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "十百", "百十百", "万", "一万万", "abc", "第五", "五条"])
def test_malformed_numerals_are_rejected(text: str) -> None:
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "一"),
        (10, "十"),
        (15, "十五"),
        (105, "一百零五"),
        (110, "一百一十"),
        (1005, "一千零五"),
        (1260, "一千二百六十"),
        (2021, "二千零二十一"),
        (10005, "一万零五"),
        (120000, "十二万"),
    ],
)
def test_int_to_chinese(value: int, text: str) -> None:
    assert int_to_chinese(value) == text


def test_int_to_chinese_rejects_zero_and_negative() -> None:
    with pytest.raises(ValueError):
        int_to_chinese(0)
    with pytest.raises(ValueError):
        int_to_chinese(-3)


@given(st.integers(min_value=1, max_value=9999))
def test_round_trip_chinese(value: int) -> None:
    assert chinese_to_int(int_to_chinese(value)) == value


@given(st.integers(min_value=1, max_value=9999))
def test_round_trip_arabic_and_full_width(value: int) -> None:
    full_width = str(value).translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    assert parse_number(str(value)) == value
    assert parse_number(full_width) == value


@given(st.integers(min_value=1, max_value=9999))
def test_two_is_liang_too(value: int) -> None:
    """两 reads like 二 wherever it stands for a digit (两百, 两千)."""
    text = int_to_chinese(value)
    assert chinese_to_int(text.replace("二", "两")) == value
