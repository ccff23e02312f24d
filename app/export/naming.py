"""File names a lawyer recognises: client — document — date, then which copy it is.

`上海明川跨境电子商务有限公司 — 《数据出境安全评估申报表》填写指南 — 2025-03-15.docx` is the
client copy; the review copy (with the checks' comments) and the tracked copy say so, and a
saved revision carries its number (第2稿). Characters no file system accepts are left out.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from app.export import labels

Copy = Literal["client", "review", "tracked"]
SUFFIX: dict[Copy, str] = {
    "client": "",
    "review": labels.REVIEW_COPY,
    "tracked": labels.TRACKED_COPY,
}
UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]+')
MAX_PART = 60  # characters of the client's name or the title kept in a file name


def _part(text: str) -> str:
    cleaned = " ".join(UNSAFE.sub(" ", text).split()).strip(" .")
    return cleaned[:MAX_PART].rstrip(" .")


def export_name(
    *,
    title: str,
    day: dt.date,
    client: str = "",
    copy: Copy = "client",
    revision: int | None = None,
    ext: str = "docx",
) -> str:
    """`client — title — YYYY-MM-DD[ — 第N稿][（审阅稿）|（修订痕迹）].ext`, parts that are
    empty left out; never empty (the title falls back to 文书)."""
    parts = [p for p in (_part(client), _part(title) or "文书", day.isoformat()) if p]
    if revision is not None:
        parts.append(labels.REVISION.format(n=revision))
    return f"{labels.FILE_SEPARATOR.join(parts)}{SUFFIX[copy]}.{ext}"
