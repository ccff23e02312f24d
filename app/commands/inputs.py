"""Reading a draft for a command (a file or stdin), with clear bilingual errors."""

from __future__ import annotations

import sys
from pathlib import Path

from app.domain import BilingualError


class InputError(BilingualError):
    """Bad input for a command: a missing or unreadable file, an unknown document type."""


def read_draft(source: str) -> str:
    """The text of `source` (a path, or "-" for stdin); binary input is refused either way."""
    if source == "-":
        return _text_or_refuse(_stdin(), "标准输入", "standard input")
    return _text_or_refuse(_read_file(source), f"文件 {source}", f"the file {source}")


def _stdin() -> str:
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:  # a text stream (tests replace sys.stdin with one)
        return sys.stdin.read()
    try:
        return raw.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("标准输入不是 UTF-8 文本", "Standard input is not UTF-8 text") from exc


def _text_or_refuse(text: str, where_zh: str, where_en: str) -> str:
    """A NUL character means binary data even when the bytes happen to decode."""
    if "\x00" in text:
        raise InputError(
            f"{where_zh}是二进制数据，不是文本",
            f"{where_en[:1].upper()}{where_en[1:]} is binary, not text",
        )
    return text


def _read_file(source: str) -> str:
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError(f"找不到文件：{source}", f"File not found: {source}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(
            f"文件不是 UTF-8 文本：{source}", f"Not a UTF-8 text file: {source}"
        ) from exc
    except OSError as exc:
        raise InputError(
            f"无法读取文件 {source}：{exc.strerror}", f"Cannot read {source}: {exc.strerror}"
        ) from exc
