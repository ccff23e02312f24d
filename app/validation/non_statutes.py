"""Documents cited as law with an article number that are not legal provisions (a regulator's
policy Q&A, answers to journalists, an explanation): citation.not_a_provision. The kinds are
data (non_statutes.yaml). Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app import yamldata
from app.domain import BilingualError
from app.validation.catalogue import normalise

NON_STATUTES_FILE = Path(__file__).with_name("non_statutes.yaml")


class NonStatutesError(BilingualError, ValueError):
    """non_statutes.yaml is unreadable or a kind is incomplete."""


@dataclass(frozen=True)
class Kind:
    ends: re.Pattern[str]
    zh: str
    en: str


@lru_cache(maxsize=2)
def load_kinds(path: str = str(NON_STATUTES_FILE)) -> tuple[Kind, ...]:
    """The kinds of non_statutes.yaml, validated; cached (the file ships with the app)."""
    try:
        rows = yamldata.load(Path(path).read_text(encoding="utf-8"))["kinds"]
        return tuple(
            Kind(re.compile(f"(?:{row['ends']})$"), str(row["zh"]), str(row["en"])) for row in rows
        )
    except (OSError, yamldata.YAMLError, KeyError, TypeError, re.error) as exc:
        raise NonStatutesError(
            f"{Path(path).name} 无法读取或缺少字段",
            f"{Path(path).name} is unreadable or incomplete",
        ) from exc


def non_statute(name: str) -> Kind | None:
    """The kind of document a title names when it is one cited as law but is none."""
    key = normalise(name)
    return next((k for k in load_kinds() if k.ends.search(key)), None)
