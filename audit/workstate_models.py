"""SQLAlchemy model of a user's working state on the Draft page: the form and the draft in the
editor as they were at the user's last click, so a reload or a new tab brings them back.

It is scratch space, not a record: one row per user, replaced at each change and never chained
(what a lawyer relied on is the generation and its saved revisions, which are). It lives in the
database rather than the browser so that nothing of the client's facts sits in a URL or a
browser's storage.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from audit.models import Base


class WorkingStateRow(Base):
    """The Draft page's working state of user `user_name` (app/drafting/workstate.py)."""

    __tablename__ = "working_states"

    user_name: Mapped[str] = mapped_column(String(64), primary_key=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    state: Mapped[Any] = mapped_column(JSON)
