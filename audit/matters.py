"""Matters in the audit log: append a version of a matter's facts, read the latest, list, and
find the generations drafted for it.

Functions take the session keyword-only and never commit (the caller's unit of work does).
A version goes through the chain like every chained row; a generation drafted for a matter
names it in its own params (`{"matter": {"number", "version"}}`), which is how a matter's
documents are found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from audit import chain, store
from audit.domain import BilingualError, GenerationSummary
from audit.matter_models import Matter
from audit.models import Generation

MATTER_PARAM = "matter"  # the key of a generation's params that names its matter


@dataclass(frozen=True)
class StoredMatter:
    """One version of a matter: its number, client, title and facts, who saved it and when."""

    id: int
    number: str
    version: int
    client: str
    title: str
    facts: Mapping[str, str]
    user_name: str
    created_at: datetime
    seq: int
    row_hash: str


def _stored(row: Matter) -> StoredMatter:
    facts = row.facts if isinstance(row.facts, dict) else {}
    return StoredMatter(
        id=row.id,
        number=row.number,
        version=row.version,
        client=row.client,
        title=row.title,
        facts={str(k): str(v) for k, v in facts.items()},
        user_name=row.user_name,
        created_at=row.created_at.replace(tzinfo=UTC),
        seq=row.seq,
        row_hash=row.row_hash,
    )


class MatterConflict(BilingualError):
    """A save based on an older version than the newest: it would silently drop that one's
    changes. `latest` is the newest version."""

    def __init__(self, latest: StoredMatter, base: int) -> None:
        when = latest.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        super().__init__(
            f"案件 {latest.number} 在您打开后已被修改：第 {latest.version} 版（{latest.user_name}，"
            f"{when}）。请重新载入后再保存。",
            f"Matter {latest.number} was changed since you opened it: version {latest.version} "
            f"by {latest.user_name} ({when}). Reload it before saving.",
        )
        self.latest, self.base = latest, base


def append_matter(
    number: str,
    *,
    client: str,
    title: str,
    facts: Mapping[str, str],
    user_name: str,
    base: int,
    session: Session,
) -> StoredMatter:
    """Append the next version of matter `number` (base 0: a new matter). The version is read
    under the chain lock, so two saves from the same base cannot both pass (MatterConflict)."""
    clean = chain.normalise({str(k): str(v) for k, v in facts.items()})
    store._lock_head(session)
    latest = latest_matter(number, session=session)
    last = latest.version if latest is not None else 0
    if base != last:
        if latest is None:
            raise LookupError(f"no matter {number!r}")
        raise MatterConflict(latest, base)
    row = Matter(
        number=number,
        version=last + 1,
        client=client,
        title=title,
        facts=clean,
        user_name=user_name,
    )
    store._append(row, session=session)
    return _stored(row)


def latest_matter(number: str, *, session: Session) -> StoredMatter | None:
    query = select(Matter).where(Matter.number == number).order_by(Matter.version.desc()).limit(1)
    row = session.scalars(query).first()
    return None if row is None else _stored(row)


def matter_version(number: str, version: int, *, session: Session) -> StoredMatter | None:
    query = select(Matter).where(Matter.number == number, Matter.version == version)
    row = session.scalars(query).first()
    return None if row is None else _stored(row)


def matter_versions(number: str, *, session: Session) -> list[StoredMatter]:
    """Oldest first: how the matter's facts changed."""
    query = select(Matter).where(Matter.number == number).order_by(Matter.version)
    return [_stored(row) for row in session.scalars(query)]


def list_matters(
    *, session: Session, query: str | None = None, limit: int = 100
) -> list[StoredMatter]:
    """The latest version of each matter, newest change first; `query` matches the number,
    the client or the title."""
    newest = (
        select(Matter.number, func.max(Matter.version).label("version"))
        .group_by(Matter.number)
        .subquery()
    )
    statement = select(Matter).join(
        newest, (Matter.number == newest.c.number) & (Matter.version == newest.c.version)
    )
    if query and query.strip():
        needle = query.strip()
        statement = statement.where(
            or_(
                Matter.number.icontains(needle, autoescape=True),
                Matter.client.icontains(needle, autoescape=True),
                Matter.title.icontains(needle, autoescape=True),
            )
        )
    statement = statement.order_by(Matter.seq.desc()).limit(max(0, limit))
    return [_stored(row) for row in session.scalars(statement)]


def matter_generations(
    number: str, *, session: Session, user_name: str | None = None
) -> list[GenerationSummary]:
    """The generations drafted for matter `number`, newest first (only `user_name`'s when
    given)."""
    named = Generation.params[MATTER_PARAM]["number"].as_string() == number
    statement = select(Generation).where(named)
    if user_name is not None:
        statement = statement.where(Generation.user_name == user_name)
    statement = statement.order_by(Generation.seq.desc())
    return [store._summary(row) for row in session.scalars(statement)]
