"""Frozen dataclasses shared across layers of the app (not by audit/, which has its own)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]


class BilingualError(Exception):
    """An error a user sees, with its message in 简体中文 and English (str() holds both)."""

    def __init__(self, message_zh: str, message_en: str) -> None:
        super().__init__(f"{message_zh} / {message_en}")
        self.message_zh, self.message_en = message_zh, message_en

    def message(self, lang: str = "zh") -> str:
        return self.message_en if lang == "en" else self.message_zh


@dataclass(frozen=True)
class Finding:
    """One problem found in a draft, anchored on a character span [start, end)."""

    code: str  # e.g. "citation.repealed", "numbering.gap"
    severity: Severity
    start: int
    end: int
    message_zh: str
    message_en: str
    suggestion: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "start": self.start,
            "end": self.end,
            "message_zh": self.message_zh,
            "message_en": self.message_en,
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True)
class Citation:
    """A statute reference parsed from text, resolved against the catalogue where possible."""

    start: int
    end: int
    raw: str
    statute: str | None  # canonical name, None if unknown
    article: int | None = None
    paragraph: int | None = None
    item: int | None = None
    status: str = (
        "ok"  # ok | unknown_statute | name_variant | article_out_of_range | repealed | unverified
    )

    def to_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "raw": self.raw,
            "statute": self.statute,
            "article": self.article,
            "paragraph": self.paragraph,
            "item": self.item,
            "status": self.status,
        }


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...] = ()
    citations: tuple[Citation, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt ready to send, carrying where it came from."""

    doc_type: str
    template_id: str
    template_version: str
    template_hash: str  # sha256 of the template sources (meta.yaml + *.j2)
    system: str
    user: str
    values: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None

    def messages(self) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        return [*msgs, {"role": "user", "content": self.user}]


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class GenerationStats:
    """Per-request numbers, measured by the client (and the server where it reports them)."""

    ttft_s: float | None = None
    total_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int = 0
    draft_tokens: int | None = None
    accepted_tokens: int | None = None

    @property
    def tokens_per_s(self) -> float | None:
        gen_time = self.total_s - (self.ttft_s or 0.0)
        if self.completion_tokens <= 1 or gen_time <= 0:
            return None
        return (self.completion_tokens - 1) / gen_time

    @property
    def acceptance_rate(self) -> float | None:
        if not self.draft_tokens or self.accepted_tokens is None:
            return None
        return self.accepted_tokens / self.draft_tokens
