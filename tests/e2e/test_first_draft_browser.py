"""The first draft on a fresh `lexspec run`, in a real browser (issue 40): the model is measured
in the background (on a small budget here), the Draft page says how it writes meanwhile and
why, the first draft assembles the vetted clauses at once and says complete; the Monitor page's
line says what was measured once it was; the page's language is the UI's and Streamlit's
English key hint is not shown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.ops import process
from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import COMPANY_INPUT, add_user, button, example_form, generate, shot
from tests.e2e.test_app_browser import sign_in as sign_in_as
from tests.servers import free_port, output_until, start_fresh_run

pytestmark = pytest.mark.e2e
COMPLETE = "状态：已完成"


@pytest.fixture(scope="module")
def fresh_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    """`lexspec run` on a new installation: its own data directory, database, embedded server
    and app; the writing mode left to measurement, measured with 16 tokens a part."""
    data = tmp_path_factory.mktemp("fresh-run")
    database_url = f"sqlite:///{data / 'lexspec.db'}"
    app_port, server_port = free_port(), free_port()
    log = data / "run.log"
    proc, env = start_fresh_run(data, database_url, app_port, server_port, log, LEXSPEC_LANG="zh",
                          LEXSPEC_WRITING_MEASURE_MAX_TOKENS="16")  # fmt: skip
    try:
        output_until(log, "LexSpec app:", proc)
        url = f"http://127.0.0.1:{app_port}"
        process.wait_healthy(f"{url}/_stcore/health", proc, accept="ok")
        served = {**env, "LEXSPEC_LLM_BASE_URL": f"http://127.0.0.1:{server_port}/v1"}
        yield RunningApp(url, database_url, served, log)
    finally:
        process.stop([proc])


def test_the_first_draft_arrives_assembled_and_complete(fresh_run: RunningApp, page: Any) -> None:
    add_user(fresh_run, "ada", "drafter")
    sign_in_as(page, fresh_run, "ada", "起草")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    banner = page.get_by_text("写作方式：直接采用审定条款").first
    banner.wait_for()
    said = banner.inner_text()
    assert ("测量" in said and "不等待模型" in said) or "依" in said, said
    example_form(page)
    page.locator(COMPANY_INPUT).focus()  # Streamlit's English "Press Enter to apply" stays hidden
    page.locator(COMPANY_INPUT).press("End")
    page.locator(COMPANY_INPUT).type("。")
    hints = page.locator('[data-testid="InputInstructions"]')
    assert all(not hints.nth(i).is_visible() for i in range(hints.count()))
    page.locator(COMPANY_INPUT).press("Backspace")
    generate(page)
    page.get_by_text(COMPLETE).first.wait_for(timeout=180_000)
    body = page.locator("body").inner_text()
    assert "生成完成。" in body and "已截断" not in body
    for code in ("(adapt)", "assemble", "lexspec doctor", "outline.yaml", "finish_reason"):
        assert code not in body, code
    page.get_by_text(COMPLETE).first.scroll_into_view_if_needed()  # the result in the picture
    shot(page, "first-draft.png")


def test_the_monitor_says_what_was_measured(fresh_run: RunningApp, page: Any) -> None:
    add_user(fresh_run, "mo", "admin")
    sign_in_as(page, fresh_run, "mo", "起草")
    page.get_by_role("link", name="服务监控").click()
    page.get_by_role("heading", name="服务监控").wait_for()
    measure = button(page, "测量写作质量").or_(button(page, "重新测量"))
    measure.first.click()
    page.get_by_text("测量详情").first.wait_for(timeout=900_000)  # the measurement ended
    line = page.get_by_text("的测量：改写的部分有").first
    line.wait_for()
    assert "还没有测量" not in page.locator("body").inner_text()
    shot(page, "monitor-writing.png", top=True)
