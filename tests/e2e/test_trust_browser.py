"""Trust in a real browser (issue 20 items 1, 5 and 6): a saved revision survives a visit to
History (the editor shows it and the next save builds on it); a reload or a bookmarked page URL
keeps the user signed in on that page; an account disabled from another session is signed out
at its next click, with a message."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import RunningApp
from tests.e2e.test_app_browser import (
    DRAFT_LENGTH,
    add_user,
    button,
    choose_radio,
    click_taken,
    example_form,
    generate,
    shows,
    sign_in,
    stopped_text,
)

pytestmark = pytest.mark.e2e
FIRST = "二、律师补充\n依据《个人信息保护法》第三十八条办理。"
SECOND = "三、再次修改\n本节为第二次修订。"
PAGE_NOT_FOUND = "Page not found"


def _revisions(app: RunningApp, user: str) -> list[Any]:
    from audit.revisions import list_revisions
    from audit.store import search_generations

    with app.session_factory()() as session:
        newest = search_generations(session=session, user_name=user)[0]
        return list_revisions(newest.id, session=session)


def _edit(page: Any, text: str) -> None:
    editor = page.get_by_label("草稿（可编辑）")
    editor.fill(text)
    editor.press("Control+Enter")
    page.get_by_text("有未保存的修改。").wait_for()


def test_a_saved_revision_survives_history_and_the_next_save_builds_on_it(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "tess", "drafter")
    sign_in(page, running_app, "tess", "起草")
    example_form(page)
    page.get_by_text("生成参数").click()  # free-form: one stream, text from the first chunk
    choose_radio(page, "自由生成：一次提示，由模型写出全文")
    generate(page)
    page.wait_for_function(DRAFT_LENGTH + " > 40", timeout=180_000)  # as the other streams
    button(page, "停止").click()
    model_text = stopped_text(page)
    editor = page.get_by_label("草稿（可编辑）")
    first = model_text.rstrip() + "\n" + FIRST
    _edit(page, first)
    click_taken(page, "保存修订", shows("已保存修订 1"))

    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_role("link", name="起草", exact=True).click()
    page.get_by_role("heading", name="起草").wait_for()
    editor.wait_for()
    assert editor.input_value() == first  # revision 1, not the model's text
    page.get_by_text("编辑框中是修订 1。").wait_for()
    assert page.get_by_text("有未保存的修改。").count() == 0

    _edit(page, first + "\n" + SECOND)
    click_taken(page, "保存修订", shows("已保存修订 2"))
    revs = _revisions(running_app, "tess")
    assert [r.number for r in revs] == [1, 2]
    assert FIRST in revs[1].text and SECOND in revs[1].text  # revision 1's changes are kept


def _session_cookie(page: Any, *, present: bool = True) -> dict[str, Any] | None:
    """The browser's `lexspec_session` cookie once it is there (or gone, `present=False`): the
    web server sets it from the page's handoff (HttpOnly: only the browser sees it)."""
    import time

    for _ in range(150):
        found = [c for c in page.context.cookies() if c["name"] == "lexspec_session"]
        if bool(found) == present:
            return dict(found[0]) if found else None
        time.sleep(0.2)
    raise AssertionError(f"the session cookie is {'missing' if present else 'still set'}")


def test_reload_and_a_bookmarked_page_keep_the_user_signed_in(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "remy", "drafter")
    sign_in(page, running_app, "remy", "起草")
    page.get_by_role("link", name="历史记录").click()
    page.get_by_role("heading", name="历史记录").wait_for()
    cookie = _session_cookie(page)
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert "lexspec_session" not in page.evaluate("document.cookie")  # no script reads it
    assert page.url.endswith("/generations")

    page.reload()
    page.get_by_role("heading", name="历史记录").wait_for()
    page.get_by_text("remy").first.wait_for()  # the sidebar's "signed in as"
    assert page.get_by_text(PAGE_NOT_FOUND).count() == 0
    assert page.get_by_label("密码").count() == 0

    bookmark = page.context.new_page()  # the same browser opens a bookmarked page
    bookmark.goto(f"{running_app.url}/generations")
    bookmark.get_by_role("heading", name="历史记录").wait_for()
    assert bookmark.get_by_text(PAGE_NOT_FOUND).count() == 0
    bookmark.close()

    button(page, "退出登录").click()
    page.get_by_role("heading", name="登录 LexSpec").wait_for()
    assert _session_cookie(page, present=False) is None
    page.goto(f"{running_app.url}/generations")  # signed out: the form, not "Page not found"
    page.get_by_role("heading", name="登录 LexSpec").wait_for()
    assert page.get_by_text(PAGE_NOT_FOUND).count() == 0
    page.get_by_label("用户名").fill("remy")
    page.get_by_label("密码").fill("e2e-password-1")
    button(page, "登录").click()
    page.get_by_role("heading", name="历史记录").wait_for()  # lands on the page asked for


def test_an_account_disabled_elsewhere_is_signed_out_at_its_next_click(
    running_app: RunningApp, page: Any
) -> None:
    from audit.users import create_user, set_disabled

    add_user(running_app, "dora", "drafter")
    sign_in(page, running_app, "dora", "起草")
    with running_app.session_factory().begin() as session:  # an admin, in another session
        create_user("boss", "admin", "e2e-password-1", session=session)
        set_disabled("dora", True, session=session, actor="boss")
    button(page, "填入示例").click()
    page.get_by_text("您的账户已被管理员停用，已退出登录。").wait_for()
    page.get_by_role("heading", name="登录 LexSpec").wait_for()
    page.reload()  # the cookie does not bring her back
    page.get_by_role("heading", name="登录 LexSpec").wait_for()
    assert page.get_by_role("heading", name="起草").count() == 0


# Issue 37 item 10: a direct URL of a role's first page. Streamlit gives the default page of
# st.navigation the URL "/" and resolves any other path by the pages' URLs, so the first page's
# own path ("/drafting", "/blind-review") was a page it did not know: "Page not found", then
# the default page ran under that box.
ROLE_URLS = [  # (role, URL path, the heading that must open)
    ("drafter", "drafting", "起草"),
    ("drafter", "blind-review", None),  # another role's page: "not allowed", no box
    ("drafter", "", "起草"),
    ("drafter", "sign-in", "起草"),
    ("reviewer", "blind-review", "盲评"),
    ("reviewer", "drafting", None),
    ("reviewer", "my-verdicts", "历史记录"),
    ("admin", "drafting", "起草"),
    ("admin", "blind-review", "盲评"),
    ("admin", "accounts", "用户管理"),
]


def _opens(page: Any, app: RunningApp, path: str, heading: str | None) -> None:
    page.goto(f"{app.url}/{path}")
    if heading is None:
        page.get_by_text("您的角色无权访问此页面。").wait_for()
    else:
        page.get_by_role("heading", name=heading, exact=True).wait_for()
    page.wait_for_load_state("networkidle")
    assert page.get_by_text(PAGE_NOT_FOUND).count() == 0, path


@pytest.mark.parametrize("role", ["drafter", "reviewer", "admin"])
def test_attack_a_direct_url_of_any_page_opens_it_without_page_not_found(
    running_app: RunningApp, page: Any, role: str
) -> None:
    """Signed in (the cookie brings the user back on a fresh page load), each URL opens its
    page, or says the role may not see it; never Streamlit's "Page not found" box."""
    name = f"direct-{role}"
    add_user(running_app, name, role)
    for path in ("sign-in", "drafting"):  # signed out: the form, under any page's URL
        page.goto(f"{running_app.url}/{path}")
        page.get_by_role("heading", name="登录 LexSpec").wait_for()
        page.wait_for_load_state("networkidle")
        assert page.get_by_text(PAGE_NOT_FOUND).count() == 0, path
    page.get_by_label("用户名").fill(name)
    page.get_by_label("密码").fill("e2e-password-1")
    button(page, "登录").click()
    page.get_by_text(f"已登录：{name}").first.wait_for()  # signed in
    _session_cookie(page)  # the HttpOnly cookie that brings the user back on a page load
    for who, path, heading in ROLE_URLS:
        if who == role:
            _opens(page, running_app, path, heading)


# Issue 37 item 4: Markdown typed into a form value, or written by a model into a citation,
# rendered in another user's browser as an image it fetched (a reviewer's case inputs, an
# admin's History findings). The attacker's host is a reserved name: the browser would still
# issue the request, which is what the page's request log catches.
ATTACKER = "evil.test"
IMAGE = f"![t](http://{ATTACKER}/p.png)"
# as the page shows it: a word joiner (invisible) after the colon keeps it from being a link
SHOWN = IMAGE.replace(":", ":\u2060")


def _hostile_study_and_record(app: RunningApp) -> None:
    """A reviewer's case whose company name holds the image, both drafts written (no model),
    and a logged draft whose finding quotes the image inside a citation."""
    import datetime as dt

    from app import database
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec
    from app.validation import check, load_catalogue
    from audit import store
    from tests.conftest import acting
    from tests.e2e.test_app_browser import app_context_of
    from tests.records import make_record

    ctx = app_context_of(app)
    try:
        doc = load_library(ctx.settings.prompts_dir).types["cross-border-filing-guide"]
        case = {**doc.example_values(), "company_name": f"明川公司{IMAGE}"}
        arms = (ArmSpec("甲", "embedded"), ArmSpec("乙", "embedded"))
        text = f"依据《{IMAGE}条例》第三条办理。"
        found = check(text, catalogue=load_catalogue(), doc_date=dt.date(2025, 3, 1)).findings
        with ctx.session() as session:
            study = studies.create_study(
                StudySpec("hostile", doc.id, (case,), arms, ("mark",)),
                session=session,
                settings=ctx.settings,
                actor=acting("mboss", session=session),
            )
            for item in review.list_items(study.id, session=session):
                review.complete_item(item.id, session=session, text="一、正文", generation_id=None)
            findings = [f.to_dict() for f in found]
            record = make_record(user_name="mboss", output_text=text, findings=findings)
            store.log_generation(record, session=session)
    finally:
        database.reset()


def test_attack_markdown_in_user_text_fetches_nothing_in_another_users_browser(
    running_app: RunningApp, page: Any
) -> None:
    add_user(running_app, "mark", "reviewer")
    add_user(running_app, "mboss", "admin")
    _hostile_study_and_record(running_app)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    sign_in(page, running_app, "mark", "盲评")  # the reviewer opens the case's inputs
    page.get_by_text("案例输入").click()
    page.get_by_text(f"明川公司{SHOWN}").wait_for()  # shown as the text typed
    page.wait_for_load_state("networkidle")
    button(page, "退出登录").click()
    page.get_by_role("heading", name="登录 LexSpec").wait_for()

    page.get_by_label("用户名").fill("mboss")  # the admin opens the draft in History
    page.get_by_label("密码").fill("e2e-password-1")
    button(page, "登录").click()
    page.get_by_role("heading", name="起草").wait_for()
    page.goto(f"{running_app.url}/generations")
    page.get_by_text(f"《{SHOWN}条例》").first.wait_for()  # the finding, as text
    page.wait_for_load_state("networkidle")
    assert [url for url in requested if ATTACKER in url] == []
    assert page.locator(f"img[src*='{ATTACKER}'], a[href*='{ATTACKER}']").count() == 0
