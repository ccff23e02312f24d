"""What the page says is what happened (issue 16): Regenerate reads the form as it is now,
choices read in English, the study form and results say what they mean, a reviewer's History
is their own blind record. AppTest against a real temp database."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import acting, app_session
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    _all_text,
    app_as,
    app_env,
    make_study,
    make_user,
    page_as,
)

COMPANY = "draft.field.cross-border-filing-guide.company_name"


def test_regenerate_uses_the_form_as_it_is_now(app_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"), lang="en")
    at.button(key="draft.fill").click().run()
    at.button(key="draft.go").click().run()  # nothing listens: an error result, with its inputs
    first = at.session_state["draft.result"].request
    assert first.values["company_name"] == "上海明川跨境电子商务有限公司"
    assert not any("form changed" in c.value for c in at.caption)

    at.text_input(key=COMPANY).input("北京新公司有限公司").run()
    assert any("The form changed since the last draft" in c.value for c in at.caption)
    at.button(key="draft.again").click().run()
    assert not at.exception
    again = at.session_state["draft.result"]
    assert again.request.values["company_name"] == "北京新公司有限公司"
    prompt = again.context.prompt  # prepared without the server: the prompt itself, not the form
    assert "北京新公司有限公司" in prompt.user and "上海明川" not in prompt.user
    assert not any("form changed" in c.value for c in at.caption)

    at.text_input(key=COMPANY).input("广州第三公司").run()
    at.button(key="draft.retry").click().run()  # Retry, too, takes the form as it is
    assert at.session_state["draft.result"].request.values["company_name"] == "广州第三公司"


def test_english_ui_shows_choices_in_english_and_stores_the_value(app_env: Path) -> None:  # noqa: F811
    at = app_as(make_user("alice", "drafter"), lang="en")
    at.button(key="draft.fill").click().run()
    industry = at.selectbox(key="draft.field.cross-border-filing-guide.industry")
    assert "E-commerce" in industry.options and "电子商务" not in industry.options
    assert industry.value == "电子商务"  # the canonical value behind the English label
    ciio = at.selectbox(key="draft.field.cross-border-filing-guide.is_ciio")
    assert ciio.options == ["No", "Yes", "Not yet determined"]
    ciio.select("是").run()
    at.button(key="draft.go").click().run()
    values = at.session_state["draft.result"].request.values  # as the request stores them
    assert values["is_ciio"] == "是" and values["industry"] == "电子商务"


def _studies_page() -> None:
    from app.pages import studies

    studies.render()


def test_study_grid_has_labels_select_cells_and_warns_on_identical_arms(app_env: Path) -> None:  # noqa: F811
    boss = make_user("boss", "admin")
    make_user("rita", "reviewer")
    at = page_as(_studies_page, boss)
    assert not at.exception
    columns = json.loads(at.dataframe[0].proto.columns)  # the config sent to the browser
    assert columns["company_name"]["label"] == "Company name *"
    industry = columns["industry"]["type_config"]
    assert industry["type"] == "selectbox"
    assert {"value": "电子商务", "label": "E-commerce"} in industry["options"]
    assert columns["is_ciio"]["label"].startswith("Critical information infrastructure")
    assert at.dataframe[0].value["company_name"][0] == "上海明川跨境电子商务有限公司"
    at.text_input(key="study.name").input("pilot")
    at.text_input(key="study.arm1.label").input("fast")
    at.text_input(key="study.arm2.label").input("slow")
    at.multiselect(key="study.reviewers").select("rita")
    at.button[0].click().run()  # both arms: the one embedded endpoint, same max tokens
    assert not at.exception
    assert at.warning and "Two arms use the same endpoint" in at.warning[0].value
    assert not at.success  # nothing created
    at.checkbox(key="study.same_arms_ok").check()
    at.button[0].click().run()
    assert at.success[0].value.startswith("Study created")


def test_a_bad_case_is_called_a_case_not_a_group(app_env: Path) -> None:  # noqa: F811
    from app.config import get_settings
    from app.studies import service as studies
    from app.studies.domain import ArmSpec, ReviewError, StudySpec

    make_user("boss", "admin")
    arms = (ArmSpec("a", "embedded", {"max_tokens": 16}), ArmSpec("b", "embedded"))
    spec = StudySpec("s", "cross-border-filing-guide", ({"company_name": ""},), arms, ())
    try:
        with app_session() as session:
            studies.create_study(
                spec,
                session=session,
                settings=get_settings(),
                actor=acting("boss", session=session),
            )
    except ReviewError as exc:
        assert str(exc.message_zh).startswith("案例 1 的字段值有误")
        assert "组" not in exc.message_zh.split("：")[0]
    else:
        raise AssertionError("an empty required field must be refused")


def _results_page() -> None:
    from app.pages import results

    results.render()


def test_results_with_two_pairs_say_the_sample_is_too_small(app_env: Path) -> None:  # noqa: F811
    from app.studies import service as studies
    from app.studies.domain import VerdictInput
    from audit.users import get_user

    make_user("rita", "reviewer")
    study_id, _ = make_study("rita")
    with app_session() as session:
        for pair in studies.reviewer_queue(
            study_id, session=session, actor=acting("rita", session=session)
        ):
            for n, draft in enumerate(pair.drafts):
                verdict = VerdictInput(1 + 8 * n, 9 - 8 * n, 5, (), "")
                studies.submit_verdict(
                    draft.token, verdict, session=session, actor=acting("rita", session=session)
                )
        boss = get_user("boss", session=session)
    at = page_as(_results_page, boss)
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("too small to conclude" in w and "fewer than 6 pairs" in w for w in warnings)
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert "Mean score (0\\u201310" in spec or "Mean score (0–10" in spec  # a y-axis title
    assert '"title": "Dimension"' in spec or '"title":"Dimension"' in spec


def _my_reviews_page() -> None:
    from app.pages import my_reviews

    my_reviews.render()


def test_reviewer_history_lists_own_verdicts_without_arms(app_env: Path) -> None:  # noqa: F811
    from app.studies import service as studies
    from app.studies.domain import VerdictInput

    reviewer = make_user("rita", "reviewer")
    study_id, _ = make_study("rita")
    empty = page_as(_my_reviews_page, reviewer)
    assert empty.info[0].value == "You have not submitted a verdict yet."
    with app_session() as session:
        pair = studies.reviewer_queue(
            study_id, session=session, actor=acting("rita", session=session)
        )[0]
        verdict = VerdictInput(7, 6, 5, ("引用了已废止的《合同法》",), "条理清楚")
        studies.submit_verdict(
            pair.drafts[0].token, verdict, session=session, actor=acting("rita", session=session)
        )
    at = page_as(_my_reviews_page, reviewer)
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) == 1
    row = table.iloc[0]
    assert row["Draft"] == "A" and row["Citation accuracy"] == 7 and row["Hard errors"] == 1
    assert row["Comment"] == "条理清楚"
    shown = _all_text(at)
    for forbidden in ("ARM-SPECULATIVE-X", "ARM-PLAIN-Y", "embedded", "SmolLM"):
        assert forbidden not in shown, forbidden
