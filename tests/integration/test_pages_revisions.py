"""Saved revisions on the pages (issue 16 item 2), with AppTest against a real temp database:
edit → Save revision → the approval uses it → History lists it, shows the redline, finds it."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.conftest import app_context, app_session
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    MAIN,
    _history_page,
    app_env,
    make_user,
    page_as,
)
from tests.page_markdown import shown
from tests.records import make_record

MODEL = "一、申报主体\n依据《合同法》第五十二条办理。\n"
EDITED = "一、申报主体\n依据《民法典》第五十二条办理。\n二、材料\n"


def _logged_generation() -> int:
    from audit import store

    record = make_record(output_text=MODEL, doc_type="cross-border-filing-guide")
    with app_session() as session:
        return store.log_generation(record, session=session).id


def _draft_page_with_result(user: object, generation_id: int) -> AppTest:
    from app.domain import GenerationParams, RenderedPrompt
    from app.drafting.context import DraftContext
    from app.pages.draft_run import DraftRequest
    from tests.draft_results import shown_result

    rendered = RenderedPrompt("cross-border-filing-guide", "t", "1", "abc", "s", "u")
    request = DraftRequest("cross-border-filing-guide", "T", {}, GenerationParams(), "embedded")
    context = DraftContext("cross-border-filing-guide", {}, rendered=rendered)
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = user
    at.session_state["draft.result"] = shown_result(
        request, context, "complete", MODEL, generation_id=generation_id
    )
    return at.run()


def test_save_revision_then_approve_uses_it(app_env: Path) -> None:  # noqa: F811
    from app.drafting import revisions
    from audit.store import list_events

    alice = make_user("alice", "drafter")
    gid = _logged_generation()
    at = _draft_page_with_result(alice, gid)
    assert not at.exception
    save = next(b for b in at.button if str(b.key).startswith("revisions.save."))
    assert save.label == "Save revision"
    editor = next(a for a in at.text_area if str(a.key).startswith("draft.edit."))
    editor.input(EDITED).run()
    assert any(c.value == "There are unsaved edits." for c in at.caption)
    save.click().run()
    assert not at.exception
    assert any(s.value.startswith("Saved revision 1") for s in at.success)
    assert not any(c.value == "There are unsaved edits." for c in at.caption)
    save.click().run()  # the same text again: no second revision, and the page says why
    assert any("Same text as the last saved version" in e.value for e in at.error)

    with app_session() as session:
        (saved,) = revisions.list_revisions(gid, session=session, actor=alice)  # type: ignore[arg-type]
    assert saved.text == EDITED and saved.user_name == "alice"
    assert not [f for f in saved.findings if f["code"] == "citation.repealed"]

    approve = next(b for b in at.button if str(b.key).startswith("draft.approve."))
    approve.click().run()
    assert not at.exception
    assert any("Revision 1 was used as the precedent" in c.value for c in at.caption)
    (corpus_file,) = (app_env / "corpus" / "cross-border-filing-guide").glob("*.md")
    assert corpus_file.read_text(encoding="utf-8").strip() == EDITED.strip()
    with app_session() as session:
        (event,) = list_events(session=session, kind="output.approved")
    assert event.payload["revision_id"] == saved.id and event.payload["generation_id"] == gid


def test_approving_unsaved_edits_saves_them_first(app_env: Path) -> None:  # noqa: F811
    from app.drafting import revisions

    alice = make_user("alice", "drafter")
    gid = _logged_generation()
    at = _draft_page_with_result(alice, gid)
    next(a for a in at.text_area if str(a.key).startswith("draft.edit.")).input(EDITED).run()
    next(b for b in at.button if str(b.key).startswith("draft.approve.")).click().run()
    assert any(s.value.startswith("Saved revision 1") for s in at.success)
    with app_session() as session:
        now = revisions.current_text(gid, session=session)
    assert now is not None and now.text == EDITED


def test_history_lists_revisions_redline_and_search(app_env: Path) -> None:  # noqa: F811
    from app.drafting import revisions

    alice = make_user("alice", "drafter")
    gid = _logged_generation()
    with app_session() as session:
        revisions.save_revision(
            gid,
            EDITED,
            settings=app_context().settings,
            session=session,
            base_revision=0,
            actor=alice,
        )  # type: ignore[arg-type]
    at = page_as(_history_page, alice)
    assert not at.exception
    assert any(c.value == "1 revision(s)" for c in at.caption)
    table = next(d for d in at.dataframe if "Revision" in d.value.columns)
    assert list(table.value["By"]) == ["alice"]
    version = at.selectbox(key=f"history.version.{gid}")
    assert version.value is not None  # the newest revision is shown first
    redline = next(h.proto.body for h in at.get("html") if "lexspec-redline" in h.proto.body)
    assert ">合同法</del>" in redline and ">民法典</ins>" in redline
    assert ">二、材料<br></ins>" in redline
    assert any("3 characters inserted" in c.value or "inserted" in c.value for c in at.caption)
    labels = {d.label for d in at.get("download_button")}
    assert labels == {"Download Markdown", "Download DOCX"}
    copy = at.radio(key=f"history.copy.{gid}.{version.value}")
    assert copy.options == ["Client copy (no check comments or appendix)",
                            "Review copy (check comments and appendix)",
                            "Tracked copy (Word revisions and check comments)"]  # fmt: skip
    copy.set_value("Tracked copy (Word revisions and check comments)").run()
    assert not at.exception

    version.select_index(1).run()  # the model's own text: no redline, still both downloads
    assert not any("lexspec-redline" in h.proto.body for h in at.get("html"))
    assert {d.label for d in at.get("download_button")} == labels

    at.text_input(key="history.text").input("民法典").run()  # only the revision has it
    assert at.caption[0].value == "1 generation(s)"
    at.text_input(key="history.text").input("不存在的词").run()
    assert any("No" in i.value or "暂无" in i.value for i in at.info)


def _editor(at: AppTest) -> object:
    return next(a for a in at.text_area if str(a.key).startswith("draft.edit."))


def _click(at: AppTest, prefix: str) -> None:
    next(b for b in at.button if str(b.key).startswith(prefix)).click().run()


def test_a_second_tab_cannot_drop_the_first_tabs_revision(app_env: Path) -> None:  # noqa: F811
    """Issue 20.1: two tabs open the same draft; tab A saves revision 1; tab B, still based on
    the model's text, is refused with the reason and offered the newest revision and the diff."""
    from app.drafting import revisions

    alice = make_user("alice", "drafter")
    gid = _logged_generation()
    tab_a, tab_b = _draft_page_with_result(alice, gid), _draft_page_with_result(alice, gid)
    _editor(tab_a).input(EDITED).run()  # type: ignore[attr-defined]
    _click(tab_a, "revisions.save.")
    assert any(s.value.startswith("Saved revision 1") for s in tab_a.success)

    theirs = MODEL + "三、另一窗口\n"
    _editor(tab_b).input(theirs).run()  # type: ignore[attr-defined]
    assert "Since you opened this draft, alice saved revision 1" in tab_b.warning[0].value
    _click(tab_b, "revisions.save.")
    (error,) = [shown(e.value) for e in tab_b.error]
    assert "The draft was revised since you opened it: revision 1 by alice" in error
    diff = next(h.proto.body for h in tab_b.get("html") if "lexspec-redline" in h.proto.body)
    assert "三、另一窗口</ins>" in diff and "二、材料</del>" in diff  # theirs vs the newest
    with app_session() as session:
        assert [r.text for r in revisions.list_revisions(gid, session=session, actor=alice)] == [
            EDITED
        ]  # type: ignore[arg-type]

    _click(tab_b, "revisions.load.")  # the way forward: the newest revision in the editor
    assert _editor(tab_b).value == EDITED  # type: ignore[attr-defined]
    assert any(s.value == "Revision 1 loaded." for s in tab_b.success)
    assert not tab_b.warning
    _editor(tab_b).input(EDITED + "三、另一窗口\n").run()  # type: ignore[attr-defined]
    _click(tab_b, "revisions.save.")
    assert any(s.value.startswith("Saved revision 2") for s in tab_b.success)


def test_the_editor_opens_on_the_newest_saved_revision(app_env: Path) -> None:  # noqa: F811
    """A fresh page run for the generation (another visit, another tab) shows revision 1, not
    the model's text, and says what it holds."""
    alice = make_user("alice", "drafter")
    gid = _logged_generation()
    at = _draft_page_with_result(alice, gid)
    _editor(at).input(EDITED).run()  # type: ignore[attr-defined]
    _click(at, "revisions.save.")
    again = _draft_page_with_result(alice, gid)
    assert _editor(again).value == EDITED  # type: ignore[attr-defined]
    assert any(c.value == "The editor holds revision 1." for c in again.caption)
    assert not any(c.value == "There are unsaved edits." for c in again.caption)
