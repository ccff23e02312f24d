"""Private files: what LexSpec keeps on disk is readable by its own user only.

The SQLite database (client data, argon2 hashes), the audit spool and its quarantine, the
secret keys (the audit anchor's, the spool's, the sessions') and the checkpoint file are created 0600, and a directory LexSpec creates for
them 0700. A file that already exists with group or other bits is tightened to 0600 when
LexSpec opens it (it holds the same data). SQLite creates its `-wal` and `-shm` files with
the database file's own permissions.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700; an existing directory is left as it is
    (it may be shared on purpose, e.g. a volume)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def private_file(path: Path) -> Path:
    """Make sure `path` exists and is 0600 (created empty when missing); returns it."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        tighten(path)
    else:
        os.close(fd)
    return path


def tighten(path: Path) -> None:
    """Drop group and other permissions from an existing file we own."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            path.chmod(mode & ~0o077)
    except (FileNotFoundError, PermissionError):
        pass  # gone, or not ours: nothing to tighten


def secret_key(path: Path, size: int) -> bytes | None:
    """The `size`-byte secret kept (hex) in `path`, created random and 0600 when the file does
    not exist yet; None when the file holds anything else (damaged: the caller says so).
    Creation is atomic (a finished temp file linked into place), so a racing process reads
    the first key whole, never a half-written one."""
    if not path.exists():
        temp = private_file(path.parent / f".{path.name}.{os.getpid()}.tmp")
        temp.write_text(secrets.token_hex(size) + "\n", encoding="ascii")
        try:
            os.link(temp, path)  # a racing process keeps the first key
        except FileExistsError:
            pass
        finally:
            temp.unlink()
    private_file(path)
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return key if len(key) == size else None
