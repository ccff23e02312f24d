"""Statute citations: find 《title》第X条第Y款第Z项 (and 本法/该法, defined short names, and
catalogued names written without 《》: 依据个人信息保护法第十三条), resolve them against the
catalogue, and report unknown titles, near-misses, repealed laws and articles out of range.
References to anything else (合同第五条, 附件一第二条, a 第X条 clause heading) are not citations."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.domain import Citation, Finding
from app.validation.catalogue import Catalogue, Statute, looks_like_statute
from app.validation.english_refs import english_citations
from app.validation.messages import finding
from app.validation.non_statutes import non_statute
from app.validation.references import (
    UNIT,
    Mention,
    cite,
    last_article,
    parse_chain,
    part_citations,
)

TITLE = re.compile(r"《(?P<name>[^《》\n]{1,80})》")
INNER_TITLE = re.compile(r"〈(?P<inner>[^〈〉]{1,60})〉")
ANAPHOR = re.compile(
    r"(?:本法|该法|同法|该办法|该条例|该规定|前述(?:法律|法规|规定|办法|条例)?|上述(?:法律|法规|规定|办法|条例))(?=[ \t\u3000]?第)"
)
# a 款 or 项 of the article cited just before: 同条第二款, 前款 (the 款 before the one cited),
# 该款 (the 款 cited), 该项 (the 项 cited); 前款第二项, 同条第一款第（三）项
PART_ANAPHOR = re.compile(r"同条(?=[ \t\u3000]?第)|前款|该款|该项")
DEFINITION = re.compile(
    r"(?:以下简称|以下统称|以下称|下称|简称)\s*(?:为)?\s*[:：]?\s*"
    r"(?:[\"“「『]\s*《(?P<quoted>[^《》\n]{1,20})》\s*[\"”」』]"
    r"|[《\"“「『](?P<alias>[^《》\"“”「」『』\n]{1,20})[》\"”」』])\s*[）)]?"
)
# a version note between a bare name and its article: 网络安全法（2025修正）第五十二条
VERSION_NOTE = re.compile(
    r"[（(][^（）()\n]{0,12}(?:[0-9]{4}|修正|修订|修改|试行)[^（）()\n]{0,6}[）)]$"
)
# A catalogued name written without 《》 (依据个人信息保护法第十三条) counts only as a whole word:
# at the start, after a non-ideograph, or after one of these (the last character of 依据, 按照,
# 违反, 符合, 适用, 援引, 参见, 以及, 或者 ...); 劳动合同法第十条 is not a citation of 合同法.
BARE_AFTER = set("据照依按反合用引见即和及与或的是为在由对并循守者")
BARE_AFTER_WORDS = ("我国",)


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
    """Catalogued names and aliases written without 《》 and followed by 第X条 (a version note
    may stand between: 中华人民共和国网络安全法（2025修正）第五十二条)."""
    found: list[Named] = []
    pos = text.find("第", 1)
    while pos != -1:
        unit = UNIT.match(text, pos)
        if unit is not None and unit["kind"] == "条":
            end = pos - 1 if text[pos - 1] in " \t\u3000" else pos
            note = VERSION_NOTE.search(text, max(0, end - 20), end)
            name_end = note.start() if note else end
            for start, statute in catalogue.names_ending_at(text, name_end):
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
    defined = {m["alias"] for m in definitions if m["alias"] and len(m["alias"]) >= 2}
    defined -= {m["alias"] for m in definitions if m["alias"] and "《" in m[0]}
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
            parts = part_citations(text, event, last_article(citations))
            citations.extend(parts)
            consumed = parts[-1].end if parts else event.end()
            continue
        is_title = not isinstance(event, Named) and event.re is TITLE
        end = consumed = event.end if isinstance(event, Named) else event.end()
        if not isinstance(event, Named) and event.re is DEFINITION:
            named = _defined(text, event, title, catalogue)  # the title or name just before
            local[event["alias"] or event["quoted"]] = named
            mention = _back(named, end, end)  # 《规定》（以下简称《规定》）第五条
            last = named or last
        else:
            mention = _mention_for(event, last, local, catalogue)
            if is_title:
                title = mention
        if mention is None:
            if is_title and (hit := _not_a_provision(text, event, end)) is not None:
                findings.append(hit)  # 《…政策问答》第六十二条
            continue
        refs, chain_end = parse_chain(text, end)
        consumed = max(consumed, chain_end)
        if not is_title and not refs:
            continue  # 该法 / a short name / a definition with no article: nothing to cite
        new_cites, new_findings = cite(text, mention, refs)
        citations.extend(new_cites)
        findings.extend(new_findings)
        if not mention.back:
            last = mention
    english, english_findings = english_citations(text, catalogue, citations)
    citations.extend(english)
    findings.extend(english_findings)
    citations.sort(key=lambda c: c.start)
    return citations, findings


def _not_a_provision(text: str, event: Event, end: int) -> Finding | None:
    """citation.not_a_provision for a 《title》 of a document that is no law (a policy Q&A …)
    followed by 第X条."""
    assert not isinstance(event, Named)
    kind = non_statute(event["name"])
    if kind is None:
        return None
    refs, chain_end = parse_chain(text, end)
    if not refs or refs[0].article_span is None:
        return None
    return finding(
        "citation.not_a_provision",
        event.start(),
        chain_end,
        "",
        name=event["name"],
        kind=kind.zh,
        kind_en=kind.en,
        part=text[refs[0].start : chain_end],
    )


DEFINED_GAP = re.compile(r"[ \t\u3000]*[（(，,][ \t\u3000]*$")


def _defined(
    text: str, definition: re.Match[str], title: Mention | None, catalogue: Catalogue
) -> Mention | None:
    """What a definition (以下简称“个保法”) names: the 《title》 right before it, else a
    catalogued name written without 《》 right before it (个人信息保护法（以下简称…）), else the
    latest 《title》."""
    gap = DEFINED_GAP.search(text, max(0, definition.start() - 3), definition.start())
    before = gap.start() if gap else definition.start()
    if title is not None and before - title.end <= 1:
        return title
    note = VERSION_NOTE.search(text, max(0, before - 20), before)
    name_end = note.start() if note else before
    for start, statute in catalogue.names_ending_at(text, name_end):
        if _whole_word(text, start):
            return Mention(start, name_end, statute, "ok")
    return title


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
