"""Appendix 引用条文: the full text of every article the draft cites, with version and source."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docx.document import Document as DocxDocument
from docx.enum.text import WD_BREAK
from docx.shared import Pt

from app.domain import Citation
from app.export import labels
from app.export.cleaning import xml_safe


@dataclass(frozen=True)
class CitedArticle:
    """One article as printed: heading (statute, article, version), its text, its source."""

    heading: str
    text: str
    source: str


def add_cited_articles(doc: DocxDocument, articles: Sequence[CitedArticle]) -> int:
    """A new page titled 引用条文 with each article (heading, one paragraph per 款/项, source).

    Returns the number of articles written (0: nothing added)."""
    if not articles:
        return 0
    doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    doc.add_paragraph(labels.CITED_TITLE, style="Heading 1")
    doc.add_paragraph(labels.CITED_INTRO).paragraph_format.space_after = Pt(8)
    for article in articles:
        doc.add_paragraph(xml_safe(article.heading), style="Heading 2")
        for line in article.text.split("\n"):
            doc.add_paragraph(xml_safe(line))
        note = doc.add_paragraph()
        run = note.add_run(xml_safe(f"{labels.CITED_SOURCE}{article.source}"))
        run.font.size = Pt(9)
        run.italic = True
    return len(articles)


def cited_articles_of(
    citations: Iterable[Citation], on: dt.date | None = None
) -> tuple[CitedArticle, ...]:
    """Each article the citations name, once, as in force on `on` (default today), if its
    text is held in the statute-text store."""
    from app.validation.lookup import cited_articles
    from app.validation.texts import load_texts

    views = cited_articles(citations, load_texts(), on or dt.date.today())
    return tuple(CitedArticle(v.heading, v.text, v.source) for v in views)
