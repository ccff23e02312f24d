"""The spool: generations kept in a local file while the database cannot be written.

When a generation ends and its audit write fails (PostgreSQL restarting, a SQLite file
locked past the wait, a database that is not there), the record is appended as one JSON
line to the spool file, so nothing is lost. The next successful write (or the next
start) replays the spooled records first, in the order they were spooled, in the same
transaction, so they enter the hash chain ahead of the new row; the file is emptied only
after that transaction has committed. An exclusive lock on the file (fcntl) keeps
processes from appending to or replaying it at the same time.

Every line is authenticated when written: `mac` is HMAC-SHA256, under the spool key (32 random
bytes, hex, in `audit-spool.key` next to the spool, created 0600), over the canonical JSON of
the line's other fields. A line that cannot be read back as a record LexSpec wrote (no MAC or
a MAC that does not verify: hand-written, edited or signed with another key; truncated JSON,
bytes that are not UTF-8, an unknown or missing field, a value of the wrong type, a record the
log would refuse) is never replayed: it is moved aside, verbatim and with the reason, to the
quarantine file next to the spool (`audit-spool.quarantine.jsonl`, one JSON object a line,
appended and fsynced before the line leaves the spool, never deleted by LexSpec) and blocks
nothing: the other records replay, later ones are written. `lexspec audit verify` and the
Monitor page report how many lines wait there and why. A record the database refuses at
replay, or a new record the log refuses outright, is set aside there too rather than lost.
All three files are 0600 (audit.files). What the MAC does not stop (an attacker who can read
the key, a genuine line copied twice, a spool deleted): docs/architecture.md.

Limits: a replayed row's `created_at` is the time it entered the chain (the spooled line
keeps the time it was spooled); a crash between the commit and emptying the file would
replay those lines again.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import UnionType
from typing import IO, Any, Literal, Union, get_args, get_origin, get_type_hints

from audit.chain import canonical_json
from audit.domain import GenerationRecord
from audit.files import UnsafePath, exists, open_stream, private_file, secret_key
from audit.vocabulary import GenerationStatus

SPOOL_FILE = "audit-spool.jsonl"
SPOOL_KEY_FILE = "audit-spool.key"
QUARANTINE_SUFFIX = ".quarantine.jsonl"
KEY_BYTES = 32
MAC_CONTEXT = b"lexspec audit spool v1\n"  # a spool MAC is never valid as any other signature
log = logging.getLogger(__name__)


class BadLine(ValueError):
    """A spool line that cannot be replayed (why, in English, for the log)."""


class SpoolKeyError(OSError):
    """The spool key file holds something other than a key: nothing can be spooled or replayed."""


@dataclass(frozen=True)
class Quarantined:
    """One line of the quarantine file: the spool line as it was, why, and when it was moved."""

    raw: bytes
    reason: str
    at: str


class Spool:
    """A JSON-lines file of GenerationRecords waiting for the database, each line MAC'd."""

    def __init__(self, path: Path, key_path: Path | None = None) -> None:
        self.path = path
        self.key_path = key_path or path.with_name(SPOOL_KEY_FILE)

    def key(self) -> bytes:
        """The spool key; created (random, 0600) when there is none yet."""
        key = secret_key(self.key_path, KEY_BYTES)
        if key is None:
            raise SpoolKeyError(f"the spool key file {self.key_path} is damaged")
        return key

    @property
    def quarantine_path(self) -> Path:
        """Where unreadable lines are moved: next to the spool."""
        return self.path.with_name(self.path.name.removesuffix(".jsonl") + QUARANTINE_SUFFIX)

    def append(self, record: GenerationRecord) -> None:
        """Add `record` durably (written and fsynced before returning)."""
        text = _line(record, self.key())
        private_file(self.path)
        with self._locked("r+b") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() > 0:  # a line cut short must not swallow this one
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    handle.write(b"\n")
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())

    def pending(self) -> int:
        """How many lines wait to be replayed (an unreadable one is quarantined at replay)."""
        return _count_lines(self.path, self._locked)

    def quarantined(self) -> int:
        """How many lines were moved to the quarantine file (they stay there)."""
        return _count_lines(self.quarantine_path, self._locked)

    @contextmanager
    def draining(self) -> Iterator[list[GenerationRecord]]:
        """Hold the spool locked and yield its records (oldest first); empty the file when the
        block ends without an exception (write them to the database inside the block).
        Unreadable lines are quarantined first, so they never block the others. A spool that
        is not a regular file of its own (a link put in its place, audit.files) is neither
        read nor emptied: nothing replays, the caller's own write goes on, verify reports it."""
        if not exists(self.path):
            yield []
            return
        try:
            stream = open_stream(self.path, "r+b")
        except UnsafePath as exc:
            log.warning("audit spool not replayed: %s", exc)
            yield []
            return
        with self._locked(stream) as handle:
            content = handle.read()
            if not content:
                yield []
                return
            records, bad = _read(content, self.key())
            if bad:
                self._quarantine(bad)
                _rewrite(handle, records)
            yield [record for record, _ in records]
            _rewrite(handle, [])

    def line(self, record: GenerationRecord) -> str:
        """`record` as one spool line (no newline), for a caller that can write no file:
        signed when the key can be read (appended to the spool later, it replays), else
        without a MAC (it would be quarantined: a person must look at it)."""
        try:
            return _line(record, self.key()).rstrip("\n")
        except OSError:
            values = {f.name: getattr(record, f.name) for f in fields(record)}
            body = {"spooled_at": datetime.now(UTC).isoformat(), "record": values}
            return json.dumps(body, ensure_ascii=False, default=_plain)

    def set_aside(self, record: GenerationRecord, reason: str) -> None:
        """Keep a record the log or the database refuses (it would block the spool) in the
        quarantine file, with the reason."""
        self._quarantine([(_line(record, self.key()).rstrip("\n").encode("utf-8"), reason)])

    def quarantine_entries(self) -> list[Quarantined]:
        """Every quarantined line, oldest first (a line from before reasons were kept: its
        reason says so)."""
        if not exists(self.quarantine_path):
            return []
        with self._locked("rb", self.quarantine_path) as handle:
            return [_entry(raw) for raw in handle.read().split(b"\n") if raw.strip()]

    def _quarantine(self, lines: list[tuple[bytes, str]]) -> None:
        at = datetime.now(UTC).isoformat()
        private_file(self.quarantine_path)
        with self._locked("ab", self.quarantine_path) as out:
            out.write(b"".join(_quarantine_line(raw, reason, at) for raw, reason in lines))
            out.flush()
            os.fsync(out.fileno())
        log.warning("moved %d spool line(s) to %s", len(lines), self.quarantine_path)

    @contextmanager
    def _locked(self, mode: str | IO[bytes], path: Path | None = None) -> Iterator[IO[bytes]]:
        """The file (the spool, or `path`) opened in `mode` (or a stream already open),
        held under an exclusive lock."""
        stream = open_stream(path or self.path, mode) if isinstance(mode, str) else mode
        with stream as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield handle
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _line(record: GenerationRecord, key: bytes) -> str:
    values = {f.name: getattr(record, f.name) for f in fields(record)}
    line = {
        "spooled_at": datetime.now(UTC).isoformat(),
        "record": json.loads(json.dumps(values, ensure_ascii=False, default=_plain)),
    }
    return json.dumps({**line, "mac": mac(key, line)}, ensure_ascii=False) + "\n"


def mac(key: bytes, line: Mapping[str, Any]) -> str:
    """The MAC of a spool line's fields other than `mac` (HMAC-SHA256, hex)."""
    return hmac.new(key, MAC_CONTEXT + canonical_json(dict(line)), hashlib.sha256).hexdigest()


def _quarantine_line(raw: bytes, reason: str, at: str) -> bytes:
    """JSON with ASCII escapes: bytes that are not UTF-8 survive as escaped surrogates."""
    text = raw.decode("utf-8", errors="surrogateescape")
    entry = {"at": at, "reason": reason, "line": text}
    return json.dumps(entry, ensure_ascii=True).encode("ascii") + b"\n"


def _entry(raw: bytes) -> Quarantined:
    try:
        entry = json.loads(raw.decode("utf-8"))
        line = str(entry["line"]).encode("utf-8", errors="surrogateescape")
        return Quarantined(line, str(entry["reason"]), str(entry["at"]))
    except (UnicodeError, ValueError, KeyError, TypeError):
        return Quarantined(raw, "moved aside before reasons were kept", "")


def _count_lines(path: Path, locked: Any) -> int:
    if not exists(path):
        return 0
    with locked("rb", path) as handle:
        return sum(1 for line in handle if line.strip())


def _rewrite(handle: IO[bytes], records: list[tuple[GenerationRecord, bytes]]) -> None:
    """Replace the spool's content with `records`' original lines (fsynced)."""
    handle.seek(0)
    handle.truncate()
    handle.write(b"".join(raw + b"\n" for _, raw in records))
    handle.flush()
    os.fsync(handle.fileno())


def _read(
    content: bytes, key: bytes
) -> tuple[list[tuple[GenerationRecord, bytes]], list[tuple[bytes, str]]]:
    """Split the spool into readable records (with their line) and unreadable lines (with why)."""
    records: list[tuple[GenerationRecord, bytes]] = []
    bad: list[tuple[bytes, str]] = []
    for raw in content.split(b"\n"):
        if not raw.strip():
            continue
        try:
            records.append((parse_line(raw, key), raw))
        except BadLine as exc:
            log.warning("unreadable spool line: %s", exc)
            bad.append((raw, str(exc)))
    return records, bad


def parse_line(raw: bytes, key: bytes) -> GenerationRecord:
    """One spool line back to a record LexSpec wrote and the log accepts; BadLine when not."""
    from audit.store import record_values

    try:
        line = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadLine(f"not JSON: {exc}") from None
    if not isinstance(line, dict):
        raise BadLine("no record object")
    _check_mac(line, key)
    values = line.get("record")
    if not isinstance(values, dict):
        raise BadLine("no record object")
    hints = _hints()
    unknown = set(values) - set(hints)
    missing = {f.name for f in fields(GenerationRecord) if _required(f)} - set(values)
    if unknown or missing:
        raise BadLine(f"unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
    wrong = [name for name, value in values.items() if not _fits(value, hints[name])]
    if wrong:
        raise BadLine(f"wrong types: {wrong}")
    record = GenerationRecord(**{**values, "status": GenerationStatus(values["status"])})
    try:
        record_values(record)  # the checks log_generation makes (status, JSON, lengths)
    except ValueError as exc:
        raise BadLine(str(exc)) from None
    return record


def _check_mac(line: dict[str, Any], key: bytes) -> None:
    given = line.get("mac")
    if not isinstance(given, str):
        raise BadLine("no MAC: not written by LexSpec")
    body = {k: v for k, v in line.items() if k != "mac"}
    try:
        expected = mac(key, body)
    except (TypeError, ValueError) as exc:
        raise BadLine(f"not canonical JSON: {exc}") from None
    if not hmac.compare_digest(expected, given):
        raise BadLine("MAC does not verify: not written by LexSpec (or the spool key was replaced)")


def _required(f: Any) -> bool:
    from dataclasses import MISSING

    return f.default is MISSING and f.default_factory is MISSING


def _hints() -> dict[str, Any]:
    return get_type_hints(GenerationRecord)


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value can stand for a field annotated `hint`."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, UnionType):
        return any(_fits(value, arg) for arg in args)
    if origin is Literal:
        return value in args
    if isinstance(hint, type) and issubclass(hint, StrEnum):  # a vocabulary: one of its values
        return value in list(hint)
    if hint is type(None):
        return value is None
    if hint is Any:
        return True
    if hint in (int, float):
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and (hint is float or isinstance(value, int))
        )
    if hint is str:
        return isinstance(value, str)
    if origin is Mapping:
        return isinstance(value, dict)
    if origin is Sequence:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    if hasattr(value, "items"):
        return dict(value.items())
    raise TypeError(f"{type(value).__name__} is not JSON-able")
