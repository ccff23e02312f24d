"""How well an endpoint adapts the clause library, measured once and cached (`lexspec doctor
--endpoint`, the Monitor page): every document type's example drafted with `adapt`, the share
of adapted parts that pass the prose and fidelity gates, speculation's acceptance on them, and
decode speed. An endpoint whose `writing` is `measured` (the default) writes `adapt` where that
share reaches ADAPT_MIN_SHARE and `assemble` (the vetted clauses as written) below it; before it
is measured it writes `adapt`, and the page says it is unmeasured.

The cache is one JSON file in the data directory, keyed by the endpoint's URL and the model id
it served; an endpoint that names no model takes its URL's newest measurement.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import PartWriting

if TYPE_CHECKING:
    from app.llm.client import OpenAIClient

ADAPT_MIN_SHARE = 0.8  # adapted parts passing every gate, at least, for `adapt`
MEASURE_MAX_TOKENS = 160  # each part's cap while measuring (the parts' own budgets are lower)
CACHE_FILE = "writing-measures.json"
Progress = Callable[[int, int, str], None]


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


def cache_path() -> Path:
    from app.config import get_settings

    return get_settings().data_dir / CACHE_FILE


def _read(path: Path) -> dict[str, WritingMeasure]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {k: WritingMeasure(**v) for k, v in raw.items()}
    except (OSError, ValueError, TypeError):
        return {}  # no cache yet, or one this version cannot read: measure again


def cached(base_url: str, model: str | None, path: Path | None = None) -> WritingMeasure | None:
    """The measurement of this endpoint (and model, when it names one), else None."""
    found = _read(path or cache_path())
    url = base_url.rstrip("/")
    if model:
        return found.get(f"{url}|{model}")
    same = [m for m in found.values() if m.base_url.rstrip("/") == url]
    return max(same, key=lambda m: m.measured_at) if same else None


def save(measure: WritingMeasure, path: Path | None = None) -> Path:
    path = path or cache_path()
    found = _read(path)
    found[measure.key] = measure
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {k: asdict(v) for k, v in found.items()}
    path.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def measure(
    client: OpenAIClient,
    *,
    prompts_dir: Path,
    progress: Progress | None = None,
    max_tokens: int = MEASURE_MAX_TOKENS,
) -> WritingMeasure:
    """Draft every type's example with `adapt` on this client's endpoint (temperature 0) and
    count its adapted parts that passed; `progress(done, total, type)` after each type."""
    from app.drafting.context import prepare
    from app.drafting.service import run_to_end, start_draft
    from app.prompts import load_library

    library = load_library(prompts_dir)
    types = [t for t in sorted(library.types) if (prompts_dir / t / "outline.yaml").is_file()]
    total = WritingMeasure(client.base_url, client.model(), 0, 0)
    for done, type_id in enumerate(types, 1):
        doc = library.types[type_id]
        params = replace(doc.defaults, max_tokens=max_tokens, temperature=0.0, seed=0)
        context = prepare(
            doc,
            doc.example_values(),
            prompts_dir=prompts_dir,
            client=client,
            params=params,
            mode="outline",
        )
        outcome = run_to_end(start_draft(context, client, endpoint_name="", writing="adapt"))
        counts, stats = outcome.counts, outcome.stats
        total = replace(
            total,
            parts=total.parts + counts.adapted + counts.fell_back,
            passed=total.passed + counts.adapted,
            draft_tokens=total.draft_tokens + (stats.draft_tokens or 0),
            accepted_tokens=total.accepted_tokens + (stats.accepted_tokens or 0),
            decode_tokens=total.decode_tokens + (stats.decode_tokens or 0),
            decode_s=total.decode_s + (stats.decode_s or 0.0),
        )
        if progress is not None:
            progress(done, len(types), type_id)
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return replace(total, measured_at=stamp)


def endpoint_measure(name: str) -> WritingMeasure | None:
    """The cached measurement of the configured endpoint `name` (no request), else None."""
    from app.config import get_settings

    endpoint = get_settings().all_endpoints().get(name)
    return None if endpoint is None else cached(endpoint.base_url, endpoint.model)


def measure_endpoint(
    name: str, *, progress: Progress | None = None, again: bool = False
) -> WritingMeasure:
    """The endpoint's measurement: the cached one for the model it serves, else measured now
    and cached (`again`: measure even when cached). LLMError when it cannot be reached."""
    from app.config import get_settings
    from app.llm.client import make_client

    settings = get_settings()
    client = make_client(name, settings)
    found = None if again else cached(client.base_url, client.model())
    if found is None:
        found = measure(client, prompts_dir=settings.prompts_dir, progress=progress)
        save(found)
    return found


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
