"""Uploads kept only as long as the firm says (Settings.review_retention_days; 0, the default:
never stored). A kept upload is a private file under the data directory named by its SHA-256;
every review purges those older than the setting (all of them when it is 0)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from audit.files import private_dir, write_private

if TYPE_CHECKING:
    from app.config import Settings

UPLOADS = "review-uploads"


def uploads_dir(settings: Settings) -> Path:
    return settings.data_dir / UPLOADS


def purge_uploads(*, settings: Settings, now: dt.datetime) -> int:
    """Remove the kept uploads older than the retention setting; returns how many."""
    folder = uploads_dir(settings)
    if not folder.is_dir():
        return 0
    limit = now.timestamp() - settings.review_retention_days * 86400
    removed = 0
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink() and path.stat().st_mtime <= limit:
            path.unlink()
            removed += 1
    return removed


def keep_upload(
    data: bytes, name: str, sha256: str, *, settings: Settings, now: dt.datetime
) -> Path | None:
    """Store the upload `name` (its hash `sha256`) when the setting keeps uploads, and purge
    the expired ones."""
    purge_uploads(settings=settings, now=now)
    if settings.review_retention_days <= 0:
        return None
    suffix = PurePath(name).suffix.lower()
    path = private_dir(uploads_dir(settings)) / f"{sha256}{suffix}"
    return write_private(path, data)
