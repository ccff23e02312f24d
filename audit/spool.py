"""The spool: generations kept in a local file while the database cannot be written.

When a generation ends and its audit write fails (PostgreSQL restarting, a SQLite file
locked past the wait, a database that is not there), the record is appended as one JSON
line to the spool file, so nothing is lost. The next successful write (or the next
start) replays the spooled records first, in the order they were spooled, in the same
transaction, so they enter the hash chain ahead of the new row; the file is emptied only
after that transaction has committed. An exclusive lock on the file (fcntl) keeps
processes from appending to or replaying it at the same time.

Limits: a replayed row's `created_at` is the time it entered the chain (the spooled line
keeps the time it was spooled); a crash between the commit and emptying the file would
replay those lines again.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from audit.domain import GenerationRecord

SPOOL_FILE = "audit-spool.jsonl"


class Spool:
    """A JSON-lines file of GenerationRecords waiting for the database."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: GenerationRecord) -> None:
        """Add `record` durably (written and fsynced before returning)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = {
            "spooled_at": datetime.now(UTC).isoformat(),
            "record": {f.name: getattr(record, f.name) for f in fields(record)},
        }
        with self._locked("a") as handle:
            handle.write(json.dumps(line, ensure_ascii=False, default=_plain) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def pending(self) -> int:
        """How many records wait to be replayed."""
        if not self.path.exists():
            return 0
        with self._locked("r") as handle:
            return sum(1 for line in handle if line.strip())

    @contextmanager
    def draining(self) -> Iterator[list[GenerationRecord]]:
        """Hold the spool locked and yield its records (oldest first); empty the file when the
        block ends without an exception (write them to the database inside the block)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            yield []
            return
        with self._locked("r+") as handle:
            records = [_record(json.loads(line)) for line in handle if line.strip()]
            yield records
            handle.seek(0)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())

    @contextmanager
    def _locked(self, mode: str) -> Iterator[IO[str]]:
        with open(self.path, mode, encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield handle
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    if hasattr(value, "items"):
        return dict(value.items())
    raise TypeError(f"{type(value).__name__} is not JSON-able")


def _record(line: dict[str, Any]) -> GenerationRecord:
    return GenerationRecord(**line["record"])
