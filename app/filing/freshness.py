"""Is the assessment fresh enough to file? Both filing templates say the report's assessment
was completed within the 3 months before the filing (数据出境风险自评估报告（模板）说明（二）:
“报告所述自评估活动为本次申报前3个月内完成”; 个人信息保护影响评估报告（模板）说明（二）: “报告所述
评估工作为本次申报前3个月内完成”, app/filing/templates.yaml).

`freshness(values)` reads the form's assessment period (`assessment_start`, `assessment_end`)
and its filing date (`filing_date`): the last day the report may be filed is 3 calendar months
after the assessment was completed (the same day of the month, else the month's last day). Pure
functions; the report states the period and the rule (app/filing/sources.py), the Draft page
and the matter view warn when the filing date is later (or the assessment ends after it).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from app.domain import Bilingual

START_FIELD, END_FIELD, FILING_FIELD = "assessment_start", "assessment_end", "filing_date"
MONTHS = 3  # 申报前3个月内完成
State = Literal["fresh", "stale", "not_finished", "reversed", "unknown"]


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day `months` calendar months later, or that month's last day (31 Jan → 30 Apr)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _date(values: Mapping[str, str], name: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(values.get(name) or "").strip())
    except ValueError:
        return None


@dataclass(frozen=True)
class Freshness:
    """The assessment period and filing date of a form, and what they say together."""

    start: dt.date | None
    end: dt.date | None
    filing: dt.date | None

    @property
    def deadline(self) -> dt.date | None:
        """The last filing day the assessment allows: 3 months after it was completed."""
        return add_months(self.end, MONTHS) if self.end else None

    @property
    def state(self) -> State:
        if self.start and self.end and self.start > self.end:
            return "reversed"
        if self.end is None or self.filing is None:
            return "unknown"
        if self.end > self.filing:
            return "not_finished"
        deadline = self.deadline
        return "stale" if deadline is not None and self.filing > deadline else "fresh"

    def warning(self) -> Bilingual | None:
        """What the page says when the dates do not allow the filing (None: they do or are
        not all given)."""
        end, filing, deadline = self.end, self.filing, self.deadline
        if self.state == "reversed":
            return Bilingual(
                f"评估开始日期 {self.start} 晚于完成日期 {end}，请核对评估期间。",
                f"The assessment starts ({self.start}) after it ends ({end}); check the period.",
            )
        if self.state == "not_finished":
            return Bilingual(
                f"评估完成日期 {end} 晚于拟申报（备案）日期 {filing}：评估应当在申报前完成。",
                f"The assessment ends ({end}) after the planned filing date ({filing}): it "
                "must be completed before the filing.",
            )
        if self.state == "stale":
            return Bilingual(
                f"拟申报（备案）日期 {filing} 晚于评估完成之日（{end}）起3个月（{deadline}）："
                "模板要求报告所述评估为本次申报前3个月内完成，请重新开展评估或调整申报日期。",
                f"The planned filing date ({filing}) is more than 3 months after the assessment "
                f"was completed ({end}; last day {deadline}): the template requires the "
                "assessment to be completed within the 3 months before filing. Assess again "
                "or file earlier.",
            )
        return None


def freshness(values: Mapping[str, str]) -> Freshness:
    """The form's assessment period and filing date (each None when empty or not a date)."""
    return Freshness(
        _date(values, START_FIELD), _date(values, END_FIELD), _date(values, FILING_FIELD)
    )


def applies(field_names: Iterable[str]) -> bool:
    """Whether a form has the fields freshness reads (the two filing reports)."""
    return {END_FIELD, FILING_FIELD} <= set(field_names)
