"""Work that survives, in a real browser (issue 40 item 3): draft, edit and change the form,
reload the page (F5) and find the form, the draft and the unsaved edits as they were; save,
then open the revision again from History with "Continue editing". Nothing of it is in the URL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
    COMPANY_INPUT,
    EDITOR,
    IDLE,
    add_user,
    button,
    click_taken,
    example_form,
    generate,
    shot,
    shows,
    sign_in,
)

pytestmark = pytest.mark.e2e
ADDED = "三、律师补充\n依据《个人信息保护法》第三十八条办理。"
COMPANY = "杭州续写科技有限公司"
EDITOR_VALUE = f"(document.querySelector('{EDITOR}')?.value ?? '')"


def _kept_state(app: RunningApp, user: str) -> dict[str, Any] | None:
    from audit.workstate import load_state

    with app.session_factory()() as session:
        return load_state(user, session=session)


def _kept_until(app: RunningApp, user: str, value: str) -> dict[str, Any]:
    """The user's kept state once it holds `value` among its widgets: on a busy machine the
    run that keeps the last change can end a moment after the page looks idle."""
    import time

    for _ in range(300):
        kept = _kept_state(app, user)
        if kept is not None and value in kept["widgets"].values():
            return kept
        time.sleep(0.2)
    raise AssertionError(f"the kept state never held {value!r}: {_kept_state(app, user)}")


def test_reload_keeps_the_form_and_the_draft_and_history_reopens_it(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "wendy", "drafter")
    sign_in(page, running_app, "wendy", "起草")
    example_form(page, budget="24")  # a small budget per part: the draft is quick
    generate(page)
    page.wait_for_function(f"{EDITOR_VALUE}.length > 0", timeout=240_000)
    model_text = str(page.get_by_label("草稿（可编辑）").input_value())
    editor = page.get_by_label("草稿（可编辑）")
    editor.fill(model_text.rstrip() + "\n" + ADDED)
    editor.press("Control+Enter")
    page.get_by_text("有未保存的修改。").wait_for()
    company = page.locator(COMPANY_INPUT)
    company.fill(COMPANY)
    company.press("Enter")
    page.get_by_text("表单已在上一稿生成后修改").wait_for()
    page.wait_for_selector(IDLE)  # the run has ended: the state is kept at the end of a run
    kept = _kept_until(running_app, "wendy", COMPANY)  # the server holds the changed form
    assert kept["editor"].endswith(ADDED)

    page.reload()
    page.get_by_role("heading", name="起草").wait_for()
    page.wait_for_function(f"{EDITOR_VALUE}.endsWith({ADDED!r})", timeout=60_000)
    page.wait_for_function(
        f"document.querySelector('{COMPANY_INPUT}')?.value === '{COMPANY}'", timeout=0
    )  # the page's state: pytest's own timeout is the only limit
    page.get_by_text("有未保存的修改。").wait_for()  # the edits are still the unsaved ones
    page.get_by_text("表单已在上一稿生成后修改").wait_for()
    assert COMPANY not in page.url and "三" not in page.url  # nothing of it in the address
    page.locator(EDITOR).scroll_into_view_if_needed()
    shot(page, "draft-restored.png")

    click_taken(page, "保存修订", shows("已保存修订 1"))
    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="修订").wait_for()
    button(page, "继续编辑").click()
    page.get_by_role("heading", name="起草").wait_for()
    page.get_by_text("已从历史记录打开").wait_for()
    page.wait_for_function(f"{EDITOR_VALUE}.endsWith({ADDED!r})", timeout=60_000)
    assert page.get_by_text("有未保存的修改。").count() == 0  # the saved revision, as saved


def test_results_name_every_dimension_and_rank_with_win_rates(
    running_app: RunningApp, page: Any
) -> None:
    """Issue 40 item 8 in the browser: the means chart names every dimension under its bars and
    the ranking table has its strength, interval and win rate filled (one preference for A: an
    arm that won everything, fitted with the weak prior)."""
    from app import database
    from app.studies import service as studies
    from app.studies.domain import VerdictInput
    from tests.conftest import acting
    from tests.e2e.test_app_browser import app_context_of, make_study

    add_user(running_app, "boss", "admin")
    add_user(running_app, "rita", "reviewer")
    study_id = make_study(running_app)
    ctx = app_context_of(running_app)
    try:
        with ctx.session() as session:
            rita = acting("rita", session=session)
            for pair in studies.reviewer_queue(study_id, session=session, actor=rita):
                for n, draft in enumerate(pair.drafts):
                    verdict = VerdictInput(3 + 5 * n, 7 - 4 * n, 6, ("第十五条不存在",) * n, "")
                    studies.submit_verdict(draft.token, verdict, session=session, actor=rita)
                studies.submit_preference(pair.drafts[0].token, "A", session=session, actor=rita)
    finally:
        database.reset()
    sign_in(page, running_app, "boss", "起草")
    page.get_by_role("link", name="研究结果").click()
    page.get_by_role("heading", name="研究结果").wait_for()
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.wait_for()
    page.wait_for_function(  # every dimension's name is drawn on the x axis
        """() => { const t = [...document.querySelectorAll("[data-testid='stVegaLiteChart'] svg text")]
                     .map(e => e.textContent);
                   return ['法条引用准确性', '章节结构完整性', '术语使用规范性', '综合（三项均分）']
                     .every(d => t.includes(d)); }""",
        timeout=60_000,
    )
    # the ranking table (a canvas grid; its cells are also in an accessible table): the win
    # rate and a strength with its interval in every row
    page.wait_for_function(
        """() => { const grid = [...document.querySelectorAll("[data-testid='stDataFrame']")].pop();
                   const heads = [...grid.querySelectorAll('th')].map(e => e.textContent);
                   const rows = [...grid.querySelectorAll('tbody tr')]
                     .map(r => [...r.querySelectorAll('td')].map(e => e.textContent));
                   const col = n => heads.indexOf(n) - (heads.length - rows[0].length);
                   return heads.includes('胜率（平局计半胜）') && rows.length === 2
                     && rows[0][col('胜率（平局计半胜）')] === '100%'
                     && rows.every(r => ['对数强度', '95% CI 下限', '95% CI 上限']
                          .every(n => /^-?[0-9.]+$/.test(r[col(n)]))); }""",
        timeout=60_000,
    )
    page.get_by_text("每两组之间加一场虚拟平局").wait_for()
    shot(page, "results-ranking.png")
