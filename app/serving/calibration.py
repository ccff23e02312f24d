"""The start-up calibration of pass costs, kept per model file and machine.

The adaptive draft length (adaptive.PassCost) starts from timed target passes of 1..K+1 rows at
two context lengths (Engine.calibrate). Timing them takes a few seconds on an idle 2-core
machine and far longer on a busy one, and the user of `make run` waits for it. So the timings
are kept in the data directory (`calibration.json`, 0600), one entry per model file (path,
size, modification time), llama.cpp version, machine (CPU model, cores), threads and timed grid;
a later start with the same ones times nothing. The server goes on learning from its own passes
(PassCost.observe), and every SAVE_EVERY passes it observes the fit's seconds at the same grid
are written back, so the next start begins from what this machine did lately, not from a start
that may have been timed while the machine was busy. Delete the file to time passes anew.
"""

from __future__ import annotations

import json
import logging
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.serving.adaptive import PassCost
from audit.files import private_file

log = logging.getLogger(__name__)

FILE_NAME = "calibration.json"
SAVE_EVERY = 256  # passes observed on traffic between two write-backs of the fit
KEEP = 16  # entries kept in the file (other models, thread counts, K); the oldest go first

Point = tuple[int, int, float]  # rows, context length, seconds


def machine() -> str:
    """The CPU model and the number of cores (what a pass's cost depends on, with threads)."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def entry_key(
    model_path: Path, n_threads: int, sizes: Sequence[int], contexts: Sequence[int]
) -> dict[str, Any]:
    """What a kept calibration must match to be reused."""
    import llama_cpp

    stat = model_path.stat()
    return {
        "model": str(model_path.resolve()),
        "model_size": stat.st_size,
        "model_mtime_ns": stat.st_mtime_ns,
        "llama_cpp": llama_cpp.__version__,
        "machine": machine(),
        "threads": n_threads,
        "rows": list(sizes),
        "contexts": list(contexts),
    }


def _entries(path: Path) -> list[dict[str, Any]]:
    """The file's entries; none when it is missing or unreadable (it is only a cache)."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("calibration cache %s unreadable (%s): passes are timed anew", path, exc)
        return []
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _matches(entry: dict[str, Any], key: dict[str, Any]) -> bool:
    return all(entry.get(k) == v for k, v in key.items())


def load(path: Path, key: dict[str, Any]) -> list[Point] | None:
    """The kept points for `key`, or None (never calibrated so, or damaged)."""
    for entry in _entries(path):
        if _matches(entry, key):
            try:
                points = [(int(n), int(c), float(s)) for n, c, s in entry["points"]]
            except (KeyError, TypeError, ValueError):
                return None
            return points if points and all(s > 0 for _, _, s in points) else None
    return None


def save(path: Path, key: dict[str, Any], points: Sequence[Point], source: str) -> None:
    """Keep `points` for `key` (replacing its entry); written whole, then moved into place."""
    entry = {
        **key,
        "points": [list(p) for p in points],
        "source": source,  # "timed" at start-up, or "traffic": the fit to observed passes
        "saved": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    entries = [e for e in _entries(path) if not _matches(e, key)][-(KEEP - 1) :]
    temp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        private_file(temp).write_text(
            json.dumps({"entries": [*entries, entry]}, indent=1), encoding="utf-8"
        )
        os.replace(temp, path)
    except OSError as exc:
        log.warning("calibration cache %s not written (%s)", path, exc)
        temp.unlink(missing_ok=True)


@dataclass
class Keeper:
    """Writes the server's fit back to the cache every SAVE_EVERY observed passes."""

    path: Path
    key: dict[str, Any]
    grid: tuple[tuple[int, ...], tuple[int, ...]]  # (rows, contexts) of the kept points
    saved_at: int = 0  # cost.observed at the last write-back
    every: int = SAVE_EVERY

    def points(self, cost: PassCost) -> list[Point]:
        sizes, contexts = self.grid
        return [(n, c, cost.seconds(n, c)) for c in contexts for n in sizes]

    def after_passes(self, cost: PassCost) -> None:
        """Called between requests: write the fit back when enough passes came in."""
        if cost.observed - self.saved_at < self.every:
            return
        self.saved_at = cost.observed
        points = self.points(cost)
        if all(s > 0 for _, _, s in points):  # a degenerate fit is not kept
            save(self.path, self.key, points, "traffic")
