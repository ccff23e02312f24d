"""Document outlines (prompts/<type>/outline.yaml): the ordered sections of a document, their
headings and numbering, and for each part either deterministic content or a generated part.

The app writes headings, numbering and deterministic parts; the model writes only the prose of
generated parts. Outlines are data: a lawyer adds or changes one under prompts/ only. A broken
outline is reported by its type's name and the other outlines still load.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app import yamldata
from app.domain import validation_reasons
from app.outline.clauses import Clause, ClauseFileError, read_clauses
from app.outline.continuation import Topics, TopicsError, parse_topics

OUTLINE_FILE = "outline.yaml"
GENERATED = "generated"
OFFICIAL = "official"


class _Part(BaseModel):
    """One numbered part of a section: `kind` names a source (facts, legal_basis, items, a
    registered one such as a route engine's) or `generated` (the model writes its prose)."""

    model_config = ConfigDict(extra="forbid")
    kind: str = Field(min_length=1)
    id: str = ""  # how clauses name the part (default: its title)
    title: str = ""  # the part's numbered title (一、基本情况); empty: no title line
    when: dict[str, Any] | None = None  # app.outline.conditions: the part is left out otherwise
    fields: list[str] = Field(default_factory=list)  # facts: form fields, in order
    items: list[Any] = Field(default_factory=list)  # legal_basis / items: the entries
    options: dict[str, Any] = Field(default_factory=dict)  # for registered sources
    prompt: str = ""  # generated: the section's own instruction (jinja2, sandboxed)
    max_tokens: int = Field(default=96, gt=0, le=2048)
    stop: list[str] = Field(default_factory=list)
    # `numbering: official` only: the level of the part's title (2 （一）, 3 1., 4 （1））; its
    # lines are numbered one level deeper (none below 4), or not at all with `numbered: false`
    level: int = Field(default=2, ge=1, le=4)
    numbered: bool = True

    @model_validator(mode="after")
    def _generated_has_prompt(self) -> _Part:
        if self.kind == GENERATED and not self.prompt.strip():
            raise ValueError("a generated part needs a prompt")
        return self


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")
    heading: str = ""  # e.g. 【适用情形】, written by the app on its own line
    parts: list[_Part] = Field(min_length=1)


class _Title(BaseModel):
    """A document title chosen on the facts (the first whose `when:` holds)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    when: dict[str, Any] | None = None


class _Outline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # chinese (一、（一）) | arabic (1. (1)) | follow-input | official (the headings numbered
    # 一、 and parts （一） 1. （1） by level, as the filing templates are)
    numbering: str = "chinese"
    continue_from: str = ""  # follow-input: the field whose last number untitled parts continue
    topics: dict[str, Any] | None = None  # app.outline.continuation: topic_<id> facts
    system: str = Field(min_length=1)  # shared system prompt (jinja2)
    facts: str = Field(min_length=1)  # shared facts block: first user text of every part
    sections: list[_Section] = Field(min_length=1)
    titles: list[_Title] = Field(default_factory=list)  # none: the type's title


@dataclass(frozen=True)
class Part:
    kind: str
    title: str = ""
    id: str = ""
    when: dict[str, Any] | None = field(default=None, compare=False)
    fields: tuple[str, ...] = ()
    items: tuple[Any, ...] = ()
    options: dict[str, Any] = field(default_factory=dict, compare=False)
    prompt: str = ""
    max_tokens: int = 96
    stop: tuple[str, ...] = ()
    level: int = 2  # numbering: official
    numbered: bool = True

    @property
    def generated(self) -> bool:
        return self.kind == GENERATED

    @property
    def key(self) -> str:
        """The name a clause's `part:` uses: the part's id, else its title."""
        return self.id or self.title


@dataclass(frozen=True)
class Section:
    heading: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Outline:
    doc_type: str
    numbering: str
    system: str
    facts: str
    sections: tuple[Section, ...]
    hash: str = ""
    continue_from: str = ""
    clauses: tuple[Clause, ...] = ()  # clauses.yaml, the ones that passed their checks
    clause_errors: tuple[str, ...] = ()  # the refused ones, each naming its clause
    topics: Topics | None = None  # the clauses a continuation can write (topic_<id> facts)
    # (title, when) in order: the document's title is the first whose condition holds
    titles: tuple[tuple[str, dict[str, Any] | None], ...] = field(default=(), compare=False)

    def parts(self) -> list[Part]:
        return [p for s in self.sections for p in s.parts]

    @property
    def headings(self) -> tuple[str, ...]:
        """The section headings; with `numbering: official` also the titles of the parts at
        level 2 (the templates' （一）（二） chapters), which a type may require too."""
        heads = tuple(s.heading for s in self.sections if s.heading)
        if self.numbering != OFFICIAL:
            return heads
        return heads + tuple(p.title for p in self.parts() if p.title and p.level == 2)


@dataclass(frozen=True)
class OutlineLibrary:
    outlines: dict[str, Outline]
    errors: list[str]


class OutlineError(ValueError):
    """An outline.yaml that cannot be used; the message names the reason."""


def _part(raw: _Part) -> Part:
    return Part(
        kind=raw.kind,
        title=raw.title,
        id=raw.id,
        when=raw.when,
        fields=tuple(raw.fields),
        items=tuple(raw.items),
        options=dict(raw.options),
        prompt=raw.prompt,
        max_tokens=raw.max_tokens,
        stop=tuple(raw.stop),
        level=raw.level,
        numbered=raw.numbered,
    )


@functools.lru_cache(maxsize=64)
def parse_outline(doc_type: str, source: str) -> Outline:
    """Validate an outline's YAML text; OutlineError with the reason. Kept per text: outlines
    are read at every use (load_outline), and the same text gives the same immutable Outline,
    so only a changed file is parsed again."""
    try:
        raw = _Outline.model_validate(yamldata.load(source))
    except yamldata.YAMLError as exc:
        raise OutlineError(f"{OUTLINE_FILE} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        raise OutlineError(f"{OUTLINE_FILE}: {validation_reasons(exc, 'outline')}") from exc
    try:
        topics = parse_topics(raw.topics) if raw.topics is not None else None
    except TopicsError as exc:
        raise OutlineError(f"{OUTLINE_FILE}: {exc}") from exc
    return Outline(
        doc_type=doc_type,
        numbering=raw.numbering,
        system=raw.system,
        facts=raw.facts,
        sections=tuple(Section(s.heading, tuple(_part(p) for p in s.parts)) for s in raw.sections),
        hash=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        continue_from=raw.continue_from,
        topics=topics,
        titles=tuple((t.text, t.when) for t in raw.titles),
    )


def load_outline(type_dir: Path, corpus_dir: Path | None = None) -> Outline | None:
    """The type's outline with its clause library, the firm's published under `corpus_dir`
    (Settings.resolved_corpus_dir; None: only the shipped clauses) first (unchecked:
    check_outline checks each clause against the type; an unreadable clauses.yaml is reported
    in `clause_errors`), None when it has none; OutlineError (or OSError) when the outline is
    broken."""
    path = type_dir / OUTLINE_FILE
    if not path.is_file():
        return None
    outline = parse_outline(type_dir.name, path.read_text(encoding="utf-8"))
    try:
        clauses, digest = read_clauses(type_dir, corpus_dir)
    except ClauseFileError as exc:  # the outline still drafts, without clauses
        return replace(outline, clause_errors=(str(exc),))
    if not digest:
        return outline
    both = hashlib.sha256(f"{outline.hash}\0{digest}".encode()).hexdigest()
    return replace(outline, clauses=clauses, hash=both)
