"""Text that every backend stores alike: NUL and lone surrogates replaced, in one place.

PostgreSQL refuses a NUL (0x00) in a text or JSON value that SQLite keeps, and neither can
encode a lone surrogate as UTF-8; a model's output, a form value or a revision may hold
either. Every session from audit.db.make_session_factory normalises the string attributes
(and the strings inside JSON values, keys included) of each row before it is flushed, so
both backends hold the same text and a row's hash (computed after that flush) covers what
the database holds. Each such character becomes U+FFFD, the replacement character.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session, sessionmaker

REPLACEMENT = "\ufffd"


def _bad(char: str) -> bool:
    return char == "\x00" or "\ud800" <= char <= "\udfff"


def storable_text(text: str) -> str:
    """`text` with NUL and lone surrogates replaced by U+FFFD (unchanged when it has none)."""
    if "\x00" not in text and not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    return "".join(REPLACEMENT if _bad(c) else c for c in text)


def storable(value: Any) -> Any:
    """A string, or a JSON value's every string and key, made storable on every backend."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value


def _normalise_row(obj: object) -> None:
    state = inspect(obj)
    for attr in state.mapper.column_attrs:
        value = getattr(obj, attr.key, None)
        if isinstance(value, str | dict | list):
            fixed = storable(value)
            if fixed != value or type(fixed) is not type(value):
                setattr(obj, attr.key, fixed)


def _before_flush(session: Session, _context: object, _instances: object) -> None:
    for obj in (*session.new, *session.dirty):
        _normalise_row(obj)


def normalise_on_flush(factory: sessionmaker[Session]) -> sessionmaker[Session]:
    """Make every session of `factory` store text the same way on every backend."""
    event.listen(factory, "before_flush", _before_flush)
    return factory
