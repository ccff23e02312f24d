"""Statutory periods counted in working days (工作日), on China's legal calendar.

The State Council publishes each year's public holidays and the weekend days that become
working days (调休); the `chinesecalendar` package holds them for the years it names
(`COVERED`). A period whose days all fall inside those years is counted on that calendar; a
period that reaches a year outside them is counted Monday to Friday and marked an estimate, as
a holiday or a make-up working day would move it. The start day is not counted
(《民法典》第二百零一条) and a period ending on a holiday runs to the next working day
(第二百零三条): counting working days only does both.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

import chinese_calendar


@dataclass(frozen=True)
class WorkdayCount:
    """The last day of a period and whether it rests on the published calendar."""

    end: dt.date
    estimated: bool  # a day of the period lies outside the calendar's years: weekdays only


@lru_cache(maxsize=1)
def covered_years() -> tuple[int, int]:
    """The first and last year whose holidays and make-up working days the calendar holds."""
    from chinese_calendar import constants

    years = {day.year for day in constants.holidays} | {day.year for day in constants.workdays}
    return min(years), max(years)


def on_calendar(day: dt.date) -> bool:
    first, last = covered_years()
    return first <= day.year <= last


def is_working_day(day: dt.date) -> bool:
    """A working day on the published calendar; Monday to Friday outside its years."""
    if on_calendar(day):
        return bool(chinese_calendar.is_workday(day))
    return day.weekday() < 5


def add_working_days(start: dt.date, days: int) -> WorkdayCount:
    """The day `days` working days after `start` (the start day not counted)."""
    day, left, estimated = start, days, False
    while left:
        day += dt.timedelta(days=1)
        estimated = estimated or not on_calendar(day)
        if is_working_day(day):
            left -= 1
    return WorkdayCount(day, estimated)
