"""Frozen dataclasses that go in and out of the audit store (no SQLAlchemy objects leak out)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from audit.vocabulary import EventKind, GenerationStatus


@dataclass(frozen=True)
class Bilingual:
    """One user-facing text in 简体中文 and English: the one type for messages that services
    return to pages, the CLI and reports (fixed UI strings live in app/locales/*.yaml)."""

    zh: str
    en: str

    def text(self, lang: str = "zh") -> str:
        return self.en if lang == "en" and self.en else self.zh

    def __str__(self) -> str:
        return f"{self.zh} / {self.en}" if self.en and self.en != self.zh else self.zh


class BilingualError(Exception):
    """An error a user sees: its message is one `Bilingual` (`.text`); str() holds both.

    The base of every error a service raises for a person to read (app/ and audit/ alike),
    so pages and commands show any of them with `describe(exc).text(lang)` (app.domain)."""

    def __init__(self, message_zh: str, message_en: str) -> None:
        self.bilingual = Bilingual(message_zh, message_en)
        super().__init__(str(self.bilingual))

    @property
    def message_zh(self) -> str:
        return self.bilingual.zh

    @property
    def message_en(self) -> str:
        return self.bilingual.en

    def message(self, lang: str = "zh") -> str:
        return self.bilingual.text(lang)


# The largest count (tokens, drafts) a generation record holds: PostgreSQL's integer column.
# A number from outside (a model server's usage, a spool line) is checked against it.
COUNT_MAX = 2**31 - 1


def error_count(findings: object) -> int:
    """How many of the stored findings (Finding.to_dict() dicts) are errors: the one count the
    history list, a revision's save message and the revision table show. Anything that is not
    a list of dicts counts none."""
    if not isinstance(findings, list | tuple):
        return 0
    return sum(1 for f in findings if isinstance(f, dict) and f.get("severity") == "error")


@dataclass(frozen=True)
class GenerationRecord:
    """Everything about one generation that goes into the log. Values must be JSON-able.

    `output_text` is the full text when complete, the partial text when stopped or failed;
    `findings` are the validation findings as dicts (Finding.to_dict()).
    """

    user_name: str
    doc_type: str
    template_id: str
    template_version: str
    template_hash: str
    field_values: Mapping[str, Any]
    system_prompt: str
    user_prompt: str
    endpoint: str
    model: str
    output_text: str
    status: GenerationStatus
    error_message: str | None = None
    speculative: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"label": .., "method": ..}
    params: Mapping[str, Any] = field(default_factory=dict)  # temperature, top_p, max_tokens, ...
    ttft_s: float | None = None
    total_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int = 0
    tokens_per_s: float | None = None
    draft_tokens: int | None = None
    accepted_tokens: int | None = None
    findings: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True)
class LoggedGeneration:
    """What log_generation returns: where the record landed in the chain."""

    id: int
    seq: int
    created_at: datetime
    row_hash: str


@dataclass(frozen=True)
class StoredGeneration:
    """A generation read back from the log."""

    id: int
    seq: int
    created_at: datetime
    row_hash: str
    record: GenerationRecord


@dataclass(frozen=True)
class GenerationSummary:
    """One line of the history list (no prompts, a short preview of the output)."""

    id: int
    created_at: datetime
    user_name: str
    doc_type: str
    status: str
    endpoint: str
    model: str
    preview: str
    completion_tokens: int
    total_s: float
    error_count: int
    field_values: Mapping[str, Any] = field(default_factory=dict)  # the form, for its client
    matter: str = ""  # the number of the matter it was drafted for (params.matter), else ""


@dataclass(frozen=True)
class AuditEvent:
    id: int
    seq: int
    created_at: datetime
    actor: str
    kind: EventKind
    payload: Mapping[str, Any]
    row_hash: str


class ChainFault(NamedTuple):
    """A row that fails verification: (table, id, reason)."""

    table: str
    id: int
    reason: Bilingual


@dataclass(frozen=True)
class ChainReport:
    """The chain walk (`first_bad`: its first fault) and the covered rows (accounts,
    verdicts) that the chain no longer vouches for (`uncovered`)."""

    ok: bool
    checked: int
    first_bad: ChainFault | None = None
    head_seq: int = 0
    head_hash: str = ""
    uncovered: tuple[ChainFault, ...] = ()


@dataclass(frozen=True)
class User:
    """A user account as the app sees it (never the password hash)."""

    id: int
    name: str
    role: str
    must_change_password: bool
    created_at: datetime
    disabled: bool = False  # a disabled account cannot sign in (an admin may enable it again)
    # raised by a password change or reset, disabling, a role change and signing out: a session
    # (or session token) made for an older version is no longer valid
    credential_version: int = 0
