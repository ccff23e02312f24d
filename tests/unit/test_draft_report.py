"""What `lexspec draft` says about an outline draft's parts (fell back, cut by which budget,
sources) and its --report JSON; the model is a fake that replays chunks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.commands.draft import _summary, report
from app.drafting.context import prepare
from app.drafting.service import run_to_end, start_draft
from app.knowledge import Knowledge
from app.prompts import load_library
from tests.fakes import FakeClient

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
GUIDE = "cross-border-filing-guide"


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    return load_library(PROMPTS)


def _draft(library, scripts, finish="stop", max_tokens=None, writing="adapt", **changes):  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    client = FakeClient([], scripts=scripts, finish=finish)
    params = replace(doc.defaults, max_tokens=max_tokens) if max_tokens else None
    prepared = prepare(
        doc,
        {**doc.example_values(), **changes},
        knowledge=Knowledge(PROMPTS),
        client=client,
        params=params,
    )
    return doc, run_to_end(start_draft(prepared, client, endpoint_name="fake", writing=writing))


def _first_clause(library) -> str:  # type: ignore[no-untyped-def]
    """The guide's first generated part's clause, rendered with the example's facts."""
    doc = library.types[GUIDE]
    prepared = prepare(
        doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=FakeClient([])
    )
    assert prepared.plan is not None
    return next(s.clause.text for s in prepared.plan.steps if s.generated and s.clause)


def test_a_fallen_back_part_is_reported_never_complete_without_a_word(library) -> None:  # type: ignore[no-untyped-def]
    good = _first_clause(library).replace("已达到", "已经达到")  # a faithful adaptation
    echo = "请针对该公司最容易犯的上述错误，给出纠正建议。"
    doc, outcome = _draft(library, [[good], ["以下是要点："], [echo]])
    assert outcome.status == "complete" and not outcome.as_labelled
    assert outcome.counts.adapted == 1 and outcome.counts.fell_back == 2
    lines = _summary(outcome, "zh")
    assert any("2 个部分的模型正文未通过文字检查" in ln for ln in lines)
    assert any("模型改写 1 个" in ln and "由审定条款替代 2 个" in ln for ln in lines)
    assert any("引导语" in ln and "由审定条款替代" in ln for ln in lines)
    assert any("复述" in ln and "由审定条款替代" in ln for ln in lines)
    sources = next(ln for ln in lines if ln.startswith("各部分来源："))
    assert "一、〔系统〕" in sources and "五、〔改写〕" in sources  # 五: the why-route part
    assert "〔由审定条款替代〕" in sources and "guide." not in sources  # no ids for the lawyer
    details = next(ln for ln in lines if "条款：" in ln)
    assert "guide.why-route.individuals v1.0" in details
    data = report(outcome, doc)
    generated = [p for p in data["parts"] if p["source"] != "app"]
    assert [(p["source"], p["gates"][:1]) for p in generated] == [
        ("adapted", []),
        ("clause", ["prose.dangling_lead_in"]),
        ("clause", ["prose.instruction_echo"]),
    ]
    assert "prose.unfaithful" in generated[2]["gates"]  # neither is the clause it stands for
    assert generated[1]["clause"] == "guide.preparation.assessment@1.0"
    assert (
        data["route"] == "security_assessment" and data["fields"]["individuals_count"] == "1200000"
    )
    assert data["status"] == "complete" and data["findings"] == []
    assert data["counts"]["adapted"] == 1 and data["counts"]["fell_back"] == 2
    assert data["complete_as_labelled"] is False
    assert {p["section"] for p in data["parts"]} == {"", *doc.required_sections}  # "": the cover
    json.dumps(data, ensure_ascii=False)  # it is JSON


@pytest.mark.parametrize(
    ("max_tokens", "expected"),
    [(None, "为该部分设定的生成上限 160 个 token"), (40, "本次生成参数的最大长度 40 个 token")],
)
def test_a_truncation_names_the_budget_that_cut_the_part(  # type: ignore[no-untyped-def]
    library, max_tokens: int | None, expected: str
) -> None:
    text = "贵公司应当申报数据出境安全评估。准备材料时应当"
    # the model's own prose, kept to its last sentence: the document is cut (in `adapt` the
    # part falls back to its whole clause and is complete: test_outline.py)
    _doc, outcome = _draft(
        library, [[text]], finish="length", max_tokens=max_tokens, writing="write"
    )
    assert outcome.status == "truncated"
    lines = _summary(outcome, "zh")
    cut = [ln for ln in lines if "被截断" in ln and "token" in ln]
    assert len(cut) == 3 and all(expected in ln for ln in cut), lines


def test_a_type_without_a_route_reports_null(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types["clause-continuation"]
    client = FakeClient([], scripts=[["乙方应当及时通知甲方。"]])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="assemble"))
    data = report(outcome, doc)
    assert data["route"] is None and [p["source"] for p in data["parts"]] == ["clause", "clause"]
    assert client.requests == []
