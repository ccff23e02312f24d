"""Working days on China's legal calendar (app.outline.workdays): holidays, make-up working
days, the years the calendar holds and the estimate outside them."""

from __future__ import annotations

import datetime as dt

import pytest

from app.outline.workdays import add_working_days, covered_years, is_working_day


def day(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


@pytest.mark.parametrize(
    ("start", "days", "end"),
    [
        # 清明 2025: Friday 4 April is a public holiday, so ten working days from 1 April end on
        # the 16th, not on the 15th that a Monday-to-Friday count gives
        ("2025-04-01", 10, "2025-04-16"),
        # 劳动节 2025: Sunday 27 April is a make-up working day; 1-5 May are holidays
        ("2025-04-25", 1, "2025-04-27"),
        ("2025-04-30", 1, "2025-05-06"),
        # 国庆 2024: 1-7 October off, Sunday 29 September and Saturday 12 October worked
        ("2024-09-27", 2, "2024-09-30"),
        ("2024-09-30", 1, "2024-10-08"),
        ("2026-12-02", 0, "2026-12-02"),
    ],
)
def test_periods_follow_holidays_and_make_up_working_days(start: str, days: int, end: str) -> None:
    count = add_working_days(day(start), days)
    assert count.end == day(end) and not count.estimated


def test_the_calendar_names_the_years_it_holds_and_2025_is_one() -> None:
    first, last = covered_years()
    assert first <= 2024 and last >= 2025
    assert not is_working_day(day("2025-04-04")) and is_working_day(day("2025-04-27"))


def test_a_period_beyond_the_calendar_is_counted_on_weekdays_and_marked_an_estimate() -> None:
    _, last = covered_years()
    start = dt.date(last, 12, 31)
    count = add_working_days(start, 3)
    assert count.estimated
    weekdays = [start + dt.timedelta(days=n) for n in range(1, 10)]
    expected = [d for d in weekdays if d.weekday() < 5][2]
    assert count.end == expected
