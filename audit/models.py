"""SQLAlchemy models of the audit log and the user accounts.

The log is append-only and hash-chained: every chained row (a generation or an
event) carries a global sequence number `seq`, the hash of the row before it
(`prev_hash`) and the sha256 of its own canonical-JSON content (`row_hash`).
`audit_chain_head` holds the last seq and hash; appenders lock it so that two
writers never fork the chain, and `verify_chain` compares it with the last row
so that deleting the newest rows is caught too.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, MetaData, String, Text, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from audit.vocabulary import EventKind, GenerationStatus, Role, one_of

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

GENESIS_HASH = "0" * 64  # the prev_hash of the first row in the chain


class Base(DeclarativeBase):
    """Declarative base of every LexSpec table (audit log, users, review studies)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def fold_name(name: str) -> str:
    """A user name as compared for uniqueness and sign-in: NFKC-normalised and case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def _name_key_default(context: Any) -> str:
    return fold_name(context.get_current_parameters()["name"])


class User(Base):
    __tablename__ = "users"
    __table_args__ = (one_of("role", Role),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # the name folded for comparison (audit.users.name_key): unique regardless of case
    name_key: Mapped[str] = mapped_column(String(80), unique=True, default=_name_key_default)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(255))
    must_change_password: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    password_changed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # raised by each change that must end the user's sessions (audit.users.end_sessions)
    credential_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ChainHead(Base):
    """One row (id=1): the newest seq and row hash of the audit chain; the append lock."""

    __tablename__ = "audit_chain_head"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_seq: Mapped[int] = mapped_column(Integer)
    last_hash: Mapped[str] = mapped_column(String(64))


class Generation(Base):
    """One model output with everything needed to reproduce and judge it."""

    __tablename__ = "generations"
    __table_args__ = (one_of("status", GenerationStatus),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    user_name: Mapped[str] = mapped_column(String(64), index=True)
    doc_type: Mapped[str] = mapped_column(String(64), index=True)
    template_id: Mapped[str] = mapped_column(String(128))
    template_version: Mapped[str] = mapped_column(String(64))
    template_hash: Mapped[str] = mapped_column(String(64))
    field_values: Mapped[Any] = mapped_column(JSON)
    system_prompt: Mapped[str] = mapped_column(Text)
    user_prompt: Mapped[str] = mapped_column(Text)
    endpoint: Mapped[str] = mapped_column(String(128))
    model: Mapped[str] = mapped_column(String(255))
    speculative: Mapped[Any] = mapped_column(JSON)
    params: Mapped[Any] = mapped_column(JSON)
    output_text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    ttft_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    total_s: Mapped[float] = mapped_column(Float)
    prompt_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    completion_tokens: Mapped[int] = mapped_column(Integer)
    tokens_per_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    draft_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    accepted_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    findings: Mapped[Any] = mapped_column(JSON)
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))


class Event(Base):
    """Any other auditable event: endpoint switch, user created, early unblinding, ..."""

    __tablename__ = "audit_events"
    __table_args__ = (one_of("kind", EventKind),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    actor: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(64), index=True)
    payload: Mapped[Any] = mapped_column(JSON)
    prev_hash: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))


class SignInAttempt(Base):
    """Sign-in attempts per folded user name, shared by every app process (audit.throttle):
    attempts reserved in the current window (a reservation that fails stays counted) and
    when the last one was made (epoch seconds)."""

    __tablename__ = "sign_in_attempts"

    name_key: Mapped[str] = mapped_column(String(80), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[float] = mapped_column(Float)
