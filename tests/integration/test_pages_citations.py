"""The Draft page and the law (issue 13): the findings panel opens each citation to its article's
text, the checkbox puts the appendix 引用条文 in the DOCX download, and the form's date field is
the date citations are checked on. AppTest over a temp SQLite database; no LLM is needed."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from streamlit.testing.v1 import AppTest

from app import database
from app.config import get_settings
from app.domain import GenerationParams, RenderedPrompt
from app.drafting.context import DraftContext
from app.pages.draft_run import DraftRequest
from tests.draft_results import shown_result
from tests.integration.test_pages_apptest import DEAD_URL, _use, make_user
from tests.page_markdown import shown

pytestmark = pytest.mark.integration

PIPL = "《中华人民共和国个人信息保护法》"
# the impact assessment is 第五十五条, not 第五十一条 (the issue's own example)
MISMATCH = "一、依据《个人信息保护法》第五十一条，处理者应当事前进行个人信息保护影响评估。\n"
# 个人信息出境认证办法 is in force from 2026-01-01
CERTIFICATION = "二、依据《个人信息出境认证办法》第五条办理个人信息保护认证。\n"


@pytest.fixture
def page_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, audit_db: str, cheap_argon2: None
) -> Iterator[Path]:
    _use(monkeypatch, tmp_path, DEAD_URL)
    monkeypatch.delenv("LEXSPEC_STATUTES_FILE", raising=False)
    yield tmp_path
    get_settings.cache_clear()
    database.reset()


def _draft_page_keeping_media() -> None:
    """The Draft page, then the run's media files kept where the test can read the download."""
    import streamlit as st
    from streamlit.runtime import get_instance

    from app.pages import draft

    draft.render()
    st.session_state["test.media"] = get_instance().media_file_mgr


def _page_with(text: str, doc_date: dt.date | None = None) -> AppTest:
    rendered = RenderedPrompt("cross-border-filing-guide", "t", "1", "ab" * 32, "s", "u")
    request = DraftRequest(
        "cross-border-filing-guide",
        "《数据出境安全评估申报表》填写指南",
        {},
        GenerationParams(),
        "embedded",
    )
    context = DraftContext("cross-border-filing-guide", {}, doc_date=doc_date, rendered=rendered)
    at = AppTest.from_function(_draft_page_keeping_media, default_timeout=60)
    at.session_state["lang"] = "zh"
    at.session_state["lexspec_user"] = make_user("alice", "drafter")
    at.session_state["draft.result"] = shown_result(request, context, "complete", text)
    return at.run()


def _expanders(at: AppTest) -> dict[str, str]:
    """Each expander's label and the text shown inside it."""
    return {shown(e.label): " ".join(t.value for t in e.text) for e in at.expander}


def test_a_citation_opens_to_its_article_and_the_suggested_one(page_env: Path) -> None:
    at = _page_with(MISMATCH)
    assert not at.exception
    panel = " ".join(shown(m.value) for m in at.markdown)
    assert "第五十五条更相符" in panel
    opened = _expanders(at)
    cited = next(label for label in opened if label.startswith(f"所引条文：{PIPL}第五十一条"))
    suggested = next(label for label in opened if label.startswith(f"建议条文：{PIPL}第五十五条"))
    assert "采取下列措施确保个人信息处理活动" in opened[cited]  # what 第五十一条 says ...
    assert "个人信息保护影响评估" in opened[suggested]  # ... and 第五十五条 does
    listed = next(label for label in opened if label.startswith(f"{PIPL}第五十一条"))
    assert "2021年11月1日" in listed  # every citation is listed too, with its version (in words)
    assert any("来源" in c.value for c in at.caption)


def _docx_paragraphs(at: AppTest) -> list[str]:
    button = at.get("download_button")
    url = next(b.proto.url for b in button if b.proto.url.endswith(".docx"))
    media = at.session_state["test.media"].read_file(Path(url).stem)
    return [p.text for p in docx.Document(io.BytesIO(media.content)).paragraphs]


def test_checkbox_puts_the_cited_articles_in_the_docx(page_env: Path) -> None:
    at = _page_with(MISMATCH)
    before = _docx_paragraphs(at)
    assert not any("引用条文" in p for p in before)
    at.checkbox(key="dl.cited").check().run()
    assert not at.exception
    after = _docx_paragraphs(at)
    start = next(i for i, p in enumerate(after) if "引用条文" in p)
    appendix = after[start:]
    assert any(p.startswith(f"{PIPL}第五十一条（2021-08-20通过") for p in appendix)
    assert any("采取下列措施确保个人信息处理活动" in p for p in appendix)


@pytest.mark.parametrize(
    ("day", "flagged", "csl_version"),
    [
        (dt.date(2025, 6, 1), True, "2016年11月7日通过"),
        (dt.date(2026, 6, 1), False, "2025年10月28日修正"),
    ],
)
def test_the_forms_date_is_the_date_citations_are_checked_on(
    page_env: Path, day: dt.date, flagged: bool, csl_version: str
) -> None:
    at = _page_with(CERTIFICATION + "三、依据《网络安全法》第三十九条。\n", doc_date=day)
    assert not at.exception
    panel = " ".join(shown(m.value) for m in at.markdown)
    assert ("尚未施行" in panel) is flagged
    opened = _expanders(at)
    assert any(
        label.startswith(f"《中华人民共和国网络安全法》第三十九条（{csl_version}")
        for label in opened
    )


def test_generate_takes_the_date_from_the_form(page_env: Path) -> None:
    """The filing guide's 拟申报日期 becomes the request's document date (the server is down,
    so the request is kept on the error result)."""
    at = AppTest.from_function(_draft_page_keeping_media, default_timeout=60)
    at.session_state["lang"] = "zh"
    at.session_state["lexspec_user"] = make_user("bob", "drafter")
    at.run()
    at.button(key="draft.fill").click().run()
    at.text_input(key="draft.field.cross-border-filing-guide.filing_date").set_value("2025-05-20")
    at.button(key="draft.go").click().run()
    assert not at.exception
    result = at.session_state["draft.result"]
    assert result.status == "error"
    assert result.context.doc_date == dt.date(2025, 5, 20)


def test_the_draft_page_offers_the_client_copy_without_findings(page_env: Path) -> None:
    """#40 item 4: a third download, the client copy: no comments, no appendix, the document's
    date; the review copy keeps the finding as a comment."""
    at = _page_with(MISMATCH, doc_date=dt.date(2025, 3, 15))
    assert not at.exception
    buttons = {b.label: b.proto.url for b in at.get("download_button")}
    assert set(buttons) == {"下载 Markdown", "下载 DOCX（含批注）", "下载客户版 DOCX"}
    media = at.session_state["test.media"]

    def opened(label: str) -> docx.document.Document:
        content = media.read_file(Path(buttons[label]).stem).content
        return docx.Document(io.BytesIO(content))

    review, client = opened("下载 DOCX（含批注）"), opened("下载客户版 DOCX")
    assert any(r.reltype.endswith("/comments") for r in review.part.rels.values())
    assert not any(r.reltype.endswith("/comments") for r in client.part.rels.values())
    lines = [p.text for p in client.paragraphs if p.text]
    assert "日期：2025年3月15日" in lines and not any("附录" in p for p in lines)
