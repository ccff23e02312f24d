"""Blind review studies, the service the pages and commands call.

An admin creates a study (document type, field-value sets, 2–6 arms — any drafting
configuration, app.studies.arms —, a design, gold items per reviewer, reviewers);
`generate_items` drafts every case × arm through the normal generation path, logging each
output to the audit log and storing with the item the configuration that produced it, then
derives the gold items (app.studies.gold); it resumes after an interruption by skipping items
already complete. Reviewers get their blinded queue and submit
verdicts; admins watch progress, may unblind early (logged), and read results
once every verdict is in. Like every app service, each function takes the session
and the acting `User` keyword-only (`actor=`), checks the role, and never commits
(the page or command owns the unit of work; `generate_items` drafts and logs each one through
app.drafting.service.draft and opens one short unit per item from the `session_factory` it
is given, so an interruption loses at most one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session, sessionmaker

from app.accounts import require_role
from app.config import Settings
from app.domain import Bilingual, Role
from app.studies import blinding, store
from app.studies.arms import arm_mode, arm_params, check_arms, item_config
from app.studies.domain import (
    Arm,
    BlindPair,
    BlindPreference,
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
from audit.domain import User
from audit.vocabulary import GenerationStatus, GoldKind, ItemStatus

if TYPE_CHECKING:
    from app.prompts import DocType
    from app.studies.power import CasePlan
    from app.studies.report import StudyReport


def _user(actor: User, role: Role) -> str:
    """The acting user's name once they hold `role` (admins hold all); PermissionDenied else."""
    return require_role(actor, role).name


# ---- admin: create -------------------------------------------------------------------------


def create_study(spec: StudySpec, *, session: Session, actor: User, settings: Settings) -> Study:
    """Check the spec against the prompt library and endpoints, then store it (admin only)."""
    name = _user(actor, Role.ADMIN)
    clean = check_arms(spec, settings)
    _check_cases(clean, settings)
    return store.create_study(clean, session=session, created_by=name)


def _check_cases(spec: StudySpec, settings: Settings) -> None:
    from app.knowledge import Knowledge
    from app.prompts import FieldErrors, validate_values

    doc_type = Knowledge.of(settings).doc_type(spec.doc_type)
    if doc_type is None:
        raise ReviewError(
            f"未知文书类型「{spec.doc_type}」", f"Unknown document type '{spec.doc_type}'"
        )
    for number, values in enumerate(spec.cases, start=1):
        try:
            validate_values(doc_type, values)
        except FieldErrors as exc:
            zh = "；".join(e.message_zh for e in exc.errors.values())
            en = "; ".join(e.message_en for e in exc.errors.values())
            raise ReviewError(f"案例 {number} 的字段值有误：{zh}", f"Case {number}: {en}") from exc


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
    study_id: int,
    *,
    actor: User,
    session_factory: sessionmaker[Session],
    settings: Settings,
    progress: ProgressCallback | None = None,
) -> GenerationProgress:
    """Draft every pending item of the study; complete items are skipped, so it resumes.

    Each item is generated, logged through the one door to the audit log (`keep`) and then
    stored in its own short transaction: an interruption (a raised exception, a closed
    browser, a crash) loses at most the item in flight. Failed items stay pending for the
    next run.
    """
    from app.knowledge import Knowledge

    with session_factory() as session:
        _user(actor, Role.ADMIN)
        study = store.get_study(study_id, session=session)
        items = store.list_items(study_id, session=session)
    doc_type = Knowledge.of(settings).doc_type(study.doc_type)
    if doc_type is None:
        raise ReviewError(
            f"未知文书类型「{study.doc_type}」", f"Unknown document type '{study.doc_type}'"
        )
    done = sum(i.status == ItemStatus.COMPLETE for i in items)
    state = GenerationProgress(done, len(items), 0, 0)
    if progress:
        progress(state)
    real = [i for i in items if i.gold_kind is None and i.status != ItemStatus.COMPLETE]
    for item in real:
        ok, label = _generate_one(actor.name, study, item, doc_type, session_factory, settings)
        state = replace(
            state,
            done=state.done + ok,
            generated=state.generated + ok,
            failed=state.failed + (not ok),
            current=label,
        )
        if progress:
            progress(state)
    gold = (i for i in items if i.gold_kind is not None and i.status != ItemStatus.COMPLETE)
    for item in gold:
        ok, label = _seed_gold_item(study, item, session_factory)
        state = replace(state, done=state.done + ok, generated=state.generated + ok, current=label)
        if progress:
            progress(state)
    return state


def _arm_and_label(study: Study, item: StudyItem) -> tuple[Arm, str]:
    """The item's arm, and "case · arm" for the admin's progress line."""
    arm = next(a for a in study.arms if a.id == item.arm_id)
    case = next(c for c in study.cases if c.id == item.case_id)
    return arm, f"{case.position + 1} · {arm.label}"


def _seed_gold_item(
    study: Study, item: StudyItem, session_factory: sessionmaker[Session]
) -> tuple[bool, str]:
    """Derive a gold item from its generated source draft (seeded by the item's id, so a
    rerun gives the same error); it stays pending while the source is not generated."""
    from app.studies.gold import seed_gold

    label = _arm_and_label(study, item)[1]
    with session_factory.begin() as session:
        source = next(
            i for i in store.list_items(study.id, session=session) if i.id == item.source_item_id
        )
        if source.status != ItemStatus.COMPLETE:
            return False, label
        assert item.gold_kind is not None  # only gold items are seeded
        seeded = seed_gold(source.text, GoldKind(item.gold_kind), item.id)
        if seeded is None:
            store.fail_item(item.id, session=session, error="no seedable error in the draft")
            return False, label
        config = {
            **(source.config or {}),
            "gold": {"kind": seeded.kind, "before": seeded.before, "after": seeded.after},
        }
        store.complete_item(
            item.id,
            session=session,
            text=seeded.text,
            generation_id=source.generation_id,
            config=config,
        )
    return True, label


# statuses whose draft goes to the reviewers
USABLE = (GenerationStatus.COMPLETE, GenerationStatus.TRUNCATED)


def _generate_one(
    actor: str,
    study: Study,
    item: StudyItem,
    doc_type: DocType,
    session_factory: sessionmaker[Session],
    settings: Settings,
) -> tuple[bool, str]:
    """Generate one item through the draft service; returns (usable?, a label for progress).

    A draft cut by its token limit (truncated) is still a draft to review; stopped and failed
    ones stay pending. The context is checked before anything is sent. The draft goes through
    the one door (app.drafting.service.draft), which logs it (`keep`: retried, else spooled),
    then a second short unit of work links it to the item: a crash between the two leaves a logged draft no item points to and
    the item pending (a rerun drafts it again); nothing is lost and no item points to a draft
    that is not in the log."""
    from app.context import Context
    from app.drafting.service import DraftRequest, draft

    arm, label = _arm_and_label(study, item)
    values = next(c for c in study.cases if c.id == item.case_id).values
    endpoint = settings.all_endpoints()[arm.endpoint]
    request = DraftRequest(
        doc_type,
        values,
        arm.endpoint,
        user_name=actor,
        params=arm_params(doc_type.defaults, arm.params),
        mode=arm_mode(arm.params),
    )
    try:
        drafted = draft(Context(settings, session_factory), request)
    except ValueError as exc:  # context too long, a broken outline: the item stays pending
        with session_factory.begin() as session:
            store.fail_item(item.id, session=session, error=str(exc))
        return False, label
    outcome = drafted.outcome
    usable = outcome.status in USABLE and drafted.generation_id is not None
    if not usable:  # stopped, failed, or not in the log: the item stays pending
        problem = drafted.problem.en if drafted.problem is not None else None
        with session_factory.begin() as session:
            store.fail_item(
                item.id, session=session, error=problem or outcome.error or outcome.status
            )
        return False, label
    # a parallel run that finished this item first keeps its draft (this one stays in the log)
    with contextlib.suppress(ReviewError), session_factory.begin() as session:
        store.complete_item(
            item.id,
            session=session,
            text=outcome.text,
            generation_id=drafted.generation_id,
            config=item_config(arm.params, arm.endpoint, endpoint, outcome),
        )
    return True, label


# ---- reviewers -----------------------------------------------------------------------------


def reviewer_studies(*, session: Session, actor: User) -> list[ReviewerStudy]:
    """The studies this reviewer is assigned to (blind: no arms), with their own progress."""
    name = _user(actor, Role.REVIEWER)
    return blinding.reviewer_studies(name, session=session)


def reviewer_queue(study_id: int, *, session: Session, actor: User) -> list[BlindPair]:
    """The reviewer's own shuffled pairs; each pair's drafts are (A, B), text only."""
    name = _user(actor, Role.REVIEWER)
    return blinding.reviewer_queue(study_id, name, session=session)


def submit_verdict(
    token: str, verdict: VerdictInput, *, session: Session, actor: User
) -> BlindVerdict:
    """Store a verdict, or a correction that supersedes the previous one (assigned drafts only)."""
    name = _user(actor, Role.REVIEWER)
    return blinding.submit_verdict(token, verdict, reviewer=name, session=session)


def submit_preference(token: str, choice: str, *, session: Session, actor: User) -> BlindPreference:
    """Store which draft of the pair holding `token` the reviewer would send to the client
    (A, B or tie), or a correction of it (preference designs only)."""
    name = _user(actor, Role.REVIEWER)
    return blinding.submit_preference(token, choice, reviewer=name, session=session)


# ---- admin: progress, unblinding, results --------------------------------------------------


def list_studies(*, session: Session, actor: User) -> list[Study]:
    _user(actor, Role.ADMIN)
    return store.list_studies(session=session)


def list_items(study_id: int, *, session: Session, actor: User) -> list[StudyItem]:
    """Every draft of the study with the configuration that produced it (admin only)."""
    _user(actor, Role.ADMIN)
    return store.list_items(study_id, session=session)


def plan(
    difference: float,
    *,
    n_arms: int,
    n_reviewers: int,
    session: Session,
    actor: User,
    settings: Settings,
    study_id: int | None = None,
) -> CasePlan:
    """Cases needed to detect `difference` (score points) between two arms with 80% power at
    α = 0.05; for an existing study, with its own arms and reviewers and the observed spread
    once enough pairs are in."""
    from app.studies.power import plan_cases
    from app.studies.report import paired_overall

    _user(actor, Role.ADMIN)
    observed: list[float] = []
    if study_id is not None:
        study = store.get_study(study_id, session=session)
        verdicts = store.latest_verdicts(study_id, session=session)
        observed = paired_overall(study, verdicts)
        n_arms, n_reviewers = len(study.arms), len(study.reviewers)
    if not 0 < difference <= 10:
        raise ReviewError(
            "要检测的差值须在 0 到 10 分之间", "The difference must be 0 to 10 points"
        )
    return plan_cases(
        difference,
        n_arms=n_arms,
        n_reviewers=n_reviewers,
        default_sd=settings.study_plan_sd,
        observed=observed,
    )


def study_progress(study_id: int, *, session: Session, actor: User) -> StudyProgress:
    """Items generated and verdicts in per reviewer (admin only)."""
    _user(actor, Role.ADMIN)
    store.get_study(study_id, session=session)  # a clear error for an unknown study
    return store.study_progress(study_id, session=session)


def results_unlocked(study: Study, progress: StudyProgress) -> bool:
    """Results open when every verdict is in, or after an (audited) early unblinding."""
    return progress.all_verdicts_in or study.unblinded_at is not None


def unblind_early(study_id: int, *, session: Session, actor: User, reason: str) -> Study:
    """Open the results before every verdict is in; the audit log records who, when and why."""
    name = _user(actor, Role.ADMIN)
    if not reason.strip():
        raise ReviewError("提前揭盲需要填写理由", "Give a reason for unblinding early")
    return store.mark_unblinded(study_id, session=session, actor=name, reason=reason.strip())


def results(study_id: int, *, settings: Settings, session: Session, actor: User) -> StudyReport:
    """The unblinded report (see app.studies.report) with the gold thresholds and document
    types of `settings`; ResultsLocked until unlocked."""
    from app.studies.report import build_report

    _user(actor, Role.ADMIN)
    study = store.get_study(study_id, session=session)
    progress = store.study_progress(study_id, session=session)
    if not results_unlocked(study, progress):
        raise ResultsLocked(
            "结果将在所有评审意见提交后解锁", "Results unlock once every verdict is in"
        )
    verdicts = store.latest_verdicts(study_id, session=session)
    preferences = store.latest_preferences(study_id, session=session)
    return build_report(
        study,
        progress,
        verdicts,
        _doc_type_title(study.doc_type, settings),
        preferences=preferences,
        settings=settings,
    )


def _doc_type_title(doc_type_id: str, settings: Settings) -> Bilingual | None:
    """The installed type's name in both languages; None when it is no longer installed."""
    from app.knowledge import Knowledge

    doc_type = Knowledge.of(settings).doc_type(doc_type_id)
    return None if doc_type is None else Bilingual(doc_type.title_zh, doc_type.title_en)
