"""The statute catalogue: built-in YAML data, optionally merged with a firm's own file."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from app import yamldata
from app.domain import BilingualError

BUILTIN_FILE = Path(__file__).with_name("statutes.yaml")
PRC_PREFIX = "中华人民共和国"
# the kinds of instrument whose titles end this way; a 《title》 ending otherwise is not a statute
STATUTE_SUFFIXES = ("法典", "条例", "办法", "规定", "细则", "决定", "规则", "解释", "法")
_TRAILING_NOTE = re.compile(r"[（(][^（）()]*[）)]$")  # （2021修正）, (试行)
VARIANT_MIN_SCORE = 85.0  # fuzz.ratio at or above this: a near-miss of a catalogued title
SUGGEST_MIN_SCORE = 50.0  # nearest names offered for an unknown title
CACHE_LIMIT = 10_000  # titles remembered per catalogue (a long-running app sees many drafts)
BARE_MIN_LENGTH = 3  # shortest name or alias recognised without 《》 (个保法, 民法典)


class CatalogueError(BilingualError, ValueError):
    """A catalogue file that cannot be read."""


@dataclass(frozen=True)
class Statute:
    """One catalogued statute and the facts a citation is checked against."""

    name: str
    short_names: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    issuer: str = ""
    instrument: str = ""
    promulgated: dt.date | None = None
    effective: dt.date | None = None
    articles: int | None = None  # None: not confirmed, never reported out of range
    chapters: int | None = None
    amended: dt.date | None = None  # latest amendment adopted
    amended_effective: dt.date | None = None
    articles_before_amendment: int | None = None  # the count of the text the amendment replaced
    repealed: dt.date | None = None
    successor: str | None = None
    source: str = ""
    note: str = ""

    @property
    def short(self) -> str:
        return self.name.removeprefix(PRC_PREFIX)


def normalise(name: str) -> str:
    """A title reduced for lookup: no spaces, no 中华人民共和国, no trailing （2021修正）."""
    name = re.sub(r"\s+", "", name)
    name = _TRAILING_NOTE.sub("", name)
    return name.removeprefix(PRC_PREFIX)


def looks_like_statute(name: str) -> bool:
    """True for titles that name a legal instrument (…法, …条例, …办法 ...), not a book or form."""
    return normalise(name).endswith(STATUTE_SUFFIXES)


def _core(name: str) -> str:
    """A title without its instrument suffix: 个人信息保护 for 个人信息保护法 and 个人信息保护条例."""
    for suffix in STATUTE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass
class Catalogue:
    """Statutes by canonical name, with an index of every way a title may be written."""

    statutes: dict[str, Statute]
    index: dict[str, str] = field(default_factory=dict)
    _near: dict[str, tuple[str | None, tuple[str, ...]]] = field(default_factory=dict, repr=False)
    _resolved: dict[str, str | None] = field(default_factory=dict, repr=False)
    _bare_lengths: tuple[int, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        for statute in self.statutes.values():
            for key in (statute.name, *statute.short_names, *statute.aliases):
                self.index[normalise(key)] = statute.name
        lengths = {len(key) for key in self.index if len(key) >= BARE_MIN_LENGTH}
        self._bare_lengths = tuple(sorted(lengths, reverse=True))

    def names_ending_at(self, text: str, end: int) -> Iterator[tuple[int, Statute]]:
        """Catalogued names and aliases (written without 《》) that text[:end] ends with, longest
        first, as (start, statute); a 中华人民共和国 before the name is included in the span."""
        for length in self._bare_lengths:
            start = end - length
            canonical = self.index.get(text[start:end]) if start >= 0 else None
            if canonical is None:
                continue
            prefixed = start - len(PRC_PREFIX)
            if prefixed >= 0 and text.startswith(PRC_PREFIX, prefixed):
                start = prefixed
            yield start, self.statutes[canonical]

    def resolve(self, name: str) -> Statute | None:
        """The statute this exact title (in any catalogued spelling) names, or None."""
        if name not in self._resolved:
            if len(self._resolved) > CACHE_LIMIT:
                self._resolved.clear()
            self._resolved[name] = self.index.get(normalise(name))
        canonical = self._resolved[name]
        return self.statutes[canonical] if canonical else None

    def near(self, name: str) -> tuple[Statute | None, tuple[str, ...]]:
        """(the statute this title is a near-miss of, or None; the nearest canonical names)."""
        key = normalise(name)
        if key not in self._near:
            if len(self._near) > CACHE_LIMIT:
                self._near.clear()
            self._near[key] = self._compute_near(key)
        variant, nearest = self._near[key]
        return (self.statutes[variant] if variant else None), nearest

    def _compute_near(self, key: str) -> tuple[str | None, tuple[str, ...]]:
        matches = process.extract(key, list(self.index), scorer=fuzz.ratio, limit=8)
        core = _core(key)
        for candidate, score, _ in matches:
            same_core = len(core) >= 2 and _core(candidate) == core
            if score >= VARIANT_MIN_SCORE or same_core:
                return self.index[candidate], ()
        nearest: list[str] = []
        for candidate, score, _ in matches:
            canonical = self.index[candidate]
            if score >= SUGGEST_MIN_SCORE and canonical not in nearest:
                nearest.append(canonical)
        return None, tuple(nearest[:3])


def as_date(value: Any, where: str, error: type[BilingualError] = CatalogueError) -> dt.date | None:
    """A YYYY-MM-DD field of a data file (None stays None); `error` names the bad file."""
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise error(
            f"{where}：日期格式应为 YYYY-MM-DD", f"{where}: dates must be YYYY-MM-DD"
        ) from exc


def _to_statute(entry: dict[str, Any], where: str) -> Statute:
    articles = entry.get("articles")
    if articles is not None and (not isinstance(articles, int) or articles <= 0):
        raise CatalogueError(
            f"{where}：articles 应为正整数或 null",
            f"{where}: articles must be a positive integer or null",
        )
    return Statute(
        name=str(entry["name"]),
        short_names=tuple(str(s) for s in entry.get("short_names") or ()),
        aliases=tuple(str(s) for s in entry.get("aliases") or ()),
        issuer=str(entry.get("issuer") or ""),
        instrument=str(entry.get("instrument") or ""),
        promulgated=as_date(entry.get("promulgated"), where),
        effective=as_date(entry.get("effective"), where),
        articles=articles,
        chapters=entry.get("chapters"),
        amended=as_date(entry.get("amended"), where),
        amended_effective=as_date(entry.get("amended_effective"), where),
        articles_before_amendment=entry.get("articles_before_amendment"),
        repealed=as_date(entry.get("repealed"), where),
        successor=entry.get("successor"),
        source=str(entry.get("source") or ""),
        note=str(entry.get("note") or ""),
    )


def _read_entries(path: Path) -> list[dict[str, Any]]:
    try:
        data = yamldata.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogueError(
            f"无法读取法规目录文件 {path}：{exc.strerror}",
            f"Cannot read statute file {path}: {exc.strerror}",
        ) from exc
    except yamldata.YAMLError as exc:
        raise CatalogueError(
            f"法规目录文件 {path} 不是有效的 YAML", f"Statute file {path} is not valid YAML"
        ) from exc
    entries = data.get("statutes") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and e.get("name") for e in entries
    ):
        raise CatalogueError(
            f"法规目录文件 {path} 应包含 statutes 列表，每项须有 name",
            f"Statute file {path} must hold a `statutes` list whose entries each have a `name`",
        )
    return entries


@lru_cache(maxsize=8)
def _load(extra: str | None, _mtime: float) -> Catalogue:
    merged: dict[str, dict[str, Any]] = {e["name"]: dict(e) for e in _read_entries(BUILTIN_FILE)}
    if extra:
        for entry in _read_entries(Path(extra)):
            merged[entry["name"]] = {**merged.get(entry["name"], {}), **entry}
    statutes = {name: _to_statute(entry, f"《{name}》") for name, entry in merged.items()}
    return Catalogue(statutes)


def load_catalogue(extra_file: Path | str | None = None) -> Catalogue:
    """The built-in catalogue with `extra_file` (a firm's YAML, same shape) merged over it; cached."""
    if extra_file is None:
        return _load(None, 0.0)
    path = Path(extra_file)
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise CatalogueError(
            f"找不到法规目录文件 {path}", f"Statute file not found: {path}"
        ) from exc
    return _load(str(path), mtime)
