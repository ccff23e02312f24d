"""Keeping a generation's outcome: the audit log, else the spool; never lost, never silent.

`keep(outcome, user_name=..., ctx=...)` is the one door to the log: the draft service calls it
when a draft ends (app.drafting.service, `Drafting.finish`, for the drafting page, `lexspec draft`
and study generation; app.drafting.logged.to_record maps the outcome to the log's record). It writes the outcome to the audit log in its own unit of work (again
after a transient lock or connection blip), with any spooled records replayed ahead of it
in the hash chain. When the database still cannot be written, the record goes to the spool
file (audit.spool) and the returned `Kept.problem` says so, for the page or the command to
show; `lexspec audit verify` and the Monitor page count what is still spooled and what was
quarantined (app.database.spool_status). The acting context (app.context) says which
installation: its database and the spool in its data directory.

When neither the database nor the spool can be written (a read-only data directory, a full
disk), the record is held in this process's memory and goes into the log, in order, at its
next successful write (a page's server process lives on); `Kept.problem` says so and
`Kept.record_line` is the record as one spool line (JSON, signed when the spool key can be
read) for a command to print, so that nothing is lost when the process ends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.domain import Bilingual
from app.drafting.logged import to_record
from app.drafting.outcome import GenerationOutcome
from audit.domain import GenerationRecord

if TYPE_CHECKING:
    from app.context import Context


@dataclass(frozen=True)
class Kept:
    """Where an outcome went: the log (generation_id), or the spool (spooled, with problem),
    or neither (held in memory; `record_line` is the record for the caller to keep)."""

    generation_id: int | None
    problem: Bilingual | None = None
    spooled: bool = False
    record_line: str | None = None


# records neither the log nor the spool took, oldest first, per installation (database, data dir)
_held: dict[tuple[str, str], list[GenerationRecord]] = {}
_held_lock = threading.Lock()


def _installation(ctx: Context) -> tuple[str, str]:
    return ctx.settings.resolved_database_url, str(ctx.settings.data_dir)


def held(ctx: Context) -> int:
    """How many records this process holds in memory for the installation of `ctx`."""
    with _held_lock:
        return len(_held.get(_installation(ctx), []))


def _take_held(ctx: Context) -> list[GenerationRecord]:
    with _held_lock:
        return _held.pop(_installation(ctx), [])


def _hold(records: list[GenerationRecord], ctx: Context) -> None:
    """Hold `records` again, ahead of any held since (they are older)."""
    with _held_lock:
        waiting = _held.setdefault(_installation(ctx), [])
        waiting[:0] = records


def keep(
    outcome: GenerationOutcome,
    *,
    user_name: str,
    ctx: Context,
) -> Kept:
    """Write `outcome` to the audit log of `ctx`, or spool it when the database cannot be
    written (in its own unit of work from `ctx.session_factory`)."""
    from sqlalchemy.exc import SQLAlchemyError

    record = to_record(outcome, user_name=user_name)
    try:
        return Kept(_log(record, ctx))
    except (SQLAlchemyError, OSError) as exc:  # the database cannot be written: spool, say why
        return _spool(record, _reason(exc), ctx)
    except ValueError as exc:  # a record the log refuses would block the spool: set it aside
        return _refused(record, _reason(exc), ctx)


def _log(record: GenerationRecord, ctx: Context) -> int:
    """Replay the spool and append `record`, each in a savepoint of its own (audit.store.log_each):
    a record the database refuses is set aside with the reason, the others go in; ValueError
    (after the others are committed and the spool emptied) when `record` itself was refused."""
    from app.database import spool, write
    from audit.store import Refusal, log_each

    factory = ctx.session_factory  # first use: migrate, and replay the spool of an earlier run
    target = spool(ctx.settings)
    held_before, committed = _take_held(ctx), False
    try:
        with target.draining() as waiting:
            earlier = [*waiting, *held_before]
            outcomes = write(lambda session: log_each([*earlier, record], session=session), factory)
            committed = True
            for before, outcome in zip(earlier, outcomes, strict=False):
                if isinstance(outcome, Refusal):
                    target.set_aside(before, outcome.reason)
    except BaseException:
        if not committed:  # they wait in memory for the next write
            _hold(held_before, ctx)
        raise
    last = outcomes[-1]
    if isinstance(last, Refusal):
        raise ValueError(last.reason)
    return int(last.id)


def _refused(record: GenerationRecord, reason: str, ctx: Context) -> Kept:
    """Keep a record the log refuses in the spool's quarantine file (never lost), and say so."""
    from app.database import spool

    target = spool(ctx.settings)
    line = None
    try:
        target.set_aside(record, reason)
    except (OSError, TypeError, ValueError) as exc:
        kept_zh, kept_en = f"，也无法保存到隔离文件：{exc}", f"; nor could it be set aside: {exc}"
        line = target.line(record)
    else:
        path = target.quarantine_path
        kept_zh, kept_en = f"；记录已保存在隔离文件 {path}", f"; the record is kept in {path}"
    return Kept(
        None,
        Bilingual(
            zh=f"审计日志拒绝了这条记录：{reason}{kept_zh}",
            en=f"The audit log refused the record: {reason}{kept_en}",
        ),
        record_line=line,
    )


def _spool(record: GenerationRecord, reason: str, ctx: Context) -> Kept:
    from app.database import spool

    target = spool(ctx.settings)
    try:
        target.append(record)
    except OSError as exc:
        _hold([record], ctx)
        return Kept(
            None,
            Bilingual(
                zh=f"未能写入审计日志（{reason}），暂存文件 {target.path} 也无法写入（{exc}）；"
                f"记录暂留在本进程内存中（共 {held(ctx)} 条），下一次写入成功时按顺序补记",
                en=f"Could not write the audit log ({reason}) nor the spool file "
                f"{target.path} ({exc}); the record is held in this process's memory "
                f"({held(ctx)} waiting) and goes into the log, in order, at the next write",
            ),
            record_line=target.line(record),
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
