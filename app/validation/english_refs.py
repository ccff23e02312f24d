"""English-style statute references, in English or Chinese text: "Art. 38 PIPL", "PIPL Article
55(4)", "DSL art. 36", "CSL Art. 39", "Article 40 of the Personal Information Protection Law",
"Articles 38 and 39 of the PIPL", "Art. 13, paragraph 1, item (2) PIPL". The statute's English
names and abbreviations are the catalogue's Latin-script aliases (statutes.yaml), matched
whole-word and case-insensitively.

A part in brackets, Article 55(4), is read as the lawyer writes it for a Chinese statute: one
bracket is an item (项) — 55(4) is the fourth item — unless the article has no such item but
such a paragraph (content.py reads it against the text: `as_paragraph`); two brackets,
Article 38(1)(3), are a paragraph and an item. Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from app.domain import Citation, Finding
from app.validation.catalogue import Catalogue, Statute
from app.validation.references import Mention, Ref, article_status, repealed_finding

ART = r"(?:Articles?|Arts?\.?|art\.?|§)"
NUM = r"(?P<{0}>\d{{1,4}})(?P<{0}_p>(?:[ \t]?\(\d{{1,2}}\)){{0,2}})"
PARTS = re.compile(r"\((\d{1,2})\)")
NAMED_PARTS = re.compile(
    r",?[ \t]*(?:para(?:graph)?\.?|¶)[ \t]*(?P<para>\d{1,2})"
    r"(?:,?[ \t]*(?:item|sub-?paragraph)[ \t]*\(?(?P<item>\d{1,2})\)?)?",
    re.IGNORECASE,
)
JOIN = r"[ \t]*(?:,|and|&|to|-|–|—|through)[ \t]*"
WORDED = (  # Article 13, paragraph 1, item (2)
    r"(?:,?[ \t]*(?:para(?:graph)?\.?|¶)[ \t]*\d{1,2}"
    r"(?:,?[ \t]*(?:item|sub-?paragraph)[ \t]*\(?\d{1,2}\)?)?)?"
)


@dataclass(frozen=True)
class ArticleRef:
    """One article of an English-style reference: [start, end) spans its number (and parts)."""

    start: int
    end: int
    article: int
    paragraph: int | None
    item: int | None
    range_to: bool = False  # the end of a range (Articles 38 to 40)


@dataclass(frozen=True)
class EnglishRef:
    """A reference [start, end) to `statute` (its name at [name_start, name_end))."""

    start: int
    end: int
    name_start: int
    name_end: int
    statute: Statute
    articles: tuple[ArticleRef, ...]


def _names(catalogue: Catalogue) -> dict[str, str]:
    """Lower-cased Latin-script alias → canonical name."""
    out: dict[str, str] = {}
    for statute in catalogue.statutes.values():
        for alias in statute.aliases:
            if alias[:1].isascii() and alias[:1].isalpha():
                out[" ".join(alias.lower().split())] = statute.name
    return out


@lru_cache(maxsize=8)
def _patterns(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    if not names:
        return None
    name = "|".join(
        r"[ \t]+".join(re.escape(w) for w in n.split())
        for n in sorted(names, key=len, reverse=True)
    )
    named = rf"(?<![A-Za-z])(?:the[ \t]+)?(?:PRC[ \t]+|China's[ \t]+)?(?P<name>{name})(?![A-Za-z])"
    numbers = NUM.format("a") + rf"(?P<more>(?:{JOIN}\d{{1,4}}(?:[ \t]?\(\d{{1,2}}\)){{0,2}})*)"
    after = re.compile(
        rf"(?<![A-Za-z]){ART}[ \t]*{numbers}{WORDED}[ \t]*(?:,[ \t]*)?(?:of[ \t]+)?{named}",
        re.IGNORECASE,
    )
    before = re.compile(rf"{named}[ \t]*,?[ \t]*{ART}[ \t]*{numbers}{WORDED}", re.IGNORECASE)
    return after, before


def _articles(m: re.Match[str], text: str) -> tuple[ArticleRef, ...]:
    """The article numbers of one match, with their parts."""
    out: list[ArticleRef] = []
    first, parts = int(m["a"]), [int(p) for p in PARTS.findall(m["a_p"] or "")]
    named = NAMED_PARTS.match(text, m.end("a_p")) if not parts else None
    if named is not None:
        parts = [int(named["para"])] + ([int(named["item"])] if named["item"] else [])
        parts = parts if len(parts) == 2 else [parts[0], 0]
    out.append(_ref(m.start("a"), m.end("a_p"), first, parts))
    cursor = m.start("more")
    for piece in re.finditer(
        rf"({JOIN})(\d{{1,4}})((?:[ \t]?\(\d{{1,2}}\)){{0,2}})", m["more"] or ""
    ):
        joint = piece[1].strip().lower()
        ranged = joint in ("to", "-", "–", "—", "through")
        sub = [int(p) for p in PARTS.findall(piece[3])]
        start = cursor + piece.start(2)
        out.append(_ref(start, cursor + piece.end(3), int(piece[2]), sub, ranged))
    return tuple(out)


def _ref(start: int, end: int, article: int, parts: list[int], ranged: bool = False) -> ArticleRef:
    if len(parts) >= 2:
        return ArticleRef(start, end, article, parts[0], parts[1] or None, ranged)
    if parts:
        return ArticleRef(start, end, article, None, parts[0], ranged)
    return ArticleRef(start, end, article, None, None, ranged)


def english_refs(text: str, catalogue: Catalogue) -> list[EnglishRef]:
    """Every English-style reference to a catalogued statute, in order."""
    if not re.search(r"(?i)art|§", text):
        return []
    names = _names(catalogue)
    patterns = _patterns(tuple(sorted(names)))
    if patterns is None:
        return []
    found: list[EnglishRef] = []
    taken: list[tuple[int, int]] = []
    for pattern in patterns:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            canonical = names.get(" ".join(m["name"].lower().split()))
            statute = catalogue.statutes.get(canonical or "")
            if statute is None:
                continue
            taken.append((m.start(), m.end()))
            found.append(
                EnglishRef(
                    m.start(),
                    m.end(),
                    m.start("name"),
                    m.end("name"),
                    statute,
                    _articles(m, text),
                )
            )
    return sorted(found, key=lambda r: r.start)


def english_citations(
    text: str, catalogue: Catalogue, taken: list[Citation]
) -> tuple[list[Citation], list[Finding]]:
    """Citations of English-style references (Art. 38 PIPL, PIPL Article 55(4)) not already read
    as Chinese ones, with the same range and repeal findings."""
    citations: list[Citation] = []
    findings: list[Finding] = []
    for ref in english_refs(text, catalogue):
        if any(c.start < ref.end and ref.start < c.end for c in taken):
            continue
        mention = Mention(ref.name_start, ref.name_end, ref.statute, "ok")
        if ref.statute.repealed is not None:
            findings.append(repealed_finding(mention))
        single = len(ref.articles) == 1
        for index, art in enumerate(ref.articles):
            start = ref.start if index == 0 else art.start
            end = (
                ref.end
                if single or (index == len(ref.articles) - 1 and ref.name_start > art.end)
                else art.end
            )
            unit = Ref(start, end, art.article, art.paragraph, art.item, (art.start, art.end))
            status, hit = (
                ("repealed", None) if ref.statute.repealed else article_status(ref.statute, unit)
            )
            if hit is not None:
                findings.append(hit)
            citations.append(
                Citation(start, end, text[start:end], ref.statute.name, art.article,
                         art.paragraph, art.item, status)
            )  # fmt: skip
    return citations, findings
