"""The clause library of a document type (prompts/<type>/clauses.yaml): vetted paragraphs for
the outline's generated parts, each with its conditions, the articles it relies on, its author,
approval date and version. A firm drafts from its precedents: the app assembles a clause as
written, or the model adapts it to the facts, and a model part that fails a prose gate falls
back to it.

Loading is strict per clause: a clause whose placeholder is unknown, whose `when:` names an
unknown fact, whose part does not exist or whose citations fail the checks against the statute
texts is refused with a message naming it (app/outline/clause_checks.py); the others load.

The loaded library of a type is the firm's approved clauses (app/precedents/firm_clauses.py publishes
them, in the same schema, to `<corpus dir>/<type>/clauses.yaml`, where the retrieval drafter
indexes them too) followed by the shipped ones: both pass the same checks, and `pick` takes the
first clause whose conditions hold, so a firm clause is preferred over a shipped one.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app import yamldata
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
    signed_off: dt.date | None = None  # last reviewed against the statute texts (else: approved)
    approved_by: str | None = None  # firm clauses: the admin who approved it
    source: str | None = None  # firm clauses: where it came from (revision 12, import)
    # terms an adaptation must keep, beyond the derived ones (app/outline/fidelity.py)
    must_keep: list[str] = Field(default_factory=list)


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
    origin: str = "shipped"  # shipped (prompts/<type>/) | firm (approved in LexSpec)
    approved_by: str = ""
    source: str = ""
    signed_off: dt.date | None = None
    must_keep: tuple[str, ...] = ()

    @property
    def sign_off(self) -> dt.date:
        """When a lawyer last reviewed the clause against the texts: signed_off, else approved."""
        return self.signed_off or self.approved

    def applies(self, facts: Facts) -> bool:
        return parse_condition(self.when, facts.keys()).holds(facts)


@dataclass(frozen=True)
class ChosenClause:
    """A clause rendered for one draft: what assemble writes, adapt rewrites, a fallback shows."""

    id: str
    version: str
    text: str
    must_keep: tuple[str, ...] = ()  # the clause's declared terms (fidelity adds the derived)


def _clause(raw: _Clause, origin: str) -> Clause:
    return Clause(
        id=raw.id,
        part=raw.part,
        text=raw.text.strip(),
        when=raw.when,
        cites=tuple(Cite(c.statute, c.article, c.paragraph, c.item) for c in raw.cites),
        author=raw.author,
        approved=raw.approved,
        version=raw.version,
        origin=origin,
        approved_by=raw.approved_by or "",
        source=raw.source or "",
        signed_off=raw.signed_off,
        must_keep=tuple(raw.must_keep),
    )


@functools.lru_cache(maxsize=64)
def parse_clauses(
    source: str, *, name: str = CLAUSES_FILE, origin: str = "shipped"
) -> tuple[Clause, ...]:
    """The clauses of a clauses.yaml text (schema only; checks in clause_checks). Kept per
    text, as parse_outline: a library is read at every use, parsed again only when changed."""
    try:
        raw = _ClauseFile.model_validate(yamldata.load(source) or {})
    except yamldata.YAMLError as exc:
        reason = str(exc).replace("\n", " ")
        raise ClauseFileError(f"{name} is not valid YAML: {reason}") from exc
    except ValidationError as exc:
        raise ClauseFileError(f"{name}: {validation_reasons(exc, 'clauses')}") from exc
    clauses = tuple(_clause(c, origin) for c in raw.clauses)
    ids = [c.id for c in clauses]
    if duplicated := sorted({i for i in ids if ids.count(i) > 1}):
        raise ClauseFileError(f"{name}: clause id(s) used twice: {', '.join(duplicated)}")
    return clauses


def clause_from_dict(data: Mapping[str, Any], *, origin: str = "firm") -> Clause:
    """One clause from its fields as in clauses.yaml (ClauseFileError naming what is wrong)."""
    try:
        return _clause(_Clause.model_validate(dict(data)), origin)
    except ValidationError as exc:
        raise ClauseFileError(f"clause: {validation_reasons(exc, 'clause')}") from exc


def firm_clauses_file(doc_type: str, corpus_dir: Path) -> Path:
    """Where the firm's approved clauses of a type are published under `corpus_dir`
    (Settings.resolved_corpus_dir; app/precedents/firm_clauses.py)."""
    return corpus_dir / doc_type / CLAUSES_FILE


def read_clauses(type_dir: Path, corpus_dir: Path | None = None) -> tuple[tuple[Clause, ...], str]:
    """The type's library, firm clauses (published under `corpus_dir`; None: none) first, and
    the files' sha256 ("" and no clauses when it has none)."""
    found: list[Clause] = []
    digests: list[str] = []
    firm = () if corpus_dir is None else ((firm_clauses_file(type_dir.name, corpus_dir), "firm"),)
    for path, origin in (*firm, (type_dir / CLAUSES_FILE, "shipped")):
        if not path.is_file():
            continue
        source = path.read_text(encoding="utf-8")
        name = f"firm library {type_dir.name}/{CLAUSES_FILE}" if origin == "firm" else CLAUSES_FILE
        found.extend(parse_clauses(source, name=name, origin=origin))
        digests.append(hashlib.sha256(source.encode("utf-8")).hexdigest())
    if not digests:
        return (), ""
    ids = [c.id for c in found]
    if duplicated := sorted({i for i in ids if ids.count(i) > 1}):
        raise ClauseFileError(f"firm and shipped clauses share id(s): {', '.join(duplicated)}")
    return tuple(found), digests[0] if len(digests) == 1 else hashlib.sha256(
        "\0".join(digests).encode()
    ).hexdigest()


def pick(clauses: Sequence[Clause], part: str, facts: Facts) -> Clause | None:
    """The first clause for `part` (in file order) whose conditions hold for these facts."""
    return next((c for c in clauses if c.part == part and c.applies(facts)), None)
