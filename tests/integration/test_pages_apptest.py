"""The Streamlit pages driven headlessly with AppTest, against a real database (temp SQLite)
and, for generation, the real embedded LLM server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import database
from app.config import get_settings
from app.knowledge import Knowledge
from tests.conftest import acting, app_session
from tests.page_markdown import shown

MAIN = str(Path(__file__).resolve().parents[2] / "app" / "main.py")
DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
PASSWORD = "correct-horse-9"

pytestmark = pytest.mark.integration


def _use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_url: str) -> None:
    """The pages' settings: the data directory `tmp_path`, the model server `llm_url` (the
    database: the caller's `audit_db`)."""
    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LEXSPEC_LLM_BASE_URL", llm_url)
    monkeypatch.setenv("LEXSPEC_LANG", "zh")
    # the pages' model drafting (an unmeasured endpoint assembles: tests/e2e/test_first_draft_browser.py)
    monkeypatch.setenv("LEXSPEC_LLM_WRITING", "adapt")
    get_settings.cache_clear()
    database.reset()


@pytest.fixture
def app_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, audit_db: str, cheap_argon2: None
) -> Iterator[Path]:
    """Settings pointing at a temp database and an LLM URL nobody listens on."""
    _use(monkeypatch, tmp_path, DEAD_URL)
    yield tmp_path
    get_settings.cache_clear()
    database.reset()


def make_user(name: str, role: str, *, must_change: bool = False) -> object:
    from audit.users import create_user

    with app_session() as session:
        return create_user(name, role, PASSWORD, session=session, must_change_password=must_change)


def app_as(user: object | None, *, lang: str = "zh") -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = lang
    if user is not None:
        at.session_state["lexspec_user"] = user
    return at.run()


def test_sign_in_with_good_and_bad_password(app_env: Path) -> None:
    make_user("alice", "drafter")
    at = app_as(None)
    assert at.title[0].value == "登录 LexSpec"
    at.text_input(key="auth.name").input("alice")
    at.text_input(key="auth.password").input("wrong-password")
    at.button[0].click().run()
    assert "用户名或密码不正确" in at.error[0].value
    at.text_input(key="auth.password").input(PASSWORD)
    at.button[0].click().run()
    assert not at.exception
    assert at.title[0].value == "起草"  # the drafter's home page


def test_one_time_password_must_be_changed(app_env: Path) -> None:
    make_user("root", "admin", must_change=True)
    at = app_as(None, lang="en")
    at.text_input(key="auth.name").input("root")
    at.text_input(key="auth.password").input(PASSWORD)
    at.button[0].click().run()
    assert at.title[0].value == "Choose a new password"
    at.text_input(key="auth.old").input(PASSWORD)
    at.text_input(key="auth.new").input("a-new-password-1")
    at.text_input(key="auth.again").input("a-new-password-1")
    at.button[0].click().run()
    assert at.title[0].value == "Draft"
    assert not at.session_state["lexspec_user"].must_change_password


def test_draft_form_fill_example_and_missing_field(app_env: Path) -> None:
    at = app_as(make_user("alice", "drafter"))
    assert at.title[0].value == "起草"
    company = at.text_input(key="draft.field.cross-border-filing-guide.company_name")
    assert company.label.startswith("公司名称")
    at.button(key="draft.go").click().run()  # everything empty: per-field errors
    assert any("请先修正" in e.value for e in at.error)
    assert len(at.error) > 2
    at.button(key="draft.fill").click().run()
    company = at.text_input(key="draft.field.cross-border-filing-guide.company_name")
    assert company.value == "上海明川跨境电子商务有限公司"
    company.input("").run()
    at.button(key="draft.go").click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 2, errors  # the one field, and the summary line


def test_server_down_gives_a_message_and_retry(app_env: Path) -> None:
    at = app_as(make_user("alice", "drafter"), lang="en")
    at.button(key="draft.fill").click().run()
    at.button(key="draft.go").click().run()
    assert not at.exception
    assert any("Cannot reach the model server" in e.value for e in at.error)
    assert at.button(key="draft.retry")


def _history_page() -> None:
    from app.pages import history

    history.render()


def _review_page() -> None:
    from app.pages import blind_review as review

    review.render()


def page_as(page: object, user: object, *, lang: str = "en") -> AppTest:
    at = AppTest.from_function(page, default_timeout=60)  # type: ignore[arg-type]
    at.session_state["lang"] = lang
    at.session_state["lexspec_user"] = user
    return at.run()


@pytest.fixture
def llm_env(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    llm_base_url: str,
    audit_db: str,
    cheap_argon2: None,
) -> Iterator[Path]:
    """Settings pointing at a temp database and the real embedded server."""
    _use(monkeypatch, tmp_path, llm_base_url)
    yield tmp_path
    get_settings.cache_clear()
    database.reset()


def test_generate_against_the_real_server_then_history(llm_env: Path) -> None:
    user = make_user("alice", "drafter")
    at = app_as(user, lang="en")
    at.button(key="draft.fill").click().run()
    at.number_input(key="draft.max_tokens.cross-border-filing-guide").set_value(48).run()
    at.button(key="draft.go").click().run(timeout=180)
    assert not at.exception
    result = at.session_state["draft.result"]
    # drafted from the outline; parts capped at 48 tokens may end truncated, never "complete"
    # when cut (finish_reason length)
    assert result.status in ("complete", "truncated"), result.error
    assert result.context.mode == "outline"
    assert [ln for ln in result.text.splitlines() if ln.startswith("【")] == [
        "【适用情形】",
        "【逐项填写指引】",
        "【材料清单】",
        "【常见错误】",
    ]
    assert result.text and result.generation_id is not None
    assert result.stats.completion_tokens > 0
    editor = next(a for a in at.text_area if str(a.key).startswith("draft.edit."))
    assert editor.value == result.text
    assert {d.label for d in at.get("download_button")} == {
        "Download Markdown",
        "Download DOCX (with comments)",
        "Download client copy (DOCX)",
    }
    assert any(m.label == "Tokens generated" for m in at.metric)

    history = page_as(_history_page, user)
    assert not history.exception
    assert history.caption[0].value == "1 generation(s)"
    assert result.text[:20].replace("\n", " ") in str(history.dataframe[0].value)
    assert any(f"#{result.generation_id}" in s.value for s in history.subheader)


def test_findings_panel_for_a_fixture_text(app_env: Path) -> None:
    """A result whose text cites a repealed statute and skips a number shows both findings,
    highlighted in the (escaped) text and listed with message and suggestion."""
    from app.domain import GenerationParams, RenderedPrompt
    from app.drafting.context import DraftContext
    from app.pages.draft_run import DraftRequest
    from tests.draft_results import shown_result

    text = "一、总则\n依据《合同法》第五十二条 <b>x</b>。\n三、附则"
    rendered = RenderedPrompt("cross-border-filing-guide", "t", "1", "abc", "s", "u")
    request = DraftRequest("cross-border-filing-guide", "T", {}, GenerationParams(), "embedded")
    context = DraftContext("cross-border-filing-guide", {}, rendered=rendered)
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = make_user("alice", "drafter")
    at.session_state["draft.result"] = shown_result(request, context, "complete", text)
    at.run()
    assert not at.exception
    panel = " ".join(m.value for m in at.markdown)
    assert "was repealed" in panel and "民法典" in panel
    assert "Numbering gap" in panel
    marked = next(h.proto.body for h in at.get("html") if "lx-draft" in h.proto.body)
    assert '<mark class="lx-error"' in marked
    assert "&lt;b&gt;x&lt;/b&gt;" in marked and "<b>x</b>" not in marked

    # approving the (edited) text puts it in the retrieval corpus for this document type
    approve = next(b for b in at.button if str(b.key).startswith("draft.approve."))
    approve.click().run()
    assert not at.exception
    assert any("Approved and saved as precedent" in s.value for s in at.success)
    (saved,) = (app_env / "corpus" / "cross-border-filing-guide").glob("*.md")
    assert saved.read_text(encoding="utf-8").strip() == text.strip()


def draft_page_showing(result: object) -> AppTest:
    """The Draft page (English, a drafter signed in) showing a finished draft's result."""
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = make_user("alice", "drafter")
    at.session_state["draft.result"] = result
    # the form on the draft's own type: a draft is never shown under another type's form
    at.session_state["draft.doc_type"] = result.request.doc_type_id  # type: ignore[attr-defined]
    at.run()
    return at


def test_a_part_without_text_is_a_warning_not_complete(app_env: Path) -> None:
    """A draft whose outline part produced no text says so, instead of "Generation complete"."""
    from app.domain import GenerationParams, Guard, GuardMark, RenderedPrompt
    from app.drafting.context import DraftContext
    from app.outline.compose import NO_TEXT
    from app.pages.draft_run import DraftRequest
    from tests.draft_results import shown_result

    text = f"8.3 {NO_TEXT}\n8.4 乙方应当按月提交服务报告。"
    rendered = RenderedPrompt("clause-continuation", "t", "1", "abc", "s", "u")
    request = DraftRequest("clause-continuation", "T", {}, GenerationParams(), "embedded")
    context = DraftContext("clause-continuation", {}, rendered=rendered)
    marks = (GuardMark(Guard.NO_TEXT, part=1),)
    result = shown_result(request, context, "complete", text, marks=marks)
    at = draft_page_showing(result)
    assert not at.exception
    assert not any("Generation complete" in s.value for s in at.success)
    assert any("1 part(s) produced no usable text" in w.value for w in at.warning)


def test_a_part_that_fell_back_is_a_warning_with_its_reason_and_markers(app_env: Path) -> None:
    """A draft whose model part failed a prose gate shows its clause, says so (how many, which
    part, why) and never "Generation complete"; every part carries a source marker."""
    from app.drafting.context import prepare
    from app.drafting.service import run_to_end, start_draft
    from app.pages.draft_run import DraftRequest, DraftResult
    from app.prompts import load_library
    from tests.fakes import FakeClient

    doc = load_library(get_settings().prompts_dir).types["clause-continuation"]
    values, prompts = doc.example_values(), get_settings().prompts_dir
    plan = prepare(doc, values, knowledge=Knowledge(prompts), client=FakeClient([])).plan
    assert plan is not None and plan.steps[0].clause is not None
    faithful = plan.steps[0].clause.text.replace("应当", "应", 1)  # its clause, a word changed
    client = FakeClient([], scripts=[[faithful], ["以下是后续条款："]])
    prepared = prepare(doc, values, knowledge=Knowledge(prompts), client=client)
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="embedded", writing="adapt"))
    request = DraftRequest(doc.id, "T", dict(prepared.prompt.values), prepared.params, "embedded")
    result = DraftResult(request, outcome)
    at = draft_page_showing(result)
    assert not at.exception
    assert not any("Generation complete" in s.value for s in at.success)
    assert any("1 part(s) failed the prose checks" in w.value for w in at.warning)
    assert not any(str(plan.steps[1].clause.id) in w.value for w in at.warning)
    captions = [shown(c.value) for c in at.caption]
    assert any("8.4" in c and "lead-in" in c and "vetted clause stands in" in c for c in captions)
    assert any("adapted by the model 1" in c and "replaced by the vetted clause 1" in c
               for c in captions)  # fmt: skip
    sources = next(c for c in captions if "Sources of the parts" in c)
    assert "8.3[adapted]" in sources and "8.4[replaced by the vetted clause]" in sources
    assert all(s.clause is None or s.clause.id not in sources for s in plan.steps)  # no ids ...
    assert any("the model adapts the vetted clauses" in c for c in captions)  # the writing line
    details = next(c for c in captions if c.startswith("clauses:"))  # ... they are in Details
    for label, step in zip(("8.3", "8.4"), plan.steps, strict=True):
        assert step.clause is not None
        assert f"{label} {step.clause.id} v{step.clause.version}" in details
    assert "part2:fallback" in details


STUDY_NAME = "STUDY-NAME speculative 512 vs plain 64"  # an admin's name that gives arms away


def make_study(reviewer: str) -> tuple[int, dict[str, str]]:
    """An admin's study with one case, both drafts already written (no LLM needed)."""
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec

    make_user("boss", "admin")
    settings = get_settings()
    doc = load_library(settings.prompts_dir).types["cross-border-filing-guide"]
    arms = (ArmSpec("ARM-SPECULATIVE-X", "embedded"), ArmSpec("ARM-PLAIN-Y", "embedded"))
    spec = StudySpec(STUDY_NAME, doc.id, (doc.example_values(),), arms, (reviewer,))
    texts: dict[str, str] = {}
    with app_session() as session:
        study = studies.create_study(
            spec, session=session, settings=settings, actor=acting("boss", session=session)
        )
        for item in review.list_items(study.id, session=session):
            arm = next(a for a in study.arms if a.id == item.arm_id)
            texts[arm.label] = f"一、适用情形\n草稿正文 {arm.position}。"
            review.complete_item(
                item.id, session=session, text=texts[arm.label], generation_id=None
            )
    return study.id, texts


def _all_text(at: AppTest) -> str:
    """Every element's protobuf as text: what the browser would receive."""
    parts: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def test_reviewer_page_shows_no_arm_and_records_a_verdict(app_env: Path) -> None:
    reviewer = make_user("rita", "reviewer")
    _, texts = make_study("rita")
    at = page_as(_review_page, reviewer)
    assert not at.exception
    shown = _all_text(at)
    for forbidden in ("ARM-SPECULATIVE-X", "ARM-PLAIN-Y", "embedded", "SmolLM", "127.0.0.1",
                      STUDY_NAME, "speculative"):  # fmt: skip
        assert forbidden not in shown, forbidden
    study_choice = at.selectbox(key="review.study")
    assert study_choice.options[0].startswith("Review task ")  # a neutral label, not the name
    assert "Draft A" in shown and "Draft B" in shown
    assert all(text.split("\n")[1] in shown for text in texts.values())
    assert at.get("progress")[0].proto.text == "Progress: 0 of 2 drafts scored"
    at.slider[0].set_value(8)
    at.text_area[0].input("cites a repealed law")
    at.button[0].click().run()
    assert not at.exception
    assert at.success[0].value == "Submitted."
    assert at.get("progress")[0].proto.text == "Progress: 1 of 2 drafts scored"


def _studies_page() -> None:
    from app.pages import studies

    studies.render()


def _results_page() -> None:
    from app.pages import results

    results.render()


def _users_page() -> None:
    from app.pages import users

    users.render()


def test_results_are_locked_until_every_verdict_is_in(app_env: Path) -> None:
    from app.studies import service as studies
    from app.studies.domain import VerdictInput

    make_user("rita", "reviewer")
    study_id, _ = make_study("rita")
    from audit.users import get_user

    with app_session() as session:
        boss = get_user("boss", session=session)  # created by make_study
    locked = page_as(_results_page, boss)
    assert not locked.exception
    assert locked.info[0].value.startswith("Results are locked")

    with app_session() as session:
        for pair in studies.reviewer_queue(
            study_id, session=session, actor=acting("rita", session=session)
        ):
            for n, draft in enumerate(pair.drafts):
                verdict = VerdictInput(6 + n, 7, 8 - n, ("wrong article",) * n, "ok")
                studies.submit_verdict(
                    draft.token, verdict, session=session, actor=acting("rita", session=session)
                )
    report = page_as(_results_page, boss)
    assert not report.exception
    table = report.dataframe[0].value
    assert {"ARM-SPECULATIVE-X", "ARM-PLAIN-Y"} <= set(table.iloc[:, 1])
    labels = {d.label for d in report.get("download_button")}
    assert labels == {"Download CSV", "Download DOCX report"}
    assert report.get("vega_lite_chart")  # the means chart with CI whiskers


def test_admin_creates_a_study_and_a_user(app_env: Path) -> None:
    boss = make_user("boss", "admin")
    make_user("rita", "reviewer")
    at = page_as(_studies_page, boss)
    assert not at.exception
    cases = at.dataframe[0].value  # the data editor, prefilled with the example
    assert cases["company_name"][0] == "上海明川跨境电子商务有限公司"
    at.text_input(key="study.name").input("pilot")
    at.text_input(key="study.arm1.label").input("fast")
    at.text_input(key="study.arm2.label").input("slow")
    assert at.multiselect(key="study.reviewers").placeholder == "Choose reviewers"
    at.multiselect(key="study.reviewers").select("rita")
    at.checkbox(key="study.same_arms_ok").check()  # one endpoint here: both arms are alike
    at.button[0].click().run()
    assert not at.exception
    assert at.success[0].value.startswith("Study created")

    users = page_as(_users_page, boss)
    users.text_input[0].input("newbie")
    users.text_input[1].input("long-enough-1")
    users.button[0].click().run()
    assert not users.exception
    assert users.success[0].value.startswith("Added newbie")


def _monitor_page() -> None:
    from app.pages import monitor

    monitor.render()


def test_monitor_scrapes_the_real_server(llm_env: Path) -> None:
    admin = make_user("boss", "admin")
    at = page_as(_monitor_page, admin)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.subheader[0].value == "embedded"
    labels = [m.label for m in at.metric]
    assert labels == [
        "Draft acceptance rate",
        "Mean acceptance length",
        "Generation throughput (tok/s)",
        "KV-cache use",
    ]
    assert at.metric[3].value.endswith("%")  # a gauge the server always reports


def _draft_or_history() -> None:
    import streamlit as st

    from app.pages import draft, history
    from app.pages.ui_state import keep_widget_values

    keep_widget_values("draft.field.")  # what main.py does on every run
    (history.render if st.session_state.get("away") else draft.render)()


def test_form_values_survive_a_visit_to_another_page(app_env: Path) -> None:
    at = page_as(_draft_or_history, make_user("alice", "drafter"))
    at.button(key="draft.fill").click().run()
    at.session_state["away"] = True
    at.run()
    assert at.title[0].value == "History"
    at.session_state["away"] = False
    at.run()
    field = at.text_input(key="draft.field.cross-border-filing-guide.company_name")
    assert field.value == "上海明川跨境电子商务有限公司"
