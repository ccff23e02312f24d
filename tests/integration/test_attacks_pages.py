"""Standing attacker suite: Markdown in user and model text (issue 37 item 4), with AppTest on
a real temp SQLite database.

Attack: a drafter types Markdown into a form value (`![t](http://evil.test/p.png)`), a model
writes it into a citation (《![t](…)条例》), an admin names an account or an arm with it. Before,
the reviewer's case inputs and the admin's History findings rendered it as an image the browser
fetched. Must hold, on every page that shows such text: every string the page hands Streamlit
as Markdown has no active image, link, autolink, HTML or bare address, and the text itself is
shown, character for character (`plain`, app/pages/plain_text.py). The real browser's side —
no request to the attacker's host — is tests/e2e/test_trust_browser.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import get_settings
from app.pages.plain_text import plain
from tests.conftest import acting, app_session
from tests.draft_results import shown_result
from tests.integration.test_pages_apptest import app_as, app_env, make_user, page_as  # noqa: F401
from tests.page_markdown import active, page_is_inert, shown

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]

IMAGE = "![t](http://evil.test/p.png)"
HOSTILE = [
    IMAGE,
    "[点此](http://evil.test/x)",
    "<http://evil.test/x>",
    '<img src="http://evil.test/p.png">',
    "http://evil.test/p.png",
    "www.evil.test/p.png",
    "lawyer@evil.test",
    "[x][1]\n\n[1]: http://evil.test/x",
    ":red[红] :material/home: :smile: $x^2$ **粗** _斜_ `码` # 标题 | a | b |",
    "10:30 前提交（第3.2条）— 50% @张三",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_plain_text_shows_every_character_and_nothing_active(text: str) -> None:
    assert active(text) or text.startswith((":red", "10:30"))  # the checker sees the attack
    assert active(plain(text)) == []
    assert shown(plain(text)) == text


def _reviewer_page() -> None:
    from app.pages import blind_review

    blind_review.render()


def _history_page() -> None:
    from app.pages import history

    history.render()


def _results_page() -> None:
    from app.pages import results

    results.render()


def test_attack_markdown_in_a_form_value_is_text_in_the_reviewers_case_inputs() -> None:
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec

    make_user("boss", "admin")
    rita = make_user("rita", "reviewer")
    doc = load_library(get_settings().prompts_dir).types["cross-border-filing-guide"]
    case = {**doc.example_values(), "company_name": f"明川公司{IMAGE}", "recipient": HOSTILE[1]}
    arms = (ArmSpec(f"甲{IMAGE}", "embedded"), ArmSpec("乙", "embedded"))
    with app_session() as session:
        study = studies.create_study(
            StudySpec("s", doc.id, (case,), arms, ("rita",)),
            session=session,
            settings=get_settings(),
            actor=acting("boss", session=session),
        )
        for item in review.list_items(study.id, session=session):
            review.complete_item(item.id, session=session, text=f"正文{IMAGE}", generation_id=None)
    at = page_as(_reviewer_page, rita, lang="en")
    assert not at.exception
    assert page_is_inert(at) == []
    options = at.selectbox(key="review.study").options  # text, not Markdown: nothing escaped
    assert options and all("\\" not in o and "(" in o for o in options), options
    inputs = [shown(m.value) for m in at.markdown]
    assert any(f"明川公司{IMAGE}" in line for line in inputs), inputs  # shown, as text


def test_attack_markdown_in_a_citation_is_text_in_the_admins_history_findings() -> None:
    import datetime as dt

    from app.validation import check, load_catalogue
    from audit import store
    from tests.records import make_record

    text = f"依据《{IMAGE}条例》第三条办理。"
    found = check(text, catalogue=load_catalogue(), doc_date=dt.date(2025, 3, 1)).findings
    assert [f.code for f in found] == ["citation.unknown_statute"]
    boss = make_user("boss", "admin")
    record = make_record(
        user_name="boss",
        output_text=text,
        findings=[f.to_dict() for f in found],
        status="error",
        error_message=f"服务器返回：{HOSTILE[1]}",
        endpoint=f"ep{HOSTILE[5]}",
        model=HOSTILE[6],
    )
    with app_session() as session:
        store.log_generation(record, session=session)
    at = page_as(_history_page, boss, lang="zh")
    assert not at.exception
    assert page_is_inert(at) == []
    lines = [shown(m.value) for m in at.markdown]
    assert any(f"《{IMAGE}条例》" in line for line in lines), lines  # the finding, as text
    assert any(HOSTILE[1] in shown(e.value) for e in at.error)


def test_attack_markdown_in_an_account_name_is_text_for_the_admin_and_in_the_sidebar() -> None:
    name = f"x{IMAGE}"
    boss = make_user("boss", "admin")
    at = page_as(_users_page, boss, lang="zh")
    at.text_input[0].input(name)  # the add form: name, (role), password
    at.button[0].click().run()
    assert not at.exception
    assert any(name in shown(s.value) for s in at.success), [s.value for s in at.success]
    assert page_is_inert(at) == []
    signed_in = app_as(make_user(f"y{IMAGE}", "drafter"))  # the whole app: the sidebar says who
    assert not signed_in.exception
    assert any(f"y{IMAGE}" in shown(c.value) for c in signed_in.sidebar.caption)
    assert page_is_inert(signed_in) == []


def _users_page() -> None:
    from app.pages import users

    users.render()


def test_attack_markdown_in_arm_labels_and_reviewer_text_is_text_on_the_results_page() -> None:
    from tests.integration.test_attacks_study import _study

    _study()  # arms named as spreadsheet formulas, comments with control characters
    with app_session() as session:
        boss = acting("boss", session=session)
    at = page_as(_results_page, boss)
    assert not at.exception
    assert page_is_inert(at) == []


def test_the_one_way_in_is_plain_and_tr() -> None:
    """Pages show text they did not write only through `plain` (or `tr`, which applies it to
    every value): every value in an f-string a page hands Streamlit as Markdown is one of them,
    or an icon of the app's."""
    import ast

    pages = Path(__file__).resolve().parents[2] / "app" / "pages"
    markdown = {"markdown", "caption", "error", "warning", "info", "success", "subheader", "title"}
    bare = []
    for path in sorted(pages.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in markdown or not node.args:
                continue
            text = node.args[0]
            for part in text.values if isinstance(text, ast.JoinedStr) else ():
                if not isinstance(part, ast.FormattedValue):
                    continue
                name = getattr(getattr(part.value, "func", None), "id", None)
                if name not in ("plain", "tr") and ast.unparse(part.value) != "icon":
                    bare.append(f"{path.name}:{node.lineno}: {ast.unparse(part.value)}")
    assert bare == [], "\n".join(bare)


def test_attack_markdown_in_form_values_and_model_text_is_text_on_the_draft_page() -> None:
    """The Draft page shows a draft's inputs (regenerate), why a part fell back (quoting the
    model's words) and the draft's error: all of it text."""
    from streamlit.testing.v1 import AppTest

    from app.domain import GenerationParams, RenderedPrompt
    from app.drafting.context import DraftContext
    from app.outline.provenance import PartOrigin
    from app.pages.draft_run import DraftRequest
    from app.validation.messages import finding
    from tests.integration.test_pages_apptest import MAIN

    guide = "cross-border-filing-guide"
    values = {"company_name": f"明川公司{IMAGE}", "recipient": HOSTILE[1]}
    echo = finding("prose.garble", 0, 5, "", found=IMAGE)
    part = PartOrigin(
        3, "五、", "是否需要申报", "clause", "c", "1", ("prose.garble",), failed=(echo,)
    )
    rendered = RenderedPrompt(guide, "t", "1", "abc", "s", "u")
    request = DraftRequest(guide, "T", values, GenerationParams(), "embedded")
    result = shown_result(
        request,
        DraftContext(guide, values, rendered=rendered),
        "error",
        f"正文{IMAGE}",
        error=f"服务器说：{HOSTILE[3]}",
        provenance=(part,),
    )
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "zh"
    at.session_state["lexspec_user"] = make_user("dana", "drafter")
    at.session_state["draft.result"] = result
    at.run()
    assert not at.exception
    assert page_is_inert(at) == []
    lines = [shown(m.value) for m in [*at.markdown, *at.error]]
    assert any(f"明川公司{IMAGE}" in line for line in lines), lines
    assert any(HOSTILE[3] in line for line in lines), lines
