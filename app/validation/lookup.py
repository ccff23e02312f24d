"""Show the law: the text of a cited article, with its statute, version and source.

One entry point for `lexspec cite`, the findings panel and the DOCX appendix 引用条文."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.domain import BilingualError, Citation
from app.validation.catalogue import Catalogue
from app.validation.citations import parse_citations
from app.validation.numerals import int_to_chinese
from app.validation.texts import Article, StatuteText, TextStore


class CitationLookupError(BilingualError, LookupError):
    """A reference that names no catalogued statute, no article, or one with no text held."""


@dataclass(frozen=True)
class ArticleView:
    """One article as a lawyer reads it: where it is from and what it says."""

    statute: str
    version: StatuteText
    article: Article
    paragraph: int | None = None
    item: int | None = None

    @property
    def heading(self) -> str:
        """《中华人民共和国个人信息保护法》第三十九条（2021-08-20通过，自2021-11-01起施行）"""
        where = f"第{int_to_chinese(self.article.number)}条"
        if self.paragraph:
            where += f"第{int_to_chinese(self.paragraph)}款"
        if self.item:
            where += f"第{int_to_chinese(self.item)}项"
        since = self.version.in_force_from.isoformat()
        return f"《{self.statute}》{where}（{self.version.version}，自{since}起施行）"

    @property
    def text(self) -> str:
        """The cited 款 or 项 on its own when one is cited, else the whole article."""
        return self.article.part(self.paragraph, self.item)

    @property
    def source(self) -> str:
        return self.version.source

    def heading_in(self, lang: str) -> str:
        """The heading with its dates in the reader's language: （2021年8月20日通过，自2021年11月1日
        起施行） or (adopted 20 August 2021, in force from 1 November 2021); the statute's name
        and article stay as the law writes them."""
        from app.i18n import long_date, t

        where = self.heading.split("（", 1)[0]
        since = long_date(self.version.in_force_from, lang)
        found = VERSION.fullmatch(self.version.version)
        if found is None:  # a firm's file may word its version otherwise: shown as it is
            version = self.version.version
            return t("citations.heading_since", lang, where=where, version=version, since=since)
        day = long_date(dt.date.fromisoformat(found[1]), lang)
        event = t(f"citations.event.{EVENTS[found[2]]}", lang)
        return t("citations.heading_dates", lang, where=where, day=day, event=event, since=since)

    @property
    def shown_source(self) -> str:
        """The source as a reader needs it: without the commit of the transcription it was
        read from (kept in the data and the audit trail)."""
        return COMMIT.sub("", self.version.source).strip()


VERSION = re.compile(r"(\d{4}-\d\d-\d\d)(通过|公布|修正|修订)")
EVENTS = {"通过": "adopted", "公布": "promulgated", "修正": "amended", "修订": "revised"}
COMMIT = re.compile(r"\s*[（(]commit [0-9a-f]{7,40}[）)]")


def _as_title(reference: str) -> str:
    """个人信息保护法第三十九条 → 《个人信息保护法》第三十九条 (a bare name is allowed here)."""
    reference = reference.strip()
    if "《" in reference or "第" not in reference:
        return reference
    name, _, rest = reference.partition("第")
    return f"《{name.strip()}》第{rest}"


def _fail(zh: str, en: str) -> CitationLookupError:
    return CitationLookupError(zh, en)


def view(
    statute: str,
    number: int,
    store: TextStore,
    on: dt.date,
    paragraph: int | None = None,
    item: int | None = None,
) -> ArticleView | None:
    """The article in the version in force on `on` (the latest one if none was yet)."""
    version = store.on(statute, on) or store.latest(statute)
    article = version.article(number) if version else None
    if version is None or article is None:
        return None
    return ArticleView(statute, version, article, paragraph, item)


def lookup(reference: str, *, catalogue: Catalogue, store: TextStore, on: dt.date) -> ArticleView:
    """The article a reference such as 《个人信息保护法》第三十九条 names, in the version in force
    on `on`; raises CitationLookupError (also when the statute was not yet in force that day)."""
    citations, _ = parse_citations(_as_title(reference), catalogue)
    cited = next((c for c in citations if c.statute), None)
    if cited is None:
        raise _fail(
            f"法规目录中没有这部法规：{reference}", f"No catalogued statute in: {reference}"
        )
    if cited.article is None:
        raise _fail(
            f"请给出条号，例如《{cited.statute}》第一条",
            f"Give an article, e.g. 《{cited.statute}》第一条",
        )
    if not store.versions.get(cited.statute or ""):
        raise _fail(
            f"条文库未收入《{cited.statute}》的全文（目录只记条数）",
            f"The statute-text store has no full text of 《{cited.statute}》 (the catalogue has its count only)",
        )
    statute = cited.statute or ""
    if store.on(statute, on) is None:  # before its first version: there was no such law yet
        since = store.versions[statute][0].in_force_from.isoformat()
        raise _fail(
            f"《{statute}》在 {on.isoformat()} 尚未施行（自 {since} 起施行）",
            f"《{statute}》 was not yet in force on {on.isoformat()} (in force from {since})",
        )
    found = view(statute, cited.article, store, on, cited.paragraph, cited.item)
    if found is None:
        raise _fail(
            f"《{statute}》没有第{int_to_chinese(cited.article)}条",
            f"《{statute}》 has no article {cited.article}",
        )
    if not found.article.has_part(cited.paragraph, cited.item):
        raise _missing_part(found, cited.paragraph, cited.item)
    return found


def _missing_part(found: ArticleView, paragraph: int | None, item: int | None) -> LookupError:
    where = f"《{found.statute}》第{int_to_chinese(found.article.number)}条"
    part = (f"第{int_to_chinese(paragraph)}款" if paragraph else "") + (
        f"第{int_to_chinese(item)}项" if item else ""
    )
    part_en = " ".join(
        x
        for x in (f"paragraph {paragraph}" if paragraph else "", f"item {item}" if item else "")
        if x
    )
    if found.article.number in found.version.incomplete:
        return _fail(
            f"{where}{part}的文本未能从公开来源完整读到，条文库只收其前{len(found.article.paragraphs)}款",
            f"{where} {part_en}: its full text could not be read in a public source; only the "
            f"first {len(found.article.paragraphs)} paragraph(s) are held",
        )
    return _fail(f"{where}没有{part}", f"{where} has no {part_en}")


def cited_articles(
    citations: Iterable[Citation], store: TextStore, on: dt.date
) -> list[ArticleView]:
    """Each article cited, once, in order of first citation (for the appendix 引用条文)."""
    seen: set[tuple[str, int]] = set()
    views: list[ArticleView] = []
    for citation in citations:
        if not citation.statute or citation.article is None:
            continue
        key = (citation.statute, citation.article)
        found = None if key in seen else view(citation.statute, citation.article, store, on)
        if found is not None:
            seen.add(key)
            views.append(found)
    return views


SHOWS_SUGGESTED = (
    "citation.content_mismatch",
    "citation.renumbered",
    "citation.superseded",
    "citation.rule_elsewhere",
)


def citation_view(citation: Citation, on: dt.date) -> ArticleView | None:
    """The article a resolved citation points at on `on`, from the built-in store (None: not
    held)."""
    from app.validation.texts import load_texts

    if not citation.statute or citation.article is None:
        return None
    return view(
        citation.statute, citation.article, load_texts(), on, citation.paragraph, citation.item
    )


def suggested_view(
    code: str, suggestion: str, on: dt.date, *, catalogue: Catalogue
) -> ArticleView | None:
    """For a mismatch or renumbering finding, the article it suggests instead on `on`, found in
    `catalogue` (else None)."""
    from app.validation.texts import load_texts

    if code not in SHOWS_SUGGESTED or not suggestion:
        return None
    try:
        return lookup(suggestion, catalogue=catalogue, store=load_texts(), on=on)
    except CitationLookupError:
        return None
