"""SQLAlchemy model of a matter (案件): a client's cross-border transfer and its facts, entered
once; every document drafted for it starts from them (migration 0013).

A row is one version of a matter's facts, chained like a generation or a revision (seq,
prev_hash, row_hash), so the facts a lawyer relied on can be neither altered nor removed
unnoticed. Editing the facts adds the next `version`; nothing is ever updated. A document
drafted for a matter names the matter and version in its own chained row (the generation's
`params["matter"]`), written in the same unit of work, or spooled with it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from audit.models import Base


class Matter(Base):
    """Version `version` (1, 2, ...) of matter `number` (the firm's matter reference)."""

    __tablename__ = "matters"
    __table_args__ = (UniqueConstraint("number", "version", name="uq_matters_number_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    number: Mapped[str] = mapped_column(String(64), index=True)
    version: Mapped[int] = mapped_column(Integer)
    client: Mapped[str] = mapped_column(String(200), index=True)
    title: Mapped[str] = mapped_column(String(200))
    facts: Mapped[Any] = mapped_column(JSON)
    user_name: Mapped[str] = mapped_column(String(64), index=True)
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))
