"""Bilingual finding messages and default severities, kept in one place."""

from __future__ import annotations

from app.domain import Finding, Severity

# code -> (severity, 中文 template, English template); templates take keyword fields
MESSAGES: dict[str, tuple[Severity, str, str]] = {
    "citation.unknown_statute": (
        "warning",
        "法规目录中没有《{name}》，请核实名称",
        "《{name}》 is not in the statute catalogue; check the title",
    ),
    "citation.name_variant": (
        "warning",
        "《{name}》疑为《{canonical}》的误写",
        "《{name}》 looks like a misspelling of 《{canonical}》",
    ),
    "citation.article_out_of_range": (
        "error",
        "《{statute}》共{articles}条，不存在第{article}条",
        "《{statute}》 has {articles} articles; there is no article {article}",
    ),
    "citation.repealed": (
        "error",
        "《{statute}》已于{repealed}废止，由《{successor}》取代",
        "《{statute}》 was repealed on {repealed}; it was replaced by 《{successor}》",
    ),
    "numbering.gap": (
        "error",
        "编号不连续：应为“{expected}”，实为“{found}”",
        "Numbering gap: expected {expected}, found {found}",
    ),
    "numbering.duplicate": (
        "error",
        "编号重复：“{found}”已出现过",
        "Duplicate number: {found} was already used",
    ),
    "numbering.out_of_order": (
        "error",
        "编号顺序颠倒：“{found}”出现在“{previous}”之后",
        "Numbers out of order: {found} comes after {previous}",
    ),
    "numbering.mixed_style": (
        "warning",
        "同级编号格式不一致：“{found}”与“{style}”混用",
        "Mixed numbering style at one level: {found} alongside {style}",
    ),
    "structure.missing_section": (
        "error",
        "缺少必备章节{section}",
        "Required section {section} is missing",
    ),
    "structure.section_order": (
        "warning",
        "章节{section}位置不对，应依次为{order}",
        "Section {section} is out of order; the order is {order}",
    ),
}


def finding(code: str, start: int, end: int, suggestion: str = "", **fields: object) -> Finding:
    """A Finding with the code's severity and both messages filled in."""
    severity, zh, en = MESSAGES[code]
    return Finding(code, severity, start, end, zh.format(**fields), en.format(**fields), suggestion)
