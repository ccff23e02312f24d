"""Approve a reviewed draft as a precedent: it joins the corpus the retrieval drafter reads.

Lawyers draft the same kinds of documents again and again; an approved output of a
document type makes the next draft of that type fast (the embedded server's retrieval
drafter proposes continuations from it, re-reading the corpus when files change).
The approval itself is an audit event.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from app.accounts import require_role
from app.config import Settings
from app.domain import BilingualError, EventKind, Role
from audit.domain import User
from audit.files import write_private
from audit.store import append_event

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

MAX_CHARS = 200_000


class ApprovalError(BilingualError, ValueError):
    """The draft cannot be approved (empty, too long)."""


@dataclass(frozen=True)
class Approval:
    path: Path
    sha256: str
    event_id: int


def _safe_name(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", value).strip("-.") or "draft"


def approve_output(
    text: str,
    *,
    doc_type: str,
    generation_id: int | None,
    settings: Settings,
    session: Session,
    actor: User,
    revision_id: int | None = None,
) -> Approval:
    """Write `text` to corpus_dir/<doc_type>/ and log an `output.approved` audit event in the
    caller's unit of work (which commits).

    `revision_id` names the saved revision approved (None: the model's own text); the page
    saves unsaved edits as a revision first, so the approved text is always in the log.
    """
    require_role(actor, Role.DRAFTER, Role.ADMIN)
    body = text.strip()
    if not body:
        raise ApprovalError("草稿为空，无法批准。", "The draft is empty; nothing to approve.")
    if len(body) > MAX_CHARS:
        raise ApprovalError(
            f"草稿过长（{len(body)} 字），上限 {MAX_CHARS} 字。",
            f"The draft is too long ({len(body)} characters; the limit is {MAX_CHARS}).",
        )
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    folder = settings.resolved_corpus_dir / _safe_name(doc_type)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    name = f"{stamp}-{generation_id if generation_id is not None else 'edited'}-{digest[:8]}.md"
    path = write_private(folder / name, (body + "\n").encode("utf-8"))  # never half-written
    payload = {
        "doc_type": doc_type,
        "generation_id": generation_id,
        "revision_id": revision_id,
        "file": f"{folder.name}/{name}",
        "sha256": digest,
        "chars": len(body),
    }
    event_id = append_event(
        session=session, actor=actor.name, kind=EventKind.OUTPUT_APPROVED, payload=payload
    )
    return Approval(path=path, sha256=digest, event_id=event_id)
