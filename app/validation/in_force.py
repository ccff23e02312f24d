"""Dates in force: citation.not_in_force (a statute, or an article of an amended text, that is not
yet in force on the document's date) and citation.called_in_force (a document dated before a
statute — or its amended text — took effect that calls it 现行 / 有效 / 施行中 / in force).

A sentence that speaks of the future (将于…施行, 尚未施行, 自2025年1月1日起施行) says nothing wrong
about a statute not yet in force: no finding. The amended text is meant when the title is marked
as such (修正后的《网络安全法》, 《网络安全法》（2025年修正）, 新《网络安全法》). Pure functions."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Sequence

from app.domain import Citation, Finding
from app.validation.catalogue import Catalogue
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese
from app.validation.text_date import Dating
from app.validation.texts import TextStore

SENTENCE_END = re.compile(r"[。！？；!?;\n]")
# words that call a statute the law in force, right before its title or right after it
IN_FORCE_BEFORE = re.compile(
    r"(?P<word>现行有效的?|现行的?|现已施行的?|已施行的?|已经施行的?|已生效的?|正在施行的?|"
    r"施行中的?|当前有效的?|目前有效的?|有效的|in force|currently in force)"
    r"(?:[\s\u3000]*(?:修正后的|修订后的|新修正的|新修订的|新))?[\s\u3000]*$"
)
IN_FORCE_AFTER = re.compile(
    r"^(?:[（(][^）)\n]{0,12}[）)])?[\s\u3000]*"
    r"(?P<word>现行有效|施行中|正在施行|(?:目前|现已|已经|已)(?:施行|生效)|现行(?![^，。；\n]{0,4}之前)|in force)"
)
AMENDED_BEFORE = re.compile(r"(?:修正后的|修订后的|新修正的|新修订的|新)[\s\u3000]*$")
AMENDED_AFTER = re.compile(r"^[（(][^）)\n]{0,12}(?:修正|修订)[^）)\n]{0,4}[）)]")
FUTURE = re.compile(
    r"将于|将自|将在|即将|尚未|未施行|施行前|生效前|待.{0,8}(?:施行|生效)|"
    r"于[0-9０-９]{4}年[0-9０-９一二三四五六七八九十]{1,3}月[0-9０-９一二三四五六七八九十]{1,3}日起施行"
)
LOOK_BEFORE = 14  # characters before the title in which 现行 … is read


def _title_end(text: str, citation: Citation) -> int:
    """Just after the statute's name: the 》, or the 第 of a bare name's article."""
    if text.startswith("《", citation.start):
        end = text.find("》", citation.start)
        return end + 1 if end >= 0 else citation.end
    match = re.compile(r"[ \u3000]?第").search(text, citation.start, citation.end)
    return match.start() if match else citation.end


def _sentence(text: str, ends: list[int], citation: Citation) -> str:
    before = bisect.bisect_right(ends, citation.start)
    after = bisect.bisect_right(ends, citation.end - 1)
    start = ends[before - 1] if before else 0
    return text[start : ends[after] if after < len(ends) else len(text)]


def _article(n: int) -> str:
    return f"第{int_to_chinese(n)}条"


def _not_in_force(
    text: str, citation: Citation, catalogue: Catalogue, store: TextStore, dating: Dating
) -> Finding | None:
    day = dating.on(citation.start)
    statute = catalogue.statutes.get(citation.statute or "")
    if statute is None:
        return None
    if statute.effective and statute.effective > day and text.startswith("《", citation.start):
        what = f"《{statute.name}》"
        effective = statute.effective
    else:
        current, latest = store.on(statute.name, day), store.latest(statute.name)
        number = citation.article
        if number is None or current is None or latest is None or current is latest:
            return None
        if current.article(number) is not None or latest.article(number) is None:
            return None
        what = f"《{statute.name}》{_article(number)}（{latest.version}文本）"
        effective = latest.in_force_from
    return finding(
        "citation.not_in_force",
        citation.start,
        citation.end,
        "",
        **dating.when(citation.start),
        what=what,
        effective=effective.isoformat(),
    )


def _called_in_force(
    text: str, citation: Citation, catalogue: Catalogue, store: TextStore, dating: Dating
) -> Finding | None:
    """现行《…》 / 《…》（2025年修正）现行有效 in a document dated before it took effect."""
    day = dating.on(citation.start)
    statute = catalogue.statutes.get(citation.statute or "")
    if statute is None:
        return None
    title_end = _title_end(text, citation)
    before = IN_FORCE_BEFORE.search(text, max(0, citation.start - LOOK_BEFORE), citation.start)
    after = IN_FORCE_AFTER.match(text[title_end : title_end + 24])
    if before is None and after is None:
        return None
    what, effective = f"《{statute.name}》", statute.effective
    if effective is None or effective <= day:
        latest = store.latest(statute.name)
        amended = AMENDED_BEFORE.search(text, max(0, citation.start - 6), citation.start) or (
            AMENDED_AFTER.match(text[title_end : title_end + 16])
        )
        if latest is None or latest.in_force_from <= day or not amended:
            return None
        what, effective = f"《{statute.name}》（{latest.version}文本）", latest.in_force_from
    if before is not None:
        start, end, word = before.start("word"), title_end, before["word"]
    else:
        assert after is not None
        start, end, word = citation.start, title_end + after.end("word"), after["word"]
    return finding(
        "citation.called_in_force",
        start,
        end,
        "",
        **dating.when(citation.start),
        what=what,
        effective=effective.isoformat(),
        word=word.removesuffix("的"),
    )


def check_in_force(
    text: str,
    citations: Sequence[Citation],
    *,
    catalogue: Catalogue,
    store: TextStore,
    doc_date: dt.date,
    dating: Dating | None = None,
) -> list[Finding]:
    """One finding at most per statute mention: called_in_force where the text calls it in
    force, else not_in_force unless the sentence speaks of its coming into force. Each is
    judged on its sentence's own date where it sets one (`dating`), else on `doc_date`."""
    dating = dating or Dating(doc_date)
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    findings: list[Finding] = []
    titles: set[int] = set()
    for citation in citations:
        if not citation.statute:
            continue
        title = citation.start if citation.start not in titles else -1
        called = _called_in_force(text, citation, catalogue, store, dating) if title >= 0 else None
        titles.add(citation.start)
        if called is not None:
            findings.append(called)
            continue
        hit = _not_in_force(text, citation, catalogue, store, dating)
        if hit is not None and not FUTURE.search(_sentence(text, ends, citation)):
            findings.append(hit)
    return findings
