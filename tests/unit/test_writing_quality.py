"""The writing mode from measured quality: what a measurement chooses, its cache (per model,
whatever its address), assembling until one exists, and the lawyer's line saying why."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from app.config import Settings
from app.drafting.service import endpoint_writing
from app.drafting.writing_mode import (
    ADAPT_MIN_SHARE,
    CACHE_FILE,
    WritingDecision,
    WritingMeasure,
    bind,
    cache_path,
    cached,
    decide,
    decision_line,
    endpoint_measure,
    local_time,
    measure_details,
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


def test_the_cache_is_per_model_whatever_its_address(tmp_path: Path) -> None:
    """A model measured once is known on any port (its id and file digest are the key); an
    address with no model named takes the model it was last seen serving."""
    path = tmp_path / CACHE_FILE
    old = WritingMeasure(URL, "SmolLM2@aaaa", 12, 1, measured_at="2026-01-01T00:00:00+00:00")
    new = WritingMeasure(URL + "/", "Qwen3-8B", 12, 12, measured_at="2026-02-01T00:00:00+00:00")
    save(old, path)
    save(new, path)
    assert cached(URL, "SmolLM2@aaaa", path) == old
    assert cached("http://127.0.0.1:8002/v1", "SmolLM2@aaaa", path) == old  # another port
    assert cached(URL, "SmolLM2", path) == old  # named by its id alone
    assert cached(URL, "Qwen3-8B", path) == new
    assert cached(URL, None, path) == new  # the address's model: the last measured there
    bind(URL, "SmolLM2@aaaa", path)  # a later start serves SmolLM2 there again
    assert cached(URL, None, path) == old
    assert cached(URL, "other", path) is None
    assert cached("http://elsewhere/v1", None, path) is None
    bind(URL, "SmolLM2@bbbb", path)  # another file under the same name: not measured
    assert cached(URL, None, path) is None


def test_an_unreadable_cache_means_unmeasured(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    path.write_text("{not json", encoding="utf-8")
    assert cached(URL, None, path) is None
    save(WritingMeasure(URL, "m", 1, 1), path)  # and it is replaced, not an error
    assert cached(URL, "m", path) is not None
    old_layout = {f"{URL}|m": {"base_url": URL, "model": "m", "parts": 1, "passed": 1}}
    path.write_text(json.dumps(old_layout), encoding="utf-8")  # an earlier version's file
    assert cached(URL, None, path) is None


def test_unmeasured_assembles_and_says_why(tmp_path: Path) -> None:
    """Before a measurement exists an endpoint assembles (no draft waits on a model whose text
    may all be discarded); the line says whether a measurement is under way."""
    settings = Settings(data_dir=tmp_path, llm_base_url=URL)
    name = settings.default_endpoint
    assert decide(name, settings) == WritingDecision("assemble", "unmeasured")
    assert endpoint_writing(name, settings) == "assemble"
    line = decision_line(decide(name, settings), "zh")
    assert "直接采用审定条款" in line and "还没有测量" in line
    bind(URL, "SmolLM2@aaaa", cache_path(settings), measuring_pid=os.getpid())
    assert decide(name, settings) == WritingDecision("assemble", "measuring")
    assert "正在后台测量" in decision_line(decide(name, settings), "zh")
    assert "being measured" in decision_line(decide(name, settings), "en")
    # a process that ended mid-measurement (Ctrl-C) leaves a stale mark: not "measuring"
    bind(URL, "SmolLM2@aaaa", cache_path(settings), measuring_pid=_ended_pid())
    assert decide(name, settings).reason == "unmeasured"


def _ended_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_the_default_endpoint_follows_its_measurement(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, llm_base_url=URL)
    name = settings.default_endpoint
    measured = WritingMeasure(
        URL, "SmolLM2-135M-Instruct@aaaa", 14, 1, measured_at="2026-12-01T00:00:00+00:00"
    )
    save(measured, cache_path(settings))
    assert endpoint_writing(name, settings) == "assemble"
    found = endpoint_measure(name, settings)
    assert found is not None and found.writing == "assemble"
    line = measure_line(found, "zh")
    assert "1/14" in line and "直接采用审定条款" in line and "2026年12月1日" in line
    for lang in ("zh", "en"):  # no codes, digests or ISO times in the lawyer's line
        shown = decision_line(decide(name, settings), lang)
        for code in ("assemble", "(adapt)", "@aaaa", "T00:00", "+00:00", "doctor"):
            assert code not in shown, (lang, shown)
    assert "@aaaa" in measure_details(found, "en")  # the details toggle keeps them
    explicit = Settings(data_dir=tmp_path, llm_base_url=URL, llm_writing="adapt")  # moot now
    assert writing_choice(name, explicit) == ("adapt", None)
    assert decide(name, explicit).reason == "setting"


@pytest.mark.parametrize(
    ("iso", "lang", "shown"),
    [
        ("2026-12-01T08:05:00", "zh", "2026年12月1日 08:05"),
        ("2026-12-01T08:05:00", "en", "1 Dec 2026, 08:05"),
        ("not a time", "en", "not a time"),
    ],
)
def test_times_are_shown_as_a_lawyer_reads_them(iso: str, lang: str, shown: str) -> None:
    assert local_time(iso, lang) == shown


@pytest.mark.parametrize(
    ("passed", "parts", "planned", "done"),
    [
        (0, 5, 26, False),  # 21 left could still make 21/26 ≥ 80 %
        (0, 6, 26, True),  # 20/26 < 80 % even if every part left passed: assemble
        (5, 8, 26, False),  # 3 failed: 5 + 18 = 23 of 26 could still pass
        (21, 21, 26, True),  # 21/26 ≥ 80 % even if every part left failed: adapt
        (20, 20, 26, False),
        (3, 26, 26, True),  # nothing left
        (0, 0, 0, True),
    ],
)
def test_a_measurement_is_settled_once_the_parts_left_cannot_change_it(
    passed: int, parts: int, planned: int, done: bool
) -> None:
    from app.drafting.writing_mode import settled

    assert settled(passed, parts, planned) == done
    left = planned - parts
    # settled means the full measurement would choose what the parts asked so far choose
    if done and parts:
        best = WritingMeasure(URL, "m", planned, passed + left).writing
        worst = WritingMeasure(URL, "m", planned, passed).writing
        assert best == worst == WritingMeasure(URL, "m", parts, passed).writing


def test_a_model_failing_its_first_parts_is_not_asked_the_rest() -> None:
    """Every adapted part fails the gates: after the types that hold the first six failures the
    verdict (assemble) is settled; the measurement stops there, says how many parts it would
    have asked, and the line says it stopped."""
    from app.config import REPO_ROOT
    from app.drafting.writing_quality import adapted_parts, measure
    from app.knowledge import Knowledge
    from tests.fakes import FakeClient

    class Endpoint(FakeClient):
        base_url = URL

        def model_key(self) -> str:
            return "tiny@0123456789abcdef"

    knowledge = Knowledge(REPO_ROOT / "prompts")
    client = Endpoint(["x y z"])  # prose no gate accepts: every part falls back to its clause
    seen: list[tuple[int, int, str]] = []
    found = measure(client, knowledge=knowledge, progress=lambda *a: seen.append(a))
    types = [t for t in sorted(knowledge.types) if knowledge.has_outline(t)]
    counts = [adapted_parts(knowledge.types[t], knowledge) for t in types]
    assert found.planned == sum(counts) and found.passed == 0
    asked = next(n for n in range(1, len(counts) + 1) if sum(counts[:n]) > 0.2 * sum(counts))
    assert [done for done, _, _ in seen] == list(range(1, asked + 1))
    assert found.parts == sum(counts[:asked]) < found.planned and found.stopped_early
    assert found.writing == "assemble"
    line = measure_line(found, "en")
    assert f"Of {found.planned} parts, the verdict was settled after {found.parts}" in line
    assert "其余未再测量" in measure_line(found, "zh")
