"""One check for a draft wherever it is computed: the Draft page's findings for the edited text,
the findings a saved revision keeps, and `lexspec check --generation` give the same findings for
the same text and context (a real temp database; the logged draft's context rebuilt from it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.config import get_settings
from app.domain import GenerationStats
from app.drafting import revisions
from app.drafting.checking import check
from app.drafting.context import DraftContext, prepare
from app.drafting.outcome import GenerationOutcome
from app.drafting.recording import keep
from app.knowledge import Knowledge
from app.pages.draft_run import check_text
from app.prompts import load_library
from tests.conftest import app_context, app_session
from tests.integration.test_pages_apptest import app_env, make_user  # noqa: F401 - a fixture

pytestmark = pytest.mark.integration
FACTS = Path(__file__).resolve().parents[1] / "unit" / "facts_fixtures"
VALUES = json.loads((FACTS / "filing-guide.facts.json").read_text(encoding="utf-8"))
# the form says 1,200,000 individuals and 8,000 sensitive; filed on 2025-03-15, before the
# certification measures (个人信息出境认证办法) came into force on 2026-01-01
MODEL = (FACTS / "wrong-route.md").read_text(encoding="utf-8")
EDITED = (
    MODEL
    + "四、补充说明\n"
    + "1. 该公司涉及敏感个人信息8500人。\n"  # a wrong count
    + "2. 依据《个人信息出境标准合同办法》第十五条办理备案。\n"  # an article out of range
    + "3. 亦可依据《个人信息出境认证办法》第五条办理认证。\n"  # not in force on the date
)
# read after the clause it continues (第八条 8.1 8.2), a second 第八条 is a duplicate
CONTINUATION = "第八条 通知\n8.1 乙方应当及时通知甲方。\n依据《合同法》第六十条履行。\n"


def _logged(context: DraftContext, text: str) -> int:
    """Log a finished draft in `context` through the one door, as the page and CLI do."""
    outcome = GenerationOutcome(
        context=context,
        endpoint_name="embedded",
        model="m",
        speculative_label="",
        text=text,
        status="complete",
        error=None,
        stats=GenerationStats(),
        check=check(context, text),
    )
    kept = keep(outcome, user_name="alice", ctx=app_context())
    assert kept.generation_id is not None, kept.problem
    return kept.generation_id


def _cli_findings(
    generation_id: int, path: Path | None, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, object]]:
    """`lexspec check --generation ID [FILE] --format json`: its findings (exit 1 on errors)."""
    files = [str(path)] if path is not None else []
    code = main(["check", "--generation", str(generation_id), *files, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == (1 if any(f["severity"] == "error" for f in out["findings"]) else 0)
    return out["findings"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("type_id", "values", "mode", "model", "edited", "expected"),
    [
        (
            "cross-border-filing-guide",
            VALUES,
            "free-form",
            MODEL,
            EDITED,
            {
                "facts.number_mismatch",
                "facts.route_mismatch",
                "citation.article_out_of_range",
                "citation.not_in_force",
            },
        ),
        (  # an outline continuation: checked after the clause it continues
            "clause-continuation",
            None,
            "outline",
            "8.3 乙方应当及时通知甲方。\n",
            CONTINUATION,
            {"numbering.duplicate", "citation.repealed"},
        ),
    ],
)
def test_page_revision_and_cli_give_the_same_findings(
    app_env: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    type_id: str,
    values: dict[str, str] | None,
    mode: str,
    model: str,
    edited: str,
    expected: set[str],
) -> None:
    prompts = get_settings().prompts_dir
    doc = load_library(prompts).types[type_id]
    context = prepare(doc, values or doc.example_values(), knowledge=Knowledge(prompts), mode=mode)  # type: ignore[arg-type]
    assert context.mode == mode
    generation_id = _logged(context, model)

    page = [f.to_dict() for f in check_text(context, edited).findings]  # what the page shows
    user = make_user("alice", "drafter")
    with app_session() as session:
        saved = revisions.save_revision(
            generation_id,
            edited,
            settings=app_context().settings,
            session=session,
            base_revision=0,
            actor=user,
        )
    (tmp_path / "draft.md").write_text(edited, encoding="utf-8")
    cli = _cli_findings(generation_id, tmp_path / "draft.md", capsys)

    assert expected <= {f["code"] for f in page}, [f["code"] for f in page]
    assert list(saved.findings) == page
    assert cli == page
    # without a FILE, the CLI checks the newest saved text: the revision
    assert _cli_findings(generation_id, None, capsys) == page


def test_check_generation_refuses_an_unknown_id_in_one_line(
    app_env: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--generation", "999"]) == 2
    err = capsys.readouterr().err.strip()
    assert "999" in err and len(err.splitlines()) == 1


def test_a_page_run_that_cannot_give_its_outcome_is_still_kept(app_env: Path) -> None:  # noqa: F811
    """A run interrupted before it could finish (its outcome() raises) is kept as stopped, with
    the text that had arrived, like any other run."""
    from app.drafting.freeform import stream_draft
    from app.drafting.service import Drafting
    from app.pages.draft_run import DraftRequest, LiveDraft, _result_of
    from audit.store import get_generation
    from tests.fakes import FakeClient

    prompts = get_settings().prompts_dir
    doc = load_library(prompts).types["cross-border-filing-guide"]
    context = prepare(doc, VALUES, knowledge=Knowledge(prompts), mode="free-form")
    run = stream_draft(FakeClient(["【适用情形】\n"]), context, endpoint_name="embedded")
    request = DraftRequest(doc.id, "T", dict(context.values), context.params, "embedded")
    drafting = Drafting(app_context(), "alice", run, text="【适用情形】\n一、")
    live = LiveDraft(request, drafting)  # never iterated to its end
    result = _result_of(live, "zh")
    assert result.status == "stopped" and result.generation_id is not None
    with app_session() as session:
        stored = get_generation(result.generation_id, session=session)
    assert stored is not None
    assert (stored.record.status, stored.record.output_text) == ("stopped", drafting.text)
    assert stored.record.field_values == dict(context.prompt.values)
