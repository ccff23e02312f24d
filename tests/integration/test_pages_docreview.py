"""The 文件审查 / Review a document page, driven with AppTest on a real database (temp SQLite):
the uploads reviewed on their own date (shown, overridable), refusals as a message, the
findings with their passage and a severity filter, the downloads, the batch table, and one
audit event per review (not one per rerun)."""

from __future__ import annotations

import datetime as dt
import io

import docx
import pytest

from app.domain import EventKind
from audit import store
from tests.conftest import app_context, app_session
from tests.integration.test_pages_apptest import app_env as app_env  # the fixture
from tests.integration.test_pages_apptest import make_user
from tests.review_docs import policy_docx

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]
FILES = "docreview.files"


def _page() -> None:
    from app.pages import docreview

    docreview.render()


def shown(value: str) -> str:
    """Page text as the reader sees it (the Markdown escapes of filled-in values removed)."""
    return value.replace("\\", "")


def _reviewed() -> list[store.AuditEvent]:
    with app_session() as session:
        return store.list_events(session=session, kind=EventKind.DOCUMENT_REVIEWED)


def _open(files: dict[str, bytes], lang: str = "zh", user: object = None):  # type: ignore[no-untyped-def]
    from streamlit.testing.v1 import AppTest

    user = user or make_user("alice", "drafter")
    at = AppTest.from_function(_page, default_timeout=60)
    at.session_state["lang"] = lang
    at.session_state["lexspec_user"] = user
    at.session_state[FILES] = files
    return at.run()


def test_uploads_are_reviewed_on_their_own_date_with_passages_and_downloads() -> None:
    at = _open({"policy.docx": policy_docx(), "old.doc": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"})
    assert not at.exception, at.exception
    assert at.title[0].value == "文件审查"
    assert any("页脚所载日期 2024-05-20" in shown(i.value) for i in at.info)
    assert any("old.doc" in shown(e.value) and ".docx" in shown(e.value) for e in at.error)
    page = shown(" ".join(m.value for m in [*at.markdown, *at.caption]))
    assert "citation.article_out_of_range" in page and "citation.renumbered" in page
    assert any("今日已过时" in s.value for s in at.subheader)
    passages = " ".join(h.proto.body for h in at.get("html"))
    assert "<mark" in passages and "第九十九条" in passages
    labels = [b.proto.label for b in at.get("download_button")]
    assert "下载批注版 DOCX" in labels and "下载审查摘要（.md）" in labels
    assert any(s.value == "批量结果" for s in at.subheader)  # several files: one table
    at.run()  # a rerun records nothing new
    [event] = _reviewed()
    assert event.actor == "alice" and event.payload["file"] == "policy.docx"


def test_the_date_can_be_overridden_and_findings_filtered() -> None:
    at = _open({"policy.docx": policy_docx()}, lang="en")
    at.checkbox(key="docreview.0.override").check().run()
    at.date_input(key="docreview.0.date").set_value(dt.date(2026, 6, 1)).run()
    assert not at.exception, at.exception
    assert any("date given, 2026-06-01" in shown(i.value) for i in at.info)
    page = shown(" ".join(m.value for m in [*at.markdown, *at.caption]))
    assert "citation.renumbered" in page  # on the date given, a finding of its own
    at.multiselect(key="docreview.0.severity").set_value(["Warning"]).run()
    page = shown(" ".join(m.value for m in [*at.markdown, *at.caption]))
    assert "citation.article_out_of_range" not in page and "citation.renumbered" in page
    assert len(_reviewed()) == 2  # its own date, then the date given


def test_the_comments_download_is_the_original_with_comments() -> None:
    from app.config import Settings
    from app.review.annotate import annotated_docx
    from app.review.service import review_document

    data = policy_docx()
    review = review_document(data, "policy.docx", settings=Settings(), today=dt.date.today())
    out = docx.Document(io.BytesIO(annotated_docx(data, review)))
    assert len(out.comments) == len(review.findings) + len(review.outdated) == 2


def test_a_matters_facts_are_checked_against_what_the_document_states() -> None:
    """With a matter picked, a count the document states that is not the matter's is a finding;
    without one, the facts check has nothing to compare."""
    from app.matters import service
    from tests.integration.test_pages_matters import FACTS

    user = make_user("alice", "drafter")
    with app_session() as session:
        service.create_matter("MC-2025-017", client="明川", title="跨境订单", facts=FACTS,
                              types=app_context().knowledge.types, session=session, actor=user)  # fmt: skip
    memo = "关于明川数据出境的备忘录\n贵公司累计向境外提供20万人个人信息。\n".encode()
    at = _open({"memo.txt": memo}, user=user)
    assert not at.exception, at.exception
    assert "facts." not in shown(" ".join(m.value for m in [*at.markdown, *at.caption]))
    at.selectbox(key="docreview.matter").set_value("MC-2025-017").run()
    assert not at.exception, at.exception
    page = shown(" ".join(m.value for m in [*at.markdown, *at.caption]))
    assert "facts.count_flips_route" in page and "20万" in page and "1,200,000" in page
