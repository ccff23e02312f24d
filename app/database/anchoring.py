"""Checkpoints of the audit chain, written outside the database after every commit.

`watch(factory, target)` makes every session of `factory` that appended to the chain sign and
append a checkpoint to `target` (audit.anchor) once its transaction has committed: rows
`first`..`seq` of that commit, and the head's hash. `anchor_first_start(factory, target)` creates the key on first start
and, when no checkpoint exists yet (a new installation, or one from before checkpoints),
anchors the chain as it stands. Locations come from Settings
(`audit_key_file`, `audit_checkpoint_file`). A checkpoint that cannot be written is logged,
never raised: the commit has already happened, and the next commit anchors the head again.
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine, event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from audit.anchor import Anchor
from audit.store import APPENDED, chain_head, hashes_at

log = logging.getLogger(__name__)


def anchor(settings: Settings) -> Anchor:
    """The key file and checkpoint file of the installation of `settings`."""
    return Anchor(settings.resolved_audit_key_file, settings.resolved_audit_checkpoint_file)


def watch(factory: sessionmaker[Session], target: Anchor) -> sessionmaker[Session]:
    """Checkpoint to `target` after each commit of `factory`'s sessions that extended the
    chain (call once per factory; `event.contains` cannot tell: it answers True for a new
    sessionmaker)."""

    def after_commit(session: Session) -> None:
        _after_commit(session, target)

    event.listen(factory, "after_commit", after_commit)
    event.listen(factory, "after_rollback", _after_rollback)
    return factory


def _after_rollback(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint: the outer transaction may still commit
        return
    session.info.pop(APPENDED, None)


def _after_commit(session: Session, target: Anchor) -> None:
    if session.in_nested_transaction():  # a savepoint released: nothing is committed yet
        return
    appended: list[tuple[int, str]] = session.info.pop(APPENDED, [])
    if not appended:
        return
    last_seq, last_hash = max(
        appended
    )  # the same seq twice: a savepoint rolled back, the later won
    last_hash = [h for s, h in appended if s == last_seq][-1]
    try:
        bind = session.get_bind().execution_options(sqlite_begin="DEFERRED")  # a read
        with Session(bind=bind) as fresh:  # the committed row, as other sessions see it
            if hashes_at([last_seq], session=fresh).get(last_seq) != last_hash:
                log.warning("chain row seq %d changed before it was anchored", last_seq)
                return
        target.record(min(s for s, _ in appended), last_seq, last_hash)
    except Exception as exc:  # noqa: BLE001 - the commit stands; the next one anchors the head again
        log.warning("audit checkpoint not written: %s", exc)


def chain_position(engine: Engine) -> int | None:
    """The chain head's seq before a migration runs (None: no chain yet)."""
    try:
        with Session(bind=engine) as session:
            return chain_head(session=session)[0]
    except SQLAlchemyError:
        return None


def anchor_first_start(
    factory: sessionmaker[Session], target: Anchor, *, migrated_from: int | None = None
) -> None:
    """Create the key; anchor the whole chain when no checkpoint exists yet, else the rows a
    migration this process ran has just chained (beyond `migrated_from`, the head before it:
    0011's and 0012's baselines), which no commit of a session anchored."""
    try:
        target.key()
        with factory() as session:
            seq, head_hash = chain_head(session=session)
        if not target.has_checkpoints():
            if seq:
                target.record(1, seq, head_hash)
        elif migrated_from is not None and seq > migrated_from:
            target.record(migrated_from + 1, seq, head_hash)
    except Exception as exc:  # noqa: BLE001 - starting must not fail for it; verify reports what is unanchored
        log.warning("audit chain not anchored at start: %s", exc)
