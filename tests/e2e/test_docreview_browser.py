"""Review a document in a real browser: a drafter uploads the 2024 policy template, sees it
checked on its footer's date with the out-of-range article and the renumbered one outdated
today, and downloads the original DOCX with Word comments on those words."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import docx
import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import IDLE, add_user, button, shot, sign_in
from tests.review_docs import CSL_37, WRONG, policy_docx

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def llm_base_url() -> str:
    """Reviewing needs no model: the app runs against an address nobody listens on."""
    return "http://127.0.0.1:9/v1"


def test_a_docx_is_uploaded_reviewed_and_downloaded_with_comments(
    running_app: RunningApp, page: Any, tmp_path: Path
) -> None:
    add_user(running_app, "mei", "drafter")
    sign_in(page, running_app, "mei", "起草")
    page.get_by_role("link", name="文件审查").click()
    page.get_by_role("heading", name="文件审查").wait_for()
    source = tmp_path / "数据出境管理制度-2024.docx"
    source.write_bytes(policy_docx())
    page.locator('input[type="file"]').first.set_input_files(str(source))
    page.get_by_text("按页脚所载日期 2024-05-20 施行的法规版本核对").wait_for()
    page.get_by_text("今日已过时", exact=False).first.wait_for()
    page.wait_for_selector(IDLE)
    body = page.locator("body").inner_text()
    assert "不存在第99条" in body and "第三十九条" in body  # out of range; renumbered since
    shot(page, "docreview.png", top=True)

    with page.expect_download() as caught:
        button(page, "下载批注版 DOCX").click()
    saved = tmp_path / "reviewed.docx"
    caught.value.save_as(saved)
    document = docx.Document(io.BytesIO(saved.read_bytes()))
    notes = [c.text for c in document.comments]
    assert len(notes) == 2
    assert any(WRONG in n or "第99条" in n for n in notes)
    assert any("第三十九条" in n for n in notes)
    assert [p.text for p in document.paragraphs] == [
        p.text for p in docx.Document(io.BytesIO(policy_docx())).paragraphs
    ]
    assert CSL_37 in document.paragraphs[1].text
