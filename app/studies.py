"""Blind review studies, the service the pages and commands call.

An admin creates a study (document type, field-value sets, two arms, reviewers);
`generate_items` drafts every case × arm through the normal generation path,
logging each output to the audit log, and resumes after an interruption by
skipping items already complete. Reviewers get their blinded queue and submit
verdicts; admins watch progress, may unblind early (logged), and read results
once every verdict is in. Every function takes the acting user's name and checks
the role against the database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session, sessionmaker

from app.accounts import PermissionDenied, require_role
from app.config import Settings
from app.domain import GenerationParams
from audit import review, review_blind
from audit.review_domain import (
    BlindPair,
    BlindVerdict,
    ResultsLocked,
    ReviewError,
    ReviewerStudy,
    Study,
    StudyItem,
    StudyProgress,
    StudySpec,
    VerdictInput,
)
from audit.users import get_user

if TYPE_CHECKING:
    from app.study_report import StudyReport

PARAM_NAMES = frozenset(f.name for f in fields(GenerationParams))


def _user(name: str, role: str, *, session: Session) -> str:
    """The acting user's name once the database confirms they hold `role` (admins hold all)."""
    user = get_user(name, session=session)
    if user is None:
        raise PermissionDenied("请先登录", "Please sign in first")
    return require_role(user, role).name


# ---- admin: create -------------------------------------------------------------------------


def create_study(actor: str, spec: StudySpec, *, session: Session, settings: Settings) -> Study:
    """Check the spec against the prompt library and endpoints, then store it (admin only)."""
    name = _user(actor, "admin", session=session)
    _check_arms(spec, settings)
    _check_cases(spec, settings)
    return review.create_study(spec, session=session, created_by=name)


def _check_arms(spec: StudySpec, settings: Settings) -> None:
    endpoints = settings.all_endpoints()
    for arm in spec.arms:
        if arm.endpoint not in endpoints:
            known = ", ".join(endpoints)
            raise ReviewError(
                f"未知端点「{arm.endpoint}」（可用：{known}）",
                f"Unknown endpoint '{arm.endpoint}' (known: {known})",
            )
        unknown = set(arm.params) - PARAM_NAMES
        if unknown:
            bad = ", ".join(sorted(unknown))
            raise ReviewError(f"未知生成参数：{bad}", f"Unknown generation parameters: {bad}")


def _check_cases(spec: StudySpec, settings: Settings) -> None:
    from app.prompts import FieldErrors, load_library, render

    doc_type = load_library(settings.prompts_dir).types.get(spec.doc_type)
    if doc_type is None:
        raise ReviewError(
            f"未知文书类型「{spec.doc_type}」", f"Unknown document type '{spec.doc_type}'"
        )
    for number, values in enumerate(spec.cases, start=1):
        try:
            render(doc_type, values)
        except FieldErrors as exc:
            zh = "；".join(e.message_zh for e in exc.errors.values())
            en = "; ".join(e.message_en for e in exc.errors.values())
            raise ReviewError(f"第 {number} 组字段值有误：{zh}", f"Case {number}: {en}") from exc


# ---- admin: generate -----------------------------------------------------------------------


@dataclass(frozen=True)
class GenerationProgress:
    """Where study generation stands; `current` names the item just finished (admin view)."""

    done: int  # items complete, including those skipped because they already were
    total: int
    generated: int  # items generated in this run
    failed: int  # items that ended in an error in this run
    current: str = ""


ProgressCallback = Callable[[GenerationProgress], None]


def generate_items(
    actor: str,
    study_id: int,
    *,
    session_factory: sessionmaker[Session],
    settings: Settings,
    progress: ProgressCallback | None = None,
) -> GenerationProgress:
    """Draft every pending item of the study; complete items are skipped, so it resumes.

    Each item is generated, logged to the audit log and stored in its own short
    transaction: an interruption (a raised exception, a closed browser, a crash)
    loses at most the item in flight. Failed items stay pending for the next run.
    """
    from app.prompts import load_library

    with session_factory() as session:
        _user(actor, "admin", session=session)
        study = review.get_study(study_id, session=session)
        items = review.list_items(study_id, session=session)
    doc_type = load_library(settings.prompts_dir).types.get(study.doc_type)
    if doc_type is None:
        raise ReviewError(
            f"未知文书类型「{study.doc_type}」", f"Unknown document type '{study.doc_type}'"
        )
    state = GenerationProgress(sum(i.status == "complete" for i in items), len(items), 0, 0)
    if progress:
        progress(state)
    for item in (i for i in items if i.status != "complete"):
        ok, label = _generate_one(actor, study, item, doc_type, session_factory, settings)
        state = replace(
            state,
            done=state.done + ok,
            generated=state.generated + ok,
            failed=state.failed + (not ok),
            current=label,
        )
        if progress:
            progress(state)
    return state


def arm_params(defaults: GenerationParams, overrides: Mapping[str, Any]) -> GenerationParams:
    """The document type's defaults with an arm's overrides (stop sequences as a tuple)."""
    clean = {k: v for k, v in overrides.items() if k in PARAM_NAMES}
    if "stop" in clean:
        clean["stop"] = tuple(clean["stop"])
    return replace(defaults, **clean)


def _generate_one(
    actor: str,
    study: Study,
    item: StudyItem,
    doc_type: Any,
    session_factory: sessionmaker[Session],
    settings: Settings,
) -> tuple[bool, str]:
    """Generate one item through app.generation; returns (complete?, a label for progress)."""
    from app.generation import record, stream_draft
    from app.llm.client import make_client
    from app.prompts import render

    arm = next(a for a in study.arms if a.id == item.arm_id)
    case = next(c for c in study.cases if c.id == item.case_id)
    label = f"{case.position + 1} · {arm.label}"
    endpoint = settings.all_endpoints()[arm.endpoint]
    run = stream_draft(
        make_client(arm.endpoint, settings),
        render(doc_type, case.values),
        arm_params(doc_type.defaults, arm.params),
        required_sections=doc_type.required_sections,
        endpoint_name=arm.endpoint,
        speculative_label=endpoint.label,
    )
    for _update in run:
        pass
    outcome = run.outcome()
    with session_factory() as session:
        generation_id = record(outcome, user_name=actor, session=session)
        if outcome.status == "complete":
            try:
                review.complete_item(
                    item.id, session=session, text=outcome.text, generation_id=generation_id
                )
            except ReviewError:  # a parallel run finished this item first; its draft stays
                session.rollback()
        else:
            review.fail_item(item.id, session=session, error=outcome.error or outcome.status)
        session.commit()
    return outcome.status == "complete", label


# ---- reviewers -----------------------------------------------------------------------------


def reviewer_studies(reviewer: str, *, session: Session) -> list[ReviewerStudy]:
    """The studies this reviewer is assigned to (blind: no arms), with their own progress."""
    name = _user(reviewer, "reviewer", session=session)
    return review_blind.reviewer_studies(name, session=session)


def reviewer_queue(reviewer: str, study_id: int, *, session: Session) -> list[BlindPair]:
    """The reviewer's own shuffled pairs; each pair's drafts are (A, B), text only."""
    name = _user(reviewer, "reviewer", session=session)
    return review_blind.reviewer_queue(study_id, name, session=session)


def submit_verdict(
    reviewer: str, token: str, verdict: VerdictInput, *, session: Session
) -> BlindVerdict:
    """Store a verdict, or a correction that supersedes the previous one (assigned drafts only)."""
    name = _user(reviewer, "reviewer", session=session)
    return review_blind.submit_verdict(token, verdict, reviewer=name, session=session)


# ---- admin: progress, unblinding, results --------------------------------------------------


def list_studies(actor: str, *, session: Session) -> list[Study]:
    _user(actor, "admin", session=session)
    return review.list_studies(session=session)


def study_progress(actor: str, study_id: int, *, session: Session) -> StudyProgress:
    """Items generated and verdicts in per reviewer (admin only)."""
    _user(actor, "admin", session=session)
    review.get_study(study_id, session=session)  # a clear error for an unknown study
    return review.study_progress(study_id, session=session)


def results_unlocked(study: Study, progress: StudyProgress) -> bool:
    """Results open when every verdict is in, or after an (audited) early unblinding."""
    return progress.all_verdicts_in or study.unblinded_at is not None


def unblind_early(actor: str, study_id: int, *, session: Session, reason: str) -> Study:
    """Open the results before every verdict is in; the audit log records who, when and why."""
    name = _user(actor, "admin", session=session)
    if not reason.strip():
        raise ReviewError("提前揭盲需要填写理由", "Give a reason for unblinding early")
    return review.mark_unblinded(study_id, session=session, actor=name, reason=reason.strip())


def results(actor: str, study_id: int, *, session: Session) -> StudyReport:
    """The unblinded report (see app.study_report); ResultsLocked until unlocked."""
    from app.study_report import build_report

    _user(actor, "admin", session=session)
    study = review.get_study(study_id, session=session)
    progress = review.study_progress(study_id, session=session)
    if not results_unlocked(study, progress):
        raise ResultsLocked(
            "结果将在所有评审意见提交后解锁", "Results unlock once every verdict is in"
        )
    verdicts = review.latest_verdicts(study_id, session=session)
    return build_report(study, progress, verdicts)
