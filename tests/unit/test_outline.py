"""Outlines: the loader, deterministic sections, numbering, the shared prefix, and OutlineRun
(repetition, truncated, thinking, Stop) over a fake stream."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.drafting.checking import check
from app.drafting.context import checking_context, decide_route, prepare
from app.drafting.freeform import stream_draft
from app.drafting.logged import to_record
from app.drafting.service import run_to_end, start_draft
from app.knowledge import Knowledge
from app.outline.compose import (
    NO_TEXT,
    assemble,
    continue_numbers,
    parts_fallen_back,
    parts_without_text,
)
from app.outline.model import OutlineError, Part, parse_outline
from app.outline.prepare import load_outlines, plan_for
from app.outline.sources import SourceContext, lines_for, register_source
from app.prompts import ContextTooLong, load_library, validate_values
from tests.fakes import FakeClient

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
GUIDE = "cross-border-filing-guide"
TYPES = (
    "clause-continuation",
    "confidentiality-agreement-points",
    GUIDE,
    "pia-report",
    "self-assessment-report",
    "standard-contract-filing",
)


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    return load_library(PROMPTS)


def test_every_type_has_a_working_outline(library) -> None:  # type: ignore[no-untyped-def]
    outlines = load_outlines(PROMPTS, library.types)
    assert outlines.errors == []
    assert sorted(outlines.outlines) == sorted(TYPES)


def test_a_broken_outline_is_named_and_the_others_load(tmp_path: Path) -> None:
    shutil.copytree(PROMPTS, tmp_path / "prompts")
    (tmp_path / "prompts" / GUIDE / "outline.yaml").write_text("sections: [", encoding="utf-8")
    bad = tmp_path / "prompts" / "standard-contract-filing" / "outline.yaml"
    bad.write_text(bad.read_text(encoding="utf-8").replace("【常见错误】", "【错误】"), "utf-8")
    lib = load_library(tmp_path / "prompts")
    outlines = load_outlines(tmp_path / "prompts", lib.types)
    assert sorted(outlines.outlines) == [
        "clause-continuation",
        "confidentiality-agreement-points",
        "pia-report",
        "self-assessment-report",
    ]
    assert [e.split(":")[0] for e in outlines.errors] == [GUIDE, "standard-contract-filing"]
    assert "【常见错误】" in outlines.errors[1]


@pytest.mark.parametrize(
    ("yaml_text", "reason"),
    [
        ("numbering: chinese\n", "system"),
        ("system: s\nfacts: f\nsections: [{parts: [{kind: generated}]}]", "prompt"),
        ("system: s\nfacts: f\nsections: [{parts: [{kind: facts, colour: red}]}]", "colour"),
    ],
)
def test_parse_outline_reasons(yaml_text: str, reason: str) -> None:
    with pytest.raises(OutlineError, match=reason):
        parse_outline("x", yaml_text)


def _plan(library, type_id: str, **changes: str):  # type: ignore[no-untyped-def]
    doc = library.types[type_id]
    values = validate_values(doc, {**doc.example_values(), **changes})
    outline = load_outlines(PROMPTS, library.types).outlines[type_id]
    return doc, plan_for(outline, doc, values, route=decide_route(doc, values))


def test_the_app_writes_facts_numbering_and_legal_bases(library) -> None:  # type: ignore[no-untyped-def]
    doc, plan = _plan(library, GUIDE, individuals_count="1,234,567")
    text, spans = assemble(plan.steps, {s.index: "" for s in plan.steps if s.generated})
    lines = text.splitlines()
    assert lines[:5] == [doc.title_zh, "致：上海明川跨境电子商务有限公司", "日期：2025年3月15日",
                         "【适用情形】", "一、基本情况"]  # fmt: skip
    assert (
        "（六）自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数：1,234,567" in lines
    )  # as entered
    # the quotation goes on past the colon: the article's items are on the same line
    assert "（一）《促进和规范数据跨境流动规定》第七条：数据处理者向境外提供数据，符合下列条件之一的，" \
        "应当通过所在地省级网信部门向国家网信部门申报数据出境安全评估：（一）关键信息基础设施运营者" \
        "向境外提供个人信息或者重要数据；（二）关键信息基础设施运营者以外的数据处理者向境外提供重要数据，" \
        "或者自当年1月1日起累计向境外提供100万人以上个人信息（不含敏感个人信息）或者1万人以上敏感个人信息。" \
        in lines  # fmt: skip
    assert [ln for ln in lines if ln.startswith("【")] == list(doc.required_sections)
    assert spans == []


@pytest.mark.parametrize("type_id", TYPES)
def test_assembled_outline_has_no_findings(library, type_id: str) -> None:  # type: ignore[no-untyped-def]
    doc, plan = _plan(library, type_id)
    prose = {s.index: "这是一段说明。应当依法办理。" for s in plan.steps if s.generated}
    text, spans = assemble(plan.steps, prose)
    assert len(spans) == len(prose)
    assert [text[a:b] for a, b in spans] == list(prose.values())
    assert check(checking_context(doc, {}), text).findings == ()


@pytest.mark.parametrize(
    ("clause", "labels"),
    [
        ("第八条 数据安全\n8.1 甲。\n8.2 乙。", ["8.3", "8.4"]),
        ("第八条 保密\n第九条 违约", ["第十条", "第十一条"]),
        ("（一）甲。\n（二）乙。", ["（三）", "（四）"]),
        ("1. 甲。\n2. 乙。", ["3.", "4."]),
        ("没有编号的条款。", ["1.", "2."]),
    ],
)
def test_continue_numbers(clause: str, labels: list[str]) -> None:
    assert continue_numbers(clause, 2) == labels


def test_a_registered_source_is_a_part_kind(library) -> None:  # type: ignore[no-untyped-def]
    register_source("route-test", lambda part, ctx: [f"步骤：{ctx.values['company_name']}"])
    outline = parse_outline(
        GUIDE,
        "system: s\nfacts: f\nsections:\n - heading: 【适用情形】\n"
        "   parts: [{kind: route-test, title: 办理路径}]\n",
    )
    ctx = SourceContext(values={"company_name": "甲公司"}, labels={})
    assert lines_for(outline.sections[0].parts[0], ctx) == ["步骤：甲公司"]


def test_every_part_shares_the_prefix(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    client = FakeClient(["该公司需要申报。"])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert outcome.mode == "outline" and outcome.status == "complete"
    assert len(client.requests) == 3
    systems = {r[0][0]["content"] for r in client.requests}
    facts = {r[0][1]["content"].split("\n\n")[0] for r in client.requests}
    assert len(systems) == 1 and len(facts) == 1
    assert "1200000" in next(iter(facts))
    asks = [r[0][1]["content"].split("\n\n", 1)[1] for r in client.requests]
    assert len(set(asks)) == 3  # each part asks its own question after the shared prefix
    assert outcome.text.count("该公司需要申报。") == 3
    assert outcome.check is not None and outcome.check.findings == ()


def test_repetition_is_stopped_trimmed_and_marked(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    looping = [
        "应当申报。",
        "该公司需要申报。",
        "该公司需要申报。",
        "该公司需要申报。",
        "该公司需要申报。",
    ] * 4
    client = FakeClient(looping)
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert outcome.text.count("该公司需要申报。") == 3  # once per part, the loop cut
    assert "part6:repetition_trimmed" in map(str, outcome.marks)
    assert all(r.sent < len(looping) for r in client.replays)  # the stream was cancelled
    assert outcome.status == "complete"


def test_a_part_cut_by_its_budget_is_truncated_at_a_sentence(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    client = FakeClient(["该公司需要申报。", "因为人数超过"], finish="length")
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    # prose the model wrote, kept up to its last sentence: the document is cut there (a part
    # that falls back to its whole clause is not: the test below)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert outcome.status == "truncated" and outcome.finish_reason == "length"
    assert "因为人数超过" not in outcome.text
    assert "part6:budget_trimmed" in map(str, outcome.marks)
    assert to_record(outcome, user_name="u").status == "truncated"


def test_free_form_cut_by_max_tokens_is_truncated(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    context = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), mode="free-form")
    run = stream_draft(FakeClient(["【适用情形】"], finish="length"), context, endpoint_name="fake")
    outcome = run_to_end(run)
    assert outcome.status == "truncated"
    assert to_record(outcome, user_name="u").status == "truncated"


THINKING = [
    "<think>用户要求引用",
    "《中华人民共和国合同法》第一条。</th",
    "ink>",
    "该公司需要申报。",
]


@pytest.mark.parametrize("mode", ["outline", "free-form"])
def test_thinking_is_kept_out_of_the_draft_and_the_checks(library, mode: str) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    client = FakeClient(THINKING)
    prepared = prepare(
        doc,
        doc.example_values(),
        knowledge=Knowledge(PROMPTS),
        client=client,
        mode=mode,  # type: ignore[arg-type]
    )
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert "合同法" not in outcome.text and "think" not in outcome.text
    assert "该公司需要申报。" in outcome.text
    assert "《中华人民共和国合同法》第一条" in outcome.thinking
    assert outcome.check is not None
    assert not any(f.code == "citation.repealed" for f in outcome.check.findings)
    logged = to_record(outcome, user_name="u")
    assert "合同法" not in logged.output_text
    assert "合同法" in logged.params["draft"]["thinking"]


def test_stop_keeps_the_partial_document(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    client = FakeClient(["第一句。", "第二句。", "第三句。"])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    run = start_draft(prepared, client, endpoint_name="fake")
    for update in run:
        if update.phase is not None and update.phase.name == "streaming":
            run.cancel()
    outcome = run.outcome()
    assert outcome.status == "stopped"
    assert outcome.text.startswith(f"{doc.title_zh}\n致：")
    assert "【适用情形】\n一、基本情况" in outcome.text
    assert len(client.requests) == 1  # later parts were never asked


def test_context_is_checked_for_outline_parts(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types[GUIDE]
    with pytest.raises(ContextTooLong):
        prepare(
            doc,
            doc.example_values(),
            knowledge=Knowledge(PROMPTS),
            client=FakeClient([], context=300),
        )


def test_a_part_with_a_wrong_citation_falls_back_to_its_clause(library) -> None:  # type: ignore[no-untyped-def]
    """An error of the draft's check in a part the model wrote rejects the whole part (issue 37
    item 8), as a failed gate does: its clause stands in for it, naming the finding's code."""
    doc = library.types[GUIDE]
    client = FakeClient(
        ["该公司需要申报。", "依据《中华人民共和国合同法》第五条办理。", "请尽快准备。"]
    )
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert "合同法" not in outcome.text and "请尽快准备" not in outcome.text
    generated = [o for o in outcome.provenance if o.source != "app"]
    assert generated and all("citation.repealed" in o.gates for o in generated)
    assert outcome.check is not None and not outcome.check.has_errors


def test_a_continuation_is_checked_after_the_clause_it_continues(library) -> None:  # type: ignore[no-untyped-def]
    doc = library.types["clause-continuation"]
    values = {**doc.example_values(), "clause": "第十二条 服务\n（一）甲。\n（二）乙。"}
    client = FakeClient(["乙方应当按月提交服务报告。"])
    prepared = prepare(doc, values, knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="write"))
    assert outcome.text.splitlines()[0] == "（三） 乙方应当按月提交服务报告。"
    assert outcome.check is not None and outcome.check.findings == ()


FIRST_WITHOUT_TEXT = [
    ["依据《中华人民共和国合同法》第五条办理。"],  # it cites a repealed law: the part is rejected
    ["8.3"],  # only a number, which the app writes itself
    [],  # nothing at all
]


@pytest.mark.parametrize("first", FIRST_WITHOUT_TEXT)
def test_a_part_left_without_text_falls_back_to_its_clause(library, first: list[str]) -> None:  # type: ignore[no-untyped-def]
    doc = library.types["clause-continuation"]
    client = FakeClient([], scripts=[first, ["乙方应当按月提交服务报告。"]])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    clause = prepared.plan.steps[0].clause
    run = start_draft(prepared, client, endpoint_name="fake", writing="write")
    outcome = run_to_end(run)
    assert outcome.text.splitlines() == [f"8.3 {clause.text}", "8.4 乙方应当按月提交服务报告。"]
    assert run.settled_text() == outcome.text  # what the CLI printed is what was recorded
    assert "part1:fallback" in map(str, outcome.marks) and parts_fallen_back(outcome.marks) == 1
    assert parts_without_text(outcome.marks) == 0
    sources = [(o.source, o.clause, o.gates) for o in outcome.provenance]
    why = ("citation.repealed",) if "合同法" in "".join(first) else ("no_text",)
    assert sources == [("clause", clause.id, why), ("model", "", ())]
    assert outcome.check is not None and not outcome.check.has_errors
    record = to_record(outcome, user_name="u")
    assert record.output_text == outcome.text
    assert record.params["draft"]["provenance"][0]["source"] == "clause"


@pytest.mark.parametrize("first", FIRST_WITHOUT_TEXT)
def test_without_a_clause_a_part_keeps_its_number_and_says_so(  # type: ignore[no-untyped-def]
    library, tmp_path: Path, first: list[str]
) -> None:
    shutil.copytree(PROMPTS / "clause-continuation", tmp_path / "clause-continuation")
    (tmp_path / "clause-continuation" / "clauses.yaml").unlink()
    doc = library.types["clause-continuation"]
    client = FakeClient([], scripts=[first, ["乙方应当按月提交服务报告。"]])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(tmp_path), client=client)
    run = start_draft(prepared, client, endpoint_name="fake")
    outcome = run_to_end(run)
    assert outcome.text.splitlines() == [f"8.3 {NO_TEXT}", "8.4 乙方应当按月提交服务报告。"]
    assert run.settled_text() == outcome.text
    assert "part1:no_text" in map(str, outcome.marks) and parts_without_text(outcome.marks) == 1
    assert [o.source for o in outcome.provenance] == ["placeholder", "model"]
    assert outcome.status == "complete"
    assert outcome.check is not None and not outcome.check.has_errors


@pytest.mark.parametrize(
    ("writing", "scripts", "sources", "requests"),
    [
        ("assemble", [], ["clause", "clause"], 0),
        # adapt: a faithful rewrite kept (<clause>: its clause, a word changed); a part that
        # echoes its instruction falls back, and so does one that is not its clause
        ("adapt", [["<clause>"], ["请写续写的关于合同终止后数据的返还与删除的条款的正文。"]], ["adapted", "clause"], 2),
        ("adapt", [["乙方应当及时通知甲方。"], ["<clause>"]], ["clause", "adapted"], 2),
        ("write", [["乙方应当及时通知甲方。"], ["以下是后续条款："]], ["model", "clause"], 2),
    ],
)  # fmt: skip
def test_three_ways_to_write_a_part(  # type: ignore[no-untyped-def]
    library, writing: str, scripts: list[list[str]], sources: list[str], requests: int
) -> None:
    doc = library.types["clause-continuation"]
    plan = prepare(
        doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=FakeClient([])
    ).plan
    own = [s.clause.text.replace("应当", "应", 1) for s in plan.steps if s.generated and s.clause]
    scripts = [
        [own[i] if c == "<clause>" else c for c in chunks] for i, chunks in enumerate(scripts)
    ]
    client = FakeClient([], scripts=scripts)
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing=writing))
    assert [o.source for o in outcome.provenance] == sources
    assert len(client.requests) == requests
    clauses = [s.clause for s in prepared.plan.steps if s.generated]
    for origin, clause in zip(outcome.provenance, clauses, strict=True):
        if origin.source == "clause":  # the clause as rendered, in full, named with its version
            assert clause.text in outcome.text
            assert (origin.clause, origin.version) == (clause.id, clause.version)
    if writing == "adapt":  # the clause is in the part's prompt
        assert clauses[0].text in client.requests[0][0][-1]["content"]
    assert outcome.check is not None and outcome.check.findings == ()


@pytest.mark.parametrize(
    ("changes", "route", "present", "absent"),
    [
        (
            {},
            "security_assessment",
            ["申报材料（在数据出境申报系统最后一步上传）", "《促进和规范数据跨境流动规定》第七条：",
             "数据出境安全评估申报表（", "第一步　数据处理者情况"],
            ["本指南是否适用", "备案材料（标准合同路径）", "第八条："],
        ),
        (
            {"individuals_count": "150000", "sensitive_count": "0"},
            "standard_contract_or_certification",
            ["不需要申报数据出境安全评估", "应当适用的文书：与境外接收方订立个人信息出境标准合同",
             "备案材料（标准合同路径）", "《促进和规范数据跨境流动规定》第八条：",
             "判定理由：自当年1月1日起累计向境外提供150,000人个人信息"],
            ["申报书", "数据出境风险自评估报告", "《数据出境安全评估办法》第六条",
             "《促进和规范数据跨境流动规定》第七条："],
        ),
        (
            {"individuals_count": "5000", "sensitive_count": ""},
            "exempt",
            ["免予申报数据出境安全评估", "应留存的记录", "《促进和规范数据跨境流动规定》第五条："],
            ["申报书", "备案材料", "第七条：", "第八条："],
        ),
    ],
)  # fmt: skip
def test_the_filing_guide_follows_the_route(  # type: ignore[no-untyped-def]
    library, changes: dict[str, str], route: str, present: list[str], absent: list[str]
) -> None:
    """Parts, legal bases and list entries carry `when:` on the route the facts lead to."""
    from app.route.form import decision_from_values

    doc, plan = _plan(library, GUIDE, **changes)
    assert decision_from_values({**doc.example_values(), **changes}).route == route  # type: ignore[union-attr]
    text, _ = assemble(plan.steps, {s.index: "" for s in plan.steps if s.generated})
    assert [ln for ln in text.splitlines() if ln.startswith("【")] == list(doc.required_sections)
    assert all(p in text for p in present), [p for p in present if p not in text]
    assert not any(a in text for a in absent), [a for a in absent if a in text]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"statute": "中华人民共和国个人信息保护法", "article": 38, "item": 3},
         "《中华人民共和国个人信息保护法》第三十八条第一款第三项：（三）按照国家网信部门制定的标准合同"
         "与境外接收方订立合同，约定双方的权利和义务；"),
        ({"statute": "个人信息出境标准合同办法", "article": 4, "paragraph": 3},
         "《个人信息出境标准合同办法》第四条第三款：个人信息处理者不得采取数量拆分等手段，将依法应当"
         "通过出境安全评估的个人信息通过订立标准合同的方式向境外提供。"),
        ({"statute": "个人信息出境标准合同办法", "article": 7},
         "《个人信息出境标准合同办法》第七条：个人信息处理者应当在标准合同生效之日起10个工作日内向所在地"
         "省级网信部门备案。备案应当提交以下材料：（一）标准合同；（二）个人信息保护影响评估报告。"),
    ],
)  # fmt: skip
def test_legal_basis_quotes_the_items_of_the_paragraph(
    item: dict[str, object], expected: str
) -> None:
    part = Part(kind="legal_basis", title="依据", items=(item,))
    assert lines_for(part, SourceContext(values={}, labels={})) == [expected]


def test_a_cut_part_replaced_by_its_whole_clause_is_complete(library) -> None:  # type: ignore[no-untyped-def]
    """Truncated means the document is cut: prose cut by its budget that falls back to its
    vetted clause leaves the clause whole, so the draft is complete, and its status says
    which parts stand as their clause (issue 40)."""
    from app.outline.provenance import part_counts, status_text

    doc = library.types[GUIDE]
    client = FakeClient(["因为人数超过"], finish="length")  # cut mid-sentence: fails a gate
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(PROMPTS), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="adapt"))
    counts = part_counts(outcome.provenance, outcome.parts)
    assert counts.fell_back == counts.total > 0 and counts.truncated == 0
    assert outcome.status == "complete" and outcome.finish_reason is None
    assert all(p.finish_reason == "length" for p in outcome.parts)  # the model's call, as it was
    assert "因为人数超过" not in outcome.text
    shown = status_text(outcome.status, counts, "zh")
    assert shown.startswith("已完成") and f"{counts.fell_back} 个部分" in shown
    assert "已截断" not in shown
    assert to_record(outcome, user_name="u").status == "complete"
