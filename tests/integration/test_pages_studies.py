"""Study designs on the pages (AppTest, real temp SQLite): an admin plans and creates a
three-arm preference study, a reviewer records a preference, the results rank the arms and
show gold catch rates."""

from __future__ import annotations

import pytest

from app.config import get_settings
from tests.conftest import acting, app_session
from tests.integration.test_pages_apptest import app_env, make_user, page_as  # noqa: F401
from tests.page_markdown import shown

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]

DRAFT = (
    "一、适用情形\n依据《数据出境安全评估办法》第四条，共 120000 人。\n二、申报材料\n材料 3 份。\n"
)


def _studies_page() -> None:
    from app.pages import studies

    studies.render()


def _review_page() -> None:
    from app.pages import blind_review as review

    review.render()


def _my_reviews_page() -> None:
    from app.pages import my_reviews

    my_reviews.render()


def _results_page() -> None:
    from app.pages import results

    results.render()


def _study(design: str, gold: int, n_cases: int = 1) -> int:
    """Three arms, every draft written (gold items seeded as generation would), no LLM."""
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec
    from app.studies.gold import seed_gold

    make_user("boss", "admin")
    doc = load_library(get_settings().prompts_dir).types["cross-border-filing-guide"]
    arms = tuple(
        ArmSpec(f"ARM-{n}", "embedded", {"temperature": t})
        for n, t in ((1, 0.0), (2, 0.5), (3, 1.0))
    )
    cases = tuple({**doc.example_values(), "company_name": f"公司{i}"} for i in range(n_cases))
    spec = StudySpec("three", doc.id, cases, arms, ("rita",), design, gold)  # type: ignore[arg-type]
    with app_session() as session:
        study = studies.create_study(
            spec, session=session, settings=get_settings(), actor=acting("boss", session=session)
        )
        items = review.list_items(study.id, session=session)
        texts = {}
        for item in (i for i in items if i.gold_kind is None):
            texts[item.id] = DRAFT + f"（{item.arm_id}·{item.case_id}）"
            config = {"endpoint": "embedded", "mode": "outline", "temperature": 0.0,
                      "max_tokens": 512, "model": "m", "speculation": {"method": "ngram",
                      "draft_tokens": 10, "accepted_tokens": 7}}  # fmt: skip
            review.complete_item(
                item.id, session=session, text=texts[item.id], generation_id=None, config=config
            )
        for item in (i for i in items if i.gold_kind is not None):
            seeded = seed_gold(texts[item.source_item_id or 0], item.gold_kind or "", item.id)
            assert seeded is not None
            review.complete_item(item.id, session=session, text=seeded.text, generation_id=None)
    return study.id


def test_admin_plans_and_creates_a_three_arm_preference_study() -> None:
    from app.studies import store as review

    boss = make_user("boss", "admin")
    make_user("rita", "reviewer")
    at = page_as(_studies_page, boss)
    assert not at.exception
    plan = shown(at.info[0].value)  # planning before generating: 2 arms, 1 reviewer, SD 2
    assert "that is 36 cases" in plan and "the design's default" in plan
    at.number_input(key="study.n_arms").set_value(3).run()
    assert "that is 108 cases" in shown(at.info[0].value)  # three pairs of arms, one reviewer
    at.number_input(key="study.plan.new.reviewers").set_value(3).run()
    assert "that is 36 cases" in shown(at.info[0].value)
    at.text_input(key="study.name").input("three set-ups")
    for n in (1, 2, 3):
        at.text_input(key=f"study.arm{n}.label").input(f"arm {n}")
    at.selectbox(key="study.arm2.mode").set_value("free-form")
    at.number_input(key="study.arm3.temperature").set_value(0.7)
    at.radio(key="study.design").set_value("preference")
    at.number_input(key="study.gold").set_value(1)  # one case: no room for a gold item
    at.multiselect(key="study.reviewers").select("rita")
    at.button[0].click().run()
    assert not at.exception
    assert "Gold items per reviewer must be 0 to half the cases" in at.error[0].value
    at.number_input(key="study.gold").set_value(0)
    at.button[0].click().run()
    assert not at.exception and at.success[0].value.startswith("Study created")
    with app_session() as session:
        study = review.list_studies(session=session)[0]
    assert study.design == "preference" and [a.label for a in study.arms] == [
        "arm 1",
        "arm 2",
        "arm 3",
    ]
    assert study.arms[1].params["mode"] == "free-form"
    assert study.arms[2].params["temperature"] == pytest.approx(0.7)


def test_admin_sees_what_produced_each_draft() -> None:
    make_user("rita", "reviewer")
    _study("both", 0)
    with app_session() as session:
        boss = acting("boss", session=session)
    at = page_as(_studies_page, boss)
    assert not at.exception
    table = at.dataframe[-1].value  # the configurations stored with the items
    assert list(table["Speculation (as reported)"]) == ["ngram"] * 3
    assert list(table["Accepted / drafted tokens"]) == ["7/10"] * 3
    assert any("36" in i.value and "the design's default" in shown(i.value) for i in at.info)


def test_reviewer_records_a_preference() -> None:
    reviewer = make_user("rita", "reviewer")
    _study("preference", 0)
    at = page_as(_review_page, reviewer)
    assert not at.exception
    assert not at.slider  # a preference-only design asks for no scores
    assert at.get("progress")[0].proto.text == "Progress: 0 of 1 judgements given"
    key = f"preference.choice.{at.selectbox(key='review.study').value}.1"
    choice = at.radio(key=key)
    assert choice.label == "Which would you send to the client?"
    assert choice.options == ["Draft A", "Draft B", "A tie"]
    at.button[0].click().run()  # nothing chosen yet
    assert at.warning[0].value == "Choose A, B or a tie first."
    at.radio(key=key).set_value("B")
    at.button[0].click().run()
    assert not at.exception
    assert at.success[0].value == "Your choice is recorded."
    assert at.get("progress")[0].proto.text == "Progress: 1 of 1 judgements given"
    history = page_as(_my_reviews_page, reviewer)  # the reviewer's own record shows it too
    assert not history.exception
    assert list(history.dataframe[0].value["Would send to the client"]) == ["Draft B"]


def test_results_rank_the_arms_and_flag_a_reviewer_who_misses_gold() -> None:
    from app.studies import service as studies
    from app.studies.domain import VerdictInput

    make_user("rita", "reviewer")
    study_id = _study("both", 1, n_cases=2)
    with app_session() as session:
        rita = acting("rita", session=session)
        for pair in studies.reviewer_queue(study_id, session=session, actor=rita):
            for draft in pair.drafts:  # high scores, no hard error: misses the gold item
                studies.submit_verdict(
                    draft.token, VerdictInput(9, 9, 9), session=session, actor=rita
                )
            studies.submit_preference(pair.drafts[0].token, "tie", session=session, actor=rita)
        boss = acting("boss", session=session)
    at = page_as(_results_page, boss)
    assert not at.exception
    table = at.dataframe[0].value
    sections = set(table.iloc[:, 0])
    assert {"Preference ranking (Bradley–Terry)", "Gold catch rate"} <= sections
    gold = table[table.iloc[:, 0] == "Gold catch rate"]
    assert list(gold.iloc[:, 1]) == ["rita"] and list(gold.iloc[:, 4]) == ["0.000"]
    assert any("rita caught only 0 of 1 seeded errors" in w.value for w in at.warning)
