"""A whole study against the real embedded servers: generate (interrupted, resumed), review
blind, unlock, report and export. Arms: the n-gram speculative server vs the plain one."""

from __future__ import annotations

import csv
import dataclasses
import io
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import PermissionDenied
from app.config import EndpointConfig, Settings
from app.prompts import load_library
from app.studies import report as study_report
from app.studies import service as studies
from app.studies.domain import ArmSpec, ResultsLocked, ReviewError, StudySpec, VerdictInput
from audit.models import Generation, User
from tests.conftest import MakeContext, acting

pytestmark = [pytest.mark.integration, pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)]

DOC_TYPE = "clause-continuation"  # the shortest prompt: keeps CPU generation quick
ARMS = (
    ArmSpec("arm-speculative-ngram", "spec-server", {"max_tokens": 16, "temperature": 0.0}),
    ArmSpec("arm-plain-decoding", "plain-server", {"max_tokens": 16, "temperature": 0.0}),
)
REVIEWERS = ("reviewer_one", "reviewer_two")


class Interrupted(Exception):
    """Raised from the progress callback to simulate a crash mid-study."""


@pytest.fixture
def settings(tmp_path: Path, llm_base_url: str, plain_llm_base_url: str) -> Settings:
    # the arms compare how the model writes: both adapt (an unmeasured endpoint would assemble)
    endpoints = {
        "spec-server": EndpointConfig(
            base_url=llm_base_url, label="n-gram speculative", writing="adapt"
        ),
        "plain-server": EndpointConfig(base_url=plain_llm_base_url, label="plain", writing="adapt"),
    }
    return Settings(data_dir=tmp_path, endpoints=endpoints, request_timeout_s=120.0)


def _users(factory: sessionmaker[Session]) -> None:
    roles = {"admin_a": "admin", "drafter_d": "drafter", **dict.fromkeys(REVIEWERS, "reviewer")}
    with factory() as session:
        for name, role in roles.items():
            session.add(User(name=name, role=role, password_hash="-", created_at=datetime.now()))
        session.commit()


def _spec(settings: Settings) -> StudySpec:
    example = load_library(settings.prompts_dir).types[DOC_TYPE].example_values()
    cases = (example, {**example, "instructions": "续写违约责任与争议解决条款"})
    return StudySpec("n-gram vs plain", DOC_TYPE, cases, ARMS, REVIEWERS)


def _items(factory: sessionmaker[Session], study_id: int) -> dict[int, Any]:
    from app.studies.store import list_items

    with factory() as session:
        return {i.id: i for i in list_items(study_id, session=session)}


def _generation_count(factory: sessionmaker[Session]) -> int:
    with factory() as session:
        return int(session.scalar(select(func.count()).select_from(Generation)) or 0)


def test_study_generates_resumes_reviews_and_reports(
    db_session_factory: sessionmaker[Session], settings: Settings
) -> None:
    factory = db_session_factory
    _users(factory)
    with factory() as session:
        with pytest.raises(PermissionDenied):
            studies.create_study(
                _spec(settings),
                session=session,
                settings=settings,
                actor=acting("drafter_d", session=session),
            )
        study = studies.create_study(
            _spec(settings),
            session=session,
            settings=settings,
            actor=acting("admin_a", session=session),
        )
        session.commit()
    after = _generate_interrupted_then_resumed(factory, settings, study.id)
    _check_generations_went_to_the_right_arm(factory, study, after)
    _review_blind_and_check(factory, study, after)
    _report_and_export(factory, study)


def _generate_interrupted_then_resumed(
    factory: sessionmaker[Session], settings: Settings, study_id: int
) -> dict[int, Any]:
    """Interrupt after two of the four drafts (from the progress callback), then resume."""
    seen: list[studies.GenerationProgress] = []

    def crash_after_two(p: studies.GenerationProgress) -> None:
        seen.append(p)
        if p.generated == 2:
            raise Interrupted

    with pytest.raises(Interrupted):
        studies.generate_items(
            study_id,
            session_factory=factory,
            settings=settings,
            progress=crash_after_two,
            actor=acting("admin_a", factory=factory),
        )
    assert [(p.done, p.total) for p in seen] == [(0, 4), (1, 4), (2, 4)]
    before = _items(factory, study_id)
    finished = {i: it for i, it in before.items() if it.status == "complete"}
    assert len(finished) == 2 and all(it.text and it.generation_id for it in finished.values())
    assert _generation_count(factory) == 2

    resumed: list[studies.GenerationProgress] = []
    final = studies.generate_items(
        study_id,
        session_factory=factory,
        settings=settings,
        progress=resumed.append,
        actor=acting("admin_a", factory=factory),
    )
    assert (final.done, final.total, final.generated, final.failed) == (4, 4, 2, 0)
    assert resumed[0].done == 2  # the finished ones were counted, not regenerated
    after = _items(factory, study_id)
    assert all(it.status == "complete" and it.generation_id for it in after.values())
    for item_id, item in finished.items():  # untouched by the resume
        assert (after[item_id].text, after[item_id].generation_id) == (
            item.text,
            item.generation_id,
        )
    assert _generation_count(factory) == 4
    return after


def _check_generations_went_to_the_right_arm(
    factory: sessionmaker[Session], study: Any, items: dict[int, Any]
) -> None:
    endpoint_of = {a.id: a.endpoint for a in study.arms}
    with factory() as session:
        for item in items.values():
            gen = session.get(Generation, item.generation_id)
            assert gen is not None and gen.endpoint == endpoint_of[item.arm_id]
            assert gen.output_text == item.text and gen.params["max_tokens"] == 16
            parts = len(gen.params["draft"].get("parts", [])) or 1  # outline: 16 per part
            assert 0 < gen.completion_tokens <= 16 * parts
            # what produced the draft is stored with it, speculation as the server reported it
            config = item.config
            assert config["endpoint"] == endpoint_of[item.arm_id] and config["max_tokens"] == 16
            assert config["temperature"] == 0.0 and config["mode"] == gen.params["draft"]["mode"]
            assert config["model"] == gen.model and config["arm"]["max_tokens"] == 16
            method = {"spec-server": "ngram", "plain-server": "off"}[config["endpoint"]]
            assert config["speculation"]["method"] == method


def _review_blind_and_check(factory: sessionmaker[Session], study: Any, items: Any) -> None:
    with factory() as session:
        secrets = [a.label for a in study.arms] + [a.endpoint for a in study.arms]
        secrets += ["n-gram speculative", "ngram", "SmolLM", "127.0.0.1", study.name]
        gens = [session.get(Generation, it.generation_id) for it in items.values()]
        secrets += [g.model for g in gens if g is not None and g.model]
        for reviewer in REVIEWERS:
            listed = studies.reviewer_studies(
                session=session, actor=acting(reviewer, session=session)
            )
            queue = studies.reviewer_queue(
                study.id, session=session, actor=acting(reviewer, session=session)
            )
            served = [*listed, *queue]
            dump = repr([dataclasses.asdict(o) for o in served]) + repr(served)
            for secret in secrets:
                assert secret not in dump, secret
            keys = _all_keys([dataclasses.asdict(o) for o in served])
            assert not keys & {
                "arm",
                "arm_id",
                "item_id",
                "endpoint",
                "model",
                "generation_id",
                "ttft_s",
                "total_s",
                "completion_tokens",
                "label",
            }
            assert len(queue) == 2 and {d.slot for p in queue for d in p.drafts} == {"A", "B"}
            with pytest.raises(ResultsLocked):
                studies.results(
                    study.id,
                    settings=Settings(),
                    session=session,
                    actor=acting("admin_a", session=session),
                )
            for pair in queue:
                for k, draft in enumerate(pair.drafts):
                    errors = ("把第三条写成第四条",) if k == 0 and reviewer == REVIEWERS[0] else ()
                    verdict = VerdictInput(7 + k, 8, 6 + k, errors, "")
                    studies.submit_verdict(
                        draft.token,
                        verdict,
                        session=session,
                        actor=acting(reviewer, session=session),
                    )
            session.commit()
        with pytest.raises(PermissionDenied):
            studies.submit_verdict(
                queue[0].drafts[0].token,
                VerdictInput(1, 1, 1),
                session=session,
                actor=acting("drafter_d", session=session),
            )
        with pytest.raises(PermissionDenied):
            studies.results(
                study.id,
                settings=Settings(),
                session=session,
                actor=acting(REVIEWERS[0], session=session),
            )


def _all_keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _all_keys(v)}
    if isinstance(value, list | tuple):
        return {k for v in value for k in _all_keys(v)}
    return set()


def _report_and_export(factory: sessionmaker[Session], study: Any) -> None:
    with factory() as session:
        progress = studies.study_progress(
            study.id, session=session, actor=acting("admin_a", session=session)
        )
        assert progress.all_verdicts_in
        assert {(r.reviewer, r.done, r.total) for r in progress.reviewers} == {
            (REVIEWERS[0], 4, 4),
            (REVIEWERS[1], 4, 4),
        }
        report = studies.results(
            study.id, settings=Settings(), session=session, actor=acting("admin_a", session=session)
        )
    assert report.unblinded_by is None and report.verdicts_in == report.verdicts_expected == 8
    spec_label, plain_label = report.arms
    for arm in report.arms:
        assert report.means[arm]["structure"].mean == pytest.approx(8.0)
        assert report.means[arm]["structure"].n == 4
    # A/B was random per (reviewer, case); scores followed the slot, so per arm they mix
    total_cit = sum(report.means[a]["citation"].mean * 4 for a in report.arms)
    assert total_cit == pytest.approx(2 * 2 * (7 + 8))
    hard = {h.arm: h for h in report.hard_errors}
    assert hard[spec_label].total + hard[plain_label].total == 2
    assert len(report.errors_listed) == 2
    structure = next(p for p in report.paired if p.dimension == "structure")
    assert structure.diff.n == 4 and structure.diff.mean == 0 and structure.test.p_value == 1.0

    rows = list(csv.reader(io.StringIO(study_report.report_csv(report, "en"))))
    assert rows[0][:3] == ["Section", "Arm", "Dimension"]
    means = [r for r in rows if r[0] == "Means per arm" and r[2] == "Structural completeness"]
    assert [(r[1], r[4]) for r in means] == [(spec_label, "8.000"), (plain_label, "8.000")]
    raw = list(csv.reader(io.StringIO(study_report.verdicts_csv(report, "zh"))))
    assert len(raw) == 1 + 8 and raw[0][0] == "评审人"

    doc = Document(io.BytesIO(study_report.report_docx(report, "zh")))
    cells = [c.text for t in doc.tables for row in t.rows for c in row.cells]
    assert "各对照组均值" in cells and spec_label in cells and "8.000" in cells
    assert any("把第三条写成第四条" in p.text for p in doc.paragraphs)
    title = load_library(Settings().prompts_dir).types[DOC_TYPE].title("zh")
    type_line = next(p.text for p in doc.paragraphs if p.text.startswith("文书类型"))
    assert title in type_line and DOC_TYPE not in type_line  # the name, not the internal id


def _offline_settings(tmp_path: Path) -> Settings:
    """Both arm endpoints named but unreachable: for tests that generate nothing."""
    nowhere = EndpointConfig(base_url="http://127.0.0.1:9/v1")
    return Settings(data_dir=tmp_path, endpoints={"spec-server": nowhere, "plain-server": nowhere})


def test_early_unblinding_needs_admin_and_reason_and_is_reported(
    db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """No generation needed: results unlock early on an admin's logged decision."""
    factory, settings = db_session_factory, _offline_settings(tmp_path)
    _users(factory)
    with factory() as session:
        study = studies.create_study(
            _spec(settings),
            session=session,
            settings=settings,
            actor=acting("admin_a", session=session),
        )
        session.commit()
        with pytest.raises(ResultsLocked) as locked:
            studies.results(
                study.id,
                settings=Settings(),
                session=session,
                actor=acting("admin_a", session=session),
            )
        assert "解锁" in locked.value.message_zh
        with pytest.raises(PermissionDenied):
            studies.unblind_early(
                study.id,
                session=session,
                reason="peek",
                actor=acting(REVIEWERS[0], session=session),
            )
        with pytest.raises(ReviewError):
            studies.unblind_early(
                study.id, session=session, reason="  ", actor=acting("admin_a", session=session)
            )
        studies.unblind_early(
            study.id, session=session, reason="deadline", actor=acting("admin_a", session=session)
        )
        session.commit()
        report = studies.results(
            study.id, settings=Settings(), session=session, actor=acting("admin_a", session=session)
        )
    assert report.unblinded_by == "admin_a" and report.verdicts_in == 0
    assert report.means[report.arms[0]]["citation"].mean is None
    doc = Document(io.BytesIO(study_report.report_docx(report, "en")))
    assert any("unblinded these results early" in p.text for p in doc.paragraphs)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"doc_type": "no-such-type"}, "no-such-type"),
        ({"arms": (ARMS[0], ArmSpec("x", "nowhere"))}, "nowhere"),
        ({"arms": (ARMS[0], ArmSpec("x", "plain-server", {"temprature": 1}))}, "temprature"),
        ({"cases": ({"clause": "只有一个字段"},)}, "1"),
        ({"reviewers": ()}, "reviewer"),
    ],
)
def test_bad_study_specs_get_clear_messages(
    db_session_factory: sessionmaker[Session],
    tmp_path: Path,
    change: dict[str, Any],
    needle: str,
) -> None:
    settings = _offline_settings(tmp_path)
    _users(db_session_factory)
    spec = dataclasses.replace(_spec(settings), **change)
    with db_session_factory() as session, pytest.raises(ReviewError) as err:
        studies.create_study(
            spec, session=session, settings=settings, actor=acting("admin_a", session=session)
        )
    assert needle in err.value.message_en and err.value.message_zh


def test_study_command_line(
    db_url: str, tmp_path: Path, make_context: MakeContext, capsys: pytest.CaptureFixture[str]
) -> None:
    """`lexspec study create / progress / report / unblind` on a real SQLite file."""
    import argparse

    from app.commands import study as study_cmd
    from audit.db import make_engine, make_session_factory, migrate

    ctx = make_context(
        database_url=db_url,
        data_dir=tmp_path,
        endpoints={"plain": {"base_url": "http://127.0.0.1:9/v1"}},
    )
    engine = make_engine(db_url)
    migrate(engine)
    _users(make_session_factory(engine))
    engine.dispose()
    parser = argparse.ArgumentParser(prog="lexspec")
    study_cmd.register(parser.add_subparsers(dest="command", required=True))

    def run(*argv: str) -> int:
        args = parser.parse_args(["study", *argv])
        return int(args.func(args, ctx))

    spec = tmp_path / "study.yaml"
    spec.write_text(
        study_cmd.SPEC_EXAMPLE.replace("[li, wang, zhao]", "[reviewer_one]").replace(
            '"..."', "第八条 数据安全"
        ),
        encoding="utf-8",
    )
    assert run("create", str(spec), "--as", "drafter_d") == 2
    assert "admin" in capsys.readouterr().err
    assert run("create", str(tmp_path / "missing.yaml"), "--as", "admin_a") == 2
    assert run("create", str(spec), "--as", "admin_a") == 0
    out = capsys.readouterr().out
    assert "Created study 1" in out and "1 × 3 = 3 drafts" in out  # the example's three arms
    assert run("plan", "--difference", "1") == 0  # 2 arms, 3 reviewers, SD 2: 36 pairs
    assert "36 paired scores per two arms, that is 12 cases" in capsys.readouterr().out
    assert run("plan", "--difference", "1", "--study", "1", "--as", "admin_a") == 0
    assert "that is 108 cases" in capsys.readouterr().out  # 3 pairs of arms, 1 reviewer
    assert run("plan", "--difference", "0") == 2
    assert "at most 10 points" in capsys.readouterr().err
    assert run("progress", "1", "--as", "admin_a") == 0
    assert "reviewer_one" in capsys.readouterr().out
    assert run("report", "1", "--as", "admin_a") == 2
    assert "Results unlock" in capsys.readouterr().err
    assert run("unblind", "1", "--as", "admin_a", "--reason", "pilot") == 0
    out_csv, out_docx = tmp_path / "r.csv", tmp_path / "r.docx"
    argv = ["report", "1", "--as", "admin_a", "--csv", str(out_csv), "--docx", str(out_docx)]
    assert run(*argv, "--lang", "en") == 0
    assert out_csv.read_text(encoding="utf-8-sig").startswith("Section,Arm,Dimension")
    assert Document(str(out_docx)).tables


def test_gold_items_are_seeded_from_the_generated_drafts_and_resume(
    db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """No server needed: the real drafts are stored as generated, so generate_items only
    derives the gold items (one per reviewer), deterministically and once."""
    from app.studies import store as review

    factory, settings = db_session_factory, _offline_settings(tmp_path)
    _users(factory)
    spec = dataclasses.replace(_spec(settings), design="both", gold_per_reviewer=1)
    draft = "一、适用情形\n依据第四条，共 120000 人。\n二、其他\n无。\n"
    with factory() as session:
        admin = acting("admin_a", session=session)
        study = studies.create_study(spec, session=session, settings=settings, actor=admin)
        for item in review.list_items(study.id, session=session):
            if item.gold_kind is None:
                config = {"endpoint": "spec-server", "speculation": {"method": "ngram"}}
                review.complete_item(
                    item.id, session=session, text=draft, generation_id=None, config=config
                )
        session.commit()
        plan = studies.plan(
            1.0, n_arms=2, n_reviewers=2, study_id=study.id, session=session,
            settings=settings, actor=admin,
        )  # fmt: skip
        assert (plan.sd_source, plan.sd, plan.cases_needed) == ("default", 2.0, 18)
    final = studies.generate_items(
        study.id,
        session_factory=factory,
        settings=settings,
        actor=acting("admin_a", factory=factory),
    )
    assert (final.done, final.total, final.generated, final.failed) == (6, 6, 2, 0)
    gold = [i for i in _items(factory, study.id).values() if i.gold_kind is not None]
    assert len(gold) == len(REVIEWERS) and all(g.status == "complete" for g in gold)
    for g in gold:
        assert g.text != draft and g.config["endpoint"] == "spec-server"
        assert g.config["gold"]["kind"] in ("wrong_article", "wrong_count", "missing_section")
        assert g.config["speculation"] == {"method": "ngram"}  # the source draft's
    again = studies.generate_items(
        study.id,
        session_factory=factory,
        settings=settings,
        actor=acting("admin_a", factory=factory),
    )
    assert (again.done, again.generated) == (6, 0)
    assert {g.id: g.text for g in gold} == {
        i.id: i.text for i in _items(factory, study.id).values() if i.gold_kind is not None
    }


def test_a_study_from_the_firms_saved_revisions_with_seeded_errors(
    db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """Cases from saved revisions; their texts are the first arm, complete at creation; the
    gold items are seeded from them by generate_items (no server needed for those)."""
    from app.drafting import revisions
    from app.studies import store as review
    from app.studies.revisions import create_from_revisions
    from audit import store
    from tests.records import make_record

    factory, settings = db_session_factory, _offline_settings(tmp_path)
    _users(factory)
    example = load_library(settings.prompts_dir).types[DOC_TYPE].example_values()
    saved_text = "一、违约责任\n依据《民法典》第五百七十七条承担责任，赔偿 300000 元。\n二、争议解决\n协商。\n"
    with factory() as session:
        admin = acting("admin_a", session=session)
        revision_ids = []
        for i in range(2):
            record = make_record(
                doc_type=DOC_TYPE, field_values={**example, "instructions": f"第{i}版"}
            )
            gid = store.log_generation(record, session=session).id
            saved = revisions.save_revision(
                gid, saved_text, settings=settings, session=session, base_revision=0, actor=admin
            )
            revision_ids.append(saved.id)
        session.commit()
        base = dataclasses.replace(
            _spec(settings), arms=(ARMS[1],), design="preference", gold_per_reviewer=1
        )
        with pytest.raises(ReviewError):
            create_from_revisions(
                [999], base, label="律所定稿", session=session, actor=admin, settings=settings
            )
        study = create_from_revisions(
            revision_ids, base, label="律所定稿", session=session, actor=admin, settings=settings
        )
        session.commit()
        assert [a.label for a in study.arms] == ["律所定稿", ARMS[1].label]
        assert [c.values["instructions"] for c in study.cases] == ["第0版", "第1版"]
        saved_items = [
            i for i in review.list_items(study.id, session=session)
            if i.arm_id == study.arms[0].id and i.gold_kind is None
        ]  # fmt: skip
    assert all(i.status == "complete" and i.text == saved_text for i in saved_items)
    assert [i.config["revision_id"] for i in saved_items] == revision_ids
    assert all(i.config["source"] == "revision" for i in saved_items)
