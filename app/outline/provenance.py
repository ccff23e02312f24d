"""Where each part of an outline draft came from, and what happens to a model-written part that
fails a prose gate: it falls back to its clause (or to the placeholder) and says why.

Pure functions over a part's prose, its step and the form's facts; the runner applies them and
records the result per part (the audit log's params.draft.parts and params.draft.provenance).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.domain import Bilingual, Finding, GenerationStatus, PartSource, PartWriting
from app.outline.compose import ADAPT_ASK, NO_TEXT, Step
from app.outline.fidelity import faithful, must_keep, prose_form
from app.outline.gates import gate_findings
from app.route.claims import Facts, read_facts

if TYPE_CHECKING:
    from app.outline.run import PartResult


@dataclass(frozen=True)
class Settled:
    """A generated part's final text and its provenance."""

    text: str
    source: PartSource
    gates: tuple[str, ...] = ()  # the prose gates it failed (their finding codes)
    failed: tuple[Finding, ...] = ()  # their findings (messages with their numbers)

    @property
    def fell_back(self) -> bool:
        return bool(self.gates)


@dataclass(frozen=True)
class PartOrigin:
    """One part of the document as the page marks it and the audit log records it."""

    step: int
    label: str  # its number (四、 / 8.3), "" when it has none
    title: str
    source: PartSource
    clause: str = ""  # the clause's id
    version: str = ""  # the clause's version
    gates: tuple[str, ...] = ()
    section: str = ""  # the heading of its section (【适用情形】), "" when it has none
    # the gates' findings, for the messages of this run (the log keeps the codes, `gates`)
    failed: tuple[Finding, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "section": self.section,
            "label": self.label,
            "title": self.title,
            "source": self.source,
            "clause": self.clause,
            "version": self.version,
            "gates": list(self.gates),
        }


def instruction(step: Step, writing: PartWriting, system: str = "") -> str:
    """What the model was asked, without the clause itself (the gates' instruction): the
    shared system prompt and the part's ask (a small model may echo either)."""
    ask = step.prompt
    if writing == "adapt" and step.clause is not None:
        ask = ADAPT_ASK.format(clause="", prompt=step.prompt)
    return f"{system}\n{ask}" if system else ask


def facts_for(values: dict[str, str], facts_block: str, step: Step) -> Facts:
    """The gates' facts for one part: the form's values, the shared facts block and its clause."""
    clause = step.clause.text if step.clause else ""
    return read_facts(values, known=f"{facts_block}\n{clause}")


def fallback(step: Step, gates: tuple[str, ...], failed: tuple[Finding, ...] = ()) -> Settled:
    """The part's clause, else the placeholder, standing in for prose that cannot be used."""
    if step.clause is not None:
        return Settled(step.clause.text, "clause", gates, failed)
    return Settled(NO_TEXT, "placeholder", gates, failed)


def settle(
    prose: str,
    step: Step,
    writing: PartWriting,
    facts: Facts,
    system: str = "",
    *,
    truncated: bool = False,
    checked: Sequence[Finding] = (),
) -> Settled:
    """The model's prose if it passes every gate, else its fallback (naming the gates);
    `truncated`: the part's budget cut it; `checked`: the draft's check's findings in it."""
    source: PartSource = "adapted" if writing == "adapt" and step.clause else "model"
    failed = part_findings(prose, step, writing, facts, system, truncated=truncated)
    failed = (*failed, *(f for f in checked if f.severity == "error"))
    if failed:
        return fallback(step, tuple(dict.fromkeys(f.code for f in failed)), failed)
    return Settled(prose, source)


def part_findings(
    prose: str,
    step: Step,
    writing: PartWriting,
    facts: Facts,
    system: str = "",
    *,
    truncated: bool = False,
) -> tuple[Finding, ...]:
    """Every gate a model-written part fails: the prose gates, the form gates, and for an
    adapted part the fidelity gates against its clause as rendered with the facts."""
    found = (
        *gate_findings(prose, instruction(step, writing, system), facts, truncated=truncated),
        *prose_form(prose, facts.known, step.clause.text if step.clause else ""),
    )
    if writing == "adapt" and step.clause is not None:
        keep = must_keep(step.clause.text, step.clause.must_keep)
        found = (*found, *faithful(prose, step.clause.text, keep))
    return found


def assembled(step: Step) -> Settled:
    """`assemble`: the clause as rendered (the placeholder when the part has none)."""
    if step.clause is not None:
        return Settled(step.clause.text, "clause")
    return Settled(NO_TEXT, "placeholder")


def origins(steps: Sequence[Step], settled: dict[int, Settled]) -> tuple[PartOrigin, ...]:
    """Every part of the document in order: `app` for the deterministic ones."""
    out = []
    headings = {s.section: s.heading for s in steps if s.heading}
    for step in steps:
        if step.generated and step.index not in settled:
            continue
        got = settled.get(step.index)
        source: PartSource = got.source if got else "app"
        clause = step.clause if got and got.source in ("clause", "adapted") else None
        out.append(
            PartOrigin(
                step.index,
                step.label,
                step.part.title,
                source,
                clause.id if clause else "",
                clause.version if clause else "",
                got.gates if got else (),
                headings.get(step.section, ""),
                got.failed if got else (),
            )
        )
    return tuple(out)


def fallback_lines(parts: Sequence[PartOrigin], lang: str) -> list[str]:
    """One line per part that fell back, in a lawyer's words: which part, that the vetted
    clause (or the to-write mark) stands in for it, and why (no clause ids, no codes)."""
    from app.i18n import t

    lines = []
    for part in parts:
        if not part.gates:
            continue
        reasons = "；".join(_reason(g, part.failed, lang) for g in part.gates)
        name = f"{part.label}{part.title}" or str(part.step + 1)
        key = "outline.fell_back" if part.source == "clause" else "outline.fell_back_placeholder"
        lines.append(t(key, lang, part=name, reasons=reasons))
    return lines


# a message's quoted example (（“…”）, (“…”)) or, in a template not filled in, a part with a field
_ASIDE = re.compile(r"\s?[（(][^（()）]*[“{][^（()）]*[）)]")


def _reason(code: str, failed: Sequence[Finding], lang: str) -> str:
    """A gate's message without its quoted example: the finding's own (its numbers filled
    in), else the code's template with its fields left out; never a `{field}`."""
    from app.i18n import t
    from app.validation.messages import MESSAGES

    found = next((f for f in failed if f.code == code), None)
    if found is not None:
        text = Bilingual(found.message_zh, found.message_en).text(lang)
    elif code in MESSAGES:
        text = Bilingual(*MESSAGES[code][1:]).text(lang)
    else:
        return t("outline.no_usable_text", lang)
    short = _ASIDE.sub("", text)
    return t("outline.no_usable_text", lang) if "{" in short else short


def truncation_lines(
    parts: Sequence[PartResult], found: Sequence[PartOrigin], lang: str
) -> list[str]:
    """One line per part cut by its budget, naming the budget that cut it: the part's own
    max_tokens in outline.yaml, or the draft's limit (the form's or the command's)."""
    from app.i18n import t

    names = {o.step: f"{o.label}{o.title}" or str(o.step + 1) for o in found}
    return [
        t(
            f"outline.budget_{p.budget_from or 'part'}",
            lang,
            part=names.get(p.index, p.index + 1),
            budget=p.budget,
        )
        for p in parts
        if p.status == GenerationStatus.TRUNCATED
    ]


def source_line(found: Sequence[PartOrigin], lang: str) -> str:
    """The parts and their sources in one line, in a lawyer's words: 一、基本情况 系统 ·
    四、是否需要申报 由审定条款替代 (the clauses' ids are in `detail_line`)."""
    from app.i18n import t

    marks = []
    for o in found:
        source = "fallback" if o.gates and o.source == "clause" else o.source
        marks.append(f"{o.label or o.step + 1}{t(f'outline.source.{source}', lang)}")
    return t("outline.sources", lang, parts=" · ".join(marks))


def detail_line(found: Sequence[PartOrigin], marks: Sequence[object], lang: str) -> str:
    """For the details toggle: each clause's id and version, the gates' codes and the guards'
    marks (part4:budget_trimmed), as the audit log records them."""
    from app.i18n import t

    clauses = [
        f"{o.label or o.step + 1} {o.clause} v{o.version}"
        + (f" [{', '.join(o.gates)}]" if o.gates else "")
        for o in found
        if o.clause
    ]
    return t(
        "outline.details_line",
        lang,
        clauses="; ".join(clauses) or "—",
        marks=", ".join(str(m) for m in marks) or "—",
    )


@dataclass(frozen=True)
class PartCounts:
    """How many of a draft's generated parts the model wrote, adapted, were assembled from
    their clause, fell back (to the clause or the to-write mark) and were cut by a budget:
    the honest status of the page, the CLI report and the audit record (params.draft.counts)."""

    model: int = 0
    adapted: int = 0
    clause: int = 0
    fell_back: int = 0
    placeholder: int = 0
    truncated: int = 0

    @property
    def total(self) -> int:
        return self.model + self.adapted + self.clause + self.fell_back + self.placeholder

    @property
    def as_labelled(self) -> bool:
        """Every part is what it says: none fell back, none waits to be written, none was cut."""
        return not (self.fell_back or self.placeholder or self.truncated)

    def to_dict(self) -> dict[str, int]:
        return {
            "model": self.model,
            "adapted": self.adapted,
            "clause": self.clause,
            "fell_back": self.fell_back,
            "placeholder": self.placeholder,
            "truncated": self.truncated,
        }


def part_counts(found: Sequence[PartOrigin], parts: Sequence[PartResult] = ()) -> PartCounts:
    """The counts of a draft's generated parts from its provenance and part results."""
    generated = [o for o in found if o.source != "app"]
    fell = [o for o in generated if o.gates]
    kept = [o for o in generated if not o.gates]
    return PartCounts(
        model=sum(o.source == "model" for o in kept),
        adapted=sum(o.source == "adapted" for o in kept),
        clause=sum(o.source == "clause" for o in kept),
        fell_back=sum(o.source == "clause" for o in fell),
        placeholder=sum(o.source == "placeholder" for o in generated),
        truncated=sum(p.status == GenerationStatus.TRUNCATED for p in parts),
    )


def counts_line(counts: PartCounts, lang: str) -> str:
    """本稿 5 个正文部分：模型撰写 0，模型改写 2，采用审定条款 0，由审定条款替代 3，待补写 0。"""
    from app.i18n import t

    return t("outline.counts", lang, total=counts.total, **counts.to_dict())


def status_text(status: GenerationStatus, counts: PartCounts, lang: str) -> str:
    """The draft's status as a lawyer reads it: "complete" says which parts stand as their
    vetted clause because the model's text failed, or wait to be written; "truncated" only
    when the document itself is cut (a cut part replaced by its whole clause is not)."""
    from app.i18n import t

    if status == GenerationStatus.COMPLETE and counts.placeholder:
        return t("status_detail.complete_placeholder", lang, n=counts.placeholder)
    if status == GenerationStatus.COMPLETE and counts.fell_back:
        return t("status_detail.complete_fell_back", lang, n=counts.fell_back)
    return t(f"status.{status}", lang)
