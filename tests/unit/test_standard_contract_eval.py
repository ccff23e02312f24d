"""Precision and recall of the standard-contract comparison on generated documents: filled-in
contracts made from the official text, clean or with one seeded deviation of each kind at a
varied place (tests/unit/standard_contract_seeds.py; `python tests/unit/standard_contract_seeds.py`
prints the table)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from standard_contract_seeds import KINDS, corpus, evaluate

PER_KIND = 100


def test_each_kind_is_found_where_it_was_seeded_and_clean_contracts_stay_clean() -> None:
    docs = corpus(per_kind=PER_KIND, clean=40)
    assert sum(d.kind == "clean" for d in docs) == 40
    assert len({d.text for d in docs}) == len(docs)  # every document differs
    table = evaluate(docs)
    for kind in KINDS:
        row = table[kind]
        assert row["seeded"] == PER_KIND
        assert row["precision"] >= 0.95, (kind, row)
        assert row["recall"] >= 0.9, (kind, row)
    assert table["contract.wording_changed"]["reported"] <= 0.02 * len(docs)
