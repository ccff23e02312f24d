"""The pieces a statute reference is built from: article chains (第X条第Y款第Z项, lists and
ranges), the statute a chain belongs to (`Mention`), the citations and range / repeal findings
made of them, and the 款 or 项 of an article cited just before (同条第二款, 前款, 该项). Used by
citations.py (Chinese forms) and english_refs.py (Art. 38 PIPL). Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.domain import Citation, CitationStatus, Finding
from app.validation.catalogue import Statute
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese, parse_number

NUM = r"[0-9０-９零〇一二两三四五六七八九十百千]{1,8}"
SPACE = r"[ \t\u3000]{0,2}"  # 第 56 条, 第\u3000５６\u3000条
UNIT = re.compile(rf"第{SPACE}(?:(?P<n>{NUM})|[（(](?P<pn>{NUM})[）)]){SPACE}(?P<kind>[条款项])")
CONNECTOR = re.compile(r"[ \t\u3000]*(?:以及|或者|、|和|及|或|与|至|到|—|－|～|~)[ \t\u3000]*")
GAP = re.compile(r"[ \t\u3000]?")  # 《个人信息保护法》 第三条; never across a line break


@dataclass
class Ref:
    """One article reference inside a chain (第三十八条第一款第二项)."""

    start: int
    end: int
    article: int
    paragraph: int | None = None
    item: int | None = None
    article_span: tuple[int, int] | None = None  # set when this ref names the article itself


@dataclass
class Mention:
    """A statute named at [start, end): its resolution and any finding on the title itself."""

    start: int
    end: int
    statute: Statute | None
    status: CitationStatus
    findings: list[Finding] = field(default_factory=list)
    back: bool = False  # 本法 / 该法 / a defined short name: problems were reported at the title


def parse_chain(text: str, pos: int) -> tuple[list[Ref], int]:
    """Article references starting at pos (after an optional space): lists, ranges, 款 and 项."""
    refs: list[Ref] = []
    cursor = GAP.match(text, pos).end()  # type: ignore[union-attr]
    joined = False  # the previous unit was followed by a connector
    while (unit := UNIT.match(text, cursor)) is not None:
        value = parse_number(unit["n"] or unit["pn"])
        if value is None:
            break
        kind, last = unit["kind"], (refs[-1] if refs else None)
        if kind == "条":
            refs.append(Ref(unit.start(), unit.end(), value, article_span=unit.span()))
        elif last is None:
            break  # 第二款 with no article before it: not a statute reference
        elif kind == "款" and (joined or last.paragraph is not None or last.item is not None):
            refs.append(Ref(unit.start(), unit.end(), last.article, value))
        elif kind == "款":
            last.paragraph, last.end = value, unit.end()
        elif joined or last.item is not None:
            refs.append(Ref(unit.start(), unit.end(), last.article, last.paragraph, value))
        else:
            last.item, last.end = value, unit.end()
        cursor = unit.end()
        connector = CONNECTOR.match(text, cursor)
        joined = bool(connector and UNIT.match(text, connector.end()))
        if joined and connector:
            cursor = connector.end()
        elif not UNIT.match(text, cursor):
            break  # neither 第一款 nested nor 、第五条 listed next
    return refs, (refs[-1].end if refs else pos)


def repealed_finding(mention: Mention) -> Finding:
    statute = mention.statute
    assert statute is not None and statute.repealed is not None
    successor = statute.successor or "?"
    return finding(
        "citation.repealed",
        mention.start,
        mention.end,
        f"《{successor}》",
        statute=statute.name,
        repealed=statute.repealed.isoformat(),
        successor=successor,
    )


def cite(text: str, mention: Mention, refs: list[Ref]) -> tuple[list[Citation], list[Finding]]:
    """Citations for one mention and its article chain, with range / repeal findings."""
    statute, findings = mention.statute, list(mention.findings)
    repealed = statute is not None and statute.repealed is not None
    if repealed and mention.status == "ok" and not mention.back:
        findings.append(repealed_finding(mention))
    base = "repealed" if repealed and mention.status == "ok" else mention.status
    name = statute.name if statute else None
    if not refs:
        return [
            Citation(
                mention.start, mention.end, text[mention.start : mention.end], name, status=base
            )
        ], findings
    citations = []
    for index, ref in enumerate(refs):
        start = mention.start if index == 0 else ref.start
        status = base
        if base == "ok" and statute is not None and ref.article_span is not None:
            status, hit = article_status(statute, ref)
            if hit:
                findings.append(hit)
        elif base == "ok" and statute is not None and statute.articles is None:
            status = "unverified"
        citations.append(
            Citation(
                start,
                ref.end,
                text[start : ref.end],
                name,
                ref.article,
                ref.paragraph,
                ref.item,
                status,
            )
        )
    return citations, findings


def article_status(statute: Statute, ref: Ref) -> tuple[CitationStatus, Finding | None]:
    if statute.articles is None:
        return "unverified", None
    if 1 <= ref.article <= statute.articles:
        return "ok", None
    start, end = ref.article_span or (ref.start, ref.end)
    hit = finding(
        "citation.article_out_of_range",
        start,
        end,
        f"第一条至第{int_to_chinese(statute.articles)}条",
        statute=statute.name,
        articles=statute.articles,
        article=ref.article,
    )
    return "article_out_of_range", hit


def last_article(citations: list[Citation]) -> Citation | None:
    return next((c for c in reversed(citations) if c.article is not None), None)


def part_citations(text: str, event: re.Match[str], previous: Citation | None) -> list[Citation]:
    """Citations of 同条第二款 / 前款 / 该款 / 该项 (with any 款, 项 that follow), resolved
    against the article cited just before; nothing when that does not say which 款 or 项."""
    if previous is None or previous.article is None:
        return []
    word, paragraph, item = event[0], previous.paragraph, None
    if word == "前款":
        paragraph = paragraph - 1 if paragraph and paragraph > 1 else None
    elif word == "该项":
        item = previous.item
    if word != "同条" and paragraph is None and item is None:
        return []
    refs = [Ref(event.start(), event.end(), previous.article, paragraph, item)]
    cursor, joined = event.end(), False
    while (unit := UNIT.match(text, cursor)) is not None and unit["kind"] != "条":
        value = parse_number(unit["n"] or unit["pn"])
        last = refs[-1]
        if value is None:
            break
        if unit["kind"] == "款":
            if len(refs) > 1 or joined or (last.paragraph is not None and word != "同条"):
                refs.append(Ref(unit.start(), unit.end(), last.article, value))
            else:
                last.paragraph = value
        elif joined or last.item is not None:
            refs.append(Ref(unit.start(), unit.end(), last.article, last.paragraph, value))
        else:
            last.item = value
        refs[-1].end = unit.end()
        connector = CONNECTOR.match(text, unit.end())
        joined = bool(connector and UNIT.match(text, connector.end()))
        cursor = connector.end() if joined and connector else unit.end()
    if word == "同条" and refs[0].paragraph is None and refs[0].item is None:
        return []  # 同条 with nothing after it: no part named
    return [
        Citation(
            ref.start if i else event.start(),
            ref.end,
            text[(ref.start if i else event.start()) : ref.end],
            previous.statute,
            ref.article,
            ref.paragraph,
            ref.item,
            previous.status,
        )
        for i, ref in enumerate(refs)
    ]
