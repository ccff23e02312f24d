"""The draft notes of the audit log (params["draft"]): written key for key as before the type
existed (the hash chain covers them), and read back from a record of any earlier version
without raising; and the one mapping of a logged generation's findings and numbers."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from app.domain import GenerationStats, Guard, GuardMark, RenderedPrompt
from app.drafting.context import checking_context
from app.drafting.logged import (
    logged_outcome,
    logged_prompt,
    logged_stats,
    notes_of,
    stored_findings,
    to_record,
)
from app.drafting.notes import DraftNotes, PartNotes
from app.drafting.outcome import GenerationOutcome
from app.outline.provenance import PartCounts, PartOrigin
from app.outline.run import PartResult
from audit.domain import GenerationRecord, error_count

PROMPT = RenderedPrompt("t", "t", "1.0.0", "ab" * 32, "系统", "用户", {"a": "1"}, 42)
PARTS = (
    PartResult(
        1,
        "truncated",
        "length",
        GenerationStats(ttft_s=0.25, prompt_tokens=300, completion_tokens=64),
        (Guard.BUDGET_TRIMMED,),
        budget=64,
        budget_from="part",
    ),
    PartResult(2, "complete", "stop", GenerationStats(completion_tokens=12), budget=96),
)
PROVENANCE = (
    PartOrigin(0, "一、", "基本情况", "app", section="【适用情形】"),
    PartOrigin(
        1, "二、", "是否需要申报", "clause", "guide.why", "2", ("prose.garble",), "【适用情形】"
    ),
    PartOrigin(2, "三、", "材料", "model"),
)


def _outcome(**changes: Any) -> GenerationOutcome:
    context = replace(checking_context(None, {"a": "1"}), mode="outline", rendered=PROMPT)
    outcome = GenerationOutcome(
        context=context,
        endpoint_name="fake",
        model="m",
        speculative_label="",
        text="正文",
        status="truncated",
        error=None,
        stats=GenerationStats(),
        check=None,
        marks=(GuardMark(Guard.FALLBACK, part=2), GuardMark(Guard.SENTENCES_REMOVED, count=3)),
        thinking="先想一想",
        parts=PARTS,
        provenance=PROVENANCE,
    )
    return replace(outcome, **changes)


# what recording.draft_notes wrote for _outcome() before DraftNotes, key for key and in order
TODAY = {
    "mode": "outline",
    "marks": ["part2:fallback", "sentences_removed:3"],
    "thinking": "先想一想",
    "parts": [
        {
            "index": 1,
            "status": "truncated",
            "finish_reason": "length",
            "ttft_s": 0.25,
            "completion_tokens": 64,
            "prompt_tokens": 300,
            "marks": ["budget_trimmed"],
            "budget": 64,
            "budget_from": "part",
        },
        {
            "index": 2,
            "status": "complete",
            "finish_reason": "stop",
            "ttft_s": None,
            "completion_tokens": 12,
            "prompt_tokens": None,
            "marks": [],
            "budget": 96,
            "budget_from": "",
        },
    ],
    "provenance": [
        {
            "step": 0,
            "section": "【适用情形】",
            "label": "一、",
            "title": "基本情况",
            "source": "app",
            "clause": "",
            "version": "",
            "gates": [],
        },
        {
            "step": 1,
            "section": "【适用情形】",
            "label": "二、",
            "title": "是否需要申报",
            "source": "clause",
            "clause": "guide.why",
            "version": "2",
            "gates": ["prose.garble"],
        },
        {
            "step": 2,
            "section": "",
            "label": "三、",
            "title": "材料",
            "source": "model",
            "clause": "",
            "version": "",
            "gates": [],
        },
    ],
    "counts": {
        "model": 1,
        "adapted": 0,
        "clause": 0,
        "fell_back": 1,
        "placeholder": 0,
        "truncated": 1,
    },
}


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_the_notes_written_are_todays_json_byte_for_byte() -> None:
    outcome = _outcome()
    assert notes_of(outcome).to_dict() == TODAY
    assert _json(to_record(outcome, user_name="u").params["draft"]) == _json(TODAY)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # free-form, nothing acted: mode and marks only
        (
            {"marks": (), "thinking": "", "parts": (), "provenance": ()},
            {"mode": "outline", "marks": []},
        ),
        # parts without provenance (a run stopped before any part settled): no counts either
        (
            {"thinking": "", "provenance": ()},
            {"mode": "outline", "marks": TODAY["marks"], "parts": TODAY["parts"]},
        ),
    ],
)
def test_what_is_empty_is_left_out_as_before(changes: dict[str, Any], expected: object) -> None:
    assert _json(notes_of(_outcome(**changes)).to_dict()) == _json(expected)


def test_the_notes_read_back_are_the_notes_written() -> None:
    outcome = _outcome()
    notes = DraftNotes.from_dict(notes_of(outcome).to_dict())
    assert notes == notes_of(outcome)
    assert notes.provenance == PROVENANCE
    assert notes.counts == PartCounts(model=1, fell_back=1, truncated=1)
    assert _json(notes.to_dict()) == _json(TODAY)


# params["draft"] as earlier versions wrote it, and what it reads back as
V1_PART = {  # the first notes (outline drafting): parts without budgets, no provenance
    "index": 1,
    "status": "truncated",
    "finish_reason": "length",
    "ttft_s": 0.5,
    "completion_tokens": 64,
    "prompt_tokens": 300,
    "marks": ["budget_trimmed"],
}
V2_ORIGIN = {  # provenance as first written: no section
    "step": 1,
    "label": "二、",
    "title": "是否需要申报",
    "source": "clause",
    "clause": "guide.why",
    "version": "1",
    "gates": [],
}
OLD_NOTES = [
    (None, DraftNotes()),  # generations logged before notes existed
    ({"mode": "free-form", "marks": []}, DraftNotes()),
    (
        {
            "mode": "outline",
            "marks": ["part1:repetition_trimmed"],
            "thinking": "想",
            "parts": [V1_PART],
        },
        DraftNotes(
            "outline",
            ("part1:repetition_trimmed",),
            "想",
            (PartNotes(1, "truncated", "length", 0.5, 64, 300, ("budget_trimmed",)),),
        ),
    ),
    (
        {
            "mode": "outline",
            "marks": [],
            "parts": [{**V1_PART, "budget": 64, "budget_from": "draft"}],
            "provenance": [V2_ORIGIN],
        },
        DraftNotes(
            "outline",
            parts=(
                PartNotes(1, "truncated", "length", 0.5, 64, 300, ("budget_trimmed",), 64, "draft"),
            ),
            provenance=(PartOrigin(1, "二、", "是否需要申报", "clause", "guide.why", "1"),),
        ),
    ),
    (  # provenance with sections, still no counts
        {"mode": "outline", "marks": [], "provenance": [{**V2_ORIGIN, "section": "【适用情形】"}]},
        DraftNotes(
            "outline",
            provenance=(
                PartOrigin(
                    1, "二、", "是否需要申报", "clause", "guide.why", "1", (), "【适用情形】"
                ),
            ),
        ),
    ),
]
ODD_NOTES = [  # never written by LexSpec, but never fatal: defaults for what cannot be read
    ("outline", DraftNotes()),
    ([], DraftNotes()),
    ({"mode": "sketch", "future": {"x": 1}}, DraftNotes()),
    (
        {"mode": "outline", "marks": "x", "parts": "x", "provenance": {"a": 1}},
        DraftNotes("outline"),
    ),
    (
        {"parts": [1, {"index": "2", "ttft_s": True, "budget_from": "page", "marks": [3, "a"]}]},
        DraftNotes(parts=(PartNotes(-1, "", marks=("a",)),)),
    ),
    (
        {"provenance": [{"title": 5, "gates": "x"}], "counts": {"model": "2", "adapted": 1}},
        DraftNotes(provenance=(PartOrigin(-1, "", "", "app"),), counts=PartCounts(adapted=1)),
    ),
]


@pytest.mark.parametrize(("logged", "expected"), OLD_NOTES + ODD_NOTES)
def test_notes_of_any_earlier_version_read_back_with_defaults(
    logged: object, expected: DraftNotes
) -> None:
    assert DraftNotes.from_dict(logged) == expected


def _record(params: Any, findings: Any = ()) -> GenerationRecord:
    return GenerationRecord(
        "u", "t", "t", "1.0.0", "ab" * 32, {"a": 1}, "系统", "用户", "e", "m", "正文", "complete",
        params=params, findings=findings, ttft_s=0.5, total_s=2.0, prompt_tokens=42,
        completion_tokens=10, tokens_per_s=7.5, draft_tokens=8, accepted_tokens=6,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("params", "mode"),
    [
        ({"temperature": 0.0}, "free-form"),  # before notes
        ({"draft": {"mode": "outline", "marks": []}}, "outline"),
        ({"draft": None}, "free-form"),
        (["not", "a", "mapping"], "free-form"),
    ],
)
def test_a_records_notes_come_from_its_params(params: Any, mode: str) -> None:
    assert DraftNotes.from_record(_record(params)).mode == mode


def test_a_logged_generation_reads_back_as_the_apps_types() -> None:
    finding = {
        "code": "numbering.gap",
        "severity": "error",
        "start": 1,
        "end": 2,
        "message_zh": "缺号",
        "message_en": "gap",
    }
    record = _record({}, [finding, {"code": "x"}, "not a finding", {**finding, "start": "x"}])
    assert [(f.code, f.start, f.suggestion) for f in stored_findings(record.findings)] == [
        ("numbering.gap", 1, "")
    ]
    stats = logged_stats(record)
    assert (stats.ttft_s, stats.total_s, stats.prompt_tokens, stats.completion_tokens) == (
        0.5,
        2.0,
        42,
        10,
    )
    assert (stats.tokens_per_s, stats.acceptance_rate) == (7.5, 0.75)
    assert logged_prompt(record) == PROMPT  # the form's values as text


def test_a_generation_written_and_read_back_is_the_same_prompt_and_numbers() -> None:
    """One mapping both ways: what to_record writes, logged_prompt and logged_stats read back."""
    stats = GenerationStats(
        ttft_s=0.5, total_s=2.0, prompt_tokens=42, completion_tokens=10, draft_tokens=8,
        accepted_tokens=6, decode_tokens=9, decode_s=1.5,
    )  # fmt: skip
    record = to_record(_outcome(stats=stats), user_name="u")
    assert logged_prompt(record) == PROMPT
    back = logged_stats(record)
    for name in ("ttft_s", "total_s", "prompt_tokens", "completion_tokens", "draft_tokens"):
        assert getattr(back, name) == getattr(stats, name)
    assert (back.accepted_tokens, back.tokens_per_s) == (6, stats.tokens_per_s)
    unsent = to_record(_outcome(), user_name="u")  # no numbers from the server: the prompt's
    assert (unsent.prompt_tokens, unsent.completion_tokens) == (PROMPT.prompt_tokens, 0)


def test_a_logged_generation_reads_back_as_the_outcome_it_was() -> None:
    outcome = _outcome(speculative_label="ngram", error="cut short")
    back = logged_outcome(to_record(outcome, user_name="u"), outcome.context)
    same = ("text", "status", "error", "thinking", "provenance", "endpoint_name", "model")
    assert [getattr(back, n) for n in same] == [getattr(outcome, n) for n in same]
    assert back.speculative_label == "ngram" and back.check is None


@pytest.mark.parametrize(
    ("findings", "errors"),
    [
        ([], 0),
        ([{"severity": "error"}, {"severity": "warning"}, {"severity": "error"}], 2),
        (({"severity": "error"},), 1),  # a revision keeps a tuple
        ([{"severity": "error"}, "not a finding", None, {"code": "x"}], 1),
        (None, 0),  # a row logged without findings
        ({"severity": "error"}, 0),  # not a list of findings
    ],
)
def test_error_count_is_one_count_of_the_stored_findings(findings: Any, errors: int) -> None:
    assert error_count(findings) == errors
