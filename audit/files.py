"""Private files: what LexSpec writes is readable by its own user only, and never written
through a path LexSpec did not create.

Every file LexSpec writes (the SQLite database and its migration lock, the audit spool, its
key and its quarantine, the anchor key and the checkpoint file, the session key, the corpus
of approved outputs and firm clauses, drafts, reports and exports) is opened here:

- **never through a link**: the last component of the path is opened with O_NOFOLLOW, so a
  symbolic link placed there (`ln -s lexspec.db audit-spool.jsonl`) is refused, not followed;
- **only a regular file**: a FIFO, a device or a directory at the path is refused (opened
  non-blocking first, so a FIFO never hangs the open), and a file LexSpec writes in place
  must have no other hard link (`ln lexspec.db audit-spool.jsonl` is refused too);
- **0600**: created 0600, an existing one with group or other bits tightened (through the
  open descriptor), and a directory LexSpec creates for them 0700 (an existing directory is
  left as it is: the data directory may be a volume or a link to another mount on purpose).

A file replaced whole (`write_private`: drafts, exports, the corpus) is written to a fresh
temp file (O_EXCL, 0600) and renamed over the path, which replaces a link rather than
following it; a link already at the path is refused all the same, so nobody is surprised.
A refusal is `UnsafePath`: one line that names the path and says why. SQLite creates its
`-wal` and `-shm` files with the database file's permissions; audit.db refuses a link at
those paths before every connection.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import tempfile
from pathlib import Path
from typing import IO

from audit.domain import BilingualError

FILE_MODE = 0o600
DIR_MODE = 0o700
_WRITING = os.O_WRONLY | os.O_RDWR
_STREAM_FLAGS = {
    "rb": os.O_RDONLY,
    "r+b": os.O_RDWR,
    "ab": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "a+b": os.O_RDWR | os.O_APPEND | os.O_CREAT,
}


class UnsafePath(BilingualError, OSError):
    """A path LexSpec will not open: a symbolic link, not a regular file, or a file with other
    hard links. An OSError, so whoever handles a file that cannot be written handles it too."""

    def __init__(self, path: Path | str, why_zh: str, why_en: str) -> None:
        super().__init__(f"拒绝使用 {path}：{why_zh}", f"refused {path}: {why_en}")
        self.path = Path(path)


def _link(path: Path | str) -> UnsafePath:
    return UnsafePath(
        path,
        "这是一个符号链接（LexSpec 从不经由链接读写自己的文件；请删除该链接）",
        "it is a symbolic link (LexSpec never reads or writes its files through a link; "
        "remove the link)",
    )


def _not_regular(path: Path | str) -> UnsafePath:
    return UnsafePath(path, "不是普通文件", "not a regular file")


def _hard_linked(path: Path | str) -> UnsafePath:
    return UnsafePath(
        path,
        "该文件还有其他硬链接（可能指向另一个文件；请删除它）",
        "the file has other hard links (it may be another file under this name; remove it)",
    )


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700; an existing directory is left as it is
    (it may be shared on purpose, e.g. a volume)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def refuse_link(path: Path) -> None:
    """UnsafePath when something other than a regular file of its own is at `path` (a
    symbolic link, a file with other hard links, a FIFO, a directory ...): check a path
    before something else writes it (SQLite, a rename over it)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise _link(path)
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path)
    if info.st_nlink > 1:
        raise _hard_linked(path)


def open_private(path: Path, flags: int) -> int:
    """A descriptor of the regular file at `path`, never through a link (see the module's
    docstring); with O_CREAT the file is created 0600 (and its directory 0700). A file opened
    for writing must have no other hard link. The caller closes it."""
    if flags & os.O_CREAT:
        private_dir(path.parent)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):  # the last component is a link
            raise _link(path) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path)
        if flags & _WRITING and info.st_nlink > 1:
            raise _hard_linked(path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if stat.S_IMODE(info.st_mode) & 0o077 and info.st_uid == os.geteuid():
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~0o077)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_stream(path: Path, mode: str) -> IO[bytes]:
    """`open_private` as a binary file object: "rb", "r+b", "ab" or "a+b" (the last two create
    the file)."""
    return os.fdopen(open_private(path, _STREAM_FLAGS[mode]), mode)


def private_file(path: Path) -> Path:
    """Make sure `path` exists as a private regular file (created empty when missing)."""
    os.close(open_private(path, os.O_WRONLY | os.O_CREAT))
    return path


def private_path(path: Path) -> Path:
    """For a file another library opens (SQLite its database): checked without opening it
    (`refuse_link`), created empty and 0600 when missing (O_EXCL: never through a link), an
    existing one tightened. Never opened here when it exists: closing any descriptor of a
    SQLite file drops the locks this process's connections hold on it (POSIX locks)."""
    refuse_link(path)
    private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE))
    except FileExistsError:
        refuse_link(path)  # something was put there meanwhile
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        if mode & 0o077 and os.lstat(path).st_uid == os.geteuid():
            os.chmod(path, mode & ~0o077)
    return path


def read_private(path: Path) -> bytes:
    """The bytes of the regular file at `path`, never through a link."""
    with open_stream(path, "rb") as handle:
        return handle.read()


def write_private(path: Path, data: bytes) -> Path:
    """Replace `path` whole with `data` (0600): a fresh temp file beside it, fsynced and renamed
    over it, so a reader never sees half a file and a link is never written through."""
    refuse_link(path)
    private_dir(path.parent)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return path


def exists(path: Path) -> bool:
    """Whether something is at `path` (a link counts: it is refused when opened, not skipped)."""
    return os.path.lexists(path)


def secret_key(path: Path, size: int) -> bytes | None:
    """The `size`-byte secret kept (hex) in `path`, created random and 0600 when the file does
    not exist yet; None when the file holds anything else (damaged: the caller says so).
    Creation is atomic (a finished temp file linked into place), so a racing process reads
    the first key whole, never a half-written one."""
    if not exists(path):
        private_dir(path.parent)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write((secrets.token_hex(size) + "\n").encode("ascii"))
                handle.flush()
                os.fsync(handle.fileno())
            os.link(temp, path)  # a racing process keeps the first key
        except FileExistsError:
            pass
        finally:
            os.unlink(temp)
    try:
        key = bytes.fromhex(read_private(path).decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return key if len(key) == size else None
