"""The calibration cache (app/serving/calibration.py): timed pass costs are reused only for the
same model file, machine, threads and grid; a damaged file is a miss, never a failure; the fit
learnt from traffic is written back every `every` passes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from app.serving import calibration
from app.serving.adaptive import PassCost

POINTS = [(1, 150, 0.008), (17, 150, 0.075), (1, 583, 0.012), (17, 583, 0.108)]


def key_for(model: Path, threads: int = 2) -> dict[str, object]:
    return calibration.entry_key(model, threads, (1, 2, 4, 8, 17), (150, 583))


def test_kept_points_come_back_for_the_same_model_and_machine_only(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    cache = tmp_path / "data" / calibration.FILE_NAME
    assert calibration.load(cache, key_for(model)) is None  # no file yet
    calibration.save(cache, key_for(model), POINTS, "timed")
    assert calibration.load(cache, key_for(model)) == POINTS
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert calibration.load(cache, key_for(model, threads=1)) is None
    model.write_bytes(b"other weights")  # a new model file under the same name
    assert calibration.load(cache, key_for(model)) is None


def test_a_damaged_cache_is_a_miss_and_is_replaced(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    cache = tmp_path / calibration.FILE_NAME
    cache.write_text("{not json", encoding="utf-8")
    assert calibration.load(cache, key_for(model)) is None
    calibration.save(cache, key_for(model), POINTS, "timed")
    assert calibration.load(cache, key_for(model)) == POINTS
    entry = json.loads(cache.read_text(encoding="utf-8"))["entries"][0]
    entry["points"] = [[1, 150, -1.0]]  # a point no timing gives
    cache.write_text(json.dumps({"entries": [entry]}), encoding="utf-8")
    assert calibration.load(cache, key_for(model)) is None


def test_the_file_keeps_the_newest_entries(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    cache = tmp_path / calibration.FILE_NAME
    for threads in range(1, calibration.KEEP + 3):
        calibration.save(cache, key_for(model, threads), POINTS, "timed")
    entries = json.loads(cache.read_text(encoding="utf-8"))["entries"]
    assert [e["threads"] for e in entries] == list(range(3, calibration.KEEP + 3))


def test_the_fit_learnt_from_traffic_is_written_back_every_n_passes(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    cache = tmp_path / calibration.FILE_NAME
    key = key_for(model)
    calibration.save(cache, key, POINTS, "timed")
    cost = PassCost(POINTS)
    keeper = calibration.Keeper(cache, key, ((1, 17), (150, 583)), every=40)
    for _ in range(39):  # the machine got twice as slow as it was timed
        cost.observe(17, 300, 0.2)
        keeper.after_passes(cost)
    assert calibration.load(cache, key) == POINTS  # not yet
    cost.observe(17, 300, 0.2)
    keeper.after_passes(cost)
    kept = calibration.load(cache, key)
    assert kept is not None and kept != POINTS
    assert [(n, c) for n, c, _ in kept] == [(1, 150), (17, 150), (1, 583), (17, 583)]
    assert json.loads(cache.read_text(encoding="utf-8"))["entries"][0]["source"] == "traffic"
    slower = {(n, c): s for n, c, s in kept}
    assert slower[(17, 150)] > 0.075 and slower[(17, 583)] > 0.108
