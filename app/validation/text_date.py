"""The date a text speaks from, read from the text itself, and the dates single sentences set
themselves in.

`read_text_date(text)`: the document's own date where the text states one — a dateline
(出具日期：…, 日期：…, 签署日期 …, or a date alone on one of the last lines, as a signature date),
when it was finished or revised (定稿于…, 更新于…, 最近修订：…, 【2026-01-20更新】), the date a
policy takes effect (本制度自…起施行), or the date it is current to (本报告截至…, （截至…）).
A dateline wins over a revision date, which wins over a commencement, which wins over an as-of
date; among several of one kind the latest counts (the last revision).

`sentence_dates(text)`: a sentence that sets itself at a date (截至2025年6月30日…, 2023年时…,
2024年3月前…, 于2025年5月…) is read on that date, not the document's: 原…第三十七条 in a sentence
about 2025 is right in a 2026 memo. Not a sentence date: a statute's own dates (2022年7月7日公布的
《…》, 《…》（2021年修正）), a counting period (自2024年1月1日起累计), a sentence that speaks of
the present as well (现, 目前, 现行 …).

`Dating` gives the date a citation at an offset is read on. Pure functions over the text."""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import re
from dataclasses import dataclass

from app.validation.numerals import chinese_to_int, parse_number

_ZH = "〇零一二三四五六七八九十"
# 2026年1月20日, 二〇二六年一月二十日, 2026年1月, 2026年; 2026-01-20, 2026/1/20, 2026.1.20
DATE = re.compile(
    rf"(?P<y>[0-9０-９]{{4}}|[{_ZH}]{{4}})[ \u3000]*年"
    rf"(?:[ \u3000]*(?P<m>[0-9０-９]{{1,2}}|[{_ZH}]{{1,3}})[ \u3000]*月"
    rf"(?:[ \u3000]*(?P<d>[0-9０-９]{{1,2}}|[{_ZH}]{{1,3}})[ \u3000]*[日号])?)?"
    r"|(?<![0-9])(?P<iy>[0-9]{4})[-/.](?P<im>[0-9]{1,2})[-/.](?P<id>[0-9]{1,2})(?![0-9])"
)
LINE = re.compile(r"[^\n]+")
SENTENCE_END = re.compile(r"[。！？；!?;\n]")
LEAD = r"^[ \t\u3000#>*\-【\[（(]*"  # markdown marks and an opening bracket before a label

# document-level cues, by rank (a lower rank wins): (rank, pattern with a `date` group)
_DATELINE = re.compile(
    LEAD + r"(?P<cue>(?:出具|签署|签发|报告|意见|文件|制定|发布|印发|落款|编制|成文)?日期|Date)"
    r"[ \t\u3000]*[：:]?[ \t\u3000]*(?P<date>\S[^\n]{0,24})"
)
_REVISED = re.compile(
    r"(?P<cue>定稿于|定稿日期[：:]?|修订于|修订日期[：:]?|最近修订[：:]?|最后修订[：:]?|最新修订[：:]?|"
    r"更新于|更新日期[：:]?|最近更新[：:]?|最后更新[：:]?|版本日期[：:]?)[ \t\u3000]*(?=(?P<date>[^\n]{4,24}))"
)
_UPDATED_TAG = re.compile(
    r"[【\[（(][ \t\u3000]*(?P<date>[^】\]）)\n]{6,20}?)[ \t\u3000]*(?P<cue>更新|修订|定稿)"
)
_COMMENCES = re.compile(
    r"本(?:制度|办法|规定|细则|规则|政策|规范|指引|指南|方案|守则|协议|合同|文件|标准)"
    r"(?:自|于)[ \t\u3000]*(?P<date>[^\n，。；]{4,24}?)[ \t\u3000]*(?:起)?(?P<cue>施行|生效|实施|执行)"
)
_AS_OF = re.compile(
    r"(?:本(?:报告|意见|意见书|备忘录|文件|文|清单|指南|评估|说明|分析)[^\n。；]{0,12}?|[（(][ \t\u3000]*"
    r"|(?:数据|信息|法规|法律|统计)(?:信息|数据)?)(?P<cue>截至|截止(?:到|至)?)[ \t\u3000]*"
    r"(?P<date>[^\n，。；）)]{4,24})"
)
TAIL_LINES = 5  # a date alone on one of the last lines is the signature date
# what a signatory's name before a closing date never holds (a label, a clause, a sentence)
SIGNATORY_NOT = re.compile(r"[：:，,。；;（(【\[]|日期|修订|更新|定稿|截至|截止|申报|生效|施行|于$")


@dataclass(frozen=True)
class TextDate:
    """The date a text speaks from: [start, end) spans the date as written, `cue` the words
    that say what the date is (出具日期, 定稿于, 更新, 施行, 截至, or 落款 for a date alone on a
    closing line)."""

    date: dt.date
    start: int
    end: int
    cue: str


@dataclass(frozen=True)
class Reading:
    """A date expression: its value as the first and the last day it can mean (2024年3月: the
    1st to the 31st) and its span."""

    first: dt.date
    last: dt.date
    start: int
    end: int
    precise: bool  # a day was given


def _number(text: str) -> int | None:
    if text and all(ch in "〇零一二三四五六七八九" for ch in text) and len(text) == 4:
        return int("".join(str(chinese_to_int(ch) or 0) for ch in text))
    return parse_number(text)


def _reading(m: re.Match[str], offset: int = 0) -> Reading | None:
    year_s, month_s, day_s = m["y"] or m["iy"], m["m"] or m["im"], m["d"] or m["id"]
    year = _number(year_s)
    month = _number(month_s) if month_s else None
    day = _number(day_s) if day_s else None
    if year is None or not 1900 <= year <= 2200 or (month_s and month is None):
        return None
    try:
        if month is None:
            first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
        elif day is None:
            end = calendar.monthrange(year, month)[1]
            first, last = dt.date(year, month, 1), dt.date(year, month, end)
        else:
            first = last = dt.date(year, month, day)
    except ValueError:
        return None
    return Reading(first, last, offset + m.start(), offset + m.end(), day is not None)


def readings(text: str) -> list[Reading]:
    """Every date expression in the text (full dates, a month, a year followed by 年)."""
    out = []
    for m in DATE.finditer(text):
        reading = _reading(m)
        if reading is not None:
            out.append(reading)
    return out


def _first_date(text: str, start: int, end: int) -> Reading | None:
    m = DATE.search(text, start, end)
    return _reading(m) if m else None


def _candidates(text: str) -> list[tuple[int, dt.date, Reading, str]]:
    """(rank, date, reading, cue) for every document-level cue."""
    found: list[tuple[int, dt.date, Reading, str]] = []
    for rank, pattern in ((0, _DATELINE), (1, _REVISED), (1, _UPDATED_TAG), (2, _COMMENCES)):
        flags = re.MULTILINE if pattern is _DATELINE else 0
        finder = re.compile(pattern.pattern, flags) if flags else pattern
        for m in finder.finditer(text):
            reading = _first_date(text, m.start("date"), m.end("date"))
            if reading is None:
                continue
            # a revision or a dateline is read at its last day (2026年1月: by the end of it),
            # a commencement at its first (本制度自2025年1月起施行)
            day = reading.first if rank == 2 else reading.last
            found.append((rank, day, reading, m["cue"].rstrip("：: ")))
    for m in _AS_OF.finditer(text):
        reading = _first_date(text, m.start("date"), m.end("date"))
        if reading is not None and reading.start == m.start("date"):
            found.append((3, reading.last, reading, m["cue"]))
    found.extend(_signature(text))
    return found


def _signature(text: str) -> list[tuple[int, dt.date, Reading, str]]:
    """A date alone (after an optional signatory) on one of the last lines: 二〇二六年一月二十日."""
    lines = [m for m in LINE.finditer(text) if m.group(0).strip()][-TAIL_LINES:]
    out = []
    for line in lines:
        m = DATE.search(line.group(0))
        if m is None:
            continue
        signatory, rest = line.group(0)[: m.start()].strip(), line.group(0)[m.end() :].strip()
        if len(signatory) > 20 or SIGNATORY_NOT.search(signatory) or rest.strip("。."):
            continue
        reading = _reading(m, line.start())
        if reading is not None and reading.precise:
            out.append((0, reading.last, reading, "落款"))
    return out


def read_text_date(text: str) -> TextDate | None:
    """The date the text speaks from, or None when it states none (see the module's doc)."""
    found = _candidates(text)
    if not found:
        return None
    rank = min(c[0] for c in found)
    _, day, reading, cue = max((c for c in found if c[0] == rank), key=lambda c: c[1])
    return TextDate(day, reading.start, reading.end, cue)


# --- dates that single sentences set themselves in ---------------------------------------------

# a statute's own date: 2022年7月7日公布的《…》, 自2021年11月1日起施行的《…》, 《…》（2021年修正）
OWN_DATE_AFTER = re.compile(
    r"^[ \t\u3000]*(?:起)?(?:公布|通过|修正|修订|修改|发布|颁布|印发|施行|生效|实施)(?:的|并|后的)?"
    r"[ \t\u3000]*(?:施行的)?[ \t\u3000]*[《〈]"
)
IN_BRACKETS = re.compile(r"[（(][^（）()\n]{0,16}$")
PERIOD_AFTER = re.compile(r"^[ \t\u3000]*(?:起|以来)?[ \t\u3000]*(?:累计|计算|连续|合计|共计)")
PRESENT = re.compile(r"现已|现在|现阶段|目前|当前|如今|现应|现需|现时|时至今日|截至目前|截至本")
# the cue around a date that sets a sentence at it: (words before, words after, which end)
BEFORE_CUE = re.compile(r"(?P<cue>截至|截止(?:到|至)?|直至|在|于|自|从)[ \t\u3000]*$")
AFTER_CUE = re.compile(
    r"^[ \t\u3000]*(?P<cue>以前|之前|前|时|当时|期间|间|止|为止|底|末|以后|之后|后|起|以来|，|,)"
)


@dataclass(frozen=True)
class SentenceDate:
    """A sentence [start, end) read on `date` (the date it sets itself in, span [at, at_end))."""

    start: int
    end: int
    date: dt.date
    at: int
    at_end: int


def _day(reading: Reading, before: str, after: str) -> dt.date | None:
    """The day a date with these words around it sets a sentence on, or None (not a cue)."""
    cue_after = AFTER_CUE.match(after)
    cue_before = BEFORE_CUE.search(before)
    word = cue_after["cue"] if cue_after else ""
    if word in ("以前", "之前", "前"):
        return reading.first - dt.timedelta(days=1)
    if word in ("以后", "之后", "后", "起", "以来") or (cue_before and cue_before["cue"] in "自从"):
        return reading.first
    if word or cue_before:
        return reading.last
    return None


def sentence_dates(text: str) -> list[SentenceDate]:
    """The sentences that set themselves at a date (the first such date in each)."""
    out: list[SentenceDate] = []
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    for reading in readings(text):
        index = bisect.bisect_right(ends, reading.start)
        start = ends[index - 1] if index else 0
        end = ends[index] if index < len(ends) else len(text)
        if out and out[-1].start == start:
            continue  # one date per sentence: the first
        before = text[max(start, reading.start - 6) : reading.start]
        after = text[reading.end : min(end, reading.end + 12)]
        sentence = text[start:end]
        if OWN_DATE_AFTER.match(after) or IN_BRACKETS.search(before) or PERIOD_AFTER.match(after):
            continue
        if PRESENT.search(sentence):
            continue
        day = _day(reading, before, after)
        if day is None and reading.start - start > 2:
            continue  # a bare date inside a sentence: not a cue (its start may be: 2025年，…)
        out.append(SentenceDate(start, end, day or reading.last, reading.start, reading.end))
    return out


@dataclass(frozen=True)
class Dating:
    """The day a citation at an offset is read on: its sentence's own date, else the
    document's."""

    default: dt.date
    sentences: tuple[SentenceDate, ...] = ()

    @classmethod
    def of(cls, text: str, default: dt.date) -> Dating:
        return cls(default, tuple(sentence_dates(text)))

    def sentence(self, offset: int) -> SentenceDate | None:
        """The dated sentence holding `offset`, if its sentence sets its own date."""
        index = bisect.bisect_right(self.sentences, offset, key=lambda s: s.start) - 1
        if index >= 0 and self.sentences[index].start <= offset < self.sentences[index].end:
            return self.sentences[index]
        return None

    def on(self, offset: int) -> dt.date:
        found = self.sentence(offset)
        return found.date if found else self.default

    def when(self, offset: int) -> dict[str, str]:
        """The message fields naming the date a finding at `offset` was judged on:
        `when` / `when_en` (文书日期2026-01-01, or the sentence's own date)."""
        found = self.sentence(offset)
        if found is None:
            day = self.default.isoformat()
            return {"when": f"文书日期{day}", "when_en": f"the document's date {day}"}
        day = found.date.isoformat()
        return {"when": f"本句所述日期{day}", "when_en": f"the date this sentence speaks of, {day}"}
