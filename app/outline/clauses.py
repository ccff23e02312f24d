"""The clause library of a document type (prompts/<type>/clauses.yaml): vetted paragraphs for
the outline's generated parts, each with its conditions, the articles it relies on, its author,
approval date and version. A firm drafts from its precedents: the app assembles a clause as
written, or the model adapts it to the facts, and a model part that fails a prose gate falls
back to it.

Loading is strict per clause: a clause whose placeholder is unknown, whose `when:` names an
unknown fact, whose part does not exist or whose citations fail the checks against the statute
texts is refused with a message naming it (app/outline/clause_checks.py); the others load.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.domain import validation_reasons
from app.outline.conditions import Facts, parse_condition

CLAUSES_FILE = "clauses.yaml"


class ClauseFileError(ValueError):
    """A clauses.yaml that cannot be read at all (YAML or schema), with the reason."""


class _Cite(BaseModel):
    model_config = ConfigDict(extra="forbid")
    statute: str = Field(min_length=1)
    article: int = Field(gt=0)
    paragraph: int | None = Field(default=None, gt=0)  # 款
    item: int | None = Field(default=None, gt=0)  # 项


class _Clause(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    part: str = Field(min_length=1)  # the outline part it serves: its id, else its title
    text: str = Field(min_length=1)  # jinja2, sandboxed; placeholders are the form's fields
    when: dict[str, Any] | None = None
    cites: list[_Cite] = Field(default_factory=list)
    author: str = Field(min_length=1)
    approved: dt.date
    version: str = Field(min_length=1)


class _ClauseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clauses: list[_Clause] = Field(default_factory=list)


@dataclass(frozen=True)
class Cite:
    """An article a clause relies on (statute + article [+ 款/项])."""

    statute: str
    article: int
    paragraph: int | None = None
    item: int | None = None


@dataclass(frozen=True)
class Clause:
    id: str
    part: str
    text: str
    when: Mapping[str, Any] | None
    cites: tuple[Cite, ...]
    author: str
    approved: dt.date
    version: str

    def applies(self, facts: Facts) -> bool:
        return parse_condition(self.when, facts.keys()).holds(facts)


@dataclass(frozen=True)
class ChosenClause:
    """A clause rendered for one draft: what assemble writes, adapt rewrites, a fallback shows."""

    id: str
    version: str
    text: str


def _clause(raw: _Clause) -> Clause:
    return Clause(
        id=raw.id,
        part=raw.part,
        text=raw.text.strip(),
        when=raw.when,
        cites=tuple(Cite(c.statute, c.article, c.paragraph, c.item) for c in raw.cites),
        author=raw.author,
        approved=raw.approved,
        version=raw.version,
    )


def parse_clauses(source: str) -> tuple[Clause, ...]:
    """The clauses of a clauses.yaml text (schema only; checks in clause_checks)."""
    try:
        raw = _ClauseFile.model_validate(yaml.safe_load(source) or {})
    except yaml.YAMLError as exc:
        raise ClauseFileError(f"{CLAUSES_FILE} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        raise ClauseFileError(f"{CLAUSES_FILE}: {validation_reasons(exc, 'clauses')}") from exc
    clauses = tuple(_clause(c) for c in raw.clauses)
    ids = [c.id for c in clauses]
    if duplicated := sorted({i for i in ids if ids.count(i) > 1}):
        raise ClauseFileError(f"{CLAUSES_FILE}: clause id(s) used twice: {', '.join(duplicated)}")
    return clauses


def read_clauses(type_dir: Path) -> tuple[tuple[Clause, ...], str]:
    """The type's clauses and the file's sha256 ("" and no clauses when it has none)."""
    path = type_dir / CLAUSES_FILE
    if not path.is_file():
        return (), ""
    source = path.read_text(encoding="utf-8")
    return parse_clauses(source), hashlib.sha256(source.encode("utf-8")).hexdigest()


def pick(clauses: Sequence[Clause], part: str, facts: Facts) -> Clause | None:
    """The first clause for `part` (in file order) whose conditions hold for these facts."""
    return next((c for c in clauses if c.part == part and c.applies(facts)), None)
