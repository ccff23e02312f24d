"""SQLAlchemy model of a saved revision: a lawyer's edited text of one generation.

A revision is chained like a generation or an event (seq, prev_hash, row_hash), so the
edited text a lawyer relied on can be neither altered nor removed unnoticed. Saving
again adds a new row with the next `number`; nothing is ever updated.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from audit.models import Base


class Revision(Base):
    """Revision `number` (1, 2, ...) of generation `generation_id`, with its re-checked findings."""

    __tablename__ = "revisions"
    __table_args__ = (
        UniqueConstraint("generation_id", "number", name="uq_revisions_generation_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    generation_id: Mapped[int] = mapped_column(ForeignKey("generations.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    user_name: Mapped[str] = mapped_column(String(64), index=True)
    text: Mapped[str] = mapped_column(Text)
    findings: Mapped[Any] = mapped_column(JSON)
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))
