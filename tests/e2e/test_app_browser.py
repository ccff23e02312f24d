"""The app in a real browser: a drafter streams and stops a draft; a reviewer scores a
blinded draft and says which of the pair they would send to the client; an admin watches the
Monitor page.

Screenshots are taken when LEXSPEC_SCREENSHOT_DIR is set, into it (`make screenshots` writes
the ones in docs/images/); `make test` takes none (each waited a second for the page to paint
and encoded the whole page)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.context import Context
from tests.conftest import acting
from tests.e2e.conftest import PASSWORD, RunningApp
from tests.servers import REPO

pytestmark = pytest.mark.e2e
SCREENSHOTS = os.environ.get("LEXSPEC_SCREENSHOT_DIR")
FLAWED_GUIDE = REPO / "tests" / "unit" / "validation_fixtures" / "guide_flawed.md"
DRAFT_LENGTH = "(() => { const e = document.querySelector('.lx-draft'); return e ? e.innerText.length : 0; })()"


STOPPED = "已停止生成，下方保留已生成的部分文本。"
EDITOR = 'textarea[aria-label="草稿（可编辑）"]'


def stopped_text(page: Any) -> str:
    """After Stop: wait for the page to say so and for its editor to hold the kept text (the
    message is drawn before the editor; reading at once can catch the editor not yet filled)."""
    page.get_by_text(STOPPED).wait_for(timeout=60_000)
    page.wait_for_function(f"(document.querySelector('{EDITOR}')?.value ?? '').length > 0")
    return str(page.get_by_label("草稿（可编辑）").input_value())


IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# An element the current run has drawn: during a rerun Streamlit keeps the previous run's
# elements on the page, marked stale, until the run replaces or removes them.
CURRENT = '[data-testid="stElementContainer"]:not([data-stale="true"])'
COMPANY_INPUT = 'input[aria-label="公司名称 *"]'
# the page's result captions (状态：…；审计记录编号：…), joined
CAPTIONS = "(document.body.innerText.match(/状态：[^\\n]*审计记录编号：[^\\n]*/g) || []).join('|')"
# What the page shows once it has taken a drafting click: the Stop button (its text follows its
# icon's name), the form's field errors, or result captions other than those before the click
# (a new draft, or none while the next one is prepared).
TAKEN = f"""(before) => {{
  if ([...document.querySelectorAll('button')].some(b => b.innerText.trim().endsWith('停止'))) return true;
  if (document.body.innerText.includes('请先修正标出的字段。')) return true;
  return {CAPTIONS} !== before;
}}"""


def button(page: Any, name: str, *, exact: bool | None = None) -> Any:
    """The button `name` that the current run drew (CURRENT): the previous run's, kept stale
    beside it during a rerun, is not counted (a strict-mode error, or a click on a button that
    is about to go)."""
    return page.locator(CURRENT).get_by_role("button", name=name, exact=exact)


def generate(page: Any, name: str = "生成") -> None:
    """Click a drafting button and wait until the page has taken the click (`click_taken`)."""
    page.wait_for_selector(IDLE)
    click_taken(page, name, TAKEN, page.evaluate(CAPTIONS))


def click_taken(
    page: Any,
    name: str,
    taken: str,
    arg: object = None,
    *,
    exact: bool = True,
    first: bool = False,
) -> None:
    """Click the button `name` once the app's script run has ended (Streamlit marks it on stApp)
    and wait until the page has taken the click (`taken`, a JavaScript predicate of `arg`). A click
    that lands while the page is being redrawn can be lost in the browser (seen in CI: the page
    then shows nothing new and the test waits on); such a click is made once more. `exact`:
    the button's whole name (生成, not 重新生成), else a part of it (after its icon's). `first`:
    the first of several buttons of that name (the page's topmost). A run can begin just after
    the page looked idle (one that a widget's change started): `button` counts only the new one
    (seen in CI: two 生成 buttons)."""
    for attempt in range(2):
        page.wait_for_selector(IDLE)
        buttons = button(page, name, exact=exact)
        (buttons.first if first else buttons).click()
        try:
            page.wait_for_function(taken, arg=arg, timeout=60_000)
            return
        except PlaywrightTimeout:  # the page never took the click (it is printed on failure)
            if attempt:
                raise AssertionError(f"the page did not take the click on {name}") from None


def shows(text: str) -> str:
    """A `click_taken` predicate: the page shows `text`."""
    return f"() => document.body.innerText.includes({json.dumps(text)})"


def record_lines(page: Any, pattern: str) -> None:
    """Keep, in the page, every text matching the JavaScript regex `pattern` that appears from
    now on (a MutationObserver): a line shown only while a part streams can be gone before a
    wait would see it. `recorded` reads them back."""
    page.evaluate(
        """(source) => {
          const re = new RegExp(source, 'g'), seen = (window.__recorded = window.__recorded || []);
          const take = () => { for (const m of document.body.innerText.match(re) || [])
            if (!seen.includes(m)) seen.push(m); };
          take();
          new MutationObserver(take).observe(document.body,
            {subtree: true, childList: true, characterData: true});
        }""",
        pattern,
    )


def recorded(page: Any) -> list[str]:
    return list(page.evaluate("window.__recorded || []"))


def example_form(page: Any, budget: str | None = None) -> None:
    """The form filled with the type's example values and, with `budget`, the token budget
    (per part, for an outline draft) set, each waited on in the page."""
    button(page, "填入示例").click()
    page.wait_for_function(f"document.querySelector('{COMPANY_INPUT}')?.value.length > 0")
    # the example's run must end before another widget changes: a change while it runs
    # interrupts it, and the form was then drafted with most example values gone (seen in a
    # fresh-clone run: every required field but the company's reported empty)
    page.wait_for_selector(IDLE)
    if budget is None:
        return
    page.get_by_text("生成参数").click()
    field = page.get_by_label("最大生成长度（token）")
    field.fill(budget)
    field.press("Enter")
    page.wait_for_function(
        f"document.querySelector('input[aria-label=\"最大生成长度（token）\"]')?.value === '{budget}'"
    )
    page.wait_for_selector(IDLE)


def add_user(app: RunningApp, name: str, role: str) -> None:
    from audit.users import create_user

    with app.session_factory().begin() as session:  # as an admin would, with the app's key
        create_user(name, role, PASSWORD, session=session)


def sign_in(page: Any, app: RunningApp, name: str, heading: str) -> None:
    page.goto(app.url)
    page.get_by_label("用户名").fill(name)
    page.get_by_label("密码").fill(PASSWORD)
    button(page, "登录").click()
    page.get_by_role("heading", name=heading).wait_for()


def choose_radio(page: Any, label: str) -> None:
    """Click a radio option by its label until the browser shows it checked.

    The locator is looked up afresh on each try: Streamlit may redraw the radio group while a
    rerun is under way, and a click that lands on the old element, or during that redraw, can
    be lost (a fresh-clone CI run once drafted in the default mode after such a click)."""
    from playwright.sync_api import expect

    radio = page.get_by_role("radio", name=label, exact=True)
    for _ in range(4):
        page.get_by_text(label, exact=True).click()
        try:
            expect(radio).to_be_checked(timeout=10_000)
            return
        except AssertionError:
            continue
    expect(radio).to_be_checked()


def shot(page: Any, name: str, *, top: bool = False) -> None:
    """The page as `name` in LEXSPEC_SCREENSHOT_DIR (nothing when it is not set)."""
    if not SCREENSHOTS:
        return
    images = Path(SCREENSHOTS)
    images.mkdir(parents=True, exist_ok=True)
    if top:
        page.evaluate("document.querySelectorAll('*').forEach(e => { e.scrollTop = 0; })")
    time.sleep(1.0)  # let the last delta paint
    page.screenshot(path=str(images / name), full_page=True)
    assert (images / name).stat().st_size > 10_000, name  # a page, not a blank


def test_drafter_streams_a_draft_and_stops_it(running_app: RunningApp, page: Any) -> None:
    add_user(running_app, "alice", "drafter")
    sign_in(page, running_app, "alice", "起草")
    button(page, "填入示例").click()
    page.get_by_label("公司名称 *").wait_for()
    page.wait_for_function(
        "document.querySelector('input[aria-label=\"公司名称 *\"]')?.value.length > 0"
    )
    generate(page)

    page.wait_for_function(DRAFT_LENGTH + " > 10", timeout=120_000)
    first = page.evaluate(DRAFT_LENGTH)
    page.wait_for_function(f"{DRAFT_LENGTH} > {first}", timeout=60_000)
    second = page.evaluate(DRAFT_LENGTH)
    assert second > first  # the text streams in
    page.wait_for_function(f"{DRAFT_LENGTH} > 120", timeout=60_000)  # enough for the screenshot
    button(page, "停止").click()

    partial = stopped_text(page)
    assert len(partial) >= first
    button(page, "下载 DOCX（含批注）").wait_for()
    assert page.locator(".lx-draft").count() == 1  # the highlighted text, findings beside it

    # the lawyer rewrites the draft: the checks follow the edited text
    editor = page.get_by_label("草稿（可编辑）")
    editor.fill(FLAWED_GUIDE.read_text(encoding="utf-8"))
    editor.press("Control+Enter")
    page.get_by_text("已于2021-01-01废止").first.wait_for(timeout=60_000)
    page.locator(".lx-draft mark").first.wait_for()
    assert page.locator(".lx-draft mark").count() >= 5  # each finding highlighted in place
    page.get_by_text("检查结果标注").scroll_into_view_if_needed()
    shot(page, "draft.png")

    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_role("heading", name="· 已停止").wait_for()


def app_context_of(app: RunningApp) -> Context:
    """An acting context on the running app's installation: its data directory, its database
    and its model server."""
    from app.config import Settings
    from app.context import Context

    env = app.env
    return Context(
        Settings(
            data_dir=env["LEXSPEC_DATA_DIR"],
            database_url=env["LEXSPEC_DATABASE_URL"],
            llm_base_url=env["LEXSPEC_LLM_BASE_URL"],
        )
    )


def make_study(app: RunningApp) -> int:
    """A one-case study drafted by both arms through app.studies.service (tiny max_tokens), asking
    for scores and a preference."""
    from app import database
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies.domain import ArmSpec, StudySpec

    ctx = app_context_of(app)
    try:
        settings = ctx.settings
        doc = load_library(settings.prompts_dir).types["cross-border-filing-guide"]
        arms = (
            ArmSpec("ARM-SPEC-X", "embedded", {"max_tokens": 24}),
            ArmSpec("ARM-PLAIN-Y", "embedded", {"max_tokens": 24, "temperature": 0.0}),
        )
        cases = (doc.example_values(),)
        spec = StudySpec("e2e pilot", doc.id, cases, arms, ("rita",), design="both")
        with ctx.session() as session:
            study = studies.create_study(
                spec, session=session, settings=settings, actor=acting("boss", session=session)
            )
        progress = studies.generate_items(
            study.id,
            session_factory=ctx.session_factory,
            settings=settings,
            actor=acting("boss", factory=ctx.session_factory),
        )
        with ctx.session() as session:
            errors = [i.error for i in studies.list_items(study.id, session=session,
                      actor=acting("boss", session=session)) if i.error]  # fmt: skip
        assert progress.done == progress.total == 2, errors
        return int(study.id)
    finally:
        database.reset()


def test_reviewer_scores_a_draft_and_progress_moves(running_app: RunningApp, page: Any) -> None:
    add_user(running_app, "boss", "admin")
    add_user(running_app, "rita", "reviewer")
    from playwright.sync_api import expect

    make_study(running_app)
    sign_in(page, running_app, "rita", "盲评")
    page.get_by_text("进度：已完成 0 / 3 项评审").wait_for()  # two drafts to score, one choice
    html = page.content()
    llm_address = running_app.env["LEXSPEC_LLM_BASE_URL"].removesuffix("/v1")
    for leak in ("ARM-SPEC-X", "ARM-PLAIN-Y", "embedded", "SmolLM", llm_address, "max_tokens"):
        assert leak not in html, leak
    page.get_by_label("硬性错误（每行一条）").first.fill("引用了已废止的《合同法》")
    page.get_by_label("评语").first.fill("结构基本完整。")
    button(page, "提交评分").first.click()
    page.get_by_text("已提交。").wait_for()
    page.get_by_text("进度：已完成 1 / 3 项评审").wait_for()
    group = page.get_by_role("radiogroup", name="哪一份您会发给客户？")
    group.get_by_text("草稿 B", exact=True).click()
    expect(group.get_by_role("radio", name="草稿 B", exact=True)).to_be_checked()
    button(page, "提交选择").click()
    page.get_by_text("已记录您的选择。").wait_for()
    page.get_by_text("进度：已完成 2 / 3 项评审").wait_for()
    shot(page, "review.png", top=True)


PASSAGE = (
    "Article 4. A data handler shall declare a security assessment for outbound data transfer "
    "to the national cybersecurity and informatization department through the provincial "
    "department where it provides important data abroad, or where it is a critical "
    "information infrastructure operator providing personal information abroad."
)


def _load(base_url: str, done: threading.Event) -> None:
    """Keep the LLM server busy with streamed requests, as a lawyer drafting would, until
    `done` is set."""
    model = httpx.get(f"{base_url}/models", timeout=10).json()["data"][0]["id"]
    body = {
        "model": model,
        "stream": True,
        "max_tokens": 96,
        "messages": [{"role": "user", "content": f"Repeat this text exactly:\n{PASSAGE}"}],
    }
    while not done.is_set():
        with httpx.stream("POST", f"{base_url}/chat/completions", json=body, timeout=60) as resp:
            resp.raise_for_status()
            for _ in resp.iter_lines():
                pass


COMPLETED = r"/已完成 (\d+) 个请求/"  # the monitor's caption: requests finished since the start


def _requests_done(page: Any) -> int:
    """The finished requests the monitor's caption counts (it shows them after a scrape)."""
    page.wait_for_function(f"() => {COMPLETED}.test(document.body.innerText)")
    return int(page.evaluate(f"() => document.body.innerText.match({COMPLETED})[1]"))


def test_admin_sees_the_monitor(running_app: RunningApp, page: Any) -> None:
    add_user(running_app, "mona", "admin")
    sign_in(page, running_app, "mona", "起草")
    done = threading.Event()
    load = threading.Thread(target=_load, args=(running_app.env["LEXSPEC_LLM_BASE_URL"], done))
    load.start()
    try:
        page.get_by_role("link", name="服务监控").click()
        page.get_by_role("heading", name="服务监控").wait_for()
        page.get_by_text("草稿接受率").first.wait_for()
        # the page scrapes every 5 s: wait until it has counted two more finished requests of the
        # load and drawn the charts (two scrapes or more), the page's state rather than a clock
        first = _requests_done(page)
        page.wait_for_function(
            f"""() => {{
              const m = document.body.innerText.match({COMPLETED});
              return m && Number(m[1]) >= {first + 2}
                && document.body.innerText.includes('运行中与排队的请求');
            }}""",
            timeout=120_000,
        )
    finally:
        done.set()
        load.join()
    assert page.get_by_text("无法抓取指标").count() == 0
    shot(page, "monitor.png")
