"""What the matter page and `lexspec matter` call: create a matter, change its facts (a new
chained version, never an update), read it with the route its facts lead to and the documents
that route needs, list matters, and list the documents drafted for one.

Each function takes the session and the acting user keyword-only, checks the role itself and
never commits (the page or command owns the unit of work). Drafters and admins keep matters;
a drafter sees the documents they drafted for a matter, an admin everyone's (as History).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.accounts import can_see_all_history, require_role
from app.domain import Bilingual, BilingualError, MatterRef, Role
from app.drafting.context import decide_route
from app.filing.freshness import freshness
from app.matters.facts import clean_facts, values_for
from app.matters.needs import NeededDocument, needed_documents
from app.prompts import DocType
from app.route import RouteDecision
from audit import matters as matter_store
from audit.domain import GenerationSummary, User
from audit.matters import StoredMatter

NUMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/\-]{0,63}$")
TEXT_LIMIT = 200
GUIDE = "cross-border-filing-guide"  # whose form the route is decided on


class MatterError(BilingualError):
    """A matter that cannot be saved or found as asked, with the reason."""


@dataclass(frozen=True)
class MatterView:
    """A matter as its page shows it: the latest facts, their route and what it needs."""

    matter: StoredMatter
    decision: RouteDecision | None
    needs: tuple[NeededDocument, ...]

    @property
    def ref(self) -> MatterRef:
        return MatterRef(self.matter.number, self.matter.version)


def _checked(
    number: str, client: str, title: str, facts: Mapping[str, object], types: Mapping[str, DocType]
) -> tuple[str, str, str, dict[str, str]]:
    from app.prompts import FieldErrors

    number, client, title = number.strip(), client.strip(), title.strip()
    if not NUMBER.match(number):
        raise MatterError(
            "案件编号须以字母或数字开头，只含字母、数字和 . _ - /，不超过64个字符（如 MC-2025-017）",
            "A matter number starts with a letter or digit and holds only letters, digits and "
            ". _ / -, at most 64 characters (e.g. MC-2025-017)",
        )
    if not client or len(client) > TEXT_LIMIT or len(title) > TEXT_LIMIT:
        raise MatterError(
            f"请填写客户名称（不超过{TEXT_LIMIT}个字符），案件名称不超过{TEXT_LIMIT}个字符",
            f"Give the client's name (at most {TEXT_LIMIT} characters); a title at most "
            f"{TEXT_LIMIT}",
        )
    try:
        clean = clean_facts(types, facts)
    except FieldErrors as exc:
        zh = "；".join(e.message_zh for e in exc.errors.values())
        en = "; ".join(e.message_en for e in exc.errors.values())
        raise MatterError(zh, en) from exc
    return number, client, title, clean


def create_matter(
    number: str,
    *,
    client: str,
    title: str = "",
    facts: Mapping[str, object],
    types: Mapping[str, DocType],
    session: Session,
    actor: User,
) -> StoredMatter:
    """A new matter (version 1); MatterError when the number is taken or a fact is bad."""
    require_role(actor, Role.DRAFTER)
    number, client, title, clean = _checked(number, client, title, facts, types)
    if matter_store.latest_matter(number, session=session) is not None:
        raise MatterError(f"案件编号 {number} 已存在", f"Matter {number} already exists")
    return matter_store.append_matter(
        number, client=client, title=title, facts=clean, user_name=actor.name, base=0,
        session=session,
    )  # fmt: skip


def update_matter(
    number: str,
    *,
    client: str,
    title: str = "",
    facts: Mapping[str, object],
    base: int,
    types: Mapping[str, DocType],
    session: Session,
    actor: User,
) -> StoredMatter:
    """The matter's next version, edited from version `base` (MatterConflict when a newer
    one exists: the page offers to reload it)."""
    require_role(actor, Role.DRAFTER)
    number, client, title, clean = _checked(number, client, title, facts, types)
    try:
        return matter_store.append_matter(
            number, client=client, title=title, facts=clean, user_name=actor.name, base=base,
            session=session,
        )  # fmt: skip
    except LookupError as exc:
        raise _missing(number) from exc


def _missing(number: str) -> MatterError:
    return MatterError(f"没有案件 {number}", f"No matter {number}")


def open_matter(
    number: str, *, types: Mapping[str, DocType], session: Session, actor: User
) -> MatterView:
    """The matter's latest version with its route and the documents that route needs."""
    require_role(actor, Role.DRAFTER)
    matter = matter_store.latest_matter(number, session=session)
    if matter is None:
        raise _missing(number)
    guide = types.get(GUIDE)
    values = values_for(guide, matter.number, matter.facts) if guide else dict(matter.facts)
    decision = decide_route(guide, values)
    return MatterView(matter, decision, needed_documents(decision, values))


def list_matters(*, session: Session, actor: User, query: str | None = None) -> list[StoredMatter]:
    """The latest version of each matter, newest change first; `query` matches the number,
    the client or the title."""
    require_role(actor, Role.DRAFTER)
    return matter_store.list_matters(session=session, query=query)


def matter_history(number: str, *, session: Session, actor: User) -> list[StoredMatter]:
    """Every version of the matter's facts, oldest first."""
    require_role(actor, Role.DRAFTER)
    return matter_store.matter_versions(number, session=session)


def matter_documents(number: str, *, session: Session, actor: User) -> list[GenerationSummary]:
    """The documents drafted for the matter that `actor` may see, newest first."""
    require_role(actor, Role.DRAFTER)
    owner = None if can_see_all_history(actor) else actor.name
    return matter_store.matter_generations(number, session=session, user_name=owner)


def draft_values(view: MatterView, doc_type: DocType) -> dict[str, str]:
    """The form of `doc_type` filled from the matter's facts (the lawyer may still change it)."""
    return values_for(doc_type, view.matter.number, view.matter.facts)


def stale_reports(view: MatterView, types: Mapping[str, DocType]) -> list[tuple[str, Bilingual]]:
    """(type id, warning) for each report the matter needs whose assessment dates do not allow
    its filing date (app/filing/freshness.py)."""
    found: list[tuple[str, Bilingual]] = []
    for need in view.needs:
        doc_type = types.get(need.type_id)
        if doc_type is None:
            continue
        warning = freshness(draft_values(view, doc_type)).warning()
        if warning is not None and doc_type.get_field("assessment_end") is not None:
            found.append((need.type_id, warning))
    return found
