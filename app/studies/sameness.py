"""Arms that wrote the same drafts: found once the drafts are generated, before reviewers are
asked to score them. Two arms whose drafts are byte-identical case by case cannot differ in a
blind review (at temperature 0 a speculative arm and a plain one do exactly that: speculative
decoding is lossless), so their comparison would only measure the reviewers' noise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from app.studies.domain import Study, StudyItem
from audit.vocabulary import ItemStatus


@dataclass(frozen=True)
class IdenticalArms:
    """Arms `a` and `b` (labels) wrote byte-identical drafts for `identical` of the `cases`
    cases both have drafted."""

    a: str
    b: str
    identical: int
    cases: int

    @property
    def everywhere(self) -> bool:
        return self.identical == self.cases


def identical_arms(study: Study, items: Sequence[StudyItem]) -> list[IdenticalArms]:
    """Every pair of arms with at least one case drafted byte for byte alike (gold copies and
    drafts not generated yet are left out)."""
    texts: dict[tuple[int, int], bytes] = {
        (i.arm_id, i.case_id): i.text.encode("utf-8")
        for i in items
        if i.gold_kind is None and i.status == ItemStatus.COMPLETE
    }
    found = []
    for a, b in combinations(study.arms, 2):
        both = [c.id for c in study.cases if (a.id, c.id) in texts and (b.id, c.id) in texts]
        same = sum(texts[(a.id, c)] == texts[(b.id, c)] for c in both)
        if same:
            found.append(IdenticalArms(a.label, b.label, same, len(both)))
    return found
