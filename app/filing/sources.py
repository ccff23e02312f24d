"""The filing reports' fixed parts the app writes (registered outline sources):

- `assessment_period`: the assessment's start and end, the filing date, the template's 3-month
  rule quoted from its notes, and what the dates say about it (app/filing/freshness.py);
- `data_items`: the data-item table the self-assessment template asks for (序号 / 数据项名称 /
  内容描述 / 出境必要性 / 示例 / 备注), from the form's item list, else its data categories, with
  the items of one scenario de-duplicated and counted;
- `to_complete`: every placeholder written before it (〔待客户补充：…〕), each with where it
  stands, as the list of what the client must still supply.

What the form cannot supply is a placeholder, never invented. Options of a part: `template`
(the type whose template note is quoted), `filing` (申报 / 备案).
"""

from __future__ import annotations

import re

from app.filing.freshness import freshness
from app.filing.templates import official_templates
from app.outline.model import Part
from app.outline.sources import SourceContext, SourceError, register_source

PLACEHOLDER = re.compile(r"〔待客户补充：([^〕]+)〕")
TO_COMPLETE = "〔待客户补充〕"
CELL_SPLIT = re.compile(r"[|｜]")
CATEGORY_SPLIT = re.compile(r"[、，,；;\n]")
ITEMS_FIELD, CATEGORIES_FIELD = "data_items", "data_categories"
COLUMNS = 6


def to_complete(what: str) -> str:
    """A placeholder for what the client must supply."""
    return f"〔待客户补充：{what}〕"


def period_lines(part: Part, context: SourceContext) -> list[str]:
    """The assessment period, the filing date and the template's 3-month rule."""
    template = official_templates().get(str(part.options.get("template", "")))
    if template is None:
        raise SourceError(
            f"assessment_period: no official template {part.options.get('template')!r}"
        )
    filing = str(part.options.get("filing", "申报"))
    state = freshness(context.values)
    lines = [
        f"评估工作自{state.start.isoformat()}起至{state.end.isoformat()}止"
        if state.start and state.end
        else to_complete("评估工作的起止时间（开始日期、完成日期）")
    ]
    lines.append(
        f"拟{filing}日期为{state.filing.isoformat()}"
        if state.filing
        else to_complete(f"拟{filing}日期")
    )
    lines.append(f"《{template.document}》{template.annex}说明（二）：{template.note(2)}")
    warning = state.warning()
    if warning is not None:
        lines.append(to_complete(warning.zh.rstrip("。")))
    elif state.deadline is not None and state.state == "fresh":
        lines.append(f"评估完成之日起3个月内{filing}，符合上述要求")
    return lines


def _key(name: str) -> str:
    return re.sub(r"[\s，,。.；;：:（）()]", "", name)


def _rows(values: dict[str, str]) -> list[list[str]]:
    """The data items (name and the four cells after it), de-duplicated by name in order."""
    raw_items = str(values.get(ITEMS_FIELD) or "").strip()
    if raw_items:
        rows = [[c.strip() for c in CELL_SPLIT.split(line)] for line in raw_items.splitlines()]
    else:
        names = CATEGORY_SPLIT.split(str(values.get(CATEGORIES_FIELD) or ""))
        rows = [[name.strip()] for name in names]
    seen: set[str] = set()
    out: list[list[str]] = []
    for row in rows:
        if not row or not row[0] or _key(row[0]) in seen:
            continue
        seen.add(_key(row[0]))
        cells = [c or TO_COMPLETE for c in row[: COLUMNS - 1]]
        out.append(cells + [TO_COMPLETE] * (COLUMNS - 1 - len(cells)))
    return out


def data_items_lines(part: Part, context: SourceContext) -> list[str]:
    """The data-item table in the template's columns, then how many items it holds."""
    template = official_templates().get(str(part.options.get("template", "")))
    columns = next((n.table for n in template.nodes() if n.table), ()) if template else ()
    if len(columns) != COLUMNS:
        raise SourceError("data_items: the template names no table of six columns")
    rows = _rows(dict(context.values))
    lines = [
        "| " + " | ".join(columns) + " |",
        "| " + " | ".join("---" for _ in columns) + " |",
        *(f"| {i} | " + " | ".join(row) + " |" for i, row in enumerate(rows, 1)),
        f"同一业务场景下的数据项已去重，共{len(rows)}项",
    ]
    if any(TO_COMPLETE in cell for row in rows for cell in row):
        lines.append(to_complete("数据项清单中标注“待客户补充”的内容描述、出境必要性、示例与备注"))
    return lines


def to_complete_lines(_part: Part, context: SourceContext) -> list[str]:
    """Each placeholder written before this part, once, with where it stands."""
    listed: dict[str, str] = {}
    for where, line in context.earlier:
        for match in PLACEHOLDER.finditer(line):
            listed.setdefault(match.group(1), where)
    if not listed:
        return ["本报告没有需要客户补充的事项"]
    return [f"{what}（见{where}）" if where else what for what, where in listed.items()]


register_source("assessment_period", period_lines)
register_source("data_items", data_items_lines)
register_source("to_complete", to_complete_lines)
