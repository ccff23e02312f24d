"""A study from the firm's own saved revisions: each revision is a case (its generation's form
values) whose first arm is the text the lawyer saved; the other arms draft the same case.
Gold items (seeded errors, app.studies.gold) are derived from these drafts like any others, so a
firm can calibrate its reviewers on its own documents.

The revision arm generates nothing: its items are stored complete at creation, with a
configuration that names the revision and the generation it edited (source "revision").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy.orm import Session

from app.config import Settings
from app.studies.domain import ArmSpec, ReviewError, Study, StudySpec
from audit.domain import User


def create_from_revisions(
    revision_ids: Sequence[int],
    spec: StudySpec,
    *,
    label: str,
    session: Session,
    actor: User,
    settings: Settings,
) -> Study:
    """Create `spec` with its cases taken from the revisions and a first arm `label` holding
    the revisions' texts (complete, never generated). `spec.arms` are the arms to compare
    with (at least one); `spec.cases` is ignored."""
    from app.drafting.logged import logged_values
    from app.studies import service as studies
    from app.studies import store
    from audit.revisions import get_revision
    from audit.store import get_generation

    if not revision_ids:
        raise ReviewError("请至少指定一个已保存的修订", "Name at least one saved revision")
    sources = []
    for revision_id in revision_ids:
        revision = get_revision(revision_id, session=session)
        generation = get_generation(revision.generation_id, session=session) if revision else None
        if revision is None or generation is None:
            raise ReviewError(
                f"修订 {revision_id} 不存在", f"Revision {revision_id} does not exist"
            )
        if generation.record.doc_type != spec.doc_type:
            raise ReviewError(
                f"修订 {revision_id} 的文书类型是「{generation.record.doc_type}」，与研究不同",
                f"Revision {revision_id} is a {generation.record.doc_type}, not a {spec.doc_type}",
            )
        sources.append((revision, generation))
    cases = tuple(logged_values(g.record) for _, g in sources)
    saved = ArmSpec(label.strip(), settings.default_endpoint, {})
    study = studies.create_study(
        replace(spec, cases=cases, arms=(saved, *spec.arms)),
        session=session,
        actor=actor,
        settings=settings,
    )
    arm = study.arms[0]
    case_ids = [c.id for c in study.cases]
    items = store.list_items(study.id, session=session)
    for item in (i for i in items if i.arm_id == arm.id and i.gold_kind is None):
        revision, generation = sources[case_ids.index(item.case_id)]
        config = {
            "source": "revision",
            "revision_id": revision.id,
            "revision_number": revision.number,
            "saved_by": revision.user_name,
            "generation_id": generation.id,
            "endpoint": generation.record.endpoint,
            "model": generation.record.model,
        }
        store.complete_item(
            item.id, session=session, text=revision.text, generation_id=generation.id, config=config
        )
    return study
