"""Statute citations: find 《title》第X条第Y款第Z项 (and 本法/该法, defined short names, and
catalogued names written without 《》: 依据个人信息保护法第十三条), resolve them against the
catalogue, and report unknown titles, near-misses, repealed laws and articles out of range.
References to anything else (合同第五条, 附件一第二条, a 第X条 clause heading) are not citations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.domain import Citation, CitationStatus, Finding
from app.validation.catalogue import Catalogue, Statute, looks_like_statute
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese, parse_number

NUM = r"[0-9０-９零〇一二两三四五六七八九十百千]{1,8}"
TITLE = re.compile(r"《(?P<name>[^《》\n]{1,80})》")
INNER_TITLE = re.compile(r"〈(?P<inner>[^〈〉]{1,60})〉")
ANAPHOR = re.compile(
    r"(?:本法|该法|同法|该办法|该条例|该规定|前述(?:法律|法规|规定|办法|条例)?|上述(?:法律|法规|规定|办法|条例))(?=[ \t\u3000]?第)"
)
# a 款 or 项 of the article cited just before: 同条第二款, 前款 (the 款 before the one cited),
# 该款 (the 款 cited), 该项 (the 项 cited); 前款第二项, 同条第一款第（三）项
PART_ANAPHOR = re.compile(r"同条(?=[ \t\u3000]?第)|前款|该款|该项")
DEFINITION = re.compile(
    r"(?:以下简称|以下称|下称)\s*(?:为)?\s*[《\"“「『](?P<alias>[^《》\"“”「」『』\n]{1,20})"
    r"[》\"”」』]\s*[）)]?"
)
SPACE = r"[ \t\u3000]{0,2}"  # 第 56 条, 第\u3000５６\u3000条
UNIT = re.compile(rf"第{SPACE}(?:(?P<n>{NUM})|[（(](?P<pn>{NUM})[）)]){SPACE}(?P<kind>[条款项])")
CONNECTOR = re.compile(r"[ \t\u3000]*(?:以及|或者|、|和|及|或|与|至|到|—|－|～|~)[ \t\u3000]*")
GAP = re.compile(r"[ \t\u3000]?")  # 《个人信息保护法》 第三条; never across a line break
# A catalogued name written without 《》 (依据个人信息保护法第十三条) counts only as a whole word:
# at the start, after a non-ideograph, or after one of these (the last character of 依据, 按照,
# 违反, 符合, 适用, 援引, 参见, 以及, 或者 ...); 劳动合同法第十条 is not a citation of 合同法.
BARE_AFTER = set("据照依按反合用引见即和及与或的是为在由对并循守者")
BARE_AFTER_WORDS = ("我国",)


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


def _resolve_title(name: str, start: int, end: int, catalogue: Catalogue) -> Mention | None:
    """Resolve a 《title》 against the catalogue; None when the title is not a statute at all."""
    statute = catalogue.resolve(name)
    if statute is not None:
        return Mention(start, end, statute, "ok")
    if not looks_like_statute(name) or _amends_catalogued(name, catalogue):
        return None
    variant, nearest = catalogue.near(name)
    if variant is not None:
        hit = finding(
            "citation.name_variant",
            start,
            end,
            f"《{variant.name}》",
            name=name,
            canonical=variant.name,
        )
        return Mention(start, end, variant, "name_variant", [hit])
    suggestion = "、".join(f"《{n}》" for n in nearest)
    hit = finding("citation.unknown_statute", start, end, suggestion, name=name)
    return Mention(start, end, None, "unknown_statute", [hit])


def _amends_catalogued(name: str, catalogue: Catalogue) -> bool:
    """《关于修改〈中华人民共和国网络安全法〉的决定》: an amending act of a catalogued statute."""
    inner = INNER_TITLE.search(name)
    return inner is not None and catalogue.resolve(inner["inner"]) is not None


def _repealed_finding(mention: Mention) -> Finding:
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


def _cite(text: str, mention: Mention, refs: list[Ref]) -> tuple[list[Citation], list[Finding]]:
    """Citations for one mention and its article chain, with range / repeal findings."""
    statute, findings = mention.statute, list(mention.findings)
    repealed = statute is not None and statute.repealed is not None
    if repealed and mention.status == "ok" and not mention.back:
        findings.append(_repealed_finding(mention))
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
            status, hit = _article_status(statute, ref)
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


def _article_status(statute: Statute, ref: Ref) -> tuple[CitationStatus, Finding | None]:
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


@dataclass(frozen=True)
class Named:
    """A catalogued statute named without 《》 right before 第X条, at [start, end)."""

    start: int
    end: int
    statute: Statute


Event = re.Match[str] | Named


def _ideograph(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


def _whole_word(text: str, start: int) -> bool:
    """True when a bare name at `start` is not the tail of a longer title (劳动合同法)."""
    if start == 0 or not _ideograph(text[start - 1]) or text[start - 1] in BARE_AFTER:
        return True
    return text.endswith(BARE_AFTER_WORDS, 0, start)


def _named(text: str, catalogue: Catalogue) -> list[Named]:
    """Catalogued names and aliases written without 《》 and followed by 第X条."""
    found: list[Named] = []
    pos = text.find("第", 1)
    while pos != -1:
        unit = UNIT.match(text, pos)
        if unit is not None and unit["kind"] == "条":
            end = pos - 1 if text[pos - 1] in " \t\u3000" else pos
            for start, statute in catalogue.names_ending_at(text, end):
                if _whole_word(text, start):
                    found.append(Named(start, end, statute))
                    break
        pos = text.find("第", pos + 1)
    return found


def _events(
    text: str, definitions: list[re.Match[str]], aliases: set[str], catalogue: Catalogue
) -> list[tuple[int, int, Event]]:
    """Every title, anaphor, definition, bare short-name use and bare catalogued name, in order."""
    events: list[tuple[int, int, Event]] = [(m.start(), 0, m) for m in definitions]
    for priority, pattern in ((1, TITLE), (2, ANAPHOR), (2, PART_ANAPHOR)):
        events.extend((m.start(), priority, m) for m in pattern.finditer(text))
    if aliases:
        names = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
        bare = re.compile(rf"(?P<bare>{names})(?=[ \t\u3000]?第)")
        events.extend((m.start(), 3, m) for m in bare.finditer(text))
    events.extend((n.start, 4, n) for n in _named(text, catalogue))
    return sorted(events, key=lambda e: (e[0], e[1]))


def parse_citations(text: str, catalogue: Catalogue) -> tuple[list[Citation], list[Finding]]:
    """All statute citations in text and the findings on them (pure; partial text is fine)."""
    # a short name defined in quotes (以下简称“办法”) may later be used without 《》
    definitions = list(DEFINITION.finditer(text))
    defined = {m["alias"] for m in definitions if len(m["alias"]) >= 2 and "《" not in m[0]}
    local: dict[str, Mention | None] = {}  # short names defined in the text (以下简称《办法》)
    last: Mention | None = None  # the statute 本法/该法/前述 point at
    title: Mention | None = None  # the latest 《title》, None if it was not a statute
    citations: list[Citation] = []
    findings: list[Finding] = []
    consumed = 0
    for start, _, event in _events(text, definitions, defined, catalogue):
        if start < consumed:
            continue
        if not isinstance(event, Named) and event.re is PART_ANAPHOR:
            parts = _part_citations(text, event, _last_article(citations))
            citations.extend(parts)
            consumed = parts[-1].end if parts else event.end()
            continue
        is_title = not isinstance(event, Named) and event.re is TITLE
        end = consumed = event.end if isinstance(event, Named) else event.end()
        if not isinstance(event, Named) and event.re is DEFINITION:
            local[event["alias"]] = title  # the short name of the title just before it
            mention = _back(title, end, end)  # 《规定》（以下简称《规定》）第五条
        else:
            mention = _mention_for(event, last, local, catalogue)
            if is_title:
                title = mention
        if mention is None:
            continue
        refs, chain_end = parse_chain(text, end)
        consumed = max(consumed, chain_end)
        if not is_title and not refs:
            continue  # 该法 / a short name / a definition with no article: nothing to cite
        new_cites, new_findings = _cite(text, mention, refs)
        citations.extend(new_cites)
        findings.extend(new_findings)
        if not mention.back:
            last = mention
    return citations, findings


def _last_article(citations: list[Citation]) -> Citation | None:
    return next((c for c in reversed(citations) if c.article is not None), None)


def _part_citations(text: str, event: re.Match[str], previous: Citation | None) -> list[Citation]:
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


def _mention_for(
    event: Event,
    last: Mention | None,
    local: dict[str, Mention | None],
    catalogue: Catalogue,
) -> Mention | None:
    if isinstance(event, Named):
        return Mention(event.start, event.end, event.statute, "ok")
    start, end = event.span()
    if event.re is ANAPHOR:
        return _back(last, start, end)
    name = event["name"] if event.re is TITLE else event["bare"]
    if name in local:
        return _back(local[name], start, end)
    if event.re is not TITLE:
        return None
    return _resolve_title(name, start, end, catalogue)


def _back(target: Mention | None, start: int, end: int) -> Mention | None:
    """A back-reference to target; its title's problems were already reported once."""
    return Mention(start, end, target.statute, target.status, back=True) if target else None
