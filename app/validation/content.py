"""Citations checked against what the article says, in the version in force on the document's
date: citation.content_mismatch, citation.renumbered and citation.not_in_force (all warnings).

Runs after parse_citations: it reads the resolved Citations, never re-parses the text. Each
citation's claim is its sentence (to 。！？； or a line break) minus the citations in it, cut at
the neighbouring citations of other articles; a sentence still streaming (no end yet) is left
alone, so findings do not flicker while a draft is written."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import replace

from app.domain import Citation, Finding
from app.validation.basis import blocks
from app.validation.catalogue import Catalogue
from app.validation.in_force import check_in_force
from app.validation.matching import DEFAULT, Group, Thresholds, bigrams, index_for
from app.validation.messages import finding
from app.validation.negation import check_negations
from app.validation.numerals import int_to_chinese, parse_number
from app.validation.parts import opening, part_mismatch, part_out_of_range
from app.validation.statements import (
    Meant,
    figure_findings,
    figure_home,
    meant_articles,
    term_findings,
)
from app.validation.superseded import check_superseded
from app.validation.text_date import Dating
from app.validation.texts import StatuteText, TextStore
from app.validation.versions import named_versions

SENTENCE_END = re.compile(r"[。！？；!?;\n]")
JOINER = re.compile(
    r"^[\s\u3000、，,和及与或至以者到—－～~]*$"
)  # between the articles of one chain


def _article(n: int) -> str:
    return f"第{int_to_chinese(n)}条"


def _opening(text: StatuteText, number: int) -> str:
    article = text.article(number)
    return opening(article.first_line if article else "")


def groups(text: str, citations: Sequence[Citation]) -> list[Group]:
    """Article citations by sentence, chained citations together, each with its claim text; a
    citation in a basis block (【依据：…】) with the paragraph the block closes.

    Linear in the text and the citations: sentence ends are found once, neighbours by index."""
    ends = [m.end() for m in SENTENCE_END.finditer(text)]  # just after each 。；\n ...
    closes = blocks(text) if "依据" in text or "asis" in text else []
    ordered = sorted(citations, key=lambda c: c.start)
    out: list[Group] = []
    index = 0
    while index < len(ordered):
        first, first_index = ordered[index], index
        if first.article is None:
            index += 1
            continue
        block = next((b for b in closes if b.start <= first.start < b.end), None)
        after_end = bisect.bisect_left(ends, first.end + 1)
        if block is None and after_end == len(ends):
            break  # the sentence is still being written
        stop = block.end if block else ends[after_end] - 1  # the sentence's end mark
        before_start = bisect.bisect_right(ends, first.start)
        start = ends[before_start - 1] if before_start else 0
        members = [first]
        while index + 1 < len(ordered) and ordered[index + 1].start < stop:
            nxt = ordered[index + 1]
            joined = JOINER.match(text[members[-1].end : nxt.start])
            if nxt.article is None or nxt.statute != first.statute or not joined:
                break
            members.append(nxt)
            index += 1
        if block is not None:
            span = (block.para_start, block.para_end)
            out.append(Group(tuple(members), text[span[0] : span[1]], (span,), block=True))
            index += 1
            continue
        previous = ordered[first_index - 1].end if first_index else start
        following = ordered[index + 1].start if index + 1 < len(ordered) else stop
        left, right = max(start, previous), min(stop, following)
        right = max(right, members[-1].end)
        claim = text[left : first.start] + "|" + text[members[-1].end : right]
        spans = ((left, first.start), (members[-1].end, right))
        out.append(Group(tuple(members), claim, spans))
        index += 1
    return out


_ASSESSED: dict[tuple[int, str, tuple[int, ...]], tuple[float, int, float, int, float]] = {}
CACHE_LIMIT = 20_000  # claims remembered (re-checks while streaming score each sentence once)


def _assess(
    version: StatuteText, claim: str, numbers: tuple[int, ...], limits: Thresholds
) -> tuple[float, int, float] | None:
    """(best score among the cited articles, best other article, its score), None: no claim."""
    key = (id(version), claim, numbers)
    if key not in _ASSESSED:
        if len(_ASSESSED) > CACHE_LIMIT:
            _ASSESSED.clear()
        _ASSESSED[key] = _score(version, claim, numbers)
    total, grams, cited, better, score = _ASSESSED[key]
    if total < limits.min_claim or grams < limits.min_grams:
        return None
    return cited, better, score


def _score(
    version: StatuteText, claim: str, numbers: tuple[int, ...]
) -> tuple[float, int, float, int, float]:
    """(the claim's weight, its weighted bigrams, best cited score, best article, its score)."""
    index = index_for(version)
    grams = bigrams(claim)
    total = index.claim_weight(grams)
    weighted = sum(1 for g in grams if index.weight.get(g))
    cited = max(index.score(grams, n, total) for n in numbers)
    better, score = index.best(grams, total)
    return total, weighted, cited, better, score


def _better(version: StatuteText, group: Group, limits: Thresholds) -> int | None:
    """Another article of the same version that fits the claim clearly better than the cited
    ones (a basis block: than they fit any sentence of the paragraph it closes)."""
    numbers = tuple(c.article for c in group.members if c.article)
    if not numbers or any(version.article(n) is None for n in numbers):
        return None
    claims = [group.claim]
    if group.block:
        claims = [s for s in SENTENCE_END.split(group.claim) if s.strip()] or claims
    best: tuple[float, int] | None = None
    for claim in claims:
        assessed = _assess(version, claim, numbers, limits)
        if assessed is None:
            continue
        cited, better, score = assessed
        if group.block and (
            cited >= SUPPORTED or (better in numbers and score >= limits.min_better)
        ):
            return None  # a sentence of the paragraph the cited article says
        if better in numbers or score < limits.min_better or score - cited < limits.margin:
            continue
        if best is None or score - cited > best[0]:
            best = (score - cited, better)
    return best[1] if best else None


SUPPORTED = 0.5  # a basis block's article that covers this much of one sentence supports it


def _mismatch(version: StatuteText, group: Group, better: int) -> Finding:
    numbers = tuple(c.article for c in group.members if c.article)
    first = group.members[0]
    return finding(
        "citation.content_mismatch",
        first.start,
        group.members[-1].end,
        f"《{version.statute}》{_article(better)}",
        statute=version.statute,
        cited="、".join(_article(n) for n in numbers),
        cited_en=", ".join(f"article {n}" for n in numbers),
        better=_article(better),
        better_en=f"article {better}",
        cited_open=_opening(version, numbers[0]),
        better_open=_opening(version, better),
    )


def _renumbered_to(
    store: TextStore, version: StatuteText, group: Group, limits: Thresholds
) -> int | None:
    """The number in force of a cited article whose old number the claim fits clearly better."""
    old = store.superseded(version)
    citation = group.members[0]
    if old is None or len(group.members) != 1 or citation.article is None:
        return None
    number = citation.article
    if old.article(number) is None:
        return None
    now_old = _assess(old, group.claim, (number,), limits)
    now_new = _assess(version, group.claim, (number,), limits) if version.article(number) else None
    if now_old is None:
        return None
    fits_old = now_old[0]
    fits_new = now_new[0] if now_new else 0.0
    new_number = version.renumber_map.get(number)
    if new_number in (None, number) or fits_old < limits.min_better:
        return None
    if fits_old - fits_new < limits.margin:
        return None
    return new_number


def _renumbered(store: TextStore, version: StatuteText, group: Group, now: int) -> Finding:
    citation = group.members[0]
    number = citation.article or 0
    old = store.superseded(version)
    return finding(
        "citation.renumbered",
        citation.start,
        citation.end,
        f"《{version.statute}》{_article(now)}",
        statute=version.statute,
        cited=_article(number),
        cited_en=f"article {number}",
        old_version=old.version if old else "",
        changed=version.in_force_from.isoformat(),
        now=_article(now),
        now_en=f"article {now}",
    )


ARTICLE_NUMBER = re.compile(
    r"第[ \t\u3000]*([0-9０-９零〇一二两三四五六七八九十百千]{1,8})[ \t\u3000]*条"
)


def _states_renumbering(store: TextStore, version: StatuteText, group: Group) -> bool:
    """The claim itself gives the other number of a renumbered article (…第三十七条（自2026年1月1日
    起为第三十九条）, 第三十九条（原第三十七条）): it says the number changes, which is no error."""
    citation = group.members[0]
    amended = version if version.renumber_map else store.latest(version.statute)
    if citation.article is None or amended is None or not amended.renumber_map:
        return False
    mapping = amended.renumber_map
    partners = {mapping.get(citation.article)} | {
        o for o, n in mapping.items() if n == citation.article
    }
    partners.discard(citation.article)
    said = {parse_number(m[1]) for m in ARTICLE_NUMBER.finditer(group.claim)}
    return bool(partners & said)


_JUDGED: dict[tuple[object, ...], list[Finding]] = {}


def _judged(
    text: str,
    group: Group,
    version: StatuteText,
    store: TextStore,
    day: dt.date,
    limits: Thresholds,
) -> list[Finding]:
    """_judge, remembered by the text of the group's region (its claim and its citations) and
    what the citations resolve to: a re-check while streaming judges each sentence once."""
    first, last = group.members[0], group.members[-1]
    low = min([first.start, *(a for a, _ in group.spans)])
    high = max([last.end, *(b for _, b in group.spans)])
    members = tuple(
        (c.statute, c.article, c.paragraph, c.item, c.start - low, c.end - low)
        for c in group.members
    )
    key = (id(version), id(store), day, limits, group.block, members, text[low:high])
    if key not in _JUDGED:
        if len(_JUDGED) > CACHE_LIMIT:
            _JUDGED.clear()
        found = _judge(text, group, version, store, day, limits)
        _JUDGED[key] = [replace(f, start=f.start - low, end=f.end - low) for f in found]
    return [replace(f, start=f.start + low, end=f.end + low) for f in _JUDGED[key]]


def _judge(
    text: str,
    group: Group,
    version: StatuteText,
    store: TextStore,
    day: dt.date,
    limits: Thresholds,
) -> list[Finding]:
    """The content findings of one group: a renumbered or mismatched article (or 款 / 项), then
    the figures, actors, conditions and modality of its claim against the article it means (so
    a second error behind a wrong number is reported too), or the statute that states its
    figure when the cited one does not."""
    if _states_renumbering(store, version, group):
        return []
    numbers = tuple(c.article for c in group.members if c.article)
    first, last = group.members[0], group.members[-1]
    out: list[Finding] = []
    meant: tuple[StatuteText, tuple[int, ...]] = (version, numbers)
    cited_arts = meant_articles(version, numbers)
    now = _renumbered_to(store, version, group, limits)
    home = None if now else figure_home(text, group.spans, group.members, cited_arts, store, day)
    if now is not None:
        out.append(_renumbered(store, version, group, now))
        meant = (version, (now,))
    elif home is not None and home[0].statute == version.statute:
        out.append(_mismatch(home[0], group, home[1]))  # the figure's article of the same statute
        meant = (home[0], (home[1],))
    elif home is not None:
        out.append(_elsewhere(version, numbers, home, first.start, last.end))
        meant = (home[0], (home[1],))
    elif (better := _better(version, group, limits)) is not None:
        out.append(_mismatch(version, group, better))
        meant = (version, (better,))
    elif (part := part_mismatch(version, group, limits)) is not None:
        out.append(part)
    if meant == (version, numbers) and _off_topic(version, group, numbers, limits):
        return out  # the sentence speaks of something else: nothing of the article to compare
    cited_part = first.paragraph if meant[1] == numbers and len(group.members) == 1 else None
    arts = meant_articles(*meant, cited_part)
    where = Meant(meant[0], meant[1][0], first.start, last.end, store)
    said = figure_findings(text, group.spans, where, arts)
    said += term_findings(text, group.spans, where, arts)
    return out + said


OFF_TOPIC = 0.15  # a claim the cited article covers less of than this is about something else


def _off_topic(
    version: StatuteText, group: Group, numbers: tuple[int, ...], limits: Thresholds
) -> bool:
    """Whether the claim, long enough to say something of its own, shares next to nothing with
    the articles cited (a short claim, 有效期为2年, is compared whatever its length)."""
    if group.block or any(version.article(n) is None for n in numbers):
        return False
    assessed = _assess(version, group.claim, numbers, limits)
    return assessed is not None and assessed[0] < OFF_TOPIC


def _elsewhere(
    version: StatuteText,
    numbers: tuple[int, ...],
    other: tuple[StatuteText, int],
    start: int,
    end: int,
) -> Finding:
    there, number = other
    return finding(
        "citation.rule_elsewhere",
        start,
        end,
        f"《{there.statute}》{_article(number)}",
        statute=version.statute,
        cited="、".join(_article(n) for n in numbers),
        cited_en=", ".join(f"article {n}" for n in numbers),
        other=there.statute,
        other_article=_article(number),
        other_article_en=f"article {number}",
        other_open=_opening(there, number),
    )


def check_content(
    text: str,
    citations: Sequence[Citation],
    *,
    catalogue: Catalogue,
    store: TextStore,
    doc_date: dt.date,
    limits: Thresholds = DEFAULT,
    dating: Dating | None = None,
) -> tuple[list[Finding], list[Citation]]:
    """Findings on what the citations say, and the citations with version and first line.
    Each citation is read in the version in force on its sentence's own date where it sets one
    (`dating`: 截至2025年6月30日…, 2023年时…), else on `doc_date`."""
    dating = dating or Dating(doc_date)
    citations = [_as_written(c, store, dating) for c in citations]
    findings = check_in_force(
        text, citations, catalogue=catalogue, store=store, doc_date=doc_date, dating=dating
    )
    named = named_versions(text, citations, store, dating)
    versions: dict[int, StatuteText] = {}
    for citation in citations:
        day = dating.on(citation.start)
        version = named.get(citation.start) or _version(store, citation.statute, day)
        if version is not None:
            versions[citation.start] = version
        missing = part_out_of_range(version, citation) if version else None
        if missing:
            findings.append(missing)
    findings.extend(check_negations(text, citations, versions))
    for group in groups(text, citations):
        first = group.members[0]
        day = dating.on(first.start)
        version = named.get(first.start) or _version(store, first.statute, day)
        if version is None:
            continue
        findings.extend(_judged(text, group, version, store, day, limits))
    superseded = check_superseded(text, citations, doc_date=doc_date, dating=dating)
    # a citation of an overridden rule is reported as that, not also as another article's
    spans = {(f.start, f.end) for f in superseded}
    findings = [
        f
        for f in findings
        if f.code != "citation.content_mismatch" or (f.start, f.end) not in spans
    ]
    findings.extend(superseded)
    findings = _unnested(findings)
    return findings, [_enrich(c, store, dating.on(c.start), named.get(c.start)) for c in citations]


def _as_written(citation: Citation, store: TextStore, dating: Dating) -> Citation:
    """An English-style Article 23(2) whose article has no item 2 but a second 款 means that
    款 (english_refs reads one bracket as an item, as Article 55(4) is)."""
    if not citation.raw[:1].isascii() or citation.item is None or citation.paragraph is not None:
        return citation
    version = _version(store, citation.statute, dating.on(citation.start))
    article = version.article(citation.article) if version and citation.article else None
    if article is None or any(len(p.items) >= citation.item for p in article.paragraphs):
        return citation
    if len(article.paragraphs) < citation.item:
        return citation
    return replace(citation, paragraph=citation.item, item=None)


def _unnested(findings: list[Finding]) -> list[Finding]:
    """Without a finding inside another of the same code (无需 within 无需遵守)."""
    return [
        f
        for f in findings
        if not any(
            o is not f
            and o.code == f.code
            and o.start <= f.start
            and f.end <= o.end
            and (o.end - o.start) > (f.end - f.start)
            for o in findings
        )
    ]


def _version(store: TextStore, statute: str | None, day: dt.date) -> StatuteText | None:
    if statute is None:
        return None
    return store.on(statute, day) or store.latest(statute)


def _enrich(
    citation: Citation, store: TextStore, day: dt.date, named: StatuteText | None = None
) -> Citation:
    version = named or _version(store, citation.statute, day)
    if version is None:
        return citation
    article = version.article(citation.article) if citation.article else None
    return replace(
        citation,
        version=version.version,
        first_line=article.first_line if article else None,
    )
