"""Which version of an amended statute a citation means, when the text says so itself.

By default a citation is read against the version in force on the document's date. A citation
that names another version is read against that one: 原《网络安全法》, 修正前的《网络安全法》,
《网络安全法》（2016年）, 《网络安全法（2016）》 (the earlier text), 修正后的《网络安全法》,
《网络安全法》（2025年修正） (the amended one). A back-reference (本法, 该法, 同法, 前述法律 …) means
the version its statute was last named in. Pure functions over the text and the citations."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from app.domain import Citation
from app.validation.text_date import Dating
from app.validation.texts import StatuteText, TextStore

EARLIER_BEFORE = re.compile(r"(?:原|旧|修正前的?|修订前的?|修改前的?)[\s\u3000]*$")
LATER_BEFORE = re.compile(r"(?:修正后的?|修订后的?|修改后的?|新修正的?|新修订的?|新)[\s\u3000]*$")
YEAR = re.compile(r"[（(](?P<year>[0-9]{4})\s*年?\s*(?:版|文本|修正|修订|修改|通过|公布)?[）)]")
BACK = re.compile(r"本法|该法|同法|前述|上述|同条|前款|该款|该项")


def _by_year(versions: Sequence[StatuteText], year: int) -> StatuteText | None:
    for version in versions:
        marks = (version.adopted, version.amended, version.in_force_from)
        if any(isinstance(d, dt.date) and d.year == year for d in marks):
            return version
    return None


def _named(text: str, citation: Citation, store: TextStore, day: dt.date) -> StatuteText | None:
    """The version the words around a title name, if any."""
    versions = store.versions.get(citation.statute or "", ())
    if len(versions) < 2:
        return None
    if text.startswith("《", citation.start):
        close = text.find("》", citation.start)
        if close < 0:
            return None
        year = YEAR.search(text, citation.start, close) or YEAR.match(text, close + 1)
    else:  # a bare name with its note: 网络安全法（2025修正）第五十二条
        close = text.find("第", citation.start, citation.end)
        year = YEAR.search(text, citation.start, close) if close > 0 else None
    if year is not None:
        return _by_year(versions, int(year["year"]))
    before = text[max(0, citation.start - 6) : citation.start]
    current = store.on(versions[0].statute, day) or versions[-1]
    if EARLIER_BEFORE.search(before):
        earlier = [v for v in versions if v.in_force_from < current.in_force_from]
        return earlier[-1] if earlier else None
    if LATER_BEFORE.search(before):
        return versions[-1]
    return None


def named_versions(
    text: str, citations: Sequence[Citation], store: TextStore, dating: Dating
) -> dict[int, StatuteText]:
    """Citation start → the version it names (or its back-reference inherits); 原… is the
    version before the one in force on the citation's date (`dating`)."""
    out: dict[int, StatuteText] = {}
    last: dict[str, StatuteText | None] = {}
    for citation in sorted(citations, key=lambda c: c.start):
        statute = citation.statute
        if statute is None:
            continue
        if not BACK.match(text, citation.start) and text[citation.start] != "第":
            last[statute] = _named(text, citation, store, dating.on(citation.start))
        chosen = last.get(statute)
        if chosen is not None:
            out[citation.start] = chosen
    return out
