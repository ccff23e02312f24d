"""What the page says is what happened, in a real browser (issue 16): Regenerate after a form
change drafts the new company; a stopped draft's token count is the tokenizer's; the server
counts one request per generation; Chinese renders in a real font; a reviewer has a History;
the app's log is free of warnings."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from app.llm.metrics_parse import E2E, RUNNING, WAITING, scrape
from tests.conftest import acting
from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
    COMPANY_INPUT,
    DRAFT_LENGTH,
    add_user,
    app_context_of,
    button,
    choose_radio,
    example_form,
    generate,
    make_study,
    shot,
    sign_in,
)

pytestmark = pytest.mark.e2e
NEW_COMPANY = "北京新公司有限公司"


def _generations(app: RunningApp, user: str) -> list[Any]:
    """The user's logged generations, newest first, read from the audit log itself."""
    from audit.store import get_generation, search_generations

    with app.session_factory()() as session:
        rows = search_generations(session=session, user_name=user)
        return [get_generation(r.id, session=session) for r in rows]


def _requests_served(app: RunningApp) -> float:
    """Requests the server has finished, once none is running or waiting (a stopped request
    ends on the server at its next decode step, a moment after the page shows it stopped)."""
    deadline = time.monotonic() + 60
    while True:
        snap = scrape(app.env["LEXSPEC_LLM_BASE_URL"])
        assert snap.ok, snap.error
        busy = snap.gauges.get(RUNNING, 0.0) + snap.gauges.get(WAITING, 0.0)
        if busy == 0 or time.monotonic() > deadline:
            return snap.histograms[E2E].count
        time.sleep(0.5)


def _stream_then_stop(
    page: Any, app: RunningApp, name: str, logged: int, *, user: str = "rene"
) -> None:
    """Click the button `name`, wait for streamed text, Stop, and wait until the audit log has
    it."""
    generate(page, name)
    page.get_by_text("生成中…").wait_for(timeout=180_000)  # shown from the first chunk on
    page.wait_for_function(DRAFT_LENGTH + " > 10", timeout=180_000)
    button(page, "停止").click()
    deadline = time.monotonic() + 60
    while len(_generations(app, user)) < logged and time.monotonic() < deadline:
        time.sleep(0.5)
    page.get_by_text("已停止生成，下方保留已生成的部分文本。").wait_for(timeout=60_000)


def test_regenerate_after_a_form_change_drafts_the_new_company(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "rene", "drafter")
    served_before = _requests_served(running_app)
    sign_in(page, running_app, "rene", "起草")
    example_form(page)
    # free-form: one stream per draft, so the stopped draft's tokens are its whole text's
    # (an outline draft's text is mostly the app's own, which the model never generated)
    page.get_by_text("生成参数").click()
    choose_radio(page, "自由生成：一次提示，由模型写出全文")
    _stream_then_stop(page, running_app, "生成", 1)

    company = page.locator(COMPANY_INPUT)
    company.fill(NEW_COMPANY)
    company.press("Enter")
    page.get_by_text("表单已在上一稿生成后修改").wait_for()
    _stream_then_stop(page, running_app, "重新生成", 2)

    newest, first = _generations(running_app, "rene")[:2]
    assert [g.record.params["draft"]["mode"] for g in (first, newest)] == ["free-form"] * 2
    assert NEW_COMPANY in newest.record.user_prompt  # the prompt the model got
    assert newest.record.field_values["company_name"] == NEW_COMPANY
    assert NEW_COMPANY not in first.record.user_prompt
    # one request on the server per logged generation (Stop included)
    assert _requests_served(running_app) - served_before == 2
    # a stopped draft has no usage report: its tokens are the server tokenizer's count
    tokenize = running_app.env["LEXSPEC_LLM_BASE_URL"].removesuffix("/v1") + "/tokenize"
    body = {"prompt": newest.record.output_text, "add_special_tokens": False}
    counted = httpx.post(tokenize, json=body, timeout=30).json()["count"]
    assert newest.record.status == "stopped"
    assert newest.record.completion_tokens == counted
    page.get_by_text("本稿使用的输入").click()
    page.get_by_text(f"公司名称: {NEW_COMPANY}").wait_for()


# '起' and '草' drawn on a canvas: identical pixels mean both fell back to the same empty box
SAME_GLYPH = """() => {
  const draw = (ch) => { const c = document.createElement('canvas'); c.width = 64; c.height = 64;
    const g = c.getContext('2d'); g.font = '48px sans-serif'; g.fillText(ch, 4, 52);
    return Array.from(g.getImageData(0, 0, 64, 64).data).join(','); };
  return draw('起') === draw('草');
}"""


def test_chinese_renders_in_a_real_font_and_reviewers_have_a_history(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "vera", "reviewer")
    sign_in(page, running_app, "vera", "盲评")
    assert page.evaluate(SAME_GLYPH) is False, "no CJK font: install fonts-noto-cjk"
    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_text("你还没有提交过评分。").wait_for()


def test_results_of_a_tiny_study_say_it_is_too_small(running_app: RunningApp, page: Any) -> None:
    from app import database
    from app.studies import service as studies
    from app.studies.domain import VerdictInput

    add_user(running_app, "boss", "admin")
    add_user(running_app, "rita", "reviewer")
    study_id = make_study(running_app)
    ctx = app_context_of(running_app)
    try:
        with ctx.session() as session:
            for pair in studies.reviewer_queue(
                study_id, session=session, actor=acting("rita", session=session)
            ):
                for n, draft in enumerate(pair.drafts):
                    verdict = VerdictInput(3 + 5 * n, 7 - 4 * n, 6, ("第十五条不存在",) * n, "")
                    studies.submit_verdict(
                        draft.token, verdict, session=session, actor=acting("rita", session=session)
                    )
                # the study asks for a preference too (design "both"): results unlock with it
                studies.submit_preference(
                    pair.drafts[0].token,
                    "A",
                    session=session,
                    actor=acting("rita", session=session),
                )
    finally:
        database.reset()
    sign_in(page, running_app, "boss", "起草")
    page.get_by_role("link", name="研究结果").click()
    page.get_by_role("heading", name="研究结果").wait_for()
    page.get_by_text("样本太小，无法下结论").wait_for()
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()  # the means chart
    shot(page, "results.png")


def test_the_app_log_has_no_warnings(running_app: RunningApp) -> None:
    """Runs last in this module: every page the tests opened is in the log by now."""
    log = running_app.log.read_text(encoding="utf-8", errors="replace")
    for noise in ("Traceback", "deprecat", "Session State", "use_container_width"):
        assert noise not in log, log[-3000:]
