"""The Draft page's working state, kept per signed-in user in the database so that a reload,
a new tab or a visit from History finds the form and the draft where the lawyer left them.

The state holds the form's widget values (by their page keys), the document type, the drafting
mode, the generation in the editor with the editor's text and the revision it was opened on.
It is scratch space (audit/workstate.py), never the record: the generation and its saved
revisions are. Nothing of it goes into a URL. Services take the session keyword-only and never
commit: pages own the unit of work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.accounts import require_role
from app.domain import Role
from app.drafting.history import reopen
from app.drafting.revisions import MAX_CHARS, CurrentText, current_text
from audit import revisions as revision_store
from audit import workstate as store
from audit.domain import StoredGeneration, User

# the page keys whose values the state keeps (app/pages/draft.py draws these widgets)
WIDGET_PREFIXES = ("draft.field.", "draft.max_tokens.", "draft.temperature.")
MAX_WIDGETS = 500
Scalar = str | int | float | None


@dataclass(frozen=True)
class WorkingState:
    """What the Draft page showed at the user's last click."""

    doc_type: str = ""
    widgets: Mapping[str, Scalar] = field(default_factory=dict)
    mode: str = "outline"
    generation_id: int | None = None
    editor: str | None = None  # the editor's text (None: no draft in the editor)
    base: int = 0  # the revision the editor was opened on (0: the model's text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_type": self.doc_type,
            "widgets": dict(self.widgets),
            "mode": self.mode,
            "generation_id": self.generation_id,
            "editor": self.editor,
            "base": self.base,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkingState:
        """The state as stored; anything malformed is left out, never fatal."""
        raw = data.get("widgets")
        widgets = {
            k: v
            for k, v in (raw.items() if isinstance(raw, Mapping) else ())
            if isinstance(k, str) and k.startswith(WIDGET_PREFIXES) and _scalar(v)
        }
        gid, base, editor = data.get("generation_id"), data.get("base"), data.get("editor")
        return cls(
            doc_type=str(data.get("doc_type") or ""),
            widgets=dict(list(widgets.items())[:MAX_WIDGETS]),
            mode="free-form" if data.get("mode") == "free-form" else "outline",
            generation_id=gid if isinstance(gid, int) and not isinstance(gid, bool) else None,
            editor=editor if isinstance(editor, str) else None,
            base=base if isinstance(base, int) and not isinstance(base, bool) else 0,
        )


def _scalar(value: object) -> bool:
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def load(*, session: Session, actor: User) -> WorkingState | None:
    """The actor's working state, or None when there is none."""
    require_role(actor, Role.DRAFTER)
    data = store.load_state(actor.name, session=session)
    return None if data is None else WorkingState.from_dict(data)


def save(state: WorkingState, *, session: Session, actor: User) -> None:
    """Replace the actor's working state (an editor text over the revision limit is not kept:
    saving it as a revision is refused too)."""
    require_role(actor, Role.DRAFTER)
    if state.editor is not None and len(state.editor) > MAX_CHARS:
        state = WorkingState(state.doc_type, state.widgets, state.mode, state.generation_id)
    store.put_state(actor.name, state.to_dict(), session=session)


@dataclass(frozen=True)
class Reopened:
    """A logged generation opened in the editor: the generation, its newest saved text, and the
    text asked for (a revision's, the model's, or the newest) with that revision's number."""

    stored: StoredGeneration
    latest: CurrentText
    text: str
    number: int  # the revision whose text `text` is (0: the model's)
    base_text: str | None = None  # the text of the revision asked for as `base` (None: none)


def reopen_for_editing(
    generation_id: int,
    revision_id: int | None,
    *,
    session: Session,
    actor: User,
    newest: bool = False,
    base: int | None = None,
) -> Reopened:
    """Generation `generation_id` for the editor, with revision `revision_id`'s text (None: the
    model's text, or with `newest` the newest saved text), and the text of revision number
    `base` (0: the model's) when asked. LookupError / PermissionDenied when it is not there or
    not the actor's to see."""
    require_role(actor, Role.DRAFTER)
    stored = reopen(generation_id, session=session, actor=actor)
    latest = current_text(generation_id, session=session)
    if latest is None:
        raise LookupError(f"generation #{generation_id}")
    items = {r.number: r for r in revision_store.list_revisions(generation_id, session=session)}
    base_text = None
    if base is not None:
        base_text = (
            stored.record.output_text if base == 0 else getattr(items.get(base), "text", None)
        )
    if revision_id is None:
        if newest:
            return Reopened(stored, latest, latest.text, latest.number, base_text)
        return Reopened(stored, latest, stored.record.output_text, 0, base_text)
    revision = next((r for r in items.values() if r.id == revision_id), None)
    if revision is None:
        raise LookupError(f"revision #{revision_id}")
    return Reopened(stored, latest, revision.text, revision.number, base_text)
