"""A drafter drafts the filing guide from its outline in a real browser: the three required
sections are there, numbered by the app, whatever the small model writes."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import add_user, shot, sign_in

pytestmark = pytest.mark.e2e


BUDGET = "16"  # tokens per part (the page's smallest): the app writes the structure anyway
FINISHED = re.compile(r"状态：(已完成|已截断)")


def test_filing_guide_from_its_outline(running_app: RunningApp, page: Any) -> None:
    """Drafted with the smallest budget, and waited on the page's own state (the part it is on,
    then the finished status), never on a clock: however busy the machine, it ends when the
    draft does (pytest's own timeout is the only limit)."""
    add_user(running_app, "olivia", "drafter")
    sign_in(page, running_app, "olivia", "起草")
    page.get_by_role("button", name="填入示例").click()
    page.wait_for_function(
        "document.querySelector('input[aria-label=\"公司名称 *\"]').value.length > 0"
    )
    page.get_by_text("生成参数").click()
    budget = page.get_by_label("最大生成长度（token）")
    budget.fill(BUDGET)
    budget.press("Enter")
    page.wait_for_function(
        f"document.querySelector('input[aria-label=\"最大生成长度（token）\"]').value === '{BUDGET}'"
    )
    page.get_by_role("button", name="生成", exact=True).click()
    # the page says which part it is on (computing its prompt, then writing it)
    page.get_by_text(re.compile(r"第 \d+/\d+ 部分 【适用情形】")).first.wait_for(timeout=0)
    page.get_by_text(FINISHED).first.wait_for(timeout=0)

    text = page.get_by_label("草稿（可编辑）").input_value()
    headings = [line for line in text.splitlines() if line.startswith("【")]
    assert headings == ["【适用情形】", "【材料清单】", "【常见错误】"]
    assert (
        "一、基本情况" in text
        and "（五）自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数：1200000" in text
    )
    assert "《数据出境安全评估办法》第四条" in text
    shot(page, "draft-outline.png")
