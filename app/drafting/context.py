"""One draft's facts, derived once: `DraftContext`, built by `prepare` (a draft about to run),
`logged_context` (a draft in the audit log) or `checking_context` (a text checked against a
form's values, `lexspec check`).

Everything downstream takes the context instead of re-deriving from the form's values: the
prompt and the outline plan, streaming, the live checks (app.drafting.checking.check), saving
a revision, `lexspec check` / `lexspec export`, the DOCX header and studies. The transfer route
is decided here, once per context (`decide_route`), and handed to the prompt, the outline, the
facts check and the page's route panel.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from app.domain import DraftMode, GenerationParams, MatterRef, RenderedPrompt
from app.outline.clauses import ChosenClause
from app.outline.compose import OutlinePlan
from app.outline.model import Outline
from app.route import RouteDecision
from app.route.claims import Facts
from app.route.facts import form_facts

if TYPE_CHECKING:
    from app.knowledge import Knowledge
    from app.llm.client import LLMClient
    from app.prompts import DocType


@dataclass(frozen=True)
class ExportHeader:
    """The DOCX header's client and matter reference, from the form (page, History, CLI), and
    the type's DOCX style with its cover (meta.yaml `docx:`: app/export/official.py)."""

    client: str = ""
    matter_ref: str = ""
    style: str = "standard"
    cover_label: str = ""
    subtitle: str = ""


@dataclass(frozen=True)
class DraftContext:
    """A draft's facts, derived once from its type and form values: what the checks, the
    export, the audit log and (with `rendered`) the run read.

    `rendered` is None only for a context that checks a text without a prompt (`lexspec check`
    of a file); `prompt` is the rendered prompt of a context that can run."""

    doc_type_id: str
    values: Mapping[str, str]
    title: str = ""  # the document type's title (中文), the DOCX title
    required_sections: tuple[str, ...] = ()
    doc_date: dt.date | None = None  # the form's date field; None: today
    route: RouteDecision | None = None  # the transfer route the facts lead to (decided once)
    facts: Facts | None = None  # the form as the facts check reads it (transfer forms)
    header: ExportHeader = field(default_factory=ExportHeader)
    mode: DraftMode = "free-form"
    rendered: RenderedPrompt | None = None
    params: GenerationParams = field(default_factory=GenerationParams)
    plan: OutlinePlan | None = None  # outline mode: the parts, their clauses, the prefix
    knowledge: Knowledge | None = None  # the installation's (its catalogue); None: built-in only
    matter: MatterRef | None = None  # the matter (案件) it is drafted for, recorded with it

    @property
    def prompt(self) -> RenderedPrompt:
        """The rendered (logged) prompt; a context built only for checking has none."""
        if self.rendered is None:
            raise ValueError(f"{self.doc_type_id or 'draft'}: a checking context has no prompt")
        return self.rendered

    @property
    def check_prefix(self) -> str:
        """The text a continuation follows: checked before the draft, never shown."""
        return self.plan.check_prefix if self.plan is not None else ""

    @property
    def clauses(self) -> tuple[ChosenClause, ...]:
        """The library clauses chosen for the outline's generated parts."""
        steps = self.plan.steps if self.plan is not None else ()
        return tuple(s.clause for s in steps if s.clause is not None)


def decide_route(doc_type: DocType | None, values: Mapping[str, str]) -> RouteDecision | None:
    """The transfer route the form's facts lead to: only for a type written for a transfer
    (meta.yaml `route:`; with no type, a form that holds the transfer's facts); None while a
    fact is missing. The one place the route is decided (the route panel previews it)."""
    from app.route.form import decision_from_values

    if doc_type is not None and doc_type.route is None:
        return None
    return decision_from_values(values)


def client_field(doc_type: DocType | None) -> str:
    """The field that names the client: the type's first required one-line text field (the
    company, the disclosing party, ...); "" when it has none."""
    fields = doc_type.fields if doc_type is not None else ()
    return next((f.name for f in fields if f.kind == "text" and f.required), "")


def export_header(doc_type: DocType | None, values: Mapping[str, str]) -> ExportHeader:
    """The client is the type's client field (`client_field`), the matter reference its
    `matter_ref` field where it has one."""
    client = client_field(doc_type)
    return ExportHeader(
        client=str(values.get(client, "") or "") if client else "",
        matter_ref=str(values.get("matter_ref", "") or ""),
        style=doc_type.docx_style if doc_type is not None else "standard",
        cover_label=doc_type.cover_label if doc_type is not None else "",
        subtitle=doc_type.cover_subtitle if doc_type is not None else "",
    )


def checking_context(
    doc_type: DocType | None,
    values: Mapping[str, str],
    *,
    doc_date: dt.date | None = None,
    required_sections: tuple[str, ...] | None = None,
    knowledge: Knowledge | None = None,
) -> DraftContext:
    """A context without a prompt, for checking a text against a type and a form's values
    (`doc_date` None: the form's date field, else today) with the statute catalogue of
    `knowledge` (None: the built-in one)."""
    values = {k: str(v) for k, v in values.items()}
    route = decide_route(doc_type, values)
    return DraftContext(
        doc_type_id=doc_type.id if doc_type is not None else "",
        values=values,
        title=doc_type.title_zh if doc_type is not None else "",
        required_sections=(
            required_sections
            if required_sections is not None
            else tuple(doc_type.required_sections)
            if doc_type is not None
            else ()
        ),
        doc_date=doc_date or (doc_type.document_date(values) if doc_type is not None else None),
        route=route,
        facts=form_facts(values, route),
        header=export_header(doc_type, values),
        knowledge=knowledge,
    )


def prepare(
    doc_type: DocType,
    values: Mapping[str, object],
    *,
    knowledge: Knowledge,
    client: LLMClient | None = None,
    params: GenerationParams | None = None,
    mode: DraftMode | None = None,
    matter: MatterRef | None = None,
) -> DraftContext:
    """Validate and render the form, plan the outline (mode None: the outline where the type
    has a working one, else free-form) and check that every request fits the model's context.
    The type's outline, its clauses (the firm's first) and the catalogue the draft is checked
    with come from `knowledge` (the installation's: `ctx.knowledge`). `matter`: the matter the
    draft is for, recorded with it (app/matters).

    Raises FieldErrors, TemplateProblem, OutlineError / OutlineProblem or ContextTooLong."""
    from app.outline.prepare import largest_part_prompt, outline_prompt, plan_for
    from app.prompts import check_context, count_prompt_tokens, render, validate_values

    clean = validate_values(doc_type, values)
    filled = {k: v for k, v in clean.items() if v}
    base = replace(checking_context(doc_type, filled, knowledge=knowledge), matter=matter)
    rendered = render(doc_type, clean, route=base.route)
    params = params or doc_type.defaults
    limit = client.context_limit() if client is not None else None
    outline = _outline_of(doc_type, knowledge, mode)
    if outline is None:
        tokens = count_prompt_tokens(rendered, client)
        check_context(tokens, params.max_tokens, limit)
        prompt = replace(rendered, prompt_tokens=tokens)
        return replace(base, mode="free-form", rendered=prompt, params=params)
    every = {f.name: rendered.values.get(f.name, "") for f in doc_type.fields}
    plan = plan_for(outline, doc_type, rendered.values | every, route=base.route)
    tokens, budget = largest_part_prompt(plan, client)
    check_context(tokens, budget, limit)
    prompt = replace(outline_prompt(rendered, plan), prompt_tokens=tokens)
    title = plan.title or base.title  # the outline's title on these facts, else the type's
    return replace(base, mode="outline", rendered=prompt, params=params, plan=plan, title=title)


def _outline_of(doc_type: DocType, knowledge: Knowledge, mode: DraftMode | None) -> Outline | None:
    """The type's checked outline; None for free-form, or (mode None) when it has none or it
    is broken (the page and `lexspec draft` report a broken outline by name)."""
    from app.outline.model import OutlineError

    if mode == "free-form":
        return None
    try:
        outline = knowledge.outline(doc_type)
    except (OutlineError, OSError):
        if mode == "outline":
            raise
        return None
    if outline is None and mode == "outline":
        raise OutlineError(f"{doc_type.id}: no outline.yaml")
    return outline
