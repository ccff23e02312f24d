"""Work that survives (issue 40 items 3, 4), with AppTest against a real temp database: the Draft
page's form and editor come back in a new browser session (a reload), History opens any version
in the editor and restores an older revision as a new one, a result of another document type is
not shown under the form, and History finds a generation by its client or matter number."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.conftest import app_session
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    MAIN,
    _history_page,
    app_as,
    app_env,
    make_user,
    page_as,
)
from tests.records import make_record

TYPE = "cross-border-filing-guide"
FIELD = f"draft.field.{TYPE}."
MODEL = "一、申报主体\n依据《数据出境安全评估办法》第四条办理。\n"
FIRST = MODEL + "二、申报材料\n第一版修订。\n"
SECOND = MODEL + "二、申报材料\n第二版修订。\n"
EDITED = MODEL + "二、申报材料\n尚未保存的编辑。\n"


def _generation(user: str = "alice", **values: str) -> int:
    from audit import store

    fields = {"company_name": "上海明川跨境电子商务有限公司", "matter_ref": "MC-2025-017"}
    record = make_record(
        user_name=user, doc_type=TYPE, template_id=TYPE, output_text=MODEL,
        field_values={**fields, **values},
    )  # fmt: skip
    with app_session() as session:
        return store.log_generation(record, session=session).id


def _revise(user: object, gid: int, *texts: str) -> list[int]:
    from app.drafting import revisions
    from tests.conftest import app_context

    ids = []
    for number, text in enumerate(texts):
        with app_session() as session:
            saved = revisions.save_revision(
                gid, text, settings=app_context().settings, session=session,
                actor=user, base_revision=number,  # type: ignore[arg-type]
            )  # fmt: skip
        ids.append(saved.id)
    return ids


def _editor(at: AppTest) -> str | None:
    found = [a for a in at.text_area if str(a.key).startswith("draft.edit.")]
    return str(found[0].value) if found else None


def _open_from_history(user: object, gid: int, revision_id: int | None) -> AppTest:
    """What History's Continue editing leaves for the Draft page, in a fresh session."""
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = user
    at.session_state["draft.state.open"] = (gid, revision_id)
    return at.run()


def test_the_form_and_the_draft_come_back_after_a_reload(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    at = app_as(alice, lang="en")
    at.button(key="draft.fill").click().run()
    at.text_input(key=f"{FIELD}company_name").input("杭州示例科技有限公司").run()
    at.radio(key="draft.mode").set_value("free-form").run()
    assert not at.exception, at.exception

    again = app_as(alice, lang="en")  # a reload: a new browser session, the same user
    assert not again.exception, again.exception
    assert again.text_input(key=f"{FIELD}company_name").value == "杭州示例科技有限公司"
    assert again.text_input(key=f"{FIELD}matter_ref").value  # the example's other values too
    assert again.radio(key="draft.mode").value == "free-form"
    assert _editor(again) is None  # nothing drafted yet

    gid = _generation()
    opened = _open_from_history(alice, gid, None)
    assert _editor(opened) == MODEL
    editor = next(a for a in opened.text_area if str(a.key).startswith("draft.edit."))
    editor.input(EDITED).run()
    assert any(c.value == "There are unsaved edits." for c in opened.caption)

    reloaded = app_as(alice, lang="en")
    assert not reloaded.exception, reloaded.exception
    assert _editor(reloaded) == EDITED  # the unsaved edits, not the model's text
    assert any(c.value == "There are unsaved edits." for c in reloaded.caption)
    assert any(f"audit record no. {gid}" in c.value for c in reloaded.caption)
    company = reloaded.text_input(key=f"{FIELD}company_name").value
    assert company == "上海明川跨境电子商务有限公司"  # the opened draft's form

    bob = make_user("bob", "drafter")  # each user has their own state
    theirs = app_as(bob, lang="en")
    assert _editor(theirs) is None
    assert not theirs.text_input(key=f"{FIELD}company_name").value


def test_a_reload_after_another_tab_saved_warns_instead_of_overwriting(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    gid = _generation()
    opened = _open_from_history(alice, gid, None)
    next(a for a in opened.text_area if str(a.key).startswith("draft.edit.")).input(EDITED).run()
    _revise(alice, gid, FIRST)  # another tab saves meanwhile
    reloaded = app_as(alice, lang="en")
    assert _editor(reloaded) == EDITED
    assert any("saved revision 1" in w.value for w in reloaded.warning)  # the conflict is shown


def test_continue_editing_an_older_revision_saves_it_as_the_newest(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    gid = _generation()
    first, _second = _revise(alice, gid, FIRST, SECOND)
    at = _open_from_history(alice, gid, first)
    assert not at.exception, at.exception
    assert _editor(at) == FIRST
    assert any("the newest is revision 2" in i.value for i in at.info)
    at.button(
        key=next(str(b.key) for b in at.button if str(b.key).startswith("revisions.save."))
    ).click().run()
    assert any(s.value.startswith("Saved revision 3") for s in at.success), [
        e.value for e in at.error
    ]

    from app.drafting import revisions

    with app_session() as session:
        items = revisions.list_revisions(gid, session=session, actor=alice)  # type: ignore[arg-type]
    assert [r.text for r in items] == [FIRST, SECOND, FIRST]


def test_history_restores_an_older_revision_and_offers_continue_editing(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    gid = _generation()
    first, second = _revise(alice, gid, FIRST, SECOND)
    at = page_as(_history_page, alice)
    assert not at.exception, at.exception
    assert at.button(key=f"history.continue.{gid}.{second}")  # the newest: continue, no restore
    assert not [b for b in at.button if str(b.key).startswith("history.restore.")]
    at.selectbox(key=f"history.version.{gid}").set_value(first).run()
    at.button(key=f"history.restore.{gid}.{first}").click().run()
    assert not at.exception, at.exception
    assert any(s.value == "Revision 1 restored as revision 3." for s in at.success)

    from app.drafting import revisions

    with app_session() as session:
        items = revisions.list_revisions(gid, session=session, actor=alice)  # type: ignore[arg-type]
    assert [(r.number, r.text) for r in items] == [(1, FIRST), (2, SECOND), (3, FIRST)]


def test_no_result_of_another_type_under_the_form(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    gid = _generation()
    at = _open_from_history(alice, gid, None)
    assert _editor(at) == MODEL
    at.selectbox(key="draft.doc_type").set_value("pia-report").run()
    assert not at.exception, at.exception
    assert _editor(at) is None
    assert not [b for b in at.button if str(b.key).startswith("revisions.save.")]
    assert any("made for another document type" in i.value for i in at.info)
    at.selectbox(key="draft.doc_type").set_value(TYPE).run()
    assert _editor(at) == MODEL  # kept, and shown under its own type again


def test_history_finds_a_generation_by_client_or_matter(app_env: Path) -> None:  # noqa: F811
    alice = make_user("alice", "drafter")
    mine = _generation()
    other = _generation(company_name="北京远舟数据有限公司", matter_ref="YZ-2026-003")
    at = page_as(_history_page, alice)
    table = at.dataframe[0].value
    assert "Client · matter" in table.columns
    guide = "Filing guide for the cross-border data transfer security assessment form"
    assert set(table["Document type"]) == {guide}  # in words, not the type's id
    parties = set(table["Client · matter"])
    assert "上海明川跨境电子商务有限公司 · MC-2025-017" in parties
    at.text_input(key="history.party").input("yz-2026").run()  # a matter number, any case
    assert list(at.dataframe[0].value["No."]) == [other]
    at.text_input(key="history.party").input("明川").run()  # a client
    assert list(at.dataframe[0].value["No."]) == [mine]
    at.text_input(key="history.party").input("nobody").run()
    assert not at.dataframe and any("No generations" in i.value for i in at.info)
