"""The writing mode an endpoint follows: its `writing` setting, or where that is `measured`
(the default) its cached measurement (app/drafting/writing_quality.py: every document type's
example drafted with `adapt`, the share of adapted parts that pass the prose and fidelity
gates, speculation's acceptance on them, decode speed). A measured endpoint writes `adapt`
where that share reaches ADAPT_MIN_SHARE and `assemble` (the vetted clauses as written) below
it; before it is measured it writes `adapt`, and the page says it is unmeasured.

The cache is one JSON file in the data directory, keyed by the endpoint's URL and the model id
it served; an endpoint that names no model takes its URL's newest measurement.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import PartWriting
from audit.files import write_private

if TYPE_CHECKING:
    from app.config import Settings

ADAPT_MIN_SHARE = 0.8  # adapted parts passing every gate, at least, for `adapt`
CACHE_FILE = "writing-measures.json"


@dataclass(frozen=True)
class WritingMeasure:
    """One endpoint + model measured on the types' own clauses."""

    base_url: str
    model: str
    parts: int  # adapted parts asked of the model (each with its clause)
    passed: int  # of which passed every gate (the rest fell back)
    draft_tokens: int = 0
    accepted_tokens: int = 0
    decode_tokens: int = 0
    decode_s: float = 0.0
    measured_at: str = ""

    @property
    def share(self) -> float:
        return self.passed / self.parts if self.parts else 0.0

    @property
    def acceptance(self) -> float | None:
        return self.accepted_tokens / self.draft_tokens if self.draft_tokens else None

    @property
    def tokens_per_s(self) -> float | None:
        return self.decode_tokens / self.decode_s if self.decode_s > 0 else None

    @property
    def writing(self) -> PartWriting:
        """What the measurement chooses: adapt where enough adapted parts pass, else assemble."""
        return "adapt" if self.parts and self.share >= ADAPT_MIN_SHARE else "assemble"

    @property
    def key(self) -> str:
        return f"{self.base_url.rstrip('/')}|{self.model}"


def cache_path(settings: Settings) -> Path:
    """The measurements' cache of the installation of `settings` (in its data directory)."""
    return settings.data_dir / CACHE_FILE


def _read(path: Path) -> dict[str, WritingMeasure]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {k: WritingMeasure(**v) for k, v in raw.items()}
    except (OSError, ValueError, TypeError):
        return {}  # no cache yet, or one this version cannot read: measure again


def cached(base_url: str, model: str | None, path: Path) -> WritingMeasure | None:
    """The measurement of this endpoint (and model, when it names one) in the cache file
    `path`, else None."""
    found = _read(path)
    url = base_url.rstrip("/")
    if model:
        return found.get(f"{url}|{model}")
    same = [m for m in found.values() if m.base_url.rstrip("/") == url]
    return max(same, key=lambda m: m.measured_at) if same else None


def save(measure: WritingMeasure, path: Path) -> Path:
    found = _read(path)
    found[measure.key] = measure
    body = {k: asdict(v) for k, v in found.items()}
    write_private(path, json.dumps(body, ensure_ascii=False, indent=1).encode("utf-8"))
    return path


def endpoint_measure(name: str, settings: Settings) -> WritingMeasure | None:
    """The cached measurement of the endpoint `name` of `settings` (no request), else None."""
    endpoint = settings.all_endpoints().get(name)
    if endpoint is None:
        return None
    return cached(endpoint.base_url, endpoint.model, cache_path(settings))


def writing_choice(
    endpoint_name: str, settings: Settings
) -> tuple[PartWriting, WritingMeasure | None]:
    """The way of writing of the endpoint `endpoint_name` of `settings` and the measurement it
    follows (None: set explicitly, or not measured yet)."""
    endpoint = settings.all_endpoints().get(endpoint_name)
    if endpoint is None:
        return "adapt", None
    if endpoint.writing != "measured":
        return endpoint.writing, None
    found = cached(endpoint.base_url, endpoint.model, cache_path(settings))
    return (found.writing if found else "adapt"), found


def measure_line(found: WritingMeasure | None, lang: str) -> str:
    """What the page and `lexspec doctor` say about an endpoint's measurement."""
    from app.i18n import t

    if found is None:
        return t("writing_quality.unmeasured", lang)
    acceptance = "—" if found.acceptance is None else f"{found.acceptance:.0%}"
    speed = "—" if found.tokens_per_s is None else f"{found.tokens_per_s:.1f}"
    return t(
        "writing_quality.measured",
        lang,
        model=found.model,
        passed=found.passed,
        parts=found.parts,
        share=f"{found.share:.0%}",
        min=f"{ADAPT_MIN_SHARE:.0%}",
        acceptance=acceptance,
        speed=speed,
        writing=t(f"outline.writing_mode.{found.writing}", lang),
        at=found.measured_at,
    )
