"""Anchoring the audit chain outside the database: a key file and signed checkpoints.

The hash chain (audit.chain) shows that rows agree with each other, but anyone who can write
the database can recompute every hash. As certificate-transparency logs publish signed tree
heads, LexSpec appends a signed checkpoint of the chain head to a file outside the database
after every commit that extended the chain:

    {"first": 41, "seq": 42, "hash": "<row hash of seq 42>", "at": "<UTC time>", "sig": "<hex>"}

`seq`/`hash` pin the head (and, through the chain, every row below it); `first`..`seq` are the
rows this commit wrote, so every row LexSpec wrote is vouched for by some checkpoint. `sig` is
HMAC-SHA256 over the other fields (canonical JSON) with a random 32-byte key kept in its own
file (hex), created 0600 on first start. `check` compares the rows with the checkpoints:
truncation (the head moved back below a checkpoint, a checkpointed row missing), rewrites (a
checkpointed hash no longer matches) and rows no checkpoint vouches for (added outside
LexSpec). Pure functions and files; the database side is audit.store.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from audit.chain import canonical_json
from audit.domain import Bilingual, BilingualError
from audit.files import exists, open_private, read_private, secret_key

KEY_BYTES = 32


class CheckpointError(BilingualError, ValueError):
    """A checkpoint line that cannot be read (bad JSON or fields), or a damaged key file."""


@dataclass(frozen=True)
class Checkpoint:
    """A signed chain head: rows `first`..`seq` were written by LexSpec; row `seq` hashes to `hash`."""

    first: int
    seq: int
    hash: str
    at: str
    sig: str

    def line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class CheckpointLog:
    """The checkpoint file read back: well-signed checkpoints, and how many lines were not."""

    valid: tuple[Checkpoint, ...]
    bad: int

    @property
    def newest(self) -> Checkpoint | None:
        """The checkpoint of the highest chain head (the latest written among equals)."""
        return max(self.valid, key=lambda c: (c.seq, c.at), default=None)


def _signature(key: bytes, first: int, seq: int, head_hash: str, at: str) -> str:
    message = canonical_json({"first": first, "seq": seq, "hash": head_hash, "at": at})
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def parse(text: str) -> Checkpoint:
    """A checkpoint from its JSON line (as printed by `lexspec audit checkpoint`)."""
    try:
        data = json.loads(text)
        checkpoint = Checkpoint(
            int(data["first"]),
            int(data["seq"]),
            str(data["hash"]),
            str(data["at"]),
            str(data["sig"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise CheckpointError(f"不是检查点行：{exc}", f"not a checkpoint line: {exc}") from None
    if not 1 <= checkpoint.first <= checkpoint.seq:
        raise CheckpointError(
            "不是检查点行：first/seq 顺序不对", "not a checkpoint line: first > seq"
        )
    return checkpoint


class Anchor:
    """The key file and the checkpoint file of one installation."""

    def __init__(self, key_path: Path, checkpoint_path: Path) -> None:
        self.key_path, self.checkpoint_path = key_path, checkpoint_path

    def key(self) -> bytes:
        """The signing key; created (random, 0600) when there is none yet."""
        key = secret_key(self.key_path, KEY_BYTES)
        if key is None:
            raise CheckpointError(
                f"审计密钥文件 {self.key_path} 已损坏（应为 {KEY_BYTES * 2} 个十六进制字符）",
                f"the audit key file {self.key_path} is damaged ({KEY_BYTES * 2} hex digits expected)",
            )
        return key

    def sign(self, first: int, seq: int, head_hash: str) -> Checkpoint:
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        return Checkpoint(
            first, seq, head_hash, at, _signature(self.key(), first, seq, head_hash, at)
        )

    def record(self, first: int, seq: int, head_hash: str) -> Checkpoint:
        """Sign and append a checkpoint (fsynced; O_APPEND keeps concurrent lines whole)."""
        checkpoint = self.sign(first, seq, head_hash)
        fd = open_private(self.checkpoint_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, (checkpoint.line() + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        return checkpoint

    def has_checkpoints(self) -> bool:
        return exists(self.checkpoint_path) and os.lstat(self.checkpoint_path).st_size > 0

    def read(self) -> CheckpointLog:
        """Every checkpoint whose signature holds; lines that do not parse or verify are counted."""
        if not exists(self.checkpoint_path):
            return CheckpointLog((), 0)
        key = self.key()
        valid: list[Checkpoint] = []
        bad = 0
        content = read_private(self.checkpoint_path).decode("utf-8", errors="replace")
        for text in content.splitlines():
            if not text.strip():
                continue
            try:
                checkpoint = parse(text)
            except CheckpointError:
                bad += 1
                continue
            expected = _signature(
                key, checkpoint.first, checkpoint.seq, checkpoint.hash, checkpoint.at
            )
            if hmac.compare_digest(expected, checkpoint.sig):
                valid.append(checkpoint)
            else:
                bad += 1
        return CheckpointLog(tuple(valid), bad)


def check(
    log: CheckpointLog,
    *,
    head_seq: int,
    hash_at: Mapping[int, str],
    kept: Iterable[Checkpoint] = (),
) -> list[Bilingual]:
    """What the rows hide from the checkpoints: one message per kind of fault.

    `hash_at` maps the seq of every checkpoint (file and `kept`, the admin's printed copies,
    trusted without their signature) to the stored hash of the row there, if it exists."""
    faults: list[Bilingual] = []
    if log.bad:
        faults.append(
            Bilingual(
                f"检查点文件中有 {log.bad} 行签名无效（被伪造，或密钥文件被替换）",
                f"{log.bad} checkpoint line(s) with a bad signature (forged, or the key file was replaced)",
            )
        )
    pinned = [*log.valid, *kept]
    newest = max(pinned, key=lambda c: c.seq, default=None)
    if newest is not None and newest.seq > head_seq:
        faults.append(
            Bilingual(
                f"截断：检查点（{newest.at}）记录链头为第 {newest.seq} 行，数据库链头却在第 {head_seq} 行",
                f"truncation: a checkpoint ({newest.at}) pinned the head at seq {newest.seq}, "
                f"the database's head is at seq {head_seq} (rows {head_seq + 1}..{newest.seq} removed)",
            )
        )
    faults.extend(_mismatches(pinned, head_seq, hash_at))
    gaps = _uncovered(log.valid, head_seq)
    if gaps:
        spans = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in gaps)
        faults.append(
            Bilingual(
                f"第 {spans} 行没有任何检查点担保：不是 LexSpec 写入的（或写入后程序在签署检查点前崩溃）",
                f"rows seq {spans} are vouched for by no checkpoint: not written by LexSpec "
                "(or it crashed between the commit and the checkpoint)",
            )
        )
    return faults


def _mismatches(
    pinned: Iterable[Checkpoint], head_seq: int, hash_at: Mapping[int, str]
) -> list[Bilingual]:
    missing = sorted({c.seq for c in pinned if c.seq <= head_seq and c.seq not in hash_at})
    rewritten = sorted({c.seq for c in pinned if c.seq in hash_at and hash_at[c.seq] != c.hash})
    faults = []
    if missing:
        faults.append(
            Bilingual(
                f"截断：检查点记录过的第 {_few(missing)} 行已不在数据库中",
                f"truncation: checkpointed row(s) seq {_few(missing)} missing from the database",
            )
        )
    if rewritten:
        faults.append(
            Bilingual(
                f"改写：第 {_few(rewritten)} 行的哈希与检查点不符",
                f"rewrite: row(s) seq {_few(rewritten)} no longer have the checkpointed hash",
            )
        )
    return faults


def _few(seqs: list[int], shown: int = 5) -> str:
    text = ", ".join(str(s) for s in seqs[:shown])
    return text + (f" … (+{len(seqs) - shown})" if len(seqs) > shown else "")


def _uncovered(checkpoints: Iterable[Checkpoint], head_seq: int) -> list[tuple[int, int]]:
    """Ranges of 1..head_seq that no checkpoint's first..seq covers."""
    gaps: list[tuple[int, int]] = []
    next_seq = 1
    for first, last in sorted((c.first, c.seq) for c in checkpoints):
        if first > next_seq:
            gaps.append((next_seq, min(first - 1, head_seq)))
        next_seq = max(next_seq, last + 1)
        if next_seq > head_seq:
            break
    if next_seq <= head_seq:
        gaps.append((next_seq, head_seq))
    return [(a, b) for a, b in gaps if a <= b]
