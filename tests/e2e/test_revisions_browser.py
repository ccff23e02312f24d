"""Saved revisions in a real browser (issue 16 item 2): stream and stop a draft, edit it,
save a revision, see it in History with the redline against the model's text, and download
the revision's DOCX with Word tracked changes; then Regenerate after a form change drafts
from the changed form."""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest
from docx.oxml.ns import qn

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
    COMPANY_INPUT,
    DRAFT_LENGTH,
    add_user,
    button,
    click_taken,
    example_form,
    generate,
    shot,
    shows,
    sign_in,
    stopped_text,
)
from tests.e2e.test_honest_browser import NEW_COMPANY, _stream_then_stop

pytestmark = pytest.mark.e2e
ADDED = "二、律师补充\n依据《个人信息保护法》第三十八条办理。"


def _audit(app: RunningApp, generation_user: str) -> tuple[list[Any], Any, Any]:
    """The user's generations (newest first), the newest one's revisions and the chain report."""
    from audit.revisions import list_revisions
    from audit.store import get_generation, search_generations, verify_chain

    with app.session_factory()() as session:
        rows = search_generations(session=session, user_name=generation_user)
        gens = [get_generation(r.id, session=session) for r in rows]
        revs = list_revisions(rows[0].id, session=session) if rows else []
        return gens, revs, verify_chain(session=session)


def test_edit_save_revision_redline_tracked_docx_then_regenerate(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "lena", "drafter")
    sign_in(page, running_app, "lena", "起草")
    example_form(page)
    generate(page)
    page.wait_for_function(DRAFT_LENGTH + " > 40", timeout=180_000)
    button(page, "停止").click()
    model_text = stopped_text(page)
    editor = page.get_by_label("草稿（可编辑）")
    editor.fill(model_text.rstrip()[:-4] + "\n" + ADDED)  # four characters cut, two lines added
    editor.press("Control+Enter")
    page.get_by_text("有未保存的修改。").wait_for()
    click_taken(page, "保存修订", shows("已保存修订 1"))
    gens, revs, report = _audit(running_app, "lena")
    assert [r.number for r in revs] == [1] and revs[0].text.endswith(ADDED)
    assert revs[0].user_name == "lena" and report.ok, report.first_bad
    assert gens[0].record.output_text == model_text  # the model's text is kept as it was

    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_role("heading", name="修订").wait_for()
    inserted = page.locator(".lexspec-redline ins")
    inserted.first.wait_for()
    assert "律师补充" in " ".join(inserted.all_inner_texts())
    deleted = " ".join(page.locator(".lexspec-redline del").all_inner_texts())
    assert model_text.rstrip()[-4:] in deleted.replace("\n", "")
    page.get_by_text("共 1 个修订").scroll_into_view_if_needed()
    shot(page, "history.png")

    page.get_by_text("修订痕迹版（Word 修订与校验批注）").click()
    download_button = button(page, "下载 DOCX", exact=True)
    # the rerun that replaces the download names the tracked file under the button, after it
    page.get_by_text("第1稿（修订痕迹）.docx").wait_for()
    with page.expect_download() as download:
        download_button.click()
    # client — document — date — 第1稿（修订痕迹）: a name a lawyer recognises
    assert download.value.suggested_filename.endswith("第1稿（修订痕迹）.docx")
    data = open(download.value.path(), "rb").read()  # noqa: SIM115 - a temp file of the browser
    body = docx.Document(io.BytesIO(data)).element.body
    ins = [m for m in body.iter(qn("w:ins")) if m.get(qn("w:author")) == "lena"]
    assert "律师补充" in "".join(t.text for m in ins for t in m.iter(qn("w:t")))

    page.get_by_role("link", name="起草", exact=True).click()  # Regenerate after a form change
    page.get_by_role("heading", name="起草").wait_for()
    company = page.locator(COMPANY_INPUT)
    company.fill(NEW_COMPANY)
    company.press("Enter")
    page.get_by_text("表单已在上一稿生成后修改").wait_for()
    _stream_then_stop(page, running_app, "重新生成", 2, user="lena")
    newest = _audit(running_app, "lena")[0][0]
    assert NEW_COMPANY in newest.record.user_prompt
    assert newest.record.field_values["company_name"] == NEW_COMPANY
