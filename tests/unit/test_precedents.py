"""Pure parts of "Approve as precedent": which part each paragraph of a revision belongs to
(the outline re-planned from the form) and the form's values turned back into placeholders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.drafting.context import decide_route
from app.outline.compose import assemble
from app.outline.prepare import load_outlines, plan_for
from app.precedents.firm_clauses import declared_cites, generalize, split_parts
from app.prompts import load_library, validate_values
from app.validation import load_catalogue

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


@pytest.fixture(scope="module")
def library() -> Any:
    return load_library(PROMPTS)


def _plan(library: Any, type_id: str) -> tuple[Any, dict[str, str]]:
    doc = library.types[type_id]
    outline = load_outlines(PROMPTS, {type_id: doc}).outlines[type_id]
    values = validate_values(doc, doc.example_values())
    return plan_for(outline, doc, values, route=decide_route(doc, values)), values


def _text(plan: Any, prose: dict[int, str]) -> str:
    return assemble(plan.steps, prose)[0]


def test_each_generated_part_gets_its_own_paragraphs(library: Any) -> None:
    plan, _ = _plan(library, "cross-border-filing-guide")
    generated = [s.index for s in plan.steps if s.generated]
    prose = {i: f"第{i}部分的正文。" for i in generated}
    text = _text(plan, prose)
    assert split_parts(text, plan.steps) == prose
    # a lawyer adds a paragraph to a part and one to an app-written part (not a clause slot)
    first = next(s for s in plan.steps if s.generated)
    app_line = next(line for s in plan.steps for line in s.lines)
    edited = text.replace(prose[first.index], prose[first.index] + "\n律师补充的一段。")
    edited = edited.replace(app_line, app_line + "\n律师在事实部分加的一行。")
    parts = split_parts(edited, plan.steps)
    assert parts[first.index] == f"{prose[first.index]}\n律师补充的一段。"
    assert not any("事实部分" in t for t in parts.values())


def test_numbered_parts_without_titles_follow_their_labels(library: Any) -> None:
    plan, _ = _plan(library, "clause-continuation")
    generated = [s for s in plan.steps if s.generated]
    assert len(generated) == 2 and all(s.label and not s.part.title for s in generated)
    prose = {s.index: f"乙方应当履行第{n}项义务。" for n, s in enumerate(generated, 1)}
    assert split_parts(_text(plan, prose), plan.steps) == prose


@pytest.mark.parametrize(
    ("text", "expected", "found"),
    [
        (
            "上海明川跨境电子商务有限公司应当申报。",
            "{{ company_name }}应当申报。",
            ["company_name"],
        ),
        ("累计1200000人。", "累计{{ individuals_count }}人。", ["individuals_count"]),
        ("累计1,200,000人。", "累计{{ individuals_count }}人。", ["individuals_count"]),
        ("累计12000000人。", "累计12000000人。", []),  # a longer number is another number
        ("敏感个人信息8000人。", "敏感个人信息{{ sensitive_count }}人。", ["sensitive_count"]),
        ("依照第七条，应当申报。", "依照第七条，应当申报。", []),
    ],
)
def test_form_values_become_placeholders(
    library: Any, text: str, expected: str, found: list[str]
) -> None:
    doc = library.types["cross-border-filing-guide"]
    values = validate_values(doc, doc.example_values())
    generalized, pairs = generalize(text, doc, values)
    assert generalized == expected
    assert [name for _, name in pairs] == found


def test_declared_cites_are_the_articles_the_text_cites() -> None:
    text = "依照《促进和规范数据跨境流动规定》第七条第二项和《数据出境安全评估办法》第六条办理。"
    assert declared_cites(text, load_catalogue()) == (
        {"statute": "促进和规范数据跨境流动规定", "article": 7, "item": 2},
        {"statute": "数据出境安全评估办法", "article": 6},
    )
