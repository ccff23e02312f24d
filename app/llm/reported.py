"""Numbers a model server reports, checked where they enter: a count (usage, spec_decode, a
/tokenize count, max_model_len) is an integer from 0 to the log's COUNT_MAX; an integral float
(`12.0`) is read as one. Anything else (`1e20`, 2**64, -1, NaN, a string, a bool) is not used:
the caller keeps None and names what it refused, so the record of the draft is kept whole and
says which reported value was left out (`params["refused"]` in the log)."""

from __future__ import annotations

import math

from audit.domain import COUNT_MAX

SHOWN_CHARS = 40  # how much of a refused value the record keeps


def count(value: object) -> int | None:
    """`value` as a count, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    if isinstance(value, int) and 0 <= value <= COUNT_MAX:
        return value
    return None


def checked(name: str, value: object, refused: dict[str, str]) -> int | None:
    """`value` as a count; None (and `refused[name]` says what it was) when it is not one.
    An absent value (None) is simply unknown."""
    if value is None:
        return None
    found = count(value)
    if found is None:
        refused[name] = shown(value)
    return found


def shown(value: object) -> str:
    """A refused value as the record keeps it (short: a server may send anything)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
