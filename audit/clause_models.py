"""SQLAlchemy model of the firm's own clause library (migration 0009).

A row is one version of a firm clause as a drafter proposed it: pending, then approved (with
its version number) or rejected by an admin. Approving a new version of a clause adds a row;
earlier versions stay. Every change appends a chained event covering the row as it then stands
(audit.coverage), so `lexspec audit verify` catches a clause edited outside LexSpec.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from audit.models import Base
from audit.vocabulary import ClauseStatus, one_of


class FirmClauseRow(Base):
    __tablename__ = "firm_clauses"
    __table_args__ = (
        UniqueConstraint("doc_type", "clause_id", "version", name="uq_firm_clauses_version"),
        one_of("status", ClauseStatus),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    doc_type: Mapped[str] = mapped_column(String(64), index=True)
    clause_id: Mapped[str] = mapped_column(String(128))
    part: Mapped[str] = mapped_column(String(128))
    text: Mapped[str] = mapped_column(Text)
    when: Mapped[Any] = mapped_column(JSON, nullable=True)
    cites: Mapped[Any] = mapped_column(JSON)
    author: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16))  # ClauseStatus
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)  # set on approval
    proposed_by: Mapped[str] = mapped_column(String(64))
    proposed_at: Mapped[datetime] = mapped_column(DateTime)
    source_revision_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    decided_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")  # why rejected
