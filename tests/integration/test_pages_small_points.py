"""The smaller points of issue 40 item 8 on the pages (AppTest, real temp SQLite): the password
change is confirmed, admins see every clause proposal waiting for approval, the Results ranking
shows strengths, intervals and win rates, and a study whose arms wrote byte-identical drafts
says so before reviewers score them."""

from __future__ import annotations

import pytest

from app.config import get_settings
from tests.conftest import acting, app_session
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    PASSWORD,
    _history_page,
    app_as,
    app_env,
    make_user,
    page_as,
)
from tests.page_markdown import shown

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]

MODES = ("outline", "free-form", "outline")
DRAFT = "一、适用情形\n依据《数据出境安全评估办法》第四条，共 120000 人。\n"


def _results_page() -> None:
    from app.pages import results

    results.render()


def _studies_page() -> None:
    from app.pages import studies

    studies.render()


def test_a_changed_password_is_confirmed() -> None:
    make_user("root", "admin", must_change=True)
    at = app_as(None, lang="en")
    at.text_input(key="auth.name").input("root")
    at.text_input(key="auth.password").input(PASSWORD)
    at.button[0].click().run()
    at.text_input(key="auth.old").input(PASSWORD)
    at.text_input(key="auth.new").input("a-new-password-1")
    at.text_input(key="auth.again").input("a-new-password-1")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Draft"
    assert [s.value for s in at.success] == [
        "Your password has been changed. Use the new one from now on."
    ]
    at.run()  # said once
    assert not any("password has been changed" in s.value for s in at.success)


def test_admins_see_every_pending_clause_proposal_on_history() -> None:
    from app.precedents import firm_clauses
    from tests.integration.test_firm_clauses import _propose, _revision

    make_user("dana", "drafter")
    boss = make_user("boss", "admin")
    at = page_as(_history_page, boss)
    assert any(c.value == "No firm clause proposals are waiting for approval." for c in at.caption)

    _cand, row = _propose(_revision())
    at = page_as(_history_page, boss)
    assert not at.exception, at.exception
    assert any(e.label == "Firm clauses waiting for approval (1)" for e in at.expander)
    assert any(f"#{row.id} {row.clause_id}" in shown(m.value) for m in at.markdown)
    assert any("Proposed by dana" in c.value for c in at.caption)
    at.button(key=f"precedents.list.approve.{row.id}").click().run()
    assert not at.exception, at.exception
    assert any(shown(s.value).startswith(f"Approved: {row.clause_id}") for s in at.success)
    with app_session() as session:
        assert firm_clauses.pending(session=session) == []
    at.run()
    assert not any(e.label.startswith("Firm clauses waiting") for e in at.expander)

    dana = page_as(_history_page, acting_user("dana"))  # a drafter has no such list
    assert not any("waiting for approval" in c.value for c in dana.caption)


def acting_user(name: str) -> object:
    with app_session() as session:
        return acting(name, session=session)


def _study(design: str, n_cases: int, *, same: bool) -> int:
    """Two arms (three for `same=False`), every draft written: with `same` the two arms wrote
    the same text for each case, byte for byte."""
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec

    make_user("boss", "admin")
    make_user("rita", "reviewer")
    doc = load_library(get_settings().prompts_dir).types["cross-border-filing-guide"]
    temps = (0.0, 0.0) if same else (0.0, 0.5, 1.0)
    arms = tuple(
        ArmSpec(f"ARM-{n}", "embedded", {"temperature": t, "mode": m})
        for n, (t, m) in enumerate(zip(temps, MODES[: len(temps)], strict=True), 1)
    )  # fmt: skip
    cases = tuple({**doc.example_values(), "company_name": f"公司{i}"} for i in range(n_cases))
    spec = StudySpec("s", doc.id, cases, arms, ("rita",), design, 0)  # type: ignore[arg-type]
    with app_session() as session:
        study = studies.create_study(
            spec, session=session, settings=get_settings(), actor=acting("boss", session=session)
        )
        for item in review.list_items(study.id, session=session):
            mark = f"（{item.case_id}）" if same else f"（{item.arm_id}·{item.case_id}）"
            review.complete_item(item.id, session=session, text=DRAFT + mark, generation_id=None)
    return study.id


def test_results_rank_with_strengths_intervals_and_win_rates() -> None:
    from app.studies import service as studies
    from app.studies import store as review

    study_id = _study("preference", 6, same=False)
    with app_session() as session:
        first = review.list_studies(session=session)[0].arms[0].id
        rita = acting("rita", session=session)
        for pair in studies.reviewer_queue(study_id, session=session, actor=rita):
            a, b = (f"（{first}·" in d.text for d in pair.drafts)
            choice = "A" if a else "B" if b else "tie"  # ARM-1 wins every comparison it has
            studies.submit_preference(pair.drafts[0].token, choice, session=session, actor=rita)
        boss = acting("boss", session=session)
    at = page_as(_results_page, boss)
    assert not at.exception, at.exception
    ranking = at.dataframe[1].value
    assert list(ranking.columns) == [
        "Arm", "Comparisons", "Wins (ties half)", "Share of wins (ties half)",
        "Log-strength", "95% CI low", "95% CI high",
    ]  # fmt: skip
    assert ranking["Arm"].iloc[0] == "ARM-1"
    assert ranking["Share of wins (ties half)"].iloc[0] == "100%"
    for column in ("Log-strength", "95% CI low", "95% CI high"):
        assert all(v != "" for v in ranking[column]), column  # filled, with the weak prior
    low, strength, high = (float(ranking[c].iloc[0]) for c in ("95% CI low", "Log-strength",
                                                                "95% CI high"))  # fmt: skip
    assert low < strength < high and strength > float(ranking["Log-strength"].iloc[-1])
    assert any("one virtual tie between every two arms" in shown(w.value) for w in at.warning)


def test_a_study_whose_arms_wrote_identical_drafts_says_so() -> None:
    _study("scores", 2, same=True)
    with app_session() as session:
        boss = acting("boss", session=session)
    at = page_as(_studies_page, boss)
    assert not at.exception, at.exception
    warnings = [shown(w.value) for w in at.warning]
    assert any(
        "ARM-1 and ARM-2 wrote byte-identical drafts for all 2 case(s)" in w for w in warnings
    ), warnings


def test_a_study_whose_arms_differ_has_no_such_warning() -> None:
    _study("scores", 2, same=False)
    with app_session() as session:
        boss = acting("boss", session=session)
    at = page_as(_studies_page, boss)
    assert not at.exception, at.exception
    assert not any("byte-identical" in shown(w.value) for w in at.warning)
