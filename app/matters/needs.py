"""Which documents a matter needs on the route its facts lead to (needs.yaml: each with its
basis and why). Pure: the matter view and the Draft page read it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from app import yamldata
from app.domain import Bilingual
from app.outline.conditions import condition_facts
from app.outline.sources import article_label, holds
from app.route import RouteDecision
from app.validation.numerals import int_to_chinese

NEEDS_FILE = Path(__file__).with_name("needs.yaml")
Need = Literal["filed", "kept", "guide", "optional"]
NEEDS: tuple[Need, ...] = ("filed", "kept", "guide", "optional")


@dataclass(frozen=True)
class Basis:
    statute: str
    article: int
    item: int | None = None

    @property
    def text(self) -> str:
        """《statute》第N条[第M项]"""
        where = article_label(self.article)
        if self.item:
            where += f"第一款第{int_to_chinese(self.item)}项"
        return f"《{self.statute}》{where}"


@dataclass(frozen=True)
class NeededDocument:
    """A document type the matter needs, how (filed, kept, guide, optional) and why."""

    type_id: str
    need: Need
    why: Bilingual
    basis: Basis | None
    when: Mapping[str, Any] | None = None


def _entry(raw: dict[str, Any]) -> NeededDocument:
    basis = raw.get("basis")
    return NeededDocument(
        type_id=str(raw["type"]),
        need=raw["need"],
        why=Bilingual(raw["why"]["zh"], raw["why"]["en"]),
        basis=Basis(basis["statute"], int(basis["article"]), basis.get("item")) if basis else None,
        when=raw.get("when"),
    )


@cache
def document_needs() -> tuple[NeededDocument, ...]:
    """Every entry of needs.yaml, in order."""
    raw = yamldata.load(NEEDS_FILE.read_text(encoding="utf-8"))
    return tuple(_entry(item) for item in raw["documents"])


def needed_documents(
    decision: RouteDecision | None, facts: Mapping[str, str]
) -> tuple[NeededDocument, ...]:
    """The documents these facts and their route need (none of a route's while it is not
    decided: a fact is missing); the optional ones always."""
    known = condition_facts(facts, decision)
    return tuple(
        doc
        for doc in document_needs()
        if (decision is not None or doc.when is None) and holds(doc.when, known)
    )
