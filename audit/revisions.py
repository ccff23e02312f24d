"""Saved revisions of a generation in the audit log: append, list, read back.

Functions take the session keyword-only and never commit (the caller's unit of work
does). Appending goes through the chain like every other chained row, so a revision
is hashed, linked to the row before it and covered by `verify_chain`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from audit import chain, store
from audit.domain import BilingualError, error_count
from audit.models import Generation
from audit.revision_models import Revision


@dataclass(frozen=True)
class StoredRevision:
    """One saved revision: who saved which text of which generation, and its findings."""

    id: int
    generation_id: int
    number: int
    user_name: str
    created_at: datetime
    text: str
    findings: tuple[Mapping[str, Any], ...]
    seq: int
    row_hash: str

    @property
    def error_count(self) -> int:
        """How many of its findings are errors (audit.domain.error_count)."""
        return error_count(self.findings)


def _stored(row: Revision) -> StoredRevision:
    findings = tuple(f for f in (row.findings or ()) if isinstance(f, dict))
    return StoredRevision(
        id=row.id,
        generation_id=row.generation_id,
        number=row.number,
        user_name=row.user_name,
        created_at=row.created_at.replace(tzinfo=UTC),
        text=row.text,
        findings=findings,
        seq=row.seq,
        row_hash=row.row_hash,
    )


class RevisionConflict(BilingualError):
    """A save based on an older text than the newest revision: saving it would silently drop
    what that revision changed. `latest` is the newest revision, `base` the number the save
    was based on (0: the model's text)."""

    def __init__(self, latest: StoredRevision, base: int) -> None:
        when = latest.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        super().__init__(
            f"您打开此稿后它已被修订：修订 {latest.number}（{latest.user_name}，{when}）。"
            "请载入最新修订（或查看差异）后再保存。",
            f"The draft was revised since you opened it: revision {latest.number} by "
            f"{latest.user_name} ({when}). Load the newest revision (or compare it with your "
            "text) before saving.",
        )
        self.latest, self.base = latest, base


def append_revision(
    generation_id: int,
    text: str,
    *,
    session: Session,
    user_name: str,
    base: int,
    findings: Sequence[Mapping[str, Any]] = (),
) -> StoredRevision:
    """Append the next revision of `generation_id` (LookupError if there is no such generation).

    `base` is the revision number the text was edited from (0: the model's text); when a newer
    revision exists the save is refused with RevisionConflict, checked under the chain lock so
    two tabs or two lawyers saving at once cannot both pass."""
    if session.get(Generation, generation_id) is None:
        raise LookupError(f"no generation #{generation_id}")
    try:
        clean = chain.normalise([dict(f) for f in findings])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"revision findings are not JSON-able: {exc}") from exc
    row = Revision(generation_id=generation_id, user_name=user_name, text=text, findings=clean)
    # the chain head lock taken by _append serialises writers, so the number is read after it
    store._lock_head(session)
    latest = latest_revision(generation_id, session=session)
    last = latest.number if latest is not None else 0
    if base != last:
        if latest is None:
            raise LookupError(f"generation #{generation_id} has no revision {base}")
        raise RevisionConflict(latest, base)
    row.number = last + 1
    store._append(row, session=session)
    return _stored(row)


def list_revisions(generation_id: int, *, session: Session) -> list[StoredRevision]:
    """Oldest first."""
    query = (
        select(Revision).where(Revision.generation_id == generation_id).order_by(Revision.number)
    )
    return [_stored(row) for row in session.scalars(query)]


def get_revision(revision_id: int, *, session: Session) -> StoredRevision | None:
    row = session.get(Revision, revision_id)
    return None if row is None else _stored(row)


def latest_revision(generation_id: int, *, session: Session) -> StoredRevision | None:
    query = (
        select(Revision)
        .where(Revision.generation_id == generation_id)
        .order_by(Revision.number.desc())
        .limit(1)
    )
    row = session.scalars(query).first()
    return None if row is None else _stored(row)


def revision_counts(generation_ids: Sequence[int], *, session: Session) -> dict[int, int]:
    """How many revisions each of `generation_ids` has (absent: none)."""
    if not generation_ids:
        return {}
    query = (
        select(Revision.generation_id, func.count(Revision.id))
        .where(Revision.generation_id.in_(list(generation_ids)))
        .group_by(Revision.generation_id)
    )
    return {int(gid): int(n) for gid, n in session.execute(query)}
