"""Read and replace a user's working state (audit/workstate_models.py). Functions take the
session keyword-only and never commit (the caller's unit of work does)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session

from audit.workstate_models import WorkingStateRow


def load_state(user_name: str, *, session: Session) -> dict[str, Any] | None:
    """The user's working state, or None when there is none."""
    row = session.get(WorkingStateRow, user_name)
    if row is None or not isinstance(row.state, dict):
        return None
    return dict(row.state)


def put_state(user_name: str, state: Mapping[str, Any], *, session: Session) -> None:
    """Replace the user's working state with `state` (JSON-able)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    row = session.get(WorkingStateRow, user_name)
    if row is None:
        session.add(WorkingStateRow(user_name=user_name, updated_at=now, state=dict(state)))
    else:
        row.state, row.updated_at = dict(state), now


def clear_state(user_name: str, *, session: Session) -> None:
    session.execute(delete(WorkingStateRow).where(WorkingStateRow.user_name == user_name))
