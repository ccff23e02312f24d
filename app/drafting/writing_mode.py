"""The writing mode an endpoint follows: its `writing` setting, or where that is `measured`
(the default) the measurement of the model it serves (app/drafting/writing_quality.py: every
document type's example drafted with `adapt`, the share of adapted parts that pass the prose and
fidelity gates, speculation's acceptance on them, decode speed). A measured model writes `adapt`
where that share reaches ADAPT_MIN_SHARE and `assemble` (the vetted clauses as written) below
it. Until a measurement exists the endpoint writes `assemble`: a draft never waits on a model
whose text may all be discarded, and the page says why (not measured yet, or being measured).

The cache is one JSON file in the data directory. Measurements are kept per model — its id and,
where the server gives one, its file's fingerprint (the embedded server's `digest` in
/v1/models) — so a model measured once is known on any port; `endpoints` records which model an
address serves and whether a measurement of it is running (`lexspec run` starts one in the
background when its server answers, app/drafting/background_measure.py).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.domain import PartWriting
from audit.files import write_private

if TYPE_CHECKING:
    from app.config import Settings

ADAPT_MIN_SHARE = 0.8  # adapted parts passing every gate, at least, for `adapt`
CACHE_FILE = "writing-measures.json"
UNMEASURED: PartWriting = "assemble"  # the mode before a measurement exists
Reason = Literal["setting", "measured", "measuring", "unmeasured"]


@dataclass(frozen=True)
class WritingMeasure:
    """One model measured on the types' own clauses (at the endpoint `base_url`)."""

    base_url: str
    model: str  # the model's key: its id, `id@digest` where the server names its file's digest
    parts: int  # adapted parts asked of the model (each with its clause)
    passed: int  # of which passed every gate (the rest fell back)
    draft_tokens: int = 0
    accepted_tokens: int = 0
    decode_tokens: int = 0
    decode_s: float = 0.0
    measured_at: str = ""  # ISO 8601, UTC
    planned: int = 0  # adapted parts the whole measurement would ask (0: not recorded, = parts)

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
    def stopped_early(self) -> bool:
        """Whether the measurement stopped once its verdict was settled (`settled`), before
        asking every planned part."""
        return 0 < self.parts < self.planned

    @property
    def model_name(self) -> str:
        """The model's id, without the file's digest."""
        return self.model.split("@", 1)[0]


@dataclass(frozen=True)
class Binding:
    """Which model an endpoint address serves, and the process measuring it (0: none)."""

    model: str
    measuring_pid: int = 0


@dataclass(frozen=True)
class WritingDecision:
    """How an endpoint writes outline parts and why: its setting, its model's measurement,
    a measurement under way, or none yet (both of the latter: assemble)."""

    writing: PartWriting
    reason: Reason
    measure: WritingMeasure | None = None


def settled(passed: int, parts: int, planned: int) -> bool:
    """Whether the writing mode is decided after `parts` of `planned` adapted parts, `passed` of
    them passing: even if every part left passed, the share would stay under ADAPT_MIN_SHARE,
    or even if every one failed, it would reach it. Asking the rest would change no decision
    (and the share of the parts asked falls on the same side of ADAPT_MIN_SHARE)."""
    left = max(planned - parts, 0)
    whole = parts + left
    return not left or passed + left < ADAPT_MIN_SHARE * whole or passed >= ADAPT_MIN_SHARE * whole


def cache_path(settings: Settings) -> Path:
    """The measurements' cache of the installation of `settings` (in its data directory)."""
    return settings.data_dir / CACHE_FILE


def _url(base_url: str) -> str:
    return base_url.rstrip("/")


def _read(path: Path) -> tuple[dict[str, WritingMeasure], dict[str, Binding]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        models = {k: WritingMeasure(**v) for k, v in raw.get("models", {}).items()}
        endpoints = {k: Binding(**v) for k, v in raw.get("endpoints", {}).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}, {}  # no cache yet, or one this version cannot read: measure again
    return models, endpoints


def _write(path: Path, models: dict[str, WritingMeasure], endpoints: dict[str, Binding]) -> None:
    body = {
        "models": {k: asdict(v) for k, v in models.items()},
        "endpoints": {k: asdict(v) for k, v in endpoints.items()},
    }
    write_private(path, json.dumps(body, ensure_ascii=False, indent=1).encode("utf-8"))


def cached(base_url: str, model: str | None, path: Path) -> WritingMeasure | None:
    """The measurement in the cache file `path` of the model `model` (its key, or its id: the
    newest of that id), else of the model the address `base_url` was last seen serving."""
    models, endpoints = _read(path)
    if model:
        if model in models:
            return models[model]
        same = [m for m in models.values() if m.model_name == model]
        return max(same, key=lambda m: m.measured_at) if same else None
    bound = endpoints.get(_url(base_url))
    return models.get(bound.model) if bound else None


def save(measure: WritingMeasure, path: Path) -> Path:
    """Keep `measure` for its model; its address now serves that model, measured."""
    models, endpoints = _read(path)
    models[measure.model] = measure
    endpoints[_url(measure.base_url)] = Binding(measure.model)
    _write(path, models, endpoints)
    return path


def bind(base_url: str, model: str, path: Path, *, measuring_pid: int = 0) -> None:
    """Record that `base_url` serves `model` (and, with `measuring_pid`, that this process is
    measuring it; 0 when it stopped, measured or not)."""
    models, endpoints = _read(path)
    endpoints[_url(base_url)] = Binding(model, measuring_pid)
    _write(path, models, endpoints)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def measuring(base_url: str, path: Path) -> bool:
    """Whether a live process is measuring the model at `base_url` (a stale mark is not)."""
    bound = _read(path)[1].get(_url(base_url))
    return bound is not None and _alive(bound.measuring_pid)


def decide(endpoint_name: str, settings: Settings) -> WritingDecision:
    """How the endpoint `endpoint_name` of `settings` writes and why (no request is made)."""
    endpoint = settings.all_endpoints().get(endpoint_name)
    if endpoint is None:
        return WritingDecision(UNMEASURED, "unmeasured")
    if endpoint.writing != "measured":
        return WritingDecision(endpoint.writing, "setting")
    path = cache_path(settings)
    found = cached(endpoint.base_url, endpoint.model, path)
    if found is not None:
        return WritingDecision(found.writing, "measured", found)
    reason: Reason = "measuring" if measuring(endpoint.base_url, path) else "unmeasured"
    return WritingDecision(UNMEASURED, reason)


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
    follows (None: set explicitly, or not measured yet: then it assembles)."""
    decision = decide(endpoint_name, settings)
    return decision.writing, decision.measure


def local_time(iso: str, lang: str) -> str:
    """An ISO 8601 time as a lawyer reads it, in this machine's time zone (the text as it is
    when it does not parse)."""
    from app.i18n import local_moment

    try:
        return local_moment(dt.datetime.fromisoformat(iso), lang)
    except ValueError:
        return iso


def decision_line(decision: WritingDecision, lang: str) -> str:
    """What the page says about how an endpoint writes, and why, in a lawyer's words."""
    from app.i18n import t

    writing = t(f"outline.writing_mode.{decision.writing}", lang)
    if decision.reason != "measured":
        return t(f"writing_quality.reason_{decision.reason}", lang, writing=writing)
    return measure_line(decision.measure, lang)


def measure_line(found: WritingMeasure | None, lang: str) -> str:
    """What the page and `lexspec doctor` say about a model's measurement."""
    from app.i18n import t

    if found is None:
        writing = t(f"outline.writing_mode.{UNMEASURED}", lang)
        return t("writing_quality.reason_unmeasured", lang, writing=writing)
    line = t(
        "writing_quality.measured",
        lang,
        model=found.model_name,
        passed=found.passed,
        parts=found.parts,
        share=f"{found.share:.0%}",
        min=f"{ADAPT_MIN_SHARE:.0%}",
        writing=t(f"outline.writing_mode.{found.writing}", lang),
        at=local_time(found.measured_at, lang),
    )
    if found.stopped_early:
        line += t("writing_quality.settled", lang, parts=found.parts, planned=found.planned)
    return line


def measure_details(found: WritingMeasure, lang: str) -> str:
    """The measurement's numbers for the details toggle: acceptance, speed, the model's key."""
    from app.i18n import t

    acceptance = "—" if found.acceptance is None else f"{found.acceptance:.0%}"
    speed = "—" if found.tokens_per_s is None else f"{found.tokens_per_s:.1f}"
    return t(
        "writing_quality.details",
        lang,
        model=found.model,
        acceptance=acceptance,
        speed=speed,
        writing=found.writing,
    )
