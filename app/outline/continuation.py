"""Clause continuation: the numbers after a pasted clause, in its own style, and the topics the
lawyer asked for. Pure functions; table-driven tests in tests/unit/test_continuation.py.

Numbering: the last numbered line of the pasted text decides the style, and the new clauses
continue it: 8.2 → 8.3, 8.2.1 → 8.2.2, 第八条 → 第九条, 第8条 → 第9条, （二） → （三）,
(2) → (3), 一、 → 二、, 2. → 3., 2、 → 3、. Brackets, dots and digits are kept as the lawyer
wrote them (half- or full-width). A text with no numbered line is numbered 1. 2. ...

Topics: an outline's `topics:` (outline.yaml) lists the clauses a continuation can write, each
with the keywords of the instruction that ask for it, and the topics written when the
instruction names none (by contract type). Each topic becomes the fact `topic_<id>` (true or
false), which the outline's parts and the clauses' `when:` test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.validation.numerals import int_to_chinese, parse_number
from app.validation.widths import FULL_WIDTH_DIGITS, full_width

CHINESE_DIGITS = "一二三四五六七八九十百零〇两"
_LINE = re.compile(
    r"^[ \t\u3000]*(?:"
    rf"第(?P<art>[{CHINESE_DIGITS}]+|[0-9０-９]+)条"
    r"|(?P<dec>[0-9０-９]+(?:[.．][0-9０-９]+)+)(?![0-9０-９])(?![.．、]?[0-9０-９])"
    rf"|(?P<open>[（(])(?P<paren>[{CHINESE_DIGITS}]+|[0-9０-９]+)(?P<close>[）)])"
    rf"|(?P<cn>[{CHINESE_DIGITS}]+)、"
    r"|(?P<num>[0-9０-９]+)(?P<mark>[.．、])(?![0-9０-９])"
    r")",
    re.MULTILINE,
)
TOPIC_FACT = "topic_{}"


def _same_digits(n: int, like: str) -> str:
    """`n` in Arabic digits, full-width when `like` was written so."""
    return full_width(n) if like and like[0] in FULL_WIDTH_DIGITS else str(n)


def _numeral(n: int, like: str) -> str:
    """`n` written as `like` is: Chinese numerals or (half/full-width) Arabic digits."""
    return int_to_chinese(n) if like[0] in CHINESE_DIGITS else _same_digits(n, like)


def _value(text: str) -> int:
    return parse_number(text) or 0


def _labels(m: re.Match[str], count: int) -> list[str]:
    steps = range(1, count + 1)
    if m["art"]:
        n = _value(m["art"])
        return [f"第{_numeral(n + i, m['art'])}条" for i in steps]
    if m["dec"]:
        *head, last = re.split(r"([.．])", m["dec"])
        stem = "".join(head)
        return [f"{stem}{_same_digits(_value(last) + i, last)}" for i in steps]
    if m["paren"]:
        n = _value(m["paren"])
        return [f"{m['open']}{_numeral(n + i, m['paren'])}{m['close']}" for i in steps]
    if m["cn"]:
        n = _value(m["cn"])
        return [f"{int_to_chinese(n + i)}、" for i in steps]
    n = _value(m["num"])
    return [f"{_same_digits(n + i, m['num'])}{m['mark']}" for i in steps]


def continue_numbers(text: str, count: int) -> list[str]:
    """The next `count` labels after the last numbered line of `text`, in its style."""
    found = list(_LINE.finditer(text))
    if not found:
        return [f"{i}." for i in range(1, count + 1)]
    return _labels(found[-1], count)


# --- topics --------------------------------------------------------------------------------


class TopicsError(ValueError):
    """An outline's `topics:` that cannot be used; the message names the reason."""


@dataclass(frozen=True)
class Topic:
    id: str
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class Topics:
    """The clauses a continuation can write and how the instruction chooses them."""

    source: str  # the form field the keywords are looked for in (the instruction)
    topics: tuple[Topic, ...]
    defaults: Mapping[str, tuple[str, ...]]  # contract type → topics; "" for any other type
    by: str = ""  # the field `defaults` is keyed on (the contract type)

    @property
    def facts(self) -> tuple[str, ...]:
        return tuple(TOPIC_FACT.format(t.id) for t in self.topics)


def parse_topics(raw: Mapping[str, Any]) -> Topics:
    """`topics:` of outline.yaml: {from, by, choices: [{id, keywords}], defaults}."""
    try:
        choices = tuple(
            Topic(str(c["id"]), tuple(str(k) for k in c["keywords"])) for c in raw["choices"]
        )
        defaults = {str(k): tuple(str(t) for t in v) for k, v in raw["defaults"].items()}
        topics = Topics(str(raw["from"]), choices, defaults, str(raw.get("by", "")))
    except (KeyError, TypeError, AttributeError) as exc:
        raise TopicsError(
            f"topics: needs from, choices (id, keywords) and defaults: {exc}"
        ) from exc
    ids = {t.id for t in choices}
    unknown = sorted({t for v in defaults.values() for t in v} - ids)
    if unknown:
        raise TopicsError(f"topics: defaults name unknown topic(s) {', '.join(unknown)}")
    if not all(re.fullmatch(r"[a-z][a-z0-9_]*", t) for t in ids):
        raise TopicsError("topics: an id is lower-case letters, digits and _")
    return topics


def chosen_topics(topics: Topics, values: Mapping[str, str]) -> tuple[str, ...]:
    """The topics the instruction asks for (by keyword, in the outline's order), else the
    defaults for the contract type."""
    asked = str(values.get(topics.source) or "").lower()
    found = tuple(t.id for t in topics.topics if any(k.lower() in asked for k in t.keywords))
    if found:
        return found
    kind = str(values.get(topics.by) or "") if topics.by else ""
    return topics.defaults.get(kind, topics.defaults.get("", ()))


def topic_facts(topics: Topics | None, values: Mapping[str, str]) -> dict[str, object]:
    """`topic_<id>`: true for each chosen topic, false for the others ({} without topics)."""
    if topics is None:
        return {}
    chosen = set(chosen_topics(topics, values))
    return {TOPIC_FACT.format(t.id): t.id in chosen for t in topics.topics}
