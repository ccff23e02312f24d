"""Outline side of preparing a draft: find and plan the type's outline for the form's values,
load every outline (a broken one reported by name), and count each part's prompt."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import RenderedPrompt
from app.outline.compose import OutlinePlan, OutlineProblem, plan_outline
from app.outline.model import Outline, OutlineError, OutlineLibrary, load_outline
from app.outline.sources import SourceContext

if TYPE_CHECKING:
    from app.llm.client import LLMClient
    from app.prompts import DocType


def plan_for(outline: Outline, doc_type: DocType, values: Mapping[str, str]) -> OutlinePlan:
    """The outline rendered for these validated values (OutlineProblem when it cannot be)."""
    from app.prompts import route_context

    sources = SourceContext(
        values=values,
        labels={f.name: f.label_zh for f in doc_type.fields},
        doc_date=doc_type.document_date(values),
    )
    context: dict[str, object] = {
        **values,
        "required_sections": list(doc_type.required_sections),
        "statutes": list(doc_type.statutes),
        "headings": list(outline.headings),
        # the transfer route the facts lead to (None for other types): the shared facts block
        # states it, so every generated part follows it rather than deciding it
        "route": route_context(doc_type, values),
    }
    return plan_outline(outline, values, sources, context)


def check_outline(outline: Outline, doc_type: DocType) -> None:
    """An outline must render for its type's example and carry the type's required sections."""
    from app.prompts import validate_values

    missing = [s for s in doc_type.required_sections if s not in outline.headings]
    if missing:
        raise OutlineError(f"outline lacks the required section(s) {', '.join(missing)}")
    try:
        plan_for(outline, doc_type, validate_values(doc_type, doc_type.example_values()))
    except (OutlineProblem, ValueError) as exc:
        raise OutlineError(f"outline does not render for the example: {exc}") from exc


def load_outlines(prompts_dir: Path, types: Mapping[str, DocType]) -> OutlineLibrary:
    """The outline of every loaded type that has one; a broken one is reported by name."""
    outlines: dict[str, Outline] = {}
    errors: list[str] = []
    for type_id, doc_type in sorted(types.items()):
        try:
            outline = load_outline(prompts_dir / type_id)
            if outline is not None:
                check_outline(outline, doc_type)
                outlines[type_id] = outline
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
        messages = plan.messages(step)
        counted = client.count_tokens(messages) if client is not None else None
        tokens = counted if counted is not None else estimate_tokens(messages)
        if tokens + step.part.max_tokens > sum(worst):
            worst = (tokens, step.part.max_tokens)
    return worst
