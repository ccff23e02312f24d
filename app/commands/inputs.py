"""Reading a draft for a command (a file or stdin), with clear bilingual errors."""

from __future__ import annotations

import sys
from pathlib import Path

from app.domain import BilingualError


class InputError(BilingualError):
    """Bad input for a command: a missing or unreadable file, an unknown document type."""


def read_draft(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
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
