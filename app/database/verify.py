"""Everything `lexspec audit verify` checks, in one place.

The hash chain and the rows it covers (accounts, verdicts: audit.store.verify_chain), the
rows against the signed checkpoints outside the database (audit.anchor.check; plus any
checkpoint lines an admin kept elsewhere), and the spool: records still waiting and lines
moved to its quarantine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.database import SpoolStatus, spool_status
from app.database.anchoring import anchor
from audit import anchor as anchoring
from audit.anchor import Checkpoint
from audit.domain import Bilingual, ChainReport
from audit.store import hashes_at, verify_chain

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.config import Settings


@dataclass(frozen=True)
class AuditVerdict:
    """The chain's report, what the checkpoints reveal, and the spool's state."""

    chain: ChainReport
    anchor_faults: tuple[Bilingual, ...]
    newest: Checkpoint | None
    spool: SpoolStatus

    @property
    def ok(self) -> bool:
        """Nothing altered, nothing unanchored, nothing waiting or quarantined."""
        return (
            self.chain.ok
            and not self.anchor_faults
            and not self.spool.pending
            and not self.spool.quarantined
            and self.spool.problem is None
        )


def verify_all(
    *, settings: Settings, session: Session, kept: Sequence[Checkpoint] = ()
) -> AuditVerdict:
    """Verify the log of the installation of `settings`; `kept` are checkpoint lines an admin
    kept elsewhere (trusted as given)."""
    report = verify_chain(session=session)
    target = anchor(settings)
    target.key()  # a key file that is damaged or not a file is said, also before any checkpoint
    log = target.read()
    seqs = [c.seq for c in (*log.valid, *kept)]
    faults = anchoring.check(
        log, head_seq=report.head_seq, hash_at=hashes_at(seqs, session=session), kept=kept
    )
    return AuditVerdict(report, tuple(faults), log.newest, spool_status(settings))
