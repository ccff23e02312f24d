"""Saved revisions of a draft: the lawyer's edited text, kept in the audit log.

Saving an edited draft appends a revision linked to its generation (who, when, the
text, its findings re-checked on that text) to the hash chain; nothing is overwritten.
History lists them, shows a redline against the model's text and exports any of them;
"Approve as precedent" uses the latest saved text. Services take the session
keyword-only and never commit: pages and commands own the unit of work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from app.accounts import PermissionDenied, can_see_all_history, require_role
from app.domain import BilingualError, Role
from app.drafting.history import reopen
from app.i18n import cli_text
from audit import revisions as revision_store
from audit.domain import StoredGeneration, User
from audit.revisions import RevisionConflict, StoredRevision

if TYPE_CHECKING:
    from app.config import Settings

MAX_CHARS = 200_000

__all__ = [
    "RevisionConflict",
    "RevisionError",
    "StoredRevision",
    "current_text",
    "get_revision",
    "list_revisions",
    "restore_revision",
    "revision_counts",
    "save_revision",
]


class RevisionError(BilingualError, ValueError):
    """The text cannot be saved as a revision (empty, too long, unchanged)."""


@dataclass(frozen=True)
class CurrentText:
    """The text a generation stands for now: its latest revision, else the model's output."""

    text: str
    revision: StoredRevision | None

    @property
    def number(self) -> int:
        """The revision number (0: the model's own text): what an editor opened on it saves as
        `base_revision`."""
        return self.revision.number if self.revision is not None else 0


def _check_editable(actor: User, stored: StoredGeneration) -> None:
    require_role(actor, Role.DRAFTER)
    if stored.record.user_name != actor.name and not can_see_all_history(actor):
        raise PermissionDenied("只能修订自己的草稿", "You can only revise your own drafts")


def current_text(generation_id: int, *, session: Session) -> CurrentText | None:
    """The latest saved text of a generation (None if there is no such generation)."""
    latest = revision_store.latest_revision(generation_id, session=session)
    if latest is not None:
        return CurrentText(latest.text, latest)
    from audit.store import get_generation

    stored = get_generation(generation_id, session=session)
    return None if stored is None else CurrentText(stored.record.output_text, None)


def save_revision(
    generation_id: int,
    text: str,
    *,
    settings: Settings,
    session: Session,
    actor: User,
    base_revision: int,
) -> StoredRevision:
    """Append `text` as the next revision of the generation, with its findings: the draft's
    context rebuilt from the log (with the document types of `settings`) (the document's date, the facts, a continuation's prefix)
    checked as the page checks it.

    `base_revision` is the revision the text was edited from (0: the model's text). A newer
    revision than that raises RevisionConflict (naming it and who saved it): a save never
    silently drops another tab's or another lawyer's revision."""
    from app.drafting.checking import check
    from app.drafting.logged import stored_context
    from app.knowledge import Knowledge

    stored = reopen(generation_id, session=session, actor=actor)
    _check_editable(actor, stored)
    if not text.strip():
        raise RevisionError("修订稿为空，未保存。", "The revision is empty; nothing was saved.")
    if len(text) > MAX_CHARS:
        raise RevisionError(
            f"修订稿过长（{len(text)} 字），上限 {MAX_CHARS} 字。",
            f"The revision is too long ({len(text)} characters; the limit is {MAX_CHARS}).",
        )
    now = current_text(generation_id, session=session)
    if now is not None and now.text == text:
        raise RevisionError(
            "与上次保存的文本相同，未新建修订。",
            "Same text as the last saved version; no new revision was made.",
        )
    findings = check(stored_context(stored, Knowledge.of(settings)), text).findings
    return revision_store.append_revision(
        generation_id,
        text,
        session=session,
        user_name=actor.name,
        base=base_revision,
        findings=[f.to_dict() for f in findings],
    )


def restore_revision(
    revision_id: int, *, settings: Settings, session: Session, actor: User
) -> StoredRevision:
    """An older revision's text (or nothing newer) saved again as the newest revision: nothing is
    overwritten, the restored text is a new row with its own findings, on top of the newest."""
    stored, revision = get_revision(revision_id, session=session, actor=actor)
    latest = current_text(stored.id, session=session)
    return save_revision(
        stored.id,
        revision.text,
        settings=settings,
        session=session,
        actor=actor,
        base_revision=latest.number if latest is not None else 0,
    )


def list_revisions(generation_id: int, *, session: Session, actor: User) -> list[StoredRevision]:
    """The generation's revisions, oldest first, if `actor` may see the generation."""
    reopen(generation_id, session=session, actor=actor)
    return revision_store.list_revisions(generation_id, session=session)


def get_revision(
    revision_id: int, *, session: Session, actor: User
) -> tuple[StoredGeneration, StoredRevision]:
    """A revision with its generation, if `actor` may see the generation."""
    revision = revision_store.get_revision(revision_id, session=session)
    if revision is None:
        raise LookupError(cli_text("revisions.not_found", id=revision_id))
    return reopen(revision.generation_id, session=session, actor=actor), revision


def revision_counts(generation_ids: Sequence[int], *, session: Session) -> dict[int, int]:
    return revision_store.revision_counts(generation_ids, session=session)
