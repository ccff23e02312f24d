"""Where each part of an outline draft came from, and what happens to a model-written part that
fails a prose gate: it falls back to its clause (or to the placeholder) and says why.

Pure functions over a part's prose, its step and the form's facts; the runner applies them and
records the result per part (the audit log's params.draft.parts and params.draft.provenance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.domain import Bilingual, PartSource, PartWriting
from app.outline.compose import ADAPT_ASK, NO_TEXT, Step
from app.outline.gates import GateFacts, gate_facts, gate_findings

if TYPE_CHECKING:
    from app.outline.run import PartResult


@dataclass(frozen=True)
class Settled:
    """A generated part's final text and its provenance."""

    text: str
    source: PartSource
    gates: tuple[str, ...] = ()  # the prose gates it failed (their finding codes)

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


def facts_for(values: dict[str, str], facts_block: str, step: Step) -> GateFacts:
    """The gates' facts for one part: the form's values, the shared facts block and its clause."""
    clause = step.clause.text if step.clause else ""
    return gate_facts(values, f"{facts_block}\n{clause}")


def fallback(step: Step, gates: tuple[str, ...]) -> Settled:
    """The part's clause, else the placeholder, standing in for prose that cannot be used."""
    if step.clause is not None:
        return Settled(step.clause.text, "clause", gates)
    return Settled(NO_TEXT, "placeholder", gates)


def settle(
    prose: str,
    step: Step,
    writing: PartWriting,
    facts: GateFacts,
    system: str = "",
    *,
    truncated: bool = False,
) -> Settled:
    """The model's prose if it passes every gate, else its fallback (naming the gates);
    `truncated`: the part's budget cut it."""
    source: PartSource = "adapted" if writing == "adapt" and step.clause else "model"
    failed = gate_findings(prose, instruction(step, writing, system), facts, truncated=truncated)
    if failed:
        return fallback(step, tuple(dict.fromkeys(f.code for f in failed)))
    return Settled(prose, source)


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
            )
        )
    return tuple(out)


def fallback_lines(parts: Sequence[PartOrigin], lang: str) -> list[str]:
    """One line per part that fell back: which part, to what, and which gates it failed."""
    from app.i18n import t
    from app.validation.messages import MESSAGES

    lines = []
    for part in parts:
        if not part.gates:
            continue
        reasons = "；".join(
            Bilingual(*_short(MESSAGES[g][1], MESSAGES[g][2])).text(lang)  # type: ignore[index]
            if g in MESSAGES
            else t("outline.no_usable_text", lang)
            for g in part.gates
        )
        target = part.clause or t("outline.placeholder", lang)
        name = f"{part.label}{part.title}" or str(part.step + 1)
        lines.append(t("outline.fell_back", lang, part=name, target=target, reasons=reasons))
    return lines


def _short(zh: str, en: str) -> tuple[str, str]:
    """A gate message without its quoted example (“…”)."""
    return zh.split("（“")[0].split("（")[0], en.split(" (“")[0]


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
        )  # fmt: skip
        for p in parts
        if p.status == "truncated"
    ]


def source_line(found: Sequence[PartOrigin], lang: str) -> str:
    """The parts and their sources in one line: 一、基本情况 系统 · 四、是否需要申报 条款 x v1.0."""
    from app.i18n import t

    marks = []
    for o in found:
        what = t(f"outline.source.{o.source}", lang)
        if o.clause:
            what += f" {o.clause} v{o.version}"
        marks.append(f"{o.label or o.step + 1}{what}")
    return t("outline.sources", lang, parts=" · ".join(marks))
