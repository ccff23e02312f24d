"""Outline side of preparing a draft: find and plan the type's outline for the form's values,
load every outline (a broken one reported by name), and count each part's prompt."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import app.filing.sources  # noqa: F401 - registers the filing reports' sources
from app.domain import RenderedPrompt
from app.outline.clause_checks import ClauseContext, refusal
from app.outline.clauses import Clause
from app.outline.compose import OutlinePlan, OutlineProblem, plan_outline
from app.outline.conditions import ConditionError, condition_facts, known_facts, parse_condition
from app.outline.continuation import topic_facts
from app.outline.model import Outline, OutlineError, OutlineLibrary, load_outline
from app.outline.sources import SourceContext
from app.route import RouteDecision
from app.route.form import decision_from_values

if TYPE_CHECKING:
    from app.llm.client import LLMClient
    from app.prompts import DocType


def template_context(
    outline: Outline, doc_type: DocType, values: Mapping[str, str], route: RouteDecision | None
) -> dict[str, object]:
    """The jinja2 data of the outline's templates and clauses: the form's values, the decided
    route and the type's data (user values are data, never template source)."""
    from app.prompts import route_context

    return {
        **values,
        "required_sections": list(doc_type.required_sections),
        "statutes": list(doc_type.statutes),
        "headings": list(outline.headings),
        # the transfer route the facts lead to (None for other types): the shared facts block
        # states it, so every generated part follows it rather than deciding it
        "route": route_context(route),
    }


def plan_for(
    outline: Outline, doc_type: DocType, values: Mapping[str, str], *, route: RouteDecision | None
) -> OutlinePlan:
    """The outline rendered for these validated values (OutlineProblem when it cannot be):
    parts, entries and clauses chosen by their `when:` on the form's facts and the decided
    `route` (app.drafting.context.decide_route)."""
    all_values = {f.name: values.get(f.name, "") for f in doc_type.fields} | dict(values)
    day = doc_type.document_date(values)
    sources = SourceContext(
        values=values,
        labels={f.name: f.label_zh for f in doc_type.fields},
        doc_date=day,
        facts=condition_facts(all_values, route, day=day) | topic_facts(outline.topics, all_values),
        route=route,
        title=doc_type.title_zh,
    )
    context = template_context(outline, doc_type, values, route)
    return plan_outline(outline, values, sources, context)


def outline_facts(outline: Outline, doc_type: DocType) -> tuple[str, ...]:
    """The facts the outline's conditions may test: the type's, and its topics' (topic_<id>)."""
    topics = outline.topics.facts if outline.topics is not None else ()
    return (*known_facts(f.name for f in doc_type.fields), *topics)


def _check_conditions(outline: Outline, known: tuple[str, ...]) -> None:
    for part in outline.parts():
        entries = [i.get("when") for i in part.items if isinstance(i, dict)]
        for raw in (part.when, *entries):
            try:
                parse_condition(raw, known)
            except ConditionError as exc:
                raise OutlineError(f"part {part.key or part.kind!r}: when: {exc}") from exc
    for title, when in outline.titles:
        try:
            parse_condition(when, known)
        except ConditionError as exc:
            raise OutlineError(f"title {title!r}: when: {exc}") from exc


def example_route(doc_type: DocType, values: Mapping[str, str]) -> RouteDecision | None:
    """The route of the type's own example values, which its outline and clauses are checked
    with (a draft's route is decided by its context, app.drafting.context.decide_route)."""
    return decision_from_values(values) if doc_type.route is not None else None


def clause_context(
    outline: Outline,
    doc_type: DocType,
    values: Mapping[str, str],
    *,
    statutes_file: Path | None = None,
) -> ClauseContext:
    """What the type's clauses are checked against, for these (validated example) values, with
    the statute catalogue of `statutes_file` (Settings.statutes_file; None: the built-in one;
    a broken firm statute file raises CatalogueError)."""
    from app.validation import load_catalogue

    return ClauseContext(
        parts=frozenset(p.key for p in outline.parts() if p.generated),
        facts=outline_facts(outline, doc_type),
        render_context=template_context(outline, doc_type, values, example_route(doc_type, values)),
        doc_date=doc_type.document_date(values) or dt.date.today(),
        catalogue=load_catalogue(statutes_file),
    )


_CHECKED: dict[tuple[str, str, str, str], tuple[tuple[Clause, ...], tuple[str, ...]]] = {}


def checked_clauses(
    outline: Outline,
    doc_type: DocType,
    values: Mapping[str, str],
    *,
    statutes_file: Path | None = None,
) -> tuple[tuple[Clause, ...], tuple[str, ...]]:
    """(the clauses that pass their checks, one message per refused clause naming it),
    checked once per outline, clause file, type version and statute file."""
    key = (doc_type.id, outline.hash, doc_type.template_hash, str(statutes_file or ""))
    if key not in _CHECKED:
        accepted, refused = [], list(outline.clause_errors)
        ctx: ClauseContext | None = None  # built (its catalogue read) at the first clause
        for clause in outline.clauses:
            ctx = ctx or clause_context(outline, doc_type, values, statutes_file=statutes_file)
            reason = refusal(clause, ctx)
            if reason is None:
                accepted.append(clause)
            else:
                refused.append(f"{doc_type.id}: clause {clause.id}: {reason}")
        _CHECKED[key] = (tuple(accepted), tuple(refused))
    return _CHECKED[key]


def check_outline(
    outline: Outline, doc_type: DocType, *, statutes_file: Path | None = None
) -> Outline:
    """An outline must render for its type's example and carry the type's required sections;
    returned with only the clauses that pass their checks with the statute catalogue of
    `statutes_file` (the refused ones in `clause_errors`)."""
    from app.prompts import validate_values

    missing = [s for s in doc_type.required_sections if s not in outline.headings]
    if missing:
        raise OutlineError(f"outline lacks the required section(s) {', '.join(missing)}")
    _check_conditions(outline, outline_facts(outline, doc_type))
    try:
        values = validate_values(doc_type, doc_type.example_values())
        plan_for(outline, doc_type, values, route=example_route(doc_type, values))
    except (OutlineProblem, ValueError) as exc:
        raise OutlineError(f"outline does not render for the example: {exc}") from exc
    accepted, refused = checked_clauses(outline, doc_type, values, statutes_file=statutes_file)
    return replace(outline, clauses=accepted, clause_errors=refused)


def load_outlines(
    prompts_dir: Path,
    types: Mapping[str, DocType],
    *,
    corpus_dir: Path | None = None,
    statutes_file: Path | None = None,
) -> OutlineLibrary:
    """The outline of every loaded type that has one, with the firm's clauses published under
    `corpus_dir` and checked with the catalogue of `statutes_file` (Settings'; None: only the
    shipped clauses, the built-in catalogue); a broken one is reported by name."""
    outlines: dict[str, Outline] = {}
    errors: list[str] = []
    for type_id, doc_type in sorted(types.items()):
        try:
            outline = load_outline(prompts_dir / type_id, corpus_dir)
            if outline is not None:
                outlines[type_id] = check_outline(outline, doc_type, statutes_file=statutes_file)
        except (OutlineError, OSError) as exc:
            errors.append(f"{type_id}: {exc}")
    return OutlineLibrary(outlines, errors)


def outline_prompt(rendered: RenderedPrompt, plan: OutlinePlan) -> RenderedPrompt:
    """The RenderedPrompt logged for an outline draft: shared system, facts + each part's ask,
    and a template hash over the type's templates and the outline."""
    digest = hashlib.sha256(f"{rendered.template_hash}\0{plan.outline.hash}".encode()).hexdigest()
    return replace(rendered, system=plan.system, user=plan.prompt_record(), template_hash=digest)


def largest_part_prompt(plan: OutlinePlan, client: LLMClient | None) -> tuple[int, int]:
    """(prompt tokens, its budget) of the generated part that needs the most context."""
    from app.prompts import estimate_tokens

    worst = (0, 0)
    for step in plan.steps:
        if not step.generated:
            continue
        messages = plan.messages(step, "adapt")  # the longer ask where the part has a clause
        counted = client.count_tokens(messages) if client is not None else None
        tokens = counted if counted is not None else estimate_tokens(messages)
        if tokens + step.part.max_tokens > sum(worst):
            worst = (tokens, step.part.max_tokens)
    return worst
