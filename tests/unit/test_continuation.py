"""Clause continuation: the numbers after a pasted clause in its own style (table), the topics
an instruction asks for, and the library's clause for each instruction × contract type × side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.outline.continuation import (
    TopicsError,
    chosen_topics,
    continue_numbers,
    parse_topics,
    topic_facts,
)
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TYPE = "clause-continuation"


@pytest.mark.parametrize(
    ("clause", "labels"),
    [
        ("第八条 数据安全\n8.1 甲。\n8.2 乙。", ["8.3", "8.4"]),
        ("8.9 甲。", ["8.10", "8.11"]),
        ("8.2.1 甲。\n8.2.2 乙。", ["8.2.3", "8.2.4"]),
        ("８．２ 甲。", ["８．３", "８．４"]),
        ("第八条 保密\n第九条 违约", ["第十条", "第十一条"]),
        ("第十九条 甲。", ["第二十条", "第二十一条"]),
        ("第8条 甲。", ["第9条", "第10条"]),
        ("（一）甲。\n（二）乙。", ["（三）", "（四）"]),
        ("(二) 乙。", ["(三)", "(四)"]),
        ("（2）乙。", ["（3）", "（4）"]),
        ("一、甲。\n二、乙。", ["三、", "四、"]),
        ("1. 甲。\n2. 乙。", ["3.", "4."]),
        ("2、乙。", ["3、", "4、"]),
        ("  　8.2 缩进的条款。", ["8.3", "8.4"]),
        # the last numbered line decides, not a number cited inside a sentence
        ("8.2 依照本协议第十二条处理。", ["8.3", "8.4"]),
        ("第八条 数据安全\n乙方应当依照2021年的规定处理。", ["第九条", "第十条"]),
        ("没有编号的条款。", ["1.", "2."]),
    ],
)
def test_continue_numbers(clause: str, labels: list[str]) -> None:
    assert continue_numbers(clause, 2) == labels


TOPICS = parse_topics(
    {
        "from": "instructions",
        "by": "contract_type",
        "choices": [
            {"id": "incident", "keywords": ["安全事件", "breach"]},
            {"id": "return", "keywords": ["返还", "删除"]},
        ],
        "defaults": {"保密协议": ["return"], "": ["incident"]},
    }
)


@pytest.mark.parametrize(
    ("values", "topics"),
    [
        ({"instructions": "续写数据返还与安全事件条款"}, ("incident", "return")),  # outline order
        ({"instructions": "Add a BREACH clause"}, ("incident",)),  # case-insensitive
        ({"instructions": "", "contract_type": "保密协议"}, ("return",)),  # type default
        (
            {"instructions": "续写其他条款", "contract_type": "采购合同"},
            ("incident",),
        ),  # "" default
    ],
)
def test_chosen_topics(values: dict[str, str], topics: tuple[str, ...]) -> None:
    assert chosen_topics(TOPICS, values) == topics
    facts = topic_facts(TOPICS, values)
    assert {k for k, v in facts.items() if v} == {f"topic_{t}" for t in topics}


@pytest.mark.parametrize(
    "raw",
    [
        {"from": "instructions", "choices": [{"id": "a"}], "defaults": {}},  # no keywords
        {"from": "i", "choices": [{"id": "a", "keywords": []}], "defaults": {"": ["b"]}},
        {"from": "i", "choices": [{"id": "A-1", "keywords": []}], "defaults": {}},
    ],
)
def test_broken_topics_are_refused(raw: dict[str, Any]) -> None:
    with pytest.raises(TopicsError):
        parse_topics(raw)


@pytest.fixture(scope="module")
def shipped() -> tuple[Any, Any]:
    library = load_library(PROMPTS)
    outline = load_outlines(PROMPTS, library.types).outlines[TYPE]
    return library.types[TYPE], outline


DPA_CLAUSE = "第八条 数据安全\n8.1 乙方应当保护甲方数据。\n8.2 乙方不得超出约定目的处理甲方数据。"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # the instruction's topics, in the outline's order, each for our side
        (
            {"instructions": "续写安全事件通知与数据返还条款", "party_role": "甲方"},
            [("8.3", "cont.dpa.incident.entrusting"), ("8.4", "cont.dpa.return.entrusting")],
        ),
        (
            {"instructions": "续写安全事件通知与数据返还条款", "party_role": "乙方"},
            [("8.3", "cont.dpa.incident.balanced"), ("8.4", "cont.dpa.return.balanced")],
        ),
        (
            {"instructions": "数据出境、转委托和审计", "party_role": "甲方"},
            [
                ("8.3", "cont.dpa.subprocessing.entrusting"),
                ("8.4", "cont.dpa.audit.entrusting"),
                ("8.5", "cont.dpa.transfer.entrusting"),
            ],
        ),
        (
            {"instructions": "配合监管调取数据，处理记录，违约责任", "party_role": "中立"},
            [
                ("8.3", "cont.dpa.authorities.balanced"),
                ("8.4", "cont.dpa.records.balanced"),
                ("8.5", "cont.dpa.liability.balanced"),
            ],
        ),
        # no topic named: the contract type's defaults
        ({"instructions": ""}, [("8.3", "cont.dpa.incident.entrusting"), ("8.4", "cont.dpa.return.entrusting")]),
        (
            {"instructions": "", "contract_type": "保密协议", "party_role": "甲方"},
            [("8.3", "cont.nda.return.discloser"), ("8.4", "cont.nda.liability.discloser")],
        ),
        (
            {"instructions": "依法披露与违约", "contract_type": "保密协议", "party_role": "乙方"},
            [("8.3", "cont.nda.authorities"), ("8.4", "cont.nda.liability.balanced")],
        ),
        (
            {"instructions": "", "contract_type": "采购合同"},
            [("8.3", "cont.any.liability"), ("8.4", "cont.any.disputes")],
        ),
        # a topic the confidentiality library has no clause for is not written
        (
            {"instructions": "审计与返还", "contract_type": "保密协议", "party_role": "乙方"},
            [("8.3", "cont.nda.return.balanced")],
        ),
        # another numbering style is continued in that style
        (
            {"clause": "第十二条 保密\n（一）甲。\n（二）乙。", "instructions": "数据返还"},
            [("（三）", "cont.dpa.return.entrusting")],
        ),
        (
            {"clause": "第八条 数据安全", "instructions": "违约责任"},
            [("第九条", "cont.dpa.liability.entrusting")],
        ),
    ],
)  # fmt: skip
def test_the_clauses_follow_the_instruction_and_our_side(
    shipped: tuple[Any, Any], changes: dict[str, str], expected: list[tuple[str, str]]
) -> None:
    doc, outline = shipped
    values = validate_values(doc, {**doc.example_values(), "clause": DPA_CLAUSE, **changes})
    plan = plan_for(outline, doc, values, route=None)
    got = [(s.label, s.clause.id if s.clause else "") for s in plan.steps if s.generated]
    assert got == expected


def test_every_clause_is_signed_off_and_cites_what_it_relies_on(shipped: tuple[Any, Any]) -> None:
    _, outline = shipped
    assert outline.clause_errors == ()
    assert len(outline.clauses) >= 20
    assert all(c.signed_off is not None for c in outline.clauses)
    data = [c for c in outline.clauses if c.part in ("incident", "return", "transfer", "records")]
    assert all(c.cites for c in data if c.id.startswith("cont.dpa."))


def test_the_shared_facts_block_restates_no_form_field(shipped: tuple[Any, Any]) -> None:
    """Our side, the contract type and the instruction are in the system prompt (an echo of it
    fails prose.instruction_echo); the facts block, which a part may quote, is the clause only."""
    doc, outline = shipped
    values = validate_values(doc, {**doc.example_values(), "party_role": "乙方"})
    plan = plan_for(outline, doc, values, route=None)
    assert plan.facts == f"原文：\n{values['clause']}"
    assert "代表乙方" in plan.system and values["contract_type"] in plan.system
    assert values["instructions"] in plan.system
