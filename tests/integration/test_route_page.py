"""The route on the Draft page (AppTest, real database) and a filing guide drafted on the real
embedded server with the route and its basis in the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_pages_apptest import app_as, app_env, llm_env, make_user  # noqa: F401
from tests.page_markdown import shown

pytestmark = pytest.mark.integration

GUIDE, CONTRACT = "cross-border-filing-guide", "standard-contract-filing"


def field(doc: str, name: str) -> str:
    return f"draft.field.{doc}.{name}"


def panel_text(at) -> str:  # type: ignore[no-untyped-def]
    parts = [e.value for kind in ("info", "warning", "markdown", "caption") for e in at.get(kind)]
    return "\n".join(shown(str(p)) for p in parts)  # as the reader sees it (unescaped)


def test_the_route_shows_as_soon_as_the_facts_are_filled_in(app_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"))
    assert "此处显示适用的出境路径" in panel_text(at)  # empty form: how to get a route
    at.selectbox(key=field(GUIDE, "is_ciio")).select("否").run()
    at.selectbox(key=field(GUIDE, "important_data")).select("否").run()
    assert "适用路径" not in panel_text(at)  # the count is still missing
    at.text_input(key=field(GUIDE, "individuals_count")).input("1,200,000").run()
    text = panel_text(at)
    assert "适用路径：申报数据出境安全评估" in text
    assert "《促进和规范数据跨境流动规定》第七条第二项" in text
    assert "自由贸易试验区" in text and "注意" not in text  # the guide is for this route
    at.text_input(key=field(GUIDE, "individuals_count")).input("999,999").run()
    assert "适用路径：订立个人信息出境标准合同" in panel_text(at)
    assert any("针对的出境路径与表单事实不符" in w.value for w in at.warning)


def test_a_standard_contract_filing_that_needs_the_assessment_is_warned(app_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"), lang="en")
    at.selectbox(key="draft.doc_type").select(CONTRACT).run()
    at.button(key="draft.fill").click().run()
    assert "Route: standard contract" in panel_text(at)
    assert not at.warning
    at.text_input(key=field(CONTRACT, "sensitive_count")).input("10000").run()
    warnings = [w.value for w in at.warning]
    assert any(
        "written for another route" in w and "CAC security assessment" in w for w in warnings
    )


def test_a_negative_count_is_refused_on_the_panel_and_on_generate(app_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"))
    at.button(key="draft.fill").click().run()
    at.text_input(key=field(GUIDE, "sensitive_count")).input("-5").run()
    assert any("须为非负整数" in w.value for w in at.warning)
    assert "适用路径" not in panel_text(at)
    at.button(key="draft.go").click().run()
    assert "draft.result" not in at.session_state or at.session_state["draft.result"] is None
    assert any("须为非负整数" in e.value for e in at.error)


def test_the_panel_asks_for_the_exempt_part_watches_near_counts_and_quotes_article_7(
    app_env: Path,  # noqa: F811
) -> None:
    """#40 items 2 and 5: HR exemption with 150,000 customers: the rest is counted and the part
    asked for; 9,999 sensitive individuals: to be monitored; 规定第七条、第八条第二款 in full."""
    at = app_as(make_user("alice", "drafter"))
    at.button(key="draft.fill").click().run()
    at.text_input(key=field(GUIDE, "individuals_count")).input("150000").run()
    at.text_input(key=field(GUIDE, "sensitive_count")).input("0").run()
    at.selectbox(key=field(GUIDE, "exemption")).select("依法实施跨境人力资源管理").run()
    text = panel_text(at)
    assert "适用路径：订立个人信息出境标准合同" in text and "人数不论多少" not in text
    assert "请填写属于该情形的人数" in text
    assert "属于本规定第三条、第四条、第五条、第六条规定情形的，从其规定。" in text
    assert "未能从公开来源读到" not in text
    at.text_input(key=field(GUIDE, "exempt_individuals")).input("200000").run()
    assert any("不能大于" in w.value for w in at.warning)
    at.text_input(key=field(GUIDE, "exempt_individuals")).input("5000").run()
    assert "145,000人" in panel_text(at)
    at.selectbox(key=field(GUIDE, "exemption")).select("无").run()
    at.text_input(key=field(GUIDE, "exempt_individuals")).input("").run()
    at.text_input(key=field(GUIDE, "individuals_count")).input("50000").run()
    at.text_input(key=field(GUIDE, "sensitive_count")).input("9999").run()
    watch = [w.value for w in at.warning if "持续监测" in w.value]
    assert len(watch) == 1 and "差额为1" in watch[0] and "自当年1月1日起累计计算" in watch[0]


def test_a_filing_guide_drafted_on_the_server_has_the_route_in_its_prompt(llm_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"))
    at.button(key="draft.fill").click().run()
    assert "适用路径：申报数据出境安全评估" in panel_text(at)
    at.number_input(key=f"draft.max_tokens.{GUIDE}").set_value(48).run()
    at.button(key="draft.go").click().run(timeout=180)
    assert not at.exception
    result = at.session_state["draft.result"]
    assert result.status in ("complete", "truncated"), result.error  # outline parts are short
    user = result.context.prompt.user  # the outline's shared facts, sent with every part
    assert "出境路径（已依上述事实判定，必须以此为准" in user
    assert "申报数据出境安全评估" in user and "第七条第二项" in user
    # the app writes the route, its basis and the reason (with the form's count) into the draft
    assert "出境路径：申报数据出境安全评估" in result.text
    assert "判定理由：" in result.text and "1,200,000人" in result.text
    assert result.generation_id is not None
