"""A drafter drafts the filing guide from its outline in a real browser: the three required
sections are there, numbered by the app, whatever the small model writes."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
    add_user,
    example_form,
    generate,
    record_lines,
    recorded,
    shot,
    sign_in,
)

pytestmark = pytest.mark.e2e


BUDGET = "16"  # tokens per part (the page's smallest): the app writes the structure anyway
FINISHED = re.compile(r"状态：(已完成|已截断)")
ENDED = re.compile(r"状态：(已完成|已截断|已停止|出错)")  # any end: a failure says why at once


def test_filing_guide_from_its_outline(running_app: RunningApp, page: Any) -> None:
    """Drafted with the smallest budget, and waited on the page's own state (the part it is on,
    then the finished status), never on a clock: however busy the machine, it ends when the
    draft does (pytest's own timeout is the only limit)."""
    add_user(running_app, "olivia", "drafter")
    sign_in(page, running_app, "olivia", "起草")
    example_form(page, BUDGET)
    record_lines(page, r"第 \d+/\d+ 部分 【[^】]+】")
    generate(page)
    page.get_by_text(ENDED).first.wait_for(timeout=0)
    # while it streamed, the page said which part it was on (computing its prompt, writing it)
    assert any("【适用情形】" in line for line in recorded(page)), recorded(page)
    assert page.get_by_text(FINISHED).count(), page.locator("body").inner_text()

    text = page.get_by_label("草稿（可编辑）").input_value()
    headings = [line for line in text.splitlines() if line.startswith("【")]
    assert headings == ["【适用情形】", "【逐项填写指引】", "【材料清单】", "【常见错误】"]
    assert "一、基本情况" in text
    assert re.search(
        r"\n（[一二三四五六七八九十]+）自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数：1200000\n",
        text,
    )
    assert "《数据出境安全评估办法》第四条" in text
    # every part carries a marker saying where it came from
    page.get_by_text(re.compile(r"各部分来源：.*一、〔系统〕")).first.wait_for(timeout=0)
    shot(page, "draft-outline.png")

    # the same guide under the standard-contract route: the guide says the assessment is not
    # required and which document applies, and lists no assessment materials
    count = page.locator(
        'input[aria-label="自当年1月1日起累计出境个人信息（不含敏感个人信息）涉及人数 *"]'
    )
    count.fill("150000")
    count.press("Tab")
    sensitive = page.locator('input[aria-label="自当年1月1日起累计出境敏感个人信息涉及人数"]')
    sensitive.fill("0")
    sensitive.press("Tab")
    generate(page)
    page.wait_for_function(
        "[...document.querySelectorAll('textarea')].some(t => t.value.includes('不需要申报数据出境安全评估'))",
        timeout=0,  # the page's state, not a clock: pytest's own timeout is the only limit
    )
    second = page.evaluate(  # the new draft's editor (the old one may linger while rerunning)
        "[...document.querySelectorAll('textarea')].map(t => t.value)"
        ".find(v => v.includes('不需要申报数据出境安全评估'))"
    )
    assert "备案材料（标准合同路径）" in second and "应当适用的文书" in second
    assert "申报书" not in second and "数据出境风险自评估报告" not in second
    assert [ln for ln in second.splitlines() if ln.startswith("【")] == headings
