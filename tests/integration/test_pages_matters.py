"""The matter page and the matter on the Draft page, driven headlessly with AppTest against a
real database (temp SQLite): a matter created from the page, its route and the reports it
needs, a facts edit saved as a new version, the Draft page filled from the matter's facts,
and the 3-month warning of the filing templates."""

from __future__ import annotations

import pytest

from app.domain import MatterRef
from tests.conftest import app_context, app_session
from tests.integration.test_matters_store import FACTS  # the matter's facts, one copy
from tests.integration.test_pages_apptest import app_as, make_user, page_as
from tests.integration.test_pages_apptest import app_env as app_env  # the fixture
from tests.page_markdown import shown

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]


def _matters_page() -> None:
    from app.pages import matters

    matters.render()


def _create(user: object, **changes: str) -> None:
    from app.matters import service

    with app_session() as session:
        service.create_matter("MC-2025-017", client="明川", title="跨境订单",
                              facts={**FACTS, **changes}, types=app_context().knowledge.types,
                              session=session, actor=user)  # type: ignore[arg-type]  # fmt: skip


def test_a_matter_is_created_and_its_route_decides_the_reports() -> None:
    user = make_user("alice", "drafter")
    at = page_as(_matters_page, user, lang="zh")
    assert not at.exception and at.title[0].value == "案件"
    at.text_input(key="matters.new.number").input("MC-2025-017")
    at.text_input(key="matters.new.client").input("上海明川跨境电子商务有限公司")
    for name, value in FACTS.items():
        key = f"matters.new.fact.{name}"
        widget = at.selectbox(key=key) if name in ("industry", "is_ciio", "important_data",
                                                   "exemption") else None  # fmt: skip
        if widget is not None:
            widget.set_value(value)
        elif name in ("data_categories", "purpose"):
            at.text_area(key=key).input(value)
        else:
            at.text_input(key=key).input(value)
    at.button(key="matters.create").click().run()
    assert not at.exception, at.exception
    assert any("已保存案件 MC-2025-017 第1版" in shown(s.value) for s in at.success)
    page = " ".join(m.value for m in at.markdown)
    assert "数据出境风险自评估报告" in page and "申报／备案材料" in page
    assert "个人信息保护影响评估报告" in page and "应留存（不申报）" in page
    assert any("申报数据出境安全评估" in i.value for i in at.info)
    assert not at.warning  # the assessment is fresh


def test_editing_the_facts_saves_a_new_version_and_warns_when_stale() -> None:
    user = make_user("alice", "drafter")
    _create(user)
    at = page_as(_matters_page, user, lang="zh")
    prefix = "matters.edit.MC-2025-017.1"
    at.text_input(key=f"{prefix}.fact.filing_date").input("2025-06-30")
    at.button(key=f"{prefix}.save").click().run()
    assert not at.exception, at.exception
    assert any("第2版" in c.value for c in at.caption)
    warnings = [shown(w.value) for w in at.warning]
    assert any("晚于评估完成之日（2025-02-28）起3个月" in w for w in warnings), warnings


def test_the_draft_page_starts_from_the_matters_facts() -> None:
    user = make_user("alice", "drafter")
    _create(user, individuals_count="150000", sensitive_count="0")
    at = app_as(user)
    at.selectbox(key="draft.doc_type").set_value("pia-report").run()
    at.selectbox(key="draft.matter").set_value("MC-2025-017").run()
    assert not at.exception, at.exception
    field = "draft.field.pia-report."
    assert at.text_input(key=f"{field}individuals_count").value == "150000"
    assert at.text_input(key=f"{field}matter_ref").value == "MC-2025-017"
    assert at.selectbox(key=f"{field}is_ciio").value == "否"
    assert at.session_state["draft.matter.ref"] == MatterRef("MC-2025-017", 1)
    captions = " ".join(shown(c.value) for c in at.caption)
    assert (
        "按案件 MC-2025-017" in captions
        and "个人信息保护影响评估报告（申报／备案材料）" in captions
    )
    at.text_input(key=f"{field}filing_date").input("2025-09-01").run()  # the lawyer's change
    assert at.text_input(key=f"{field}filing_date").value == "2025-09-01"  # kept: same matter
    assert any("3个月" in w.value for w in at.warning)


def test_a_one_off_draft_is_warned_about_a_stale_assessment() -> None:
    at = app_as(make_user("alice", "drafter"))
    at.selectbox(key="draft.doc_type").set_value("self-assessment-report").run()
    at.button(key="draft.fill").click().run()
    assert not any("3个月" in w.value for w in at.warning)
    at.text_input(key="draft.field.self-assessment-report.filing_date").input("2025-06-01").run()
    assert any("3个月" in w.value for w in at.warning)
    assert at.session_state["draft.matter.ref"] is None
