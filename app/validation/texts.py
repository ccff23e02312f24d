"""The statute-text store: every article (with its 款 and 项) of each statute version whose full
text was obtained from a public source, loaded from statute_texts/*.json and validated once.

Built by scripts/build_statute_texts.py; each file records its version's dates and its source."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from app.domain import BilingualError
from app.validation.catalogue import as_date

TEXTS_DIR = Path(__file__).with_name("statute_texts")


class StatuteTextError(BilingualError, ValueError):
    """A statute-text file that is missing a field or does not agree with itself."""


@dataclass(frozen=True)
class Paragraph:
    """One 款: its text and its 项 ((一), (二) ...)."""

    text: str
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class Article:
    number: int
    paragraphs: tuple[Paragraph, ...]

    @property
    def first_line(self) -> str:
        return self.paragraphs[0].text

    @property
    def text(self) -> str:
        """The whole article, one 款 or 项 per line."""
        return "\n".join("\n".join((p.text, *p.items)) for p in self.paragraphs)

    def has_part(self, paragraph: int | None = None, item: int | None = None) -> bool:
        """Whether the cited 款 (default the first) and 项 exist in this article."""
        index = (paragraph or 1) - 1
        if not 0 <= index < len(self.paragraphs):
            return False
        return item is None or 1 <= item <= len(self.paragraphs[index].items)

    def part(self, paragraph: int | None = None, item: int | None = None) -> str:
        """The cited 款 (with its 项) or the cited 项 on its own; the whole article when
        neither is given or the part does not exist."""
        if (paragraph is None and item is None) or not self.has_part(paragraph, item):
            return self.text
        chosen = self.paragraphs[(paragraph or 1) - 1]
        if item is not None:
            return chosen.items[item - 1]
        return "\n".join((chosen.text, *chosen.items))

    def parts(self, items: bool) -> list[tuple[int, int | None, str]]:
        """(款, 项, text) of every 款 (items=False) or of every 项, a 款 without 项 counting
        as one part (items=True): the candidates when a 款 or 项 is checked."""
        out: list[tuple[int, int | None, str]] = []
        for number, paragraph in enumerate(self.paragraphs, start=1):
            if items and paragraph.items:
                out.extend((number, i, text) for i, text in enumerate(paragraph.items, start=1))
            else:
                out.append((number, None, "\n".join((paragraph.text, *paragraph.items))))
        return out


@dataclass(frozen=True)
class StatuteText:
    """One version of one statute: its articles, dates and the source the text was read from."""

    key: str  # file stem, e.g. csl-2025
    statute: str  # canonical name, as in the catalogue
    version: str  # 2025-10-28修正
    adopted: dt.date
    in_force_from: dt.date
    source: str
    articles: tuple[Article, ...]
    amended: dt.date | None = None
    in_force_until: dt.date | None = None
    renumbered_from: str | None = None  # key of the superseded version
    renumber_map: dict[int, int | None] = field(default_factory=dict, compare=False)
    # articles whose later 款 could not be read in any source (the text held stops early)
    incomplete: frozenset[int] = frozenset()
    checked: str = ""  # how the text was cross-checked against a second source

    def article(self, number: int) -> Article | None:
        return self.articles[number - 1] if 1 <= number <= len(self.articles) else None

    def in_force_on(self, day: dt.date) -> bool:
        until = self.in_force_until
        return self.in_force_from <= day and (until is None or day <= until)


@dataclass(frozen=True)
class TextStore:
    """Versions by canonical statute name, oldest first."""

    versions: dict[str, tuple[StatuteText, ...]]

    def by_key(self, key: str) -> StatuteText | None:
        for versions in self.versions.values():
            for version in versions:
                if version.key == key:
                    return version
        return None

    def on(self, statute: str, day: dt.date) -> StatuteText | None:
        """The version in force on `day`; before the first, none; after all, the latest."""
        versions = self.versions.get(statute, ())
        current = [v for v in versions if v.in_force_from <= day]
        return current[-1] if current else None

    def latest(self, statute: str) -> StatuteText | None:
        versions = self.versions.get(statute, ())
        return versions[-1] if versions else None

    def superseded(self, text: StatuteText) -> StatuteText | None:
        return self.by_key(text.renumbered_from) if text.renumbered_from else None


def _date(value: Any, where: str) -> dt.date | None:
    return as_date(value, where, StatuteTextError)


def _articles(raw: Any, where: str) -> tuple[Article, ...]:
    if not isinstance(raw, list) or not raw:
        raise StatuteTextError(f"{where}：缺少条文", f"{where}: no articles")
    articles = []
    for expected, entry in enumerate(raw, start=1):
        if entry.get("n") != expected:
            raise StatuteTextError(
                f"{where}：条文编号不连续（第{expected}条处为 {entry.get('n')}）",
                f"{where}: article numbers are not continuous (found {entry.get('n')} at {expected})",
            )
        paragraphs = tuple(
            Paragraph(str(p["text"]), tuple(str(i) for i in p.get("items") or ()))
            for p in entry.get("paragraphs") or ()
        )
        if not paragraphs or not paragraphs[0].text:
            raise StatuteTextError(
                f"{where}：第{expected}条没有文本", f"{where}: article {expected} is empty"
            )
        articles.append(Article(expected, paragraphs))
    return tuple(articles)


def _read(path: Path) -> StatuteText:
    where = path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        renumbered = data.get("renumbered_from") or {}
        text = StatuteText(
            key=path.stem,
            statute=str(data["statute"]),
            version=str(data["version"]),
            adopted=_date(data["adopted"], where),  # type: ignore[arg-type]
            in_force_from=_date(data["in_force_from"], where),  # type: ignore[arg-type]
            source=str(data["source"]),
            articles=_articles(data["articles"], where),
            amended=_date(data.get("amended"), where),
            in_force_until=_date(data.get("in_force_until"), where),
            renumbered_from=renumbered.get("version_file"),
            renumber_map={int(k): v for k, v in (renumbered.get("map") or {}).items()},
            incomplete=frozenset(int(n) for n in data.get("incomplete") or ()),
            checked=str(data.get("checked") or ""),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, StatuteTextError):
            raise
        raise StatuteTextError(
            f"法规条文文件 {where} 无法读取或缺少字段",
            f"Statute text {where} is unreadable or incomplete",
        ) from exc
    if not text.source or text.adopted is None or text.in_force_from is None:
        raise StatuteTextError(
            f"{where}：须有 source、adopted、in_force_from",
            f"{where}: source, adopted and in_force_from are required",
        )
    return text


def _check_versions(versions: tuple[StatuteText, ...]) -> None:
    """A later version's old → new map points inside both texts; versions do not overlap."""
    keys = {v.key: v for v in versions}
    for version in versions:
        old = keys.get(version.renumbered_from or "")
        if version.renumbered_from and old is None:
            raise StatuteTextError(
                f"{version.key}：找不到被修正的版本 {version.renumbered_from}",
                f"{version.key}: superseded version {version.renumbered_from} not found",
            )
        for before, after in version.renumber_map.items():
            if (
                old is None
                or old.article(before) is None
                or (after is not None and version.article(after) is None)
            ):
                raise StatuteTextError(
                    f"{version.key}：条文对照 {before}→{after} 超出条文范围",
                    f"{version.key}: renumbering {before}→{after} is outside the texts",
                )
    for earlier, later in pairwise(versions):
        if earlier.in_force_until is None or earlier.in_force_until >= later.in_force_from:
            raise StatuteTextError(
                f"{earlier.key} 与 {later.key} 的施行期间重叠",
                f"{earlier.key} and {later.key} overlap in force",
            )


@lru_cache(maxsize=4)
def load_texts(directory: str = str(TEXTS_DIR)) -> TextStore:
    """Every statute_texts/*.json, validated; cached (the files ship with the app)."""
    by_statute: dict[str, list[StatuteText]] = {}
    for path in sorted(Path(directory).glob("*.json")):
        text = _read(path)
        by_statute.setdefault(text.statute, []).append(text)
    versions = {
        name: tuple(sorted(v, key=lambda t: t.in_force_from)) for name, v in by_statute.items()
    }
    for group in versions.values():
        _check_versions(group)
    return TextStore(versions)
