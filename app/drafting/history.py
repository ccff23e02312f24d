"""History of generations for the signed-in user: list, search, reopen.

Drafters and reviewers see their own generations; admins see everyone's (and may
filter by user). Reopening someone else's generation raises PermissionDenied.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.accounts import PermissionDenied, can_see_all_history, require_role
from app.domain import Role
from app.i18n import cli_text
from audit import store
from audit.domain import GenerationSummary, StoredGeneration, User

PAGE_SIZE = 50


@dataclass(frozen=True)
class HistoryPage:
    items: tuple[GenerationSummary, ...]
    total: int
    offset: int
    limit: int

    @property
    def has_more(self) -> bool:
        return self.offset + len(self.items) < self.total


def _owner_filter(actor: User, user_name: str | None) -> str | None:
    """Whose generations `actor` may list: an admin's choice, everyone else's own."""
    if can_see_all_history(actor):
        return user_name or None
    return actor.name


def search(
    *,
    text: str | None = None,
    doc_type: str | None = None,
    status: str | None = None,
    user_name: str | None = None,
    limit: int = PAGE_SIZE,
    offset: int = 0,
    session: Session,
    actor: User,
) -> HistoryPage:
    """One page of generations visible to `actor`, newest first."""
    require_role(actor, Role.DRAFTER, Role.REVIEWER)
    filters = {
        "user_name": _owner_filter(actor, user_name),
        "text": (text or "").strip() or None,
        "doc_type": doc_type or None,
        "status": status or None,
    }
    return _page(session, filters, limit, offset)


def _page(session: Session, filters: dict[str, str | None], limit: int, offset: int) -> HistoryPage:
    items = store.search_generations(session=session, limit=limit, offset=offset, **filters)
    total = store.count_generations(session=session, **filters)
    return HistoryPage(tuple(items), total, offset, limit)


def reopen(generation_id: int, *, session: Session, actor: User) -> StoredGeneration:
    """The full logged generation (prompts, fields, output, findings) if `actor` may see it."""
    require_role(actor, Role.DRAFTER, Role.REVIEWER)
    stored = store.get_generation(generation_id, session=session)
    if stored is None:
        raise LookupError(cli_text("history.no_generation", id=generation_id))
    if not can_see_all_history(actor) and stored.record.user_name != actor.name:
        raise PermissionDenied("只能查看自己的生成记录", "You can only open your own generations")
    return stored
