"""From an outline and the form's values to a plan (the steps of one draft) and from the steps'
texts to the document: the app writes headings, numbering and deterministic parts.

Every generated part is asked with the same two leading messages texts, the system prompt and
the facts block, followed by the part's own instruction, so the server computes that shared
prefix once per document and later parts reuse its KV cache. In `adapt` a later part's chat is
the conversation so far (each earlier part the model wrote and kept: its request and text), so
its prompt extends the whole sequence of the part before it, clause included, and reuses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from jinja2 import TemplateError
from jinja2.sandbox import SandboxedEnvironment

from app.domain import Guard, GuardMark
from app.outline.clause_checks import render_clause
from app.outline.clauses import ChosenClause, pick
from app.outline.continuation import continue_numbers  # noqa: F401 - re-exported
from app.outline.model import Outline, Part
from app.outline.numbers import labeller
from app.outline.sources import UNNUMBERED, SourceContext, holds, lines_for

PART_SEPARATOR = "\n\n"  # between the facts block and a part's instruction
# what a generated part that ended with no usable prose shows, so its number and title stay and
# the lawyer sees what is missing (marked `no_text` on the part)
NO_TEXT = "〔未生成正文，请补写〕"
# the ask of a part in `adapt`: what the part is for, then the vetted clause (last, so that a
# small model continues from it and speculative decoding copies it)
ADAPT_ASK = (
    "请依据上述事实改写下面这段律所审定的参考条款（{prompt}）。保留其中的法规名称、条号和数字，"
    "只写改写后的正文。\n参考条款：\n{clause}"
)


class OutlineProblem(ValueError):
    """An outline's template failed to render or a source could not produce its lines."""


@dataclass(frozen=True)
class Step:
    """One part of the document in order: deterministic `lines`, or a generated part's prompt."""

    index: int
    section: int  # index of its section
    heading: str  # the section's heading when this is the section's first part, else ""
    part: Part
    label: str  # its number (一、) when it has a title, else ""
    lines: tuple[str, ...] = ()  # deterministic content, each already numbered
    prompt: str = ""  # generated: the rendered instruction
    clause: ChosenClause | None = None  # generated: the clause of the library chosen for it

    @property
    def generated(self) -> bool:
        return self.part.generated


@dataclass(frozen=True)
class OutlinePlan:
    outline: Outline
    system: str
    facts: str
    steps: tuple[Step, ...]
    check_prefix: str = ""  # text the draft continues (follow-input): checked with it, not shown
    title: str = ""  # the document's title on these facts (outline `titles:`; "": the type's)

    def ask(self, step: Step, writing: str = "write") -> str:
        """A generated step's own request: its instruction; in `adapt` (with a clause) the
        instruction, then the clause to rewrite."""
        if writing == "adapt" and step.clause is not None:
            return ADAPT_ASK.format(clause=step.clause.text, prompt=step.prompt)
        return step.prompt

    def messages(
        self, step: Step, writing: str = "write", earlier: Sequence[tuple[Step, str]] = ()
    ) -> list[dict[str, str]]:
        """The chat for a generated step: shared system + facts, then the part's request.

        `earlier`: the document's earlier generated parts with their final texts. Given, the
        chat is one conversation, each earlier part a request and its answer, so the prompt of
        a later part extends the whole sequence the server computed for the part before it
        (its prefix cache holds that sequence: only the new request is computed)."""
        chat = [{"role": "system", "content": self.system}]
        for i, (before, text) in enumerate(earlier):
            ask = self.ask(before, writing)
            lead = f"{self.facts}{PART_SEPARATOR}" if i == 0 else ""
            chat += [
                {"role": "user", "content": lead + ask},
                {"role": "assistant", "content": text},
            ]
        lead = "" if earlier else f"{self.facts}{PART_SEPARATOR}"
        return [*chat, {"role": "user", "content": lead + self.ask(step, writing)}]

    def prompt_record(self) -> str:
        """The user prompt as logged: the facts block and each generated part's instruction."""
        asks = [f"[{s.index + 1}] {s.prompt}" for s in self.steps if s.generated]
        return PART_SEPARATOR.join([self.facts, *asks])


# --- planning -----------------------------------------------------------------------------


def _render(env: SandboxedEnvironment, source: str, context: Mapping[str, object]) -> str:
    try:
        return env.from_string(source).render(context).strip()
    except TemplateError as exc:  # SecurityError and UndefinedError are TemplateErrors
        raise OutlineProblem(f"{type(exc).__name__}: {exc}") from exc


def plan_outline(
    outline: Outline,
    values: Mapping[str, str],
    sources: SourceContext,
    context: Mapping[str, object],
) -> OutlinePlan:
    """Render the outline for these (validated) values: deterministic lines and prompts.

    `context` is the jinja2 context (the field values and the type's data); user values are
    data, never template source. A source reads the lines written before it
    (`SourceContext.earlier`, with where each stands)."""
    from app.prompts import sandbox

    env = sandbox()
    follow = outline.numbering == "follow-input"
    numbers = labeller(outline, values.get(outline.continue_from, "") if follow else "")
    title = next((text for text, when in outline.titles if holds(when, sources.facts)), "")
    sources = replace(sources, title=title or sources.title)
    steps: list[Step] = []
    written: list[tuple[str, str]] = []
    for s_index, section in enumerate(outline.sections):
        for part in section.parts:
            if not holds(part.when, sources.facts):
                continue
            first = not any(st.section == s_index for st in steps)
            heading = numbers.heading(section.heading) if first else ""
            label = numbers.title(part)
            where = numbers.where
            lines: tuple[str, ...] = ()
            prompt, clause = "", None
            if part.generated:
                prompt = _render(env, part.prompt, context)
                clause = _clause_for(outline, part, sources, context)
            else:
                try:
                    raw = lines_for(part, replace(sources, earlier=tuple(written)))
                except ValueError as exc:
                    raise OutlineProblem(str(exc)) from exc
                lines = tuple(raw) if part.kind in UNNUMBERED else numbers.lines(part, raw)
                written.extend((where, line) for line in lines)
            steps.append(Step(len(steps), s_index, heading, part, label, lines, prompt, clause))
    return OutlinePlan(
        outline,
        _render(env, outline.system, context),
        _render(env, outline.facts, context),
        tuple(steps),
        f"{values.get(outline.continue_from, '')}\n" if follow else "",
        title,
    )


def _clause_for(
    outline: Outline, part: Part, sources: SourceContext, context: Mapping[str, object]
) -> ChosenClause | None:
    """The library's clause for this part under the draft's facts, rendered from the form."""
    chosen = pick(outline.clauses, part.key, sources.facts)
    if chosen is None:
        return None
    text = render_clause(chosen, context)
    if text.startswith("!"):  # checked at load; a value that breaks it leaves the part bare
        return None
    return ChosenClause(chosen.id, chosen.version, text, chosen.must_keep)


def parts_without_text(marks: Sequence[GuardMark]) -> int:
    """How many parts of a draft show NO_TEXT, from the outcome's marks (part3:no_text)."""
    return sum(1 for m in marks if m.guard is Guard.NO_TEXT and m.part is not None)


def parts_fallen_back(marks: Sequence[GuardMark]) -> int:
    """How many model-written parts were replaced by their clause (part3:fallback)."""
    return sum(1 for m in marks if m.guard is Guard.FALLBACK and m.part is not None)


def step_text(step: Step, prose: str = "") -> str:
    """One step as it appears in the document (heading, numbered title, lines or prose)."""
    out: list[str] = [step.heading] if step.heading else []
    if step.part.title:
        out.append(f"{step.label}{step.part.title}")
        out.extend(step.lines)
        if prose:
            out.append(prose)
    elif step.label and step.generated:
        out.append(f"{step.label} {prose}" if prose else "")
    else:
        out.extend(step.lines)
        if prose:
            out.append(prose)
    return "\n".join(line for line in out if line)


def assemble(steps: Sequence[Step], prose: Mapping[int, str]) -> tuple[str, list[tuple[int, int]]]:
    """The document from the steps written so far, with the spans of generated prose."""
    text, spans = "", []
    for step in steps:
        if step.generated and step.index not in prose:
            break
        chunk = step_text(step, prose.get(step.index, ""))
        if not chunk:
            continue
        if text:
            text += "\n"
        body = prose.get(step.index, "")
        if step.generated and body:
            at = len(text) + chunk.rfind(body)
            spans.append((at, at + len(body)))
        text += chunk
    return text, spans
