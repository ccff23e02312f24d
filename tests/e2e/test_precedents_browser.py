"""The firm's clause library in a real browser (issue 23 item 6): a drafter drafts the filing
guide from its outline, rewrites the "是否需要申报" part, saves the revision and, on History,
proposes the part as a firm clause (the form's count shown turned into a placeholder, the
clause library's checks passed); an admin approves it in the same place; the drafter's next
draft of the type shows the firm clause as that part's source."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
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

BUDGET = "16"  # tokens per part (the page's smallest): the app writes the structure anyway
FINISHED = re.compile(r"状态：(已完成|已截断)")
PART = "五、是否需要申报"
NEXT = "【材料清单】"
# the lawyer's own paragraph for the part: the form's count (1200000) and an added sentence
LAWYER = (
    "贵公司自当年1月1日起累计向境外提供1200000人个人信息（不含敏感个人信息），已达到"
    "《促进和规范数据跨境流动规定》第七条规定的100万人以上个人信息的申报标准，应当通过所在地"
    "省级网信部门向国家网信部门申报数据出境安全评估。本所建议在申报前完成风险自评估。"
)
CLAUSE = "firm.why-route"


def _draft_filing_guide(page: Any) -> str:
    """An outline draft of the filing guide with the example facts and the smallest budget,
    waited on the page's own state; returns the text in the editor."""
    example_form(page, BUDGET)
    # the page may show the user's last draft again (kept across sign-ins): wait for a new one,
    # told by its audit record's number
    shown = "document.body.innerText.match(/状态：(已完成|已截断|已停止|出错)[^\\n]*审计记录编号：(\\S+)/)"
    before = page.evaluate(f"(() => {{ const m = {shown}; return m ? m[2] : ''; }})()")
    generate(page)
    refused = "document.body.innerText.includes('请先修正标出的字段。')"
    page.wait_for_function(
        f"(before) => {{ const m = {shown}; return {refused} || (m !== null && m[2] !== before); }}",
        arg=before,
        timeout=0,  # pytest's own timeout is the limit
    )
    assert not page.evaluate(refused), page.locator("body").inner_text()  # the form was refused
    assert page.get_by_text(FINISHED).count(), page.locator("body").inner_text()
    page.wait_for_selector(IDLE)  # the rerun has ended: the old draft's editor is gone
    return str(page.get_by_label("草稿（可编辑）").input_value())


def _rewrite_part(text: str) -> str:
    """The draft with the part's paragraphs replaced by the lawyer's."""
    lines = text.splitlines()
    start, end = lines.index(PART), lines.index(NEXT)
    assert start < end, text
    return "\n".join([*lines[: start + 1], LAWYER, *lines[end:]])


def _proposals(page: Any, kind: str) -> None:
    """History, the newest generation's newest revision, its "propose as firm clauses" part
    with the why-route part as a clause of the given kind."""
    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_role("heading", name="修订").wait_for()
    page.get_by_text("作为先例提议条款").click()
    page.get_by_text(f"部分 {PART} → 条款 {CLAUSE}（{kind}）").wait_for()


def _sign_out(page: Any) -> None:
    button(page, "退出登录").click()
    page.get_by_label("用户名").wait_for()


def test_propose_approve_and_draft_from_a_firm_clause(running_app: RunningApp, page: Any) -> None:
    add_user(running_app, "petra", "drafter")
    add_user(running_app, "ada", "admin")

    # the drafter drafts, rewrites the part and saves the revision
    sign_in(page, running_app, "petra", "起草")
    first = _draft_filing_guide(page)
    editor = page.get_by_label("草稿（可编辑）")
    editor.fill(_rewrite_part(first))
    editor.press("Control+Enter")
    page.get_by_text("有未保存的修改。").wait_for()
    click_taken(page, "保存修订", shows("已保存修订 1"))

    # on History: the part as a clause, the form's count as a placeholder, the checks passed
    _proposals(page, "新条款")
    generalized = LAWYER.replace("1200000", "{{ individuals_count }}")
    code = page.locator("[data-testid='stCode']").filter(has_text="本所建议在申报前完成风险自评估")
    code.first.wait_for()
    assert code.first.inner_text().strip() == generalized
    page.get_by_text("已换成占位符：1200000 → {{ individuals_count }}").wait_for()
    page.get_by_text("通过条款库检查（条文存在、数字见于所引条文、占位符已知）。").wait_for()
    # a drafter cannot approve
    assert button(page, "批准", exact=True).count() == 0
    propose = button(page, "提议为本所条款")
    propose.scroll_into_view_if_needed()  # the whole expander in view, the redline above it
    shot(page, "precedents.png")
    click_taken(page, "提议为本所条款", shows("已提议 #1，待管理员批准。"), exact=False)
    _sign_out(page)

    # the admin approves it in the same place
    sign_in(page, running_app, "ada", "起草")
    _proposals(page, "已提议，待批准")  # the part proposed, not offered again under a new id
    page.get_by_text("本修订稿的这一部分已提议为 #1，不再重复提议。").wait_for()
    assert button(page, "提议为本所条款").count() == 0
    page.get_by_text(f"#1 {CLAUSE}（why-route）提议人 petra").wait_for()
    # the same proposal is listed twice for the admin: waiting at the top of History, and
    # under the revision it came from; either button approves it
    click_taken(page, "批准", shows(f"已批准：{CLAUSE} 第 1 版。"), first=True)
    _sign_out(page)

    # the drafter's next draft of the type takes that part from the firm clause
    sign_in(page, running_app, "petra", "起草")
    _draft_filing_guide(page)
    sources = page.get_by_text(re.compile(r"各部分来源："))
    sources.first.wait_for()
    label = PART.split("、")[0]  # the part's number (五)
    assert re.search(rf"{label}、〔(条款|改写|由审定条款替代)〕", sources.first.inner_text())
    page.get_by_text("详情（条款编号与生成防护记录）").first.click()  # the ids are behind it
    details = page.get_by_text(re.compile(r"^条款："))
    details.first.wait_for()
    assert re.search(rf"{label}、 {re.escape(CLAUSE)} v1", details.first.inner_text())


def test_the_app_log_has_no_warnings(running_app: RunningApp) -> None:
    """Runs last in this module: every page the test opened is in the log by now."""
    log = running_app.log.read_text(encoding="utf-8", errors="replace")
    for noise in ("Traceback", "deprecat", "Session State", "use_container_width"):
        assert noise not in log, log[-3000:]
