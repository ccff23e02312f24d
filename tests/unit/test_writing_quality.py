"""The writing mode from measured quality: what a measurement chooses, its cache (per endpoint +
model), and an endpoint set to `measured` following it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.drafting.service import endpoint_writing
from app.drafting.writing_mode import (
    ADAPT_MIN_SHARE,
    CACHE_FILE,
    WritingMeasure,
    cache_path,
    cached,
    endpoint_measure,
    measure_line,
    save,
    writing_choice,
)

URL = "http://127.0.0.1:8001/v1"


@pytest.mark.parametrize(
    ("parts", "passed", "writing"),
    [
        (10, 10, "adapt"),
        (10, round(10 * ADAPT_MIN_SHARE), "adapt"),
        (10, round(10 * ADAPT_MIN_SHARE) - 1, "assemble"),
        (10, 0, "assemble"),
        (0, 0, "assemble"),  # nothing measured: never adapt on no evidence
    ],
)
def test_a_measurement_chooses_adapt_only_where_enough_parts_pass(
    parts: int, passed: int, writing: str
) -> None:
    assert WritingMeasure(URL, "m", parts, passed).writing == writing


def test_acceptance_and_speed_are_none_without_tokens() -> None:
    m = WritingMeasure(URL, "m", 3, 1)
    assert m.acceptance is None and m.tokens_per_s is None
    m = WritingMeasure(URL, "m", 3, 1, draft_tokens=10, accepted_tokens=4, decode_tokens=20,
                       decode_s=2.0)  # fmt: skip
    assert m.acceptance == 0.4 and m.tokens_per_s == 10.0


def test_the_cache_is_per_endpoint_and_model(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    old = WritingMeasure(URL, "SmolLM2", 12, 1, measured_at="2026-01-01T00:00:00+00:00")
    new = WritingMeasure(URL + "/", "Qwen3-8B", 12, 12, measured_at="2026-02-01T00:00:00+00:00")
    save(old, path)
    save(new, path)
    assert cached(URL, "SmolLM2", path) == old
    assert cached(URL, "Qwen3-8B", path) == new
    assert cached(URL, None, path) == new  # no model named: the URL's newest
    assert cached(URL, "other", path) is None
    assert cached("http://elsewhere/v1", None, path) is None


def test_an_unreadable_cache_means_unmeasured(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    path.write_text("{not json", encoding="utf-8")
    assert cached(URL, None, path) is None
    save(WritingMeasure(URL, "m", 1, 1), path)  # and it is replaced, not an error
    assert cached(URL, "m", path) is not None


def test_the_default_endpoint_follows_its_measurement(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, llm_base_url=URL)
    name = settings.default_endpoint
    assert writing_choice(name, settings) == ("adapt", None)  # unmeasured: adapt, the page says so
    assert "未测量" in measure_line(None, "zh")
    measured = WritingMeasure(
        URL, "SmolLM2-135M-Instruct", 14, 1, measured_at="2026-12-01T00:00:00"
    )
    save(measured, cache_path(settings))
    assert endpoint_writing(name, settings) == "assemble"
    found = endpoint_measure(name, settings)
    assert found is not None and found.writing == "assemble"
    line = measure_line(found, "zh")
    assert "1/14" in line and "直接采用审定条款" in line
    explicit = Settings(data_dir=tmp_path, llm_base_url=URL, llm_writing="adapt")  # moot now
    assert writing_choice(name, explicit) == ("adapt", None)
