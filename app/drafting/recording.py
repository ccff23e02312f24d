"""Keeping a generation's outcome: the audit log, else the spool; never lost, never silent.

`keep(outcome, user_name=...)` is what the drafting page and `lexspec draft` call when a
generation ends. It writes the outcome to the audit log in its own unit of work (again
after a transient lock or connection blip), with any spooled records replayed ahead of it
in the hash chain. When the database still cannot be written, the record goes to the spool
file (audit.spool) and the returned `Kept.problem` says so, for the page or the command to
show; `lexspec audit verify` counts what is still spooled. `spool_status()` is what the
Monitor page shows: records still waiting, and lines moved to the quarantine file because
they could not be read back (audit.spool).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import Bilingual

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.drafting.generation import GenerationOutcome
    from audit.domain import GenerationRecord


@dataclass(frozen=True)
class Kept:
    """Where an outcome went: the log (generation_id), or the spool (spooled, with problem)."""

    generation_id: int | None
    problem: Bilingual | None = None
    spooled: bool = False


@dataclass(frozen=True)
class SpoolStatus:
    """Records waiting in the spool, and unreadable lines kept in its quarantine file."""

    pending: int
    quarantined: int
    spool_path: Path
    quarantine_path: Path


def spool_status() -> SpoolStatus:
    """How many records wait in the spool and how many lines sit in its quarantine."""
    from app.database import spool

    target = spool()
    return SpoolStatus(target.pending(), target.quarantined(), target.path, target.quarantine_path)


def keep(outcome: GenerationOutcome, *, user_name: str) -> Kept:
    """Write `outcome` to the audit log, or spool it when the database cannot be written."""
    from sqlalchemy.exc import SQLAlchemyError

    from app.drafting.generation import to_record

    record = to_record(outcome, user_name=user_name)
    try:
        return Kept(_log(record))
    except (SQLAlchemyError, OSError) as exc:  # the database cannot be written: spool, say why
        return _spool(record, _reason(exc))
    except ValueError as exc:  # a record the log refuses would block the spool: set it aside
        return _refused(record, _reason(exc))


def _log(record: GenerationRecord) -> int:
    from app.database import get_engine, spool, write

    get_engine()  # first use: migrate, and replay the spool of an earlier run
    with spool().draining() as waiting:
        return write(lambda session: _append(waiting, record, session))


def _append(waiting: list[GenerationRecord], record: GenerationRecord, session: Session) -> int:
    from audit.store import log_generation

    for earlier in waiting:
        log_generation(earlier, session=session)
    return int(log_generation(record, session=session).id)


def _refused(record: GenerationRecord, reason: str) -> Kept:
    """Keep a record the log refuses in the spool's quarantine file (never lost), and say so."""
    from app.database import spool

    target = spool()
    try:
        target.set_aside(record)
    except (OSError, TypeError, ValueError) as exc:
        kept_zh, kept_en = f"，也无法保存到隔离文件：{exc}", f"; nor could it be set aside: {exc}"
    else:
        path = target.quarantine_path
        kept_zh, kept_en = f"；记录已保存在隔离文件 {path}", f"; the record is kept in {path}"
    return Kept(
        None,
        Bilingual(
            zh=f"审计日志拒绝了这条记录：{reason}{kept_zh}",
            en=f"The audit log refused the record: {reason}{kept_en}",
        ),
    )


def _spool(record: GenerationRecord, reason: str) -> Kept:
    from app.database import spool

    target = spool()
    try:
        target.append(record)
    except OSError as exc:
        return Kept(
            None,
            Bilingual(
                zh=f"未能写入审计日志（{reason}），暂存文件 {target.path} 也无法写入：{exc}",
                en=f"Could not write the audit log ({reason}) nor the spool file "
                f"{target.path}: {exc}",
            ),
        )
    return Kept(
        None,
        Bilingual(
            zh=f"未能写入审计日志（{reason}）；记录已暂存于 {target.path}，"
            "数据库恢复后的下一次写入或启动时将按顺序补记",
            en=f"Could not write the audit log ({reason}); the record is kept in "
            f"{target.path} and goes into the log, in order, at the next write or start",
        ),
        spooled=True,
    )


def _reason(exc: BaseException) -> str:
    """One line about the failure (the driver's message, not SQLAlchemy's wrapper)."""
    inner = getattr(exc, "orig", None) or exc
    text = str(inner).strip().splitlines()
    return f"{type(inner).__name__}: {text[0] if text else ''}".rstrip(": ")
