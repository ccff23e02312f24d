"""Matters in a real browser: a drafter opens a matter, sees the route and the reports it needs,
drafts the self-assessment report from its facts (the Draft page opens on the type with the
form filled and the matter chosen), and edits a fact: a new version, and the report's filing
date more than 3 months after its assessment is flagged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.config import REPO_ROOT
from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import add_user, button, click_taken, shot, shows, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def llm_base_url() -> str:
    """Matters need no model: the app runs against an address nobody listens on (the shared
    fixture would start an embedded server this module never calls)."""
    return "http://127.0.0.1:9/v1"


FACTS = {
    "company_name": "上海明川跨境电子商务有限公司",
    "industry": "电子商务",
    "is_ciio": "否",
    "important_data": "否",
    "data_categories": "姓名、手机号码、收货地址、订单记录",
    "individuals_count": "1200000",
    "sensitive_count": "8000",
    "exemption": "无",
    "recipient": "Mingchuan Global Pte. Ltd.（新加坡）",
    "purpose": "由新加坡关联公司统一处理跨境订单履约与售后客服",
    "filing_date": "2025-03-15",
    "assessment_start": "2025-01-06",
    "assessment_end": "2025-02-28",
}


def _matter(app: RunningApp, user: str) -> None:
    """The matter, saved as the page would (the service, as the drafter)."""
    from app.matters import service
    from app.prompts import load_library
    from audit.domain import User

    actor = User(id=1, name=user, role="drafter", must_change_password=False,
                 created_at=datetime.now(UTC))  # fmt: skip
    with app.session_factory()() as session:
        service.create_matter("MC-2025-017", client="上海明川跨境电子商务有限公司",
                              title="跨境订单数据出境", facts=FACTS,
                              types=load_library(REPO_ROOT / "prompts").types, session=session,
                              actor=actor)  # fmt: skip
        session.commit()


def test_a_report_is_drafted_from_the_matter_and_a_fact_is_changed(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "mei", "drafter")
    _matter(running_app, "mei")
    sign_in(page, running_app, "mei", "起草")
    page.get_by_role("link", name="案件").click()
    page.get_by_role("heading", name="案件").wait_for()
    page.get_by_text("MC-2025-017 · 上海明川跨境电子商务有限公司").wait_for()
    page.get_by_text("出境路径：申报数据出境安全评估").wait_for()
    page.get_by_text(
        "个人信息保护影响评估报告 · 应留存（不申报）"
    ).wait_for()  # the list's last line
    body = page.locator("body").inner_text()
    assert "数据出境风险自评估报告 · 申报／备案材料" in body
    shot(page, "matters.png", top=True)

    # draft the self-assessment report from the matter: the Draft page opens filled
    button(page, "起草").first.click()
    page.get_by_role("heading", name="起草").wait_for()
    page.get_by_text("按案件 MC-2025-017（第1版").wait_for()
    page.wait_for_function(
        "document.querySelector('input[aria-label=\"数据处理者名称 *\"]')?.value"
        " === '上海明川跨境电子商务有限公司'"
    )
    count = page.get_by_label("自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数 *")
    assert count.input_value() == "1200000"
    assert page.get_by_label("案号 / 项目编号").input_value() == "MC-2025-017"

    # back on the matter: a later filing date is saved as version 2 and flagged
    page.get_by_role("link", name="案件").click()
    page.get_by_text("修改案件事实（保存为新版本）").click()
    field = page.get_by_label("拟申报日期").last  # the edit form (the new-matter form is folded)
    field.fill("2025-06-30")
    field.press("Enter")
    click_taken(page, "保存为新版本", shows("第2版"))
    page.get_by_text("起3个月").first.wait_for()
