"""The firm's own clause library: "Approve as precedent" on a saved revision.

A drafter proposes the paragraphs a lawyer changed or wrote in a saved revision of an outline
draft as clauses of the firm's library, one per generated part (the plan of the draft's logged
context, app.drafting.logged.logged_context, tells which part each paragraph belongs to), with
the form's values turned back into placeholders so that the clause generalizes. Only an admin
approves or rejects (checked here, not only in the UI). Proposing and approving run the same
checks as the shipped clauses (app/outline/clause_checks.py: part, conditions, placeholders,
cited articles held and declared, citation findings, figures in the cited articles); a clause
that fails is refused with the finding named.

Approved clauses are versioned (a new version of a clause keeps the earlier ones) and every
proposal, approval and rejection is a chained audit event covering its row (audit.firm_clauses).
After the commit of an approval, the type's current approved versions are published in the
schema of prompts/<type>/clauses.yaml to `<corpus dir>/<type>/clauses.yaml`: the drafting
library loads them before the shipped clauses (app/outline/clauses.py: a firm clause whose
conditions hold is preferred), and the retrieval drafter indexes the file with the corpus.

The logic lives here, beside approvals.py (a whole reviewed draft approved into the corpus),
because it is the firm's review workflow over the audit log; app/outline stays pure and reads
only the published file.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from sqlalchemy import Connection, Engine, event
from sqlalchemy.orm import Session

from app.accounts import require_role
from app.config import Settings
from app.domain import BilingualError, ClauseStatus, Role
from audit import firm_clauses as store
from audit.coverage import CoveredRowChanged
from audit.domain import Bilingual, User
from audit.files import open_stream, write_private
from audit.firm_clauses import FirmClauseDraft, StoredFirmClause

if TYPE_CHECKING:
    from app.drafting.context import DraftContext
    from app.outline.clause_checks import ClauseContext
    from app.outline.compose import OutlinePlan, Step
    from app.outline.model import Outline
    from app.prompts import DocType
    from app.validation import Catalogue
    from audit.domain import StoredGeneration

MIN_VALUE_CHARS = 2  # a one-character value (0, 是) is too common to stand for a field


class PrecedentError(BilingualError, ValueError):
    """The request cannot be done (unknown type or clause, not an outline draft, not pending)."""


class ClauseRefused(PrecedentError):
    """The clause fails a check of the clause library; the message names the finding."""


# --- the type's library and its checks ------------------------------------------------------


@dataclass(frozen=True)
class TypeLibrary:
    """A document type's outline with its loaded clauses (firm + shipped) and check context."""

    doc_type: DocType
    outline: Outline
    ctx: ClauseContext


def type_library(doc_type_id: str, settings: Settings) -> TypeLibrary:
    from app.knowledge import Knowledge
    from app.outline.model import OutlineError
    from app.outline.prepare import clause_context
    from app.prompts import validate_values

    knowledge = Knowledge.of(settings)
    types = knowledge.types
    doc_type = types.get(doc_type_id)
    if doc_type is None:
        known = ", ".join(sorted(types))
        raise PrecedentError(
            f"未知的文书类型 {doc_type_id}（可用：{known}）",
            f"Unknown document type {doc_type_id} (known: {known})",
        )
    try:
        outline = knowledge.outline(doc_type)
        if outline is None:
            raise OutlineError("no outline.yaml")
    except (OutlineError, OSError) as exc:
        raise PrecedentError(
            f"{doc_type_id} 没有可用的提纲，无法建立条款库：{exc}",
            f"{doc_type_id} has no working outline, so no clause library: {exc}",
        ) from exc
    values = validate_values(doc_type, doc_type.example_values())
    ctx = clause_context(outline, doc_type, values, statutes_file=knowledge.statutes_file)
    return TypeLibrary(doc_type, outline, ctx)


def _as_fields(draft: FirmClauseDraft, *, version: str, approved: dt.date) -> dict[str, Any]:
    """The clause in the schema of prompts/<type>/clauses.yaml."""
    return {
        "id": draft.clause_id,
        "part": draft.part,
        "text": draft.text,
        "when": dict(draft.when) if draft.when else None,
        "cites": [dict(c) for c in draft.cites],
        "author": draft.author,
        "approved": approved,
        "version": version,
    }


def refusal(draft: FirmClauseDraft, lib: TypeLibrary) -> str | None:
    """Why the clause cannot join the library (the shipped clauses' checks), or None."""
    from app.outline.clause_checks import refusal as clause_refusal
    from app.outline.clauses import ClauseFileError, clause_from_dict

    shipped = {c.id for c in lib.outline.clauses if c.origin == "shipped"}
    if draft.clause_id in shipped:
        return f"the id {draft.clause_id} is a shipped clause's; a firm clause needs its own id"
    try:
        clause = clause_from_dict(_as_fields(draft, version="0", approved=dt.date.today()))
    except ClauseFileError as exc:
        return str(exc)
    return clause_refusal(clause, lib.ctx)


def _refuse(draft: FirmClauseDraft, reason: str) -> ClauseRefused:
    return ClauseRefused(
        f"条款 {draft.clause_id} 未通过条款库检查：{reason}",
        f"Clause {draft.clause_id} fails the clause library's checks: {reason}",
    )


# --- candidates from a saved revision -------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A generated part whose text the lawyer changed or wrote, proposed as a firm clause."""

    doc_type: str
    revision_id: int
    part: str  # the outline part's key (its id, else its title)
    title: str  # what the page shows: the part's numbered title, else its section
    text: str  # the part's paragraphs as the revision has them (the case's own values)
    generalized: str  # the same with the form's values turned into {{ placeholders }}
    placeholders: tuple[tuple[str, str], ...]  # (value found, field it became)
    when: Mapping[str, Any] | None  # the conditions it applies under
    clause_id: str  # a new id, or the firm clause it would be the next version of
    new_version: bool

    def draft(
        self, author: str, *, settings: Settings, placeholders: bool = True
    ) -> FirmClauseDraft:
        """The clause to propose (with its cites read with the statute catalogue of `settings`)."""
        from app.knowledge import Knowledge

        text = self.generalized if placeholders else self.text
        return FirmClauseDraft(
            doc_type=self.doc_type,
            clause_id=self.clause_id,
            part=self.part,
            text=text,
            when=self.when,
            cites=declared_cites(text, Knowledge.of(settings).catalogue()),
            author=author,
            source_revision_id=self.revision_id,
        )


def declared_cites(text: str, catalogue: Catalogue) -> tuple[dict[str, Any], ...]:
    """The articles a text cites in `catalogue`, as a clause's `cites` (statute, article, 款,
    项)."""
    from app.validation.citations import parse_citations

    found, _ = parse_citations(text, catalogue)
    cites: dict[tuple[str, int], dict[str, Any]] = {}
    for c in found:
        if c.statute is None or c.article is None:
            continue
        entry: dict[str, Any] = {"statute": c.statute, "article": c.article}
        if c.paragraph:
            entry["paragraph"] = c.paragraph
        if c.item:
            entry["item"] = c.item
        cites.setdefault((c.statute, c.article), entry)
    return tuple(cites.values())


def generalize(
    text: str, doc_type: DocType, values: Mapping[str, str]
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` with the form's values turned back into placeholders ({{ company_name }}),
    longest value first; a number only where it is not part of a longer one."""
    fields: list[tuple[str, str]] = []
    for f in doc_type.fields:
        value = str(values.get(f.name) or "").strip()
        if f.kind == "select" or len(value) < MIN_VALUE_CHARS:
            continue
        fields.append((value, f.name))
        if value.isdigit() and len(value) > 3:  # 1200000 is also written 1,200,000
            fields.append((f"{int(value):,}", f.name))
    out, used = text, []
    for value, name in sorted(fields, key=lambda vn: -len(vn[0])):
        pattern = re.escape(value)
        if value[0].isdigit():
            pattern = rf"(?<![\d.,]){pattern}"
        if value[-1].isdigit():
            pattern = rf"{pattern}(?![\d.,]?\d)"
        out, n = re.subn(pattern, "{{ " + name + " }}", out)
        if n:
            used.append((value, name))
    return out, tuple(used)


def split_parts(text: str, steps: Sequence[Step]) -> dict[int, str]:
    """The text of each generated part of an outline draft, by step index: the paragraphs
    between its numbered title (or its number, or its section's heading) and the next part,
    leaving out the lines the app writes."""
    by_index = {s.index: s for s in steps}
    markers: dict[str, int] = {}
    for s in steps:
        if s.heading:
            markers.setdefault(s.heading.strip(), s.index)
        if s.part.title:
            markers.setdefault(f"{s.label}{s.part.title}".strip(), s.index)
        for line in s.lines:
            markers.setdefault(line.strip(), s.index)
    numbered = [
        (s.label.strip(), s.index) for s in steps if s.generated and s.label and not s.part.title
    ]
    found: dict[int, list[str]] = {}
    current: int | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line in markers:
            current = markers[line]
            continue
        hit = next(((lab, i) for lab, i in numbered if line.startswith(lab)), None)
        if hit is not None:
            current, line = hit[1], line[len(hit[0]) :].strip()
        elif current is not None and not by_index[current].generated:
            following = by_index.get(current + 1)
            if following is not None and following.generated and not following.part.title:
                current = following.index
        if current is not None and by_index[current].generated and line:
            found.setdefault(current, []).append(line)
    return {i: "\n".join(lines) for i, lines in found.items()}


def _draft_context(
    stored: StoredGeneration, lib: TypeLibrary, settings: Settings
) -> tuple[DraftContext, OutlinePlan]:
    """The logged draft's context (app.drafting.logged.logged_context: its values, its route
    decided once), as the page and a saved revision's check have it, and its outline plan."""
    from app.drafting.logged import logged_context
    from app.drafting.notes import DraftNotes
    from app.knowledge import Knowledge

    context = logged_context(stored.record, lib.doc_type, knowledge=Knowledge.of(settings))
    if context.mode != "outline":
        raise PrecedentError(
            "只有按提纲起草的草稿可以按部分提议条款（自由撰写的草稿没有部分）。",
            "Only an outline draft can be proposed part by part (a free-form draft has no parts).",
        )
    if context.plan is None:
        raise PrecedentError(
            "草稿的表单值已不符合当前表单或提纲，无法确定各段所属部分。",
            "The draft's form values no longer fit the type's form or outline; its paragraphs "
            "cannot be told apart.",
        )
    plan = context.plan
    titles = {s.index: s.part.title for s in plan.steps}
    for origin in DraftNotes.from_record(stored.record).provenance:
        if titles.get(origin.step) != origin.title:
            raise PrecedentError(
                "该草稿生成后提纲已改变，无法确定各段所属部分。",
                "The outline changed since this draft; its paragraphs cannot be told apart.",
            )
    return context, plan


def _new_id(part: str, taken: set[str]) -> str:
    base = "firm." + (re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-") or "part")
    clause_id, n = base, 1
    while clause_id in taken:
        n += 1
        clause_id = f"{base}-{n}"
    return clause_id


def candidates(
    revision_id: int, *, settings: Settings, session: Session, actor: User
) -> tuple[Candidate, ...]:
    """The parts of a saved revision whose text differs from the model's draft, each proposed
    as a clause for its part: a firm clause for the same part and conditions gets a new
    version, otherwise a new clause; the conditions are those of the clause the draft used for
    the part, else (for a type with a route) the draft's route."""
    from app.drafting.revisions import get_revision
    from app.outline.compose import NO_TEXT
    from app.outline.conditions import condition_facts

    require_role(actor, Role.DRAFTER, Role.ADMIN)
    stored, revision = get_revision(revision_id, session=session, actor=actor)
    lib = type_library(stored.record.doc_type, settings)
    context, plan = _draft_context(stored, lib, settings)
    values = context.values
    edited = split_parts(revision.text, plan.steps)
    model = split_parts(stored.record.output_text, plan.steps)
    by_id = {c.id: c for c in lib.outline.clauses}
    firm = store.current_versions(lib.doc_type.id, session=session)
    taken = {c.id for c in lib.outline.clauses} | {
        r.clause_id for r in store.list_clauses(session=session, doc_type=lib.doc_type.id)
    }
    facts = condition_facts(values, context.route)
    out: list[Candidate] = []
    for step in plan.steps:
        text = edited.get(step.index, "")
        if not step.generated or not text or text == model.get(step.index, "") or NO_TEXT in text:
            continue
        used = by_id.get(step.clause.id) if step.clause is not None else None
        when = dict(used.when) if used is not None and used.when else None
        if when is None and facts.get("route"):
            when = {"route": facts["route"]}
        same = next((r for r in firm if r.part == step.part.key and r.when == when), None)
        clause_id = same.clause_id if same else _new_id(step.part.key, taken)
        taken.add(clause_id)
        generalized, found = generalize(text, lib.doc_type, values)
        title = (
            f"{step.label}{step.part.title}" if step.part.title else (step.label or step.part.key)
        )
        out.append(
            Candidate(
                lib.doc_type.id,
                revision.id,
                step.part.key,
                title,
                text,
                generalized,
                found,
                when,
                clause_id,
                same is not None,
            )
        )
    return tuple(out)


# --- propose, approve, reject ---------------------------------------------------------------


def propose(
    draft: FirmClauseDraft, *, settings: Settings, session: Session, actor: User
) -> StoredFirmClause:
    """A pending firm clause (drafter or admin), refused with the finding when it fails the
    clause library's checks, or when the same part of the same revision is already proposed
    (pending or approved: one proposal per part of a revision); a chained `clause.proposed`
    event."""
    require_role(actor, Role.DRAFTER, Role.ADMIN)
    if draft.source_revision_id is not None:
        made = from_revision(draft.source_revision_id, session=session)
        earlier = next(
            (r for r in made if r.part == draft.part and r.status != ClauseStatus.REJECTED), None
        )
        if earlier is not None:
            raise PrecedentError(
                f"修订稿 {draft.source_revision_id} 的这一部分已提议为 #{earlier.id}"
                f"（{earlier.clause_id}），不重复提议",
                f"This part of revision {draft.source_revision_id} is already proposed as "
                f"#{earlier.id} ({earlier.clause_id})",
            )
    lib = type_library(draft.doc_type, settings)
    reason = refusal(draft, lib)
    if reason is not None:
        raise _refuse(draft, reason)
    return store.add_proposal(draft, session=session, actor=actor.name)


def _pending(row_id: int, *, session: Session) -> StoredFirmClause:
    row = store.get_clause(row_id, session=session)
    if row is None:
        raise PrecedentError(f"没有编号为 {row_id} 的条款提议", f"No clause proposal {row_id}")
    if row.status != ClauseStatus.PENDING:
        done = "批准" if row.status == ClauseStatus.APPROVED else "驳回"
        raise PrecedentError(
            f"条款提议 {row_id} 已{done}，不能再次决定",
            f"Clause proposal {row_id} is already {row.status}",
        )
    return row


def _draft_of(row: StoredFirmClause) -> FirmClauseDraft:
    return FirmClauseDraft(
        row.doc_type,
        row.clause_id,
        row.part,
        row.text,
        row.when,
        row.cites,
        row.author,
        row.source_revision_id,
    )


def approve(row_id: int, *, settings: Settings, session: Session, actor: User) -> StoredFirmClause:
    """Approve a pending clause as the next version of its id (admin only): the checks run
    again (the statute texts or the outline may have changed since it was proposed); a chained
    `clause.approved` event; after the commit the type's firm library is published."""
    require_role(actor, Role.ADMIN)
    row = _pending(row_id, session=session)
    lib = type_library(row.doc_type, settings)
    reason = refusal(_draft_of(row), lib)
    if reason is not None:
        raise _refuse(_draft_of(row), reason)
    try:
        approved = store.decide(row_id, ClauseStatus.APPROVED, session=session, actor=actor.name)
    except CoveredRowChanged as exc:  # the row was changed in the database: not absorbed
        raise PrecedentError(exc.message_zh, exc.message_en) from None
    except (LookupError, ValueError) as exc:  # decided meanwhile by another admin
        raise PrecedentError(
            f"条款提议 {row_id} 已被处理", f"Clause proposal {row_id} was decided meanwhile"
        ) from exc
    publish_after_commit(row.doc_type, settings=settings, session=session)
    return approved


def reject(row_id: int, *, note: str, session: Session, actor: User) -> StoredFirmClause:
    """Reject a pending clause (admin only), with the reason; a chained `clause.rejected` event."""
    require_role(actor, Role.ADMIN)
    _pending(row_id, session=session)
    try:
        return store.decide(
            row_id, ClauseStatus.REJECTED, session=session, actor=actor.name, note=note
        )
    except CoveredRowChanged as exc:  # the row was changed in the database: not absorbed
        raise PrecedentError(exc.message_zh, exc.message_en) from None
    except (LookupError, ValueError) as exc:
        raise PrecedentError(
            f"条款提议 {row_id} 已被处理", f"Clause proposal {row_id} was decided meanwhile"
        ) from exc


def current_versions(doc_type: str, *, session: Session) -> list[StoredFirmClause]:
    """The newest approved version of every firm clause of the type."""
    return store.current_versions(doc_type, session=session)


def pending(
    *, session: Session, doc_type: str | None = None, revision_id: int | None = None
) -> list[StoredFirmClause]:
    rows = store.list_clauses(session=session, doc_type=doc_type, status=ClauseStatus.PENDING)
    return [r for r in rows if revision_id is None or r.source_revision_id == revision_id]


def from_revision(revision_id: int, *, session: Session) -> list[StoredFirmClause]:
    """Every proposal made from a saved revision (pending, approved or rejected), oldest first."""
    return [r for r in store.list_clauses(session=session) if r.source_revision_id == revision_id]


# --- the published library, export and import -----------------------------------------------


def library_yaml(doc_type: str, *, session: Session) -> str:
    """The type's current approved firm clauses in the schema of prompts/<type>/clauses.yaml
    (with who approved each and where it came from)."""
    entries = []
    for row in store.current_versions(doc_type, session=session):
        fields = _as_fields(
            _draft_of(row),
            version=str(row.version),
            approved=(row.decided_at or row.proposed_at).date(),
        )
        if not fields["when"]:
            del fields["when"]
        source = f"revision {row.source_revision_id}" if row.source_revision_id else "import"
        entries.append(fields | {"approved_by": row.decided_by or "", "source": source})
    header = (
        f"# The firm's approved clauses of {doc_type}, exported from LexSpec's audit log.\n"
        "# Same schema as prompts/<type>/clauses.yaml; `lexspec clauses import` reads it.\n"
    )
    return header + yaml.safe_dump(
        {"clauses": entries}, allow_unicode=True, sort_keys=False, width=100
    )


_TO_PUBLISH = "lexspec.firm_clauses_to_publish"


def publish_after_commit(doc_type: str, *, settings: Settings, session: Session) -> None:
    """Publish the type's firm library once the caller's unit of work commits: never on a
    rollback and never at a savepoint, so drafting uses only clauses the audit log holds."""
    if _TO_PUBLISH not in session.info:
        event.listen(session, "after_commit", _published)
        event.listen(session, "after_rollback", _forget_publishing)
    session.info.setdefault(_TO_PUBLISH, {})[doc_type] = settings


def _forget_publishing(session: Session) -> None:
    if not session.in_nested_transaction():
        session.info.get(_TO_PUBLISH, {}).clear()


def _published(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint released: nothing is committed yet
        return
    waiting: dict[str, Settings] = session.info.get(_TO_PUBLISH, {})
    for doc_type, settings in list(waiting.items()):
        publish(doc_type, settings=settings, bind=session.get_bind())
    waiting.clear()


def publish(doc_type: str, *, settings: Settings, bind: Engine | Connection) -> Path:
    """Write the type's firm library as the log holds it now, read under a file lock in a
    fresh session: two admins approving at once both end with every approval in the file."""
    from app.outline.clauses import CLAUSES_FILE

    path = settings.resolved_corpus_dir / doc_type / CLAUSES_FILE
    with open_stream(path.with_suffix(".lock"), "ab") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with Session(bind=bind) as fresh:
            text = library_yaml(doc_type, session=fresh)
        write_private(path, text.encode("utf-8"))  # never read half-written
    return path


def published_types(*, settings: Settings, session: Session) -> list[str]:
    """The types with a firm library: approved clauses in the log, or a published file."""
    from app.outline.clauses import CLAUSES_FILE

    on_disk = {p.parent.name for p in settings.resolved_corpus_dir.glob(f"*/{CLAUSES_FILE}")}
    return sorted(on_disk | set(store.approved_types(session=session)))


def published_faults(*, settings: Settings, session: Session) -> list[Bilingual]:
    """Published firm libraries that differ from the approved clauses in the log: a file
    edited, written or deleted outside LexSpec (`lexspec clauses publish` writes it anew)."""
    from app.outline.clauses import CLAUSES_FILE

    faults = []
    for doc_type in published_types(settings=settings, session=session):
        path = settings.resolved_corpus_dir / doc_type / CLAUSES_FILE
        held = path.read_text(encoding="utf-8") if path.exists() else None
        if held != library_yaml(doc_type, session=session):
            faults.append(
                Bilingual(
                    f"{path} 与审计日志中已批准的律所条款不一致（在 LexSpec 之外被改动）",
                    f"{path} differs from the firm clauses approved in the audit log "
                    "(changed outside LexSpec)",
                )
            )
    return faults


@dataclass(frozen=True)
class Imported:
    proposed: tuple[StoredFirmClause, ...]
    approved: tuple[StoredFirmClause, ...]


def import_yaml(
    source: str, *, doc_type: str, name: str, settings: Settings, session: Session, actor: User
) -> Imported:
    """Clauses from a YAML file in the schema of prompts/<type>/clauses.yaml: proposed, and
    for an admin approved, all through the same checks. All or nothing: a file with a refused
    clause changes nothing (ClauseRefused names it); a broken file raises ClauseFileError."""
    from app.outline.clauses import parse_clauses

    require_role(actor, Role.DRAFTER, Role.ADMIN)
    clauses = parse_clauses(source, name=name, origin="firm")
    lib = type_library(doc_type, settings)
    drafts = [
        FirmClauseDraft(
            doc_type,
            c.id,
            c.part,
            c.text,
            dict(c.when) if c.when else None,
            tuple({k: v for k, v in asdict(x).items() if v is not None} for x in c.cites),
            c.author,
        )
        for c in clauses
    ]
    for d in drafts:
        if (reason := refusal(d, lib)) is not None:
            raise _refuse(d, reason)
    proposed = tuple(store.add_proposal(d, session=session, actor=actor.name) for d in drafts)
    if actor.role != Role.ADMIN:
        return Imported(proposed, ())
    approved = tuple(
        approve(row.id, settings=settings, session=session, actor=actor) for row in proposed
    )
    return Imported(proposed, approved)
