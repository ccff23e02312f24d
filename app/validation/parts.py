"""款 and 项 of a cited article: a part cited for what another part says (content_mismatch),
and a part the article does not have (citation.part_out_of_range).

A 项 is scored on what the sentence says beyond its 款's lead-in: the lead-in (有下列情形之一的，
…应当事前进行个人信息保护影响评估) is common to every 项 of the 款, so a claim that repeats it
is read on the rest (向境外提供个人信息) when the 项 are compared. Pure functions over the held
texts; called by app/validation/content.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.domain import Citation, Finding
from app.validation.matching import bigrams, index_for
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese
from app.validation.texts import Article, StatuteText

if TYPE_CHECKING:
    from app.validation.matching import Group, Thresholds

OPENING = 24  # characters of each article shown in a message
MIN_ITEM_WEIGHT = 2.0  # what a claim must say beyond the lead-in for its 项 to be compared


def opening(line: str) -> str:
    return line if len(line) <= OPENING else line[:OPENING] + "…"


def _article(n: int) -> str:
    return f"第{int_to_chinese(n)}条"


def _where(number: int, paragraph: int | None, item: int | None) -> str:
    """第十三条第一款第二项 (the 款 is written whenever a 项 is, as a lawyer cites it)."""
    text = _article(number)
    if paragraph or item:
        text += f"第{int_to_chinese(paragraph or 1)}款"
    return text + (f"第{int_to_chinese(item)}项" if item else "")


def _where_en(number: int, paragraph: int | None, item: int | None) -> str:
    """article 13, paragraph 1, item 2"""
    text = f"article {number}" + (f", paragraph {paragraph or 1}" if paragraph or item else "")
    return text + (f", item {item}" if item else "")


_PARTS: dict[
    tuple[int, int, bool], tuple[StatuteText, list[tuple[int, int | None, frozenset[str], str]]]
] = {}


def _parts(
    version: StatuteText, number: int, items: bool
) -> list[tuple[int, int | None, frozenset[str], str]]:
    """(款, 项, bigrams, text) of each part of one article, built once per version (keyed by
    identity, checked like matching.index_for: an id may be reused once a version is gone)."""
    key = (id(version), number, items)
    cached = _PARTS.get(key)
    if cached is None or cached[0] is not version:
        article = version.article(number)
        parts = article.parts(items) if article else []
        cached = _PARTS[key] = (version, [(p, i, bigrams(text), text) for p, i, text in parts])
    return cached[1]


def part_mismatch(version: StatuteText, group: Group, limits: Thresholds) -> Finding | None:
    """A 款 or 项 cited for what another 款 or 项 of the same article says."""
    cited = group.members[0]
    number, paragraph, item = cited.article, cited.paragraph, cited.item
    article = version.article(number) if number else None
    if len(group.members) != 1 or article is None or (paragraph is None and item is None):
        return None
    if not article.has_part(paragraph, item):
        return None
    index, grams = index_for(version), bigrams(group.claim)
    total = index.claim_weight(grams)
    if total < limits.min_claim or sum(1 for g in grams if index.weight.get(g)) < limits.min_grams:
        return None
    if item is not None:  # read the claim beyond its 款's lead-in
        grams = grams - bigrams(article.paragraphs[(paragraph or 1) - 1].text)
        total = index.claim_weight(grams)
        if total < MIN_ITEM_WEIGHT:
            return None
    scores = {
        (p, i): (sum(index.weight.get(g, 0.0) for g in grams & part) / total, text)
        for p, i, part, text in _parts(version, article.number, item is not None)
    }
    best = max(scores, key=lambda k: scores[k][0])
    mine = (paragraph or 1, item)
    if best == mine or scores[best][0] < limits.min_better:
        return None
    if _refers_to(scores.get(mine, (0.0, ""))[1], mine[0], best[0]):
        return (
            None  # the cited 款 takes the other in by reference (有前款第二项…情形的): it says it
        )
    if scores[best][0] - scores.get(mine, (0.0, ""))[0] < limits.margin:
        return None
    here, there = _where(article.number, paragraph, item), _where(article.number, *best)
    return finding(
        "citation.content_mismatch",
        cited.start,
        cited.end,
        f"《{version.statute}》{there}",
        statute=version.statute,
        cited=here,
        cited_en=_where_en(article.number, paragraph, item),
        better=there,
        better_en=_where_en(article.number, *best),
        cited_open=opening(scores.get(mine, (0.0, ""))[1]),
        better_open=opening(scores[best][1]),
    )


def _refers_to(cited: str, mine: int, other: int) -> bool:
    """Whether the cited 款's text refers to the other 款 (前款, 第一款 …)."""
    if other == mine:
        return False
    return ("前款" in cited and other == mine - 1) or f"第{int_to_chinese(other)}款" in cited


def _has(article: Article) -> tuple[str, str]:
    """What the article has, as the message says it: 只有一款 / 共三款，第一款有五项."""
    paragraphs = article.paragraphs
    zh = "只有一款" if len(paragraphs) == 1 else f"共{int_to_chinese(len(paragraphs))}款"
    en = "has one paragraph" if len(paragraphs) == 1 else f"has {len(paragraphs)} paragraphs"
    with_items = [(n, len(p.items)) for n, p in enumerate(paragraphs, start=1) if p.items]
    if not with_items:
        return zh + "，没有项", en + " and no items"
    zh += "，" + "，".join(f"第{int_to_chinese(n)}款有{int_to_chinese(k)}项" for n, k in with_items)
    en += ", " + ", ".join(f"paragraph {n} has {k} items" for n, k in with_items)
    return zh, en


def _exists(article: Article, paragraph: int | None, item: int | None) -> bool:
    """Whether the cited part exists; a 项 cited without its 款 may be in any 款."""
    if paragraph is None and item is not None:
        return any(item <= len(p.items) for p in article.paragraphs)
    return article.has_part(paragraph, item)


def part_out_of_range(version: StatuteText, citation: Citation) -> Finding | None:
    """A 款 or 项 the cited article does not have in the version in force (never for an
    article whose later 款 could not be read: `incomplete`)."""
    number, paragraph, item = citation.article, citation.paragraph, citation.item
    article = version.article(number) if number else None
    if article is None or (paragraph is None and item is None):
        return None
    if article.number in version.incomplete or _exists(article, paragraph, item):
        return None
    has, has_en = _has(article)
    return finding(
        "citation.part_out_of_range",
        citation.start,
        citation.end,
        "",
        statute=version.statute,
        article=_article(article.number),
        article_en=f"article {article.number}",
        version=version.version,
        has=has,
        has_en=has_en,
        part=_where(article.number, paragraph, item).removeprefix(_article(article.number)),
        part_en=_where_en(article.number, paragraph, item).removeprefix(
            f"article {article.number}, "
        ),
    )
