"""History of generations for the signed-in user: list, search, reopen.

Drafters and reviewers see their own generations; admins see everyone's (and may
filter by user). Reopening someone else's generation raises PermissionDenied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def parties(summary: GenerationSummary, client_fields: Mapping[str, str]) -> tuple[str, str]:
    """(client, matter) of a listed generation: the client is its type's client field
    (`client_fields`: type id → field name, app.drafting.context.export_header's choice), the
    matter the matter it was drafted for, else the form's matter reference."""
    values = summary.field_values
    client = str(values.get(client_fields.get(summary.doc_type, ""), "") or "")
    return client, summary.matter or str(values.get("matter_ref", "") or "")


def _party_ids(
    session: Session, user_name: str | None, query: str, client_fields: Mapping[str, str]
) -> list[int]:
    """The generations whose client or matter number contains `query` (case-insensitive)."""
    needle = query.casefold()
    found = []
    for gid, doc_type, values, matter in store.generation_parties(
        session=session, user_name=user_name
    ):
        client = str(values.get(client_fields.get(doc_type, ""), "") or "")
        ref = str(values.get("matter_ref", "") or "")
        if any(needle in v.casefold() for v in (client, ref, matter)):
            found.append(gid)
    return found


def search(
    *,
    party: str | None = None,
    client_fields: Mapping[str, str] | None = None,
    text: str | None = None,
    doc_type: str | None = None,
    status: str | None = None,
    user_name: str | None = None,
    limit: int = PAGE_SIZE,
    offset: int = 0,
    session: Session,
    actor: User,
) -> HistoryPage:
    """One page of generations visible to `actor`, newest first; `party` matches the client or
    the matter number (see `parties`)."""
    require_role(actor, Role.DRAFTER, Role.REVIEWER)
    owner = _owner_filter(actor, user_name)
    filters: dict[str, Any] = {
        "user_name": owner,
        "text": (text or "").strip() or None,
        "doc_type": doc_type or None,
        "status": status or None,
    }
    if (party or "").strip():
        filters["ids"] = _party_ids(session, owner, str(party).strip(), client_fields or {})
    return _page(session, filters, limit, offset)


def _page(session: Session, filters: dict[str, Any], limit: int, offset: int) -> HistoryPage:
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
