"""A server's second start with the same model on the same machine reuses the pass costs its
first start timed (app/serving/calibration.py), on the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.serving import calibration
from app.serving.drafters import NgramDrafter
from app.serving.launch import ServeOptions, calibrate
from app.serving.model import Model
from app.serving.speculative import Engine

pytestmark = pytest.mark.integration


def test_the_second_start_reuses_the_timed_pass_costs(tmp_path: Path) -> None:
    path = Settings().resolved_model_path
    cache = tmp_path / calibration.FILE_NAME
    opts = ServeOptions(path, "m", "ngram", num_speculative_tokens=4, calibration_file=cache)
    model = Model(path, n_ctx=2048, n_threads=opts.n_threads)
    try:
        first = Engine(model, NgramDrafter(2, 5), k_max=4)
        calibrate(first, opts)
        timed = list(first.cost.seed)
        assert {n for n, _, _ in timed} == {1, 2, 4, 5, 8} and all(s > 0 for _, _, s in timed)
        second = Engine(model, NgramDrafter(2, 5), k_max=4)
        keeper = calibrate(second, opts)
        assert second.cost.seed == timed  # read back, not timed again (timings never repeat)
        assert keeper is not None and keeper.path == cache
        other = ServeOptions(path, "m", "ngram", num_speculative_tokens=8, calibration_file=cache)
        third = Engine(model, NgramDrafter(2, 5), k_max=8)
        calibrate(third, other)  # another K times another grid
        assert {n for n, _, _ in third.cost.seed} == {1, 2, 4, 8, 9}
    finally:
        model.close()
