"""What a command reads, checked where it enters: a draft or another input file (or stdin),
a YAML file, and the numbers on the command line, each refused in one bilingual line.

A file must be a regular file (a device such as /dev/zero, a FIFO or a directory is refused
before a byte is read, so nothing hangs) of at most MAX_INPUT_BYTES (2 MB, the embedded
server's limit for a request body: about 680,000 Chinese characters; checking and exporting
cost time in proportion), UTF-8 text without NUL characters. A YAML error is one line with
its line and column. An id is an integer from 1 to COUNT_MAX (the log's integer), a port one
from 1 to 65535, a count one from 0 to COUNT_MAX, a deadline 1 to 3600 seconds.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

from app.domain import BilingualError
from app.i18n import cli_text
from audit.domain import COUNT_MAX

MAX_INPUT_BYTES = 2 * 1024 * 1024


class InputError(BilingualError):
    """Bad input for a command: a missing or unreadable file, an unknown document type."""


def read_draft(source: str) -> str:
    """The text of `source` (a path, or "-" for stdin); binary input is refused either way."""
    if source == "-":
        return _text_or_refuse(_stdin(), "标准输入", "standard input")
    return read_text(Path(source))


def read_text(path: Path) -> str:
    """The UTF-8 text of the file at `path` (InputError: not a regular file, too large,
    not UTF-8 text, binary)."""
    return _text_or_refuse(_decoded(_read_file(path), path), f"文件 {path}", f"the file {path}")


def read_yaml(path: Path) -> Any:
    """The YAML document in the file at `path`; InputError with the line and column of a
    syntax error, in one line."""
    from app import yamldata

    try:
        return yamldata.load(read_text(path))
    except yamldata.YAMLError as exc:
        where = yaml_reason(exc)
        raise InputError(
            f"{path} 不是有效的 YAML：{where}", f"{path} is not valid YAML: {where}"
        ) from None


def yaml_reason(exc: Exception) -> str:
    """A YAML error in one line: where (line, column) and what, without the quoted source."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    if mark is None:
        return str(problem)
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _stdin() -> str:
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:  # a text stream (tests replace sys.stdin with one)
        text = sys.stdin.read(MAX_INPUT_BYTES + 1)
        if len(text.encode("utf-8")) > MAX_INPUT_BYTES:
            raise _too_large("标准输入", "Standard input")
        return text
    data = raw.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise _too_large("标准输入", "Standard input")
    try:
        decoded: str = data.decode("utf-8-sig")
        return decoded
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


def _too_large(where_zh: str, where_en: str, limit_bytes: int = MAX_INPUT_BYTES) -> InputError:
    limit = max(limit_bytes // (1024 * 1024), 1)
    return InputError(
        f"{where_zh}超过 {limit} MB 的输入上限", f"{where_en} is larger than the {limit} MB limit"
    )


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, of at most `limit` bytes (a document to
    review); InputError otherwise."""
    return _read_file(path, limit)


def _read_file(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (opened non-blocking and checked
    before reading: a FIFO or a device never hangs the command)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise InputError(f"找不到文件：{path}", f"File not found: {path}") from exc
    except OSError as exc:
        raise InputError(
            f"无法读取文件 {path}：{exc.strerror}", f"Cannot read {path}: {exc.strerror}"
        ) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"{path} 不是普通文件", f"{path} is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _too_large(f"文件 {path} ", f"The file {path}", limit)
    return data


def _decoded(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"文件不是 UTF-8 文本：{path}", f"Not a UTF-8 text file: {path}") from exc


# --- numbers on the command line (argparse types: a bad one is the parser's one-line error) ---


def _integer(text: str, low: int, high: int, key: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(cli_text(key, value=text[:40], low=low, high=high))
    return value


def record_id(text: str) -> int:
    """An id of a row in the log: 1 to COUNT_MAX."""
    return _integer(text, 1, COUNT_MAX, "cli.input.not_an_id")


def port(text: str) -> int:
    """A TCP port: 1 to 65535."""
    return _integer(text, 1, 65535, "cli.input.not_a_port")


def count(text: str) -> int:
    """A count (tokens, a context length): 0 to COUNT_MAX."""
    return _integer(text, 0, COUNT_MAX, "cli.input.not_a_count")


def seconds(text: str) -> int:
    """A deadline in whole seconds: 1 to 3600."""
    return _integer(text, 1, 3600, "cli.input.not_seconds")
