"""The firm's own clause library (issue 23 item 6), on real databases: a saved revision's changed
part proposed as a clause, approved by an admin only, through the shipped clauses' checks,
versioned, in the audit chain, loaded before the shipped clauses for the next draft and
indexed by the retrieval drafter; export and import as YAML; the CLI's one-line errors."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import text

from app import database
from app.accounts import PermissionDenied
from app.cli import main
from app.config import get_settings
from app.drafting.context import prepare
from app.drafting.recording import keep
from app.drafting.revisions import save_revision
from app.drafting.service import run_to_end, start_draft
from app.knowledge import Knowledge
from app.outline.clauses import firm_clauses_file, parse_clauses
from app.precedents import firm_clauses as precedents
from app.prompts import load_library
from app.serving.corpus import corpus_files
from audit import firm_clauses, store
from audit.firm_clauses import FirmClauseDraft
from audit.users import create_user, get_user
from tests.conftest import app_context, app_session
from tests.fakes import FakeClient

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
GUIDE = "cross-border-filing-guide"
PASSWORD = "correct horse"
ADDED = "本所建议在申报前完成风险自评估。"
SHIPPED = "guide.why-route.individuals"


def _settings(url: str, data: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", url)
    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(data))
    get_settings.cache_clear()
    database.reset()
    with app_session() as session:
        create_user("boss", "admin", PASSWORD, session=session)
        create_user("dana", "drafter", PASSWORD, session=session, actor="boss")
        create_user("rita", "reviewer", PASSWORD, session=session, actor="boss")
    yield data
    database.reset()
    get_settings.cache_clear()


@pytest.fixture
def app_settings(
    db_url: str, db_engine: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Settings on a real database (SQLite, and PostgreSQL when it answers) with three users."""
    yield from _settings(db_url, tmp_path / "data", monkeypatch)


@pytest.fixture
def sqlite_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, audit_db: str
) -> Iterator[Path]:
    yield from _settings(audit_db, tmp_path / "data", monkeypatch)


def _user(name: str, session: Any) -> Any:
    user = get_user(name, session=session)
    assert user is not None
    return user


def _assembled(**changes: str) -> Any:
    """An outline draft of the filing guide in `assemble` (the clauses as written, no model)."""
    settings = get_settings()
    doc = load_library(settings.prompts_dir).types[GUIDE]
    client = FakeClient([], scripts=[])
    values = {**doc.example_values(), **changes}
    prepared = prepare(
        doc,
        values,
        knowledge=Knowledge.of(settings),
        client=client,
    )
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="fake", writing="assemble"))
    assert client.requests == []
    return outcome


def _why_route(outcome: Any) -> Any:
    return next(p for p in outcome.provenance if p.title == "是否需要申报")


def _revision(edit: str = ADDED) -> int:
    """A logged assemble draft and a saved revision in which the lawyer extended the why-route
    part (the paragraph the security-assessment route uses, with the form's count in it)."""
    outcome = _assembled()
    paragraph = next(ln for ln in outcome.text.splitlines() if ln.startswith("贵公司自当年"))
    gid = keep(
        outcome, user_name="dana", ctx=app_context()
    ).generation_id  # the one door to the log
    assert gid is not None
    with app_session() as session:
        saved = save_revision(
            gid,
            outcome.text.replace(paragraph, paragraph + edit),
            settings=app_context().settings,
            session=session,
            base_revision=0,
            actor=_user("dana", session),
        )
    return saved.id


def _propose(revision_id: int) -> Any:
    settings = get_settings()
    with app_session() as session:
        dana = _user("dana", session)
        (cand,) = precedents.candidates(revision_id, settings=settings, session=session, actor=dana)
        row = precedents.propose(
            cand.draft("dana", settings=settings), settings=settings, session=session, actor=dana
        )
    return cand, row


def _approve(row_id: int, who: str = "boss") -> Any:
    with app_session() as session:
        return precedents.approve(
            row_id, settings=get_settings(), session=session, actor=_user(who, session)
        )


def test_proposed_then_approved_clause_is_what_the_next_draft_uses(app_settings: Path) -> None:
    cand, row = _propose(_revision())
    # the changed part only, its conditions those of the clause the draft used, the form's
    # count turned back into its placeholder
    assert (cand.part, cand.title, cand.new_version) == ("why-route", "五、是否需要申报", False)
    assert cand.when == {"route_rule": "individuals_assessment"}
    assert "1200000人" in cand.text and ADDED in cand.text
    assert "{{ individuals_count }}人" in cand.generalized and "1200000" not in cand.generalized
    assert ("1200000", "individuals_count") in cand.placeholders
    assert row.status == "pending" and row.version is None and row.source_revision_id
    assert _why_route(_assembled()).clause == SHIPPED  # pending: not in the library yet

    with pytest.raises(PermissionDenied):  # a drafter proposes; only an admin approves
        _approve(row.id, who="dana")
    approved = _approve(row.id)
    assert (approved.status, approved.version, approved.decided_by) == ("approved", 1, "boss")
    assert approved.author == "dana" and approved.source_revision_id == cand.revision_id

    part = _why_route(_assembled())  # the firm clause is preferred over the shipped one
    assert (part.source, part.clause, part.version) == ("clause", "firm.why-route", "1")
    draft = _assembled().text
    assert ADDED in draft and "1200000人" in draft  # rendered from the form again
    # another matter, other facts: its own count fills the placeholder
    assert "1500000人" in _assembled(individuals_count="1500000").text
    # another route: the firm clause's conditions do not hold, the shipped clause applies
    other = _why_route(_assembled(individuals_count="200000", sensitive_count="0"))
    assert other.clause == "guide.why-route.contract"

    published = app_settings / "corpus" / GUIDE / "clauses.yaml"
    assert published in corpus_files(None, get_settings().resolved_corpus_dir)  # retrieval
    assert ADDED in published.read_text(encoding="utf-8")
    with app_session() as session:
        kinds = [e.kind for e in store.list_events(session=session) if e.kind.startswith("clause.")]
        report = store.verify_chain(session=session)
    assert sorted(kinds) == ["clause.approved", "clause.proposed"]
    assert report.first_bad is None and report.ok and not report.uncovered


def test_a_new_version_keeps_the_earlier_one(app_settings: Path) -> None:
    _, first = _propose(_revision())
    _approve(first.id)
    cand, second = _propose(_revision("申报前还应当核对申报书与自评估报告的一致性。"))
    assert cand.new_version and second.clause_id == first.clause_id
    assert _approve(second.id).version == 2
    with app_session() as session:
        rows = firm_clauses.list_clauses(session=session, doc_type=GUIDE, status="approved")
        exported = precedents.library_yaml(GUIDE, session=session)
    assert [r.version for r in rows] == [1, 2]
    (clause,) = parse_clauses(exported)
    assert clause.version == "2" and "一致性" in clause.text and clause.approved_by == "boss"
    assert _why_route(_assembled()).version == "2"


def test_a_part_of_a_revision_is_proposed_once_unless_rejected(app_settings: Path) -> None:
    revision = _revision()
    _, first = _propose(revision)
    with pytest.raises(precedents.PrecedentError, match="already proposed as #1"):
        _propose(revision)  # pending: not again under another id
    with app_session() as session:
        precedents.reject(
            first.id, note="措辞再斟酌", session=session, actor=_user("boss", session)
        )
        made = precedents.from_revision(revision, session=session)
    assert [r.status for r in made] == ["rejected"]
    _, again = _propose(revision)  # rejected: the part may be proposed again
    _approve(again.id)
    with pytest.raises(precedents.PrecedentError, match="already proposed"):
        _propose(revision)  # approved: not again


def test_a_clause_whose_citation_is_wrong_is_refused_with_the_finding(app_settings: Path) -> None:
    wrong = FirmClauseDraft(
        GUIDE,
        "firm.why-route.wrong",
        "why-route",
        "依照《个人信息出境标准合同办法》第九条，应当在标准合同生效之日起10个工作日内备案。",
        {"route": "security_assessment"},
        ({"statute": "个人信息出境标准合同办法", "article": 9},),
        "dana",
    )
    settings = get_settings()
    with app_session() as session, pytest.raises(precedents.ClauseRefused) as refused:
        precedents.propose(wrong, settings=settings, session=session, actor=_user("dana", session))
    assert "firm.why-route.wrong" in str(refused.value) and "citation." in str(refused.value)
    # a pending clause that fails the checks by the time of approval (the statute texts or the
    # outline changed since it was proposed) is refused again, and stays pending
    with app_session() as session:
        row = firm_clauses.add_proposal(wrong, session=session, actor="dana")
    with pytest.raises(precedents.ClauseRefused, match="citation"):
        _approve(row.id)
    with app_session() as session:
        with pytest.raises(PermissionDenied):
            precedents.reject(row.id, note="x", session=session, actor=_user("dana", session))
        done = precedents.reject(
            row.id, note="第九条", session=session, actor=_user("boss", session)
        )
    assert (done.status, done.version, done.note) == ("rejected", None, "第九条")
    assert _why_route(_assembled()).clause == SHIPPED
    with pytest.raises(precedents.PrecedentError, match="already rejected"):
        _approve(row.id)


def test_audit_verify_catches_an_approved_clause_edited_in_the_database(
    app_settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, row = _propose(_revision())
    _approve(row.id)
    env_edit = "UPDATE firm_clauses SET text = '贵公司无需申报。' WHERE id = :i"
    with app_session() as session:
        session.execute(text(env_edit), {"i": row.id})
    with app_session() as session:
        report = store.verify_chain(session=session)
    assert [(f.table, f.id) for f in report.uncovered] == [("firm_clauses", row.id)]
    assert "changed outside LexSpec" in report.uncovered[0].reason.en
    assert main(["audit", "verify"]) == 1
    assert f"firm_clauses id={row.id}: changed outside LexSpec" in capsys.readouterr().err


def test_audit_verify_catches_a_published_library_edited_on_disk_and_publish_mends_it(
    app_settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Drafting reads the published file, so verify holds it to the approved rows: an edited
    file is named; `lexspec clauses publish` writes it anew from the log."""
    _, row = _propose(_revision())
    _approve(row.id)
    published = firm_clauses_file(GUIDE, get_settings().resolved_corpus_dir)
    assert main(["audit", "verify"]) == 0
    capsys.readouterr()
    published.write_text(
        published.read_text(encoding="utf-8").replace("贵公司", "该公司"), encoding="utf-8"
    )
    assert main(["audit", "verify"]) == 1
    err = capsys.readouterr().err
    assert "Firm clause library" in err and str(published) in err
    assert "changed outside LexSpec" in err
    assert main(["clauses", "publish"]) == 0
    assert f"1 firm clause(s) of {GUIDE}" in capsys.readouterr().out
    assert main(["audit", "verify"]) == 0
    published.unlink()  # a deleted library is a change too
    assert main(["audit", "verify"]) == 1
    assert str(published) in capsys.readouterr().err


def test_a_savepoint_or_a_rollback_publishes_nothing(app_settings: Path) -> None:
    """The library is written after the unit of work commits, as the log then holds it."""
    _, row = _propose(_revision())
    published = firm_clauses_file(GUIDE, get_settings().resolved_corpus_dir)
    with pytest.raises(RuntimeError), app_session() as session:
        precedents.approve(
            row.id, settings=get_settings(), session=session, actor=_user("boss", session)
        )
        with session.begin_nested():  # a savepoint released inside the same unit of work
            pass
        assert not published.exists()
        raise RuntimeError("the unit of work fails after the approval")
    assert not published.exists()
    with app_session() as session:
        assert precedents.current_versions(GUIDE, session=session) == []
    _approve(row.id)
    assert "firm.why-route" in published.read_text(encoding="utf-8")


def test_export_then_import_round_trip(app_settings: Path, tmp_path: Path) -> None:
    _, row = _propose(_revision())
    _approve(row.id)
    out = tmp_path / "firm.yaml"
    assert main(["clauses", "export", "--type", GUIDE, "--file", str(out)]) == 0
    (exported,) = parse_clauses(out.read_text(encoding="utf-8"))
    assert exported.id == "firm.why-route" and exported.source.startswith("revision ")

    # a drafter's import proposes; an admin's approves (the next version of the same clause)
    assert main(["clauses", "import", str(out), "--type", GUIDE, "--as", "dana"]) == 0
    with app_session() as session:
        (waiting,) = precedents.pending(session=session, doc_type=GUIDE)
    assert waiting.text == exported.text and waiting.when == exported.when
    assert main(["clauses", "import", str(out), "--type", GUIDE, "--as", "boss"]) == 0
    with app_session() as session:
        (current,) = precedents.current_versions(GUIDE, session=session)
    assert current.version == 2 and current.text == exported.text
    assert [c["article"] for c in current.cites] == [c.article for c in exported.cites]


def test_cli_errors_are_one_line_and_exit_2(
    app_settings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    wrong = tmp_path / "wrong.yaml"
    bad.write_text("clauses: [ {id: x", encoding="utf-8")
    entry = {"id": "firm.x", "part": "why-route", "author": "a", "approved": "2025-01-01",
             "version": "1", "cites": [{"statute": "个人信息出境标准合同办法", "article": 9}],
             "text": "依照《个人信息出境标准合同办法》第九条，应当在标准合同生效之日起10个工作日内备案。"}  # fmt: skip
    wrong.write_text(yaml.safe_dump({"clauses": [entry]}, allow_unicode=True), encoding="utf-8")
    cases = [
        (["clauses", "import", str(bad), "--type", GUIDE, "--as", "boss"], "not valid YAML"),
        (["clauses", "import", str(wrong), "--type", GUIDE, "--as", "boss"], "firm.x"),
        (["clauses", "import", str(tmp_path / "none.yaml"), "--type", GUIDE, "--as", "boss"],
         "none.yaml"),
        (["clauses", "export", "--type", "nope", "--file", str(tmp_path / "o.yaml")], "nope"),
        (["clauses", "approve", "999", "--as", "boss"], "999"),
        (["clauses", "propose", "--revision", "999", "--as", "dana"], "999"),
        (["clauses", "propose", "--revision", "1", "--as", "nobody"], "nobody"),
    ]  # fmt: skip
    for argv, named in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert named in err and len(err.splitlines()) == 1 and "Traceback" not in err, err
    with app_session() as session:
        assert firm_clauses.list_clauses(session=session) == []  # nothing half-imported

    revision = _revision()
    assert main(["clauses", "propose", "--revision", str(revision), "--as", "rita"]) == 2
    assert "drafter" in capsys.readouterr().err  # a reviewer may not propose
    assert main(["clauses", "propose", "--revision", str(revision), "--as", "dana"]) == 0
    out = capsys.readouterr().out
    assert "firm.why-route" in out and "{{ individuals_count }}" in out
    with app_session() as session:
        (row,) = precedents.pending(session=session)
    assert main(["clauses", "approve", str(row.id), "--as", "dana"]) == 2
    assert "admin" in capsys.readouterr().err
    assert main(["clauses", "approve", str(row.id), "--as", "boss"]) == 0
    assert "version 1" in capsys.readouterr().out
    assert main(["clauses", "list", "--type", GUIDE]) == 0
    listed = capsys.readouterr().out.splitlines()
    firm = [ln for ln in listed if "\tfirm.why-route\t" in ln]
    assert len(firm) == 1 and "source firm (approved by boss, revision" in firm[0]
    assert listed[0] == firm[0]  # firm clauses come first: they are preferred
    assert all(ln.endswith("source shipped") for ln in listed[1:])


def test_adapt_mode_asks_the_real_model_to_adapt_the_firm_clause(
    sqlite_settings: Path, llm_base_url: str
) -> None:
    """In `adapt` the firm clause is what the model rewrites (it is in the part's prompt, and in
    the retrieval corpus); whether the small model's prose passes the gates or the part falls
    back to the clause, the part's source names the firm clause."""
    from app.llm.client import OpenAIClient
    from app.llm.router import EndpointConfig

    _, row = _propose(_revision())
    _approve(row.id)
    settings = get_settings()
    doc = load_library(settings.prompts_dir).types[GUIDE]
    client = OpenAIClient(EndpointConfig(base_url=llm_base_url), timeout_s=120, connect_timeout_s=5)
    prepared = prepare(
        doc,
        doc.example_values(),
        knowledge=Knowledge.of(settings),
        client=client,
        params=replace(doc.defaults, temperature=0.0, max_tokens=24),  # cheap: any prose will do
    )
    step = next(s for s in prepared.plan.steps if s.part.key == "why-route")
    assert step.clause is not None and step.clause.id == "firm.why-route"
    assert ADDED in prepared.plan.messages(step, "adapt")[-1]["content"]
    outcome = run_to_end(start_draft(prepared, client, endpoint_name="t", writing="adapt"))
    assert outcome.status in ("complete", "truncated"), outcome.error
    part = _why_route(outcome)
    assert part.source in ("adapted", "clause") and part.clause == "firm.why-route"
