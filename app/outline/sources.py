"""Deterministic section sources: the content the app (not the model) writes into an outline.

A source turns a part of an outline plus the draft's facts into lines (each becomes a numbered
item under the part's title, except the `cover`'s). Built in: `cover` (the title, the addressee
and the date), `facts` (form fields, as entered), `legal_basis` (statute and article, with the
article's first line from the statute-text store), `items` (fixed entries, e.g. a materials
list), `form_fields` (an official form walked field by field: what to enter for this client,
the evidence, the common mistake), `route` and `deadline`. Another module adds a source with `register_source` (a route
engine registers one for the route's steps and materials); outlines then name it as their kind.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.outline.conditions import parse_condition
from app.outline.model import Part
from app.outline.workdays import add_working_days, covered_years
from app.route.engine import RouteDecision
from app.validation.numerals import int_to_chinese


@dataclass(frozen=True)
class SourceContext:
    """What a source may read: the doc type's field labels and the form's (validated) values."""

    values: Mapping[str, str]
    labels: Mapping[str, str]  # field name -> 中文 label
    doc_date: dt.date | None = None
    facts: Mapping[str, object] = field(default_factory=dict)  # app.outline.conditions facts
    route: RouteDecision | None = None  # the route the draft's context decided
    title: str = ""  # the document's title on these facts (outline `titles:`, else the type's)
    # the numbered lines the app wrote before this part, each with where it stands (二（一）1)
    earlier: tuple[tuple[str, str], ...] = ()

    def entries(self, part: Part) -> list[Any]:
        """The part's entries whose `when:` holds for the draft's facts (all without one)."""
        return [
            raw
            for raw in part.items
            if not isinstance(raw, dict) or holds(raw.get("when"), self.facts)
        ]


def holds(when: Mapping[str, Any] | None, facts: Mapping[str, object]) -> bool:
    """Whether a `when:` (app.outline.conditions) holds; the facts name every known fact."""
    return parse_condition(when, facts.keys()).holds(facts)


Source = Callable[[Part, SourceContext], list[str]]
_SOURCES: dict[str, Source] = {}


class SourceError(ValueError):
    """A part names a source nobody registered, or its entries do not fit the source."""


def register_source(kind: str, source: Source) -> None:
    """Make `kind` usable in outlines (e.g. `register_source("route", route_lines)`)."""
    _SOURCES[kind] = source


def registered_sources() -> tuple[str, ...]:
    return tuple(sorted(_SOURCES))


def lines_for(part: Part, context: SourceContext) -> list[str]:
    """The lines of a deterministic part; SourceError for an unknown kind."""
    source = _SOURCES.get(part.kind)
    if source is None:
        known = ", ".join(registered_sources())
        raise SourceError(f"unknown part kind {part.kind!r} (known: {known}, generated)")
    return source(part, context)


def facts_lines(part: Part, context: SourceContext) -> list[str]:
    """`label：value` for each listed field that has a value, exactly as entered in the form."""
    lines = []
    for name in part.fields:
        if name not in context.labels:
            raise SourceError(f"facts: no field {name!r}")
        value = context.values.get(name, "")
        if value:
            lines.append(f"{context.labels[name]}：{value}")
    return lines


def article_label(article: int) -> str:
    return f"第{int_to_chinese(article)}条"


def quotation(
    statute: str,
    article: int,
    day: dt.date | None = None,
    paragraph: int | None = None,
    item: int | None = None,
) -> str | None:
    """What a legal basis quotes, in the version in force on `day` (else the latest held): the
    cited 项, or the cited 款 (default the first) with the items that follow its "：" on the same
    line, so a quotation never stops at the colon."""
    from app.validation.texts import load_texts

    store = load_texts()
    version = (store.on(statute, day) if day else None) or store.latest(statute)
    found = version.article(article) if version else None
    if found is None or not found.has_part(paragraph, item):
        return None
    if item is not None:
        return found.part(paragraph, item)
    chosen = found.paragraphs[(paragraph or 1) - 1]
    return "".join((chosen.text, *chosen.items))


def _basis_entry(raw: Any) -> tuple[str, int, int | None, int | None, str]:
    if not isinstance(raw, dict) or not isinstance(raw.get("article"), int):
        raise SourceError(f"legal_basis: each item needs statute and article, got {raw!r}")
    paragraph, item = raw.get("paragraph"), raw.get("item")
    return (
        str(raw.get("statute", "")),
        int(raw["article"]),
        int(paragraph) if paragraph else None,
        int(item) if item else None,
        str(raw.get("summary", "")),
    )


def legal_basis_lines(part: Part, context: SourceContext) -> list[str]:
    """《statute》第N条[第M款][第K项]：its text from the statute-text store, items included (or
    the outline's summary where the store does not hold the statute's text)."""
    lines = []
    for raw in context.entries(part):
        statute, article, paragraph, item, summary = _basis_entry(raw)
        text = quotation(statute, article, context.doc_date, paragraph, item) or summary
        where = article_label(article)
        if paragraph or item:
            where += f"第{int_to_chinese(paragraph or 1)}款"
        if item:
            where += f"第{int_to_chinese(item)}项"
        lines.append(f"《{statute}》{where}" + (f"：{text}" if text else ""))
    return lines


def filled_in(text: str, context: SourceContext) -> str:
    """An entry's text with the form's fields in it ({{ recipient }}), rendered in the sandbox
    (the values are data, never template source); text without a placeholder as it is."""
    if "{{" not in text and "{%" not in text:
        return text
    from jinja2 import TemplateError

    from app.prompts import sandbox

    try:
        return sandbox().from_string(text).render(dict(context.values)).strip()
    except TemplateError as exc:
        raise SourceError(f"items: {text[:30]!r} does not render: {exc}") from exc


def items_lines(part: Part, context: SourceContext) -> list[str]:
    """Fixed entries; an entry may name its basis ({text, statute, article}) and hold the
    form's fields ({{ recipient }})."""
    lines = []
    for raw in context.entries(part):
        if isinstance(raw, str):
            lines.append(filled_in(raw, context))
            continue
        if not isinstance(raw, dict) or "text" not in raw:
            raise SourceError(f"items: an entry is a string or has text, got {raw!r}")
        line = filled_in(str(raw["text"]), context)
        if isinstance(raw.get("article"), int):
            where = article_label(int(raw["article"]))
            if raw.get("paragraph") or raw.get("item"):
                where += f"第{int_to_chinese(int(raw.get('paragraph') or 1))}款"
            if raw.get("item"):
                where += f"第{int_to_chinese(int(raw['item']))}项"
            line += f"（依据《{raw['statute']}》{where}）"
        lines.append(line)
    return lines


UNNUMBERED = frozenset({"cover"})  # sources whose lines stand without a number


def cover_lines(_part: Part, context: SourceContext) -> list[str]:
    """The document's title, its addressee (options.to: the client's field) and its date (the
    document's date: the form's date field as the checks read it, else the day of drafting)."""
    day = context.doc_date or dt.date.today()
    lines = [context.title] if context.title else []
    client = str(context.values.get(str(_part.options.get("to", "")), "") or "")
    if client:
        lines.append(f"致：{client}")
    lines.append(f"日期：{day.year}年{day.month}月{day.day}日")
    return lines


class _Blank(dict[str, str]):
    """Form values for a `form_fields` template: a field left empty reads as a gap to fill."""

    def __init__(self, values: Mapping[str, str], labels: Mapping[str, str]) -> None:
        super().__init__({k: str(v) for k, v in values.items() if str(v or "").strip()})
        self.labels = labels

    def __missing__(self, key: str) -> str:
        if key not in self.labels:
            raise SourceError(f"form_fields: no field {key!r}")
        return f"〔表单未填写{self.labels[key]}，请据实填写〕"


def form_fields_lines(part: Part, context: SourceContext) -> list[str]:
    """An official form's fields in order, each `field：what to enter（the form's values in
    {placeholders}）；证明材料：…；常见错误：…。` with its basis where it names one."""
    values = _Blank(context.values, context.labels)
    lines = []
    for raw in context.entries(part):
        if not isinstance(raw, dict) or not raw.get("field") or not raw.get("enter"):
            raise SourceError(f"form_fields: each entry needs field and enter, got {raw!r}")
        line = f"{raw['field']}：{str(raw['enter']).format_map(values)}"
        if raw.get("evidence"):
            line += f"；证明材料：{raw['evidence']}"
        if raw.get("mistake"):
            line += f"；常见错误：{raw['mistake']}"
        if isinstance(raw.get("article"), int):
            line += f"（依据《{raw['statute']}》{article_label(int(raw['article']))}）"
        lines.append(f"{line}。")  # a sentence: a count at its end never runs into the next line
    return lines


def route_lines(_part: Part, context: SourceContext) -> list[str]:
    """The transfer route the form's facts lead to (app.route: rules with their sources), its
    basis and the reason; one line saying so while a fact is missing. What would change the route
    stays on the page's route panel: its counterfactual counts would read as wrong facts."""
    decision = context.route
    if decision is None:
        return [
            "表单事实不全，无法判定出境路径：请填写是否为关键信息基础设施运营者、是否涉及重要数据和涉及人数。"
        ]
    return [
        f"出境路径：{decision.route_text.zh}",
        # 判定依据, not 法律依据: the articles the route engine decided on (app.route, data with
        # sources), not a basis block closing the prose above (app.validation.basis)
        f"判定依据：{decision.basis_text()}",
        f"判定理由：{decision.explanation.zh}",
        *(f"持续监测：{watch.zh}" for watch in decision.watch),
    ]


def deadline_lines(part: Part, context: SourceContext) -> list[str]:
    """A statutory period counted in working days from a form date (options: field, days, from,
    statute, article): the rule as the statute states it and the date it gives on the legal
    calendar (app.outline.workdays: public holidays and make-up working days of the years it
    holds; outside them weekdays only, labelled an estimate); a line saying so when the date is
    missing."""
    opts = part.options
    try:
        field_name, days = str(opts["field"]), int(opts["days"])
        statute, article = str(opts["statute"]), int(opts["article"])
    except (KeyError, TypeError, ValueError) as exc:
        raise SourceError(f"deadline: needs field, days, statute and article ({exc})") from exc
    what = str(opts.get("from", context.labels.get(field_name, field_name)))
    rule = f"自{what}之日起{days}个工作日内（依据《{statute}》{article_label(article)}）"
    raw = str(context.values.get(field_name) or "")
    try:
        start = dt.date.fromisoformat(raw)
    except ValueError:
        return [
            f"{rule}：表单未填写{what}日期，请按实际{what}日期推算，以工作日计，遇法定节假日顺延"
        ]
    count = add_working_days(start, days)
    first, last = covered_years()
    if not count.estimated:
        return [
            f"{rule}：{what}之日为{start.isoformat()}，开始的当日不计入，按国务院公布的法定节假日"
            f"和调休安排推算，最迟为{count.end.isoformat()}",
            f"本系统载入的法定节假日和调休安排为{first}年至{last}年",
        ]
    return [
        f"{rule}：{what}之日为{start.isoformat()}，开始的当日不计入，按周一至周五推算，"
        f"最迟为{count.end.isoformat()}",
        f"上述日期为估算：本系统载入的法定节假日和调休安排为{first}年至{last}年，该期限超出这一范围，"
        "以工作日计，遇法定节假日顺延，请按国务院当年的放假安排核对",
    ]


register_source("cover", cover_lines)
register_source("form_fields", form_fields_lines)
register_source("facts", facts_lines)
register_source("route", route_lines)
register_source("legal_basis", legal_basis_lines)
register_source("items", items_lines)
register_source("deadline", deadline_lines)
