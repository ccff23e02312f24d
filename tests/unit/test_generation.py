"""The generation service and the ChatStream under it, driven by a client that replays chunks."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.domain import CheckResult, Finding, GenerationParams, RenderedPrompt
from app.drafting.context import DraftContext
from app.drafting.freeform import stream_draft
from app.drafting.logged import to_record
from app.drafting.outcome import GenerationOutcome
from app.drafting.recording import keep
from tests.conftest import MakeContext
from tests.fakes import FakeClient

RENDERED = RenderedPrompt(
    doc_type="cross-border-filing-guide",
    template_id="cross-border-filing-guide",
    template_version="1.0.0",
    template_hash="ab" * 32,
    system="你是一名数据合规律师。",
    user="请撰写指南。",
    values={"company_name": "上海明川跨境电子商务有限公司"},
    prompt_tokens=42,
)
PARAMS = GenerationParams(temperature=0.2, top_p=0.9, max_tokens=64, seed=7, stop=("###",))
SECTIONS = ("【适用情形】", "【材料清单】")
CONTEXT = DraftContext(
    doc_type_id=RENDERED.doc_type,
    values=RENDERED.values,
    required_sections=SECTIONS,
    rendered=RENDERED,
    params=PARAMS,
)
PIECES = [
    "【适用情形】\n",
    "一、是否需要申报\n",
    "（一）",
    "依据《数据出境安全评估办法》第四条。\n",
]


class RecordingChecker:
    """Records the text lengths it was asked to check; flags a missing section when absent."""

    def __init__(self) -> None:
        self.lengths: list[int] = []

    def __call__(self, text: str) -> CheckResult:
        self.lengths.append(len(text))
        missing = [s for s in SECTIONS if s not in text]
        findings = tuple(
            Finding("structure.missing_section", "error", 0, 0, f"缺少{s}", f"missing {s}")
            for s in missing
        )
        return CheckResult(findings=findings)


def run_draft(client: FakeClient, *, every: int = 10, checker: RecordingChecker | None = None):
    return stream_draft(
        client,
        CONTEXT,
        endpoint_name="embedded",
        speculative_label="ngram K=8",
        check_every_chars=every,
        checker=checker or RecordingChecker(),
    )


def test_streams_every_piece_then_a_final_update_with_the_check() -> None:
    checker = RecordingChecker()
    run = run_draft(FakeClient(PIECES), every=10, checker=checker)
    updates = list(run)
    assert [u.delta for u in updates[:-1]] == PIECES
    assert updates[-1].delta == "" and updates[-1].text == "".join(PIECES)
    outcome = run.outcome()
    assert outcome.status == "complete" and outcome.error is None
    assert outcome.text == "".join(PIECES)
    assert outcome.finish_reason == "stop"
    assert outcome.check is not None and updates[-1].check is outcome.check
    assert [f["code"] for f in outcome.findings] == ["structure.missing_section"]  # 【材料清单】


def test_checks_run_every_n_new_characters_and_at_the_end() -> None:
    checker = RecordingChecker()
    pieces = ["一二三四五"] * 8  # 40 characters in 5-character deltas
    run = run_draft(FakeClient(pieces), every=12, checker=checker)
    checked = [u.check is not None for u in run]
    assert checker.lengths == [15, 30, 40]  # after >=12 new chars each time, then the final
    assert checked.count(True) == 3


def test_stats_come_from_the_final_chunk() -> None:
    run = run_draft(FakeClient(PIECES, draft=12, accepted=9))
    list(run)
    stats = run.outcome().stats
    assert stats.prompt_tokens == 20 and stats.completion_tokens == len(PIECES)
    assert stats.draft_tokens == 12 and stats.accepted_tokens == 9
    assert stats.acceptance_rate == pytest.approx(0.75)
    assert stats.ttft_s is not None and stats.total_s >= stats.ttft_s


def test_servers_without_spec_decode_leave_draft_counts_none() -> None:
    run = run_draft(FakeClient(PIECES, draft=None, accepted=None))
    list(run)
    assert run.outcome().stats.draft_tokens is None
    assert run.outcome().stats.acceptance_rate is None


def test_the_request_carries_the_rendered_messages_and_params() -> None:
    client = FakeClient(PIECES)
    list(run_draft(client))
    messages, params = client.requests[0]
    assert messages == RENDERED.messages() and params == PARAMS


def test_cancel_mid_stream_keeps_the_partial_text_and_closes_the_source() -> None:
    client = FakeClient(PIECES)
    run = run_draft(client)
    seen = []
    for update in run:
        seen.append(update.delta)
        if len(seen) == 2:
            run.cancel()
    outcome = run.outcome()
    assert outcome.status == "stopped"
    assert outcome.text == "".join(PIECES[:2])
    assert client.replays[0].closed
    assert outcome.check is not None  # the partial text is still checked


def test_cancel_from_another_thread_while_waiting_for_a_chunk() -> None:
    client = FakeClient(["x"] * 200, delay_s=0.01)
    run = run_draft(client, every=1000)
    timer = threading.Timer(0.2, run.cancel)
    timer.start()
    list(run)
    timer.join()
    outcome = run.outcome()
    assert outcome.status == "stopped"
    assert 0 < len(outcome.text) < 200


def test_breaking_out_of_the_loop_leaves_a_stopped_outcome() -> None:
    run = run_draft(FakeClient(PIECES))
    iterator = iter(run)
    next(iterator)
    iterator.close()  # what a consumer abandoning the loop does
    assert run.outcome().status == "stopped" and run.outcome().text == PIECES[0]


def test_a_failure_mid_stream_is_an_error_with_the_partial_text() -> None:
    run = run_draft(FakeClient(PIECES, fail_after=2))
    list(run)  # never raises
    outcome = run.outcome()
    assert outcome.status == "error"
    assert outcome.text == "".join(PIECES[:2])
    assert outcome.error and "生成失败" in outcome.error and "Generation failed" in outcome.error


def test_a_failure_to_open_is_an_error_with_no_text() -> None:
    run = run_draft(FakeClient(PIECES, open_error=ConnectionRefusedError("refused")))
    assert [u.delta for u in run] == [""]
    assert run.outcome().status == "error" and run.outcome().text == ""


def test_outcome_before_the_end_is_refused() -> None:
    run = run_draft(FakeClient(PIECES))
    with pytest.raises(RuntimeError):
        run.outcome()


def _outcome() -> GenerationOutcome:
    run = run_draft(FakeClient(PIECES, fail_after=3))
    list(run)
    return run.outcome()


def test_to_record_maps_every_field() -> None:
    outcome = _outcome()
    rec = to_record(outcome, user_name="张律师")
    assert rec.user_name == "张律师"
    assert (rec.doc_type, rec.template_id, rec.template_version, rec.template_hash) == (
        RENDERED.doc_type,
        RENDERED.template_id,
        "1.0.0",
        "ab" * 32,
    )
    assert rec.field_values == RENDERED.values
    assert (rec.system_prompt, rec.user_prompt) == (RENDERED.system, RENDERED.user)
    assert (rec.endpoint, rec.model) == ("embedded", "fake-model")
    assert rec.speculative == {"label": "ngram K=8"}
    assert rec.params == {
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 64,
        "seed": 7,
        "stop": ["###"],
        "draft": {"mode": "free-form", "marks": []},  # mode and guard marks (app.outline)
    }
    assert rec.status == "error" and rec.error_message == outcome.error
    assert rec.output_text == "".join(PIECES[:3])
    assert rec.ttft_s == outcome.stats.ttft_s and rec.total_s == outcome.stats.total_s
    assert rec.prompt_tokens == 42  # the server sent no usage before failing: the rendered count
    assert rec.completion_tokens == 3
    assert rec.findings == list(outcome.findings)


@pytest.mark.integration
def test_keep_writes_a_row_to_a_real_audit_database(
    db_session_factory: Any, make_context: MakeContext
) -> None:
    from audit.store import get_generation, verify_chain

    outcome = _outcome()
    ctx = make_context(db_session_factory)
    kept = keep(outcome, user_name="张律师", ctx=ctx)  # its own unit of work
    generation_id = kept.generation_id
    assert generation_id is not None and kept.problem is None
    with db_session_factory() as session:
        stored = get_generation(generation_id, session=session)
        assert stored is not None
        assert stored.record == to_record(outcome, user_name="张律师")
        assert verify_chain(session=session).ok


def test_the_check_falls_back_to_the_builtin_catalogue(tmp_path: Any) -> None:
    """A broken firm statute file must not stop a lawyer's draft from being checked."""
    from app.config import REPO_ROOT
    from app.drafting.checking import check
    from app.knowledge import Knowledge

    context = DraftContext(
        doc_type_id="",
        values={},
        required_sections=("【适用情形】",),
        knowledge=Knowledge(REPO_ROOT / "prompts", tmp_path / "absent.yaml"),
    )
    result = check(context, "依据《合同法》第十条")
    assert {f.code for f in result.findings} == {"citation.repealed", "structure.missing_section"}
