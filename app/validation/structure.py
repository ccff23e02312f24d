"""Required sections of a document type (【适用情形】 ...): present as heading lines, in order."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain import Finding
from app.validation.messages import finding

# indentation, Markdown heading / quote / bold marks, and an optional number (一、【适用情形】,
# （一）数据处理者基本情况: the filing templates' chapters are numbered headings)
LINE_PREFIX = re.compile(
    r"[ \t\u3000#>*]*(?:(?:(?:[一二三四五六七八九十]{1,3}|[0-9]{1,2})[、.．]"
    r"|[（(][一二三四五六七八九十]{1,3}[）)])[ \t\u3000]*)?"
)


def heading_positions(text: str, sections: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Span of the first heading line that starts with each section title."""
    found: dict[str, tuple[int, int]] = {}
    offset = 0
    for line in text.splitlines(keepends=True):
        start = offset + LINE_PREFIX.match(line).end()  # type: ignore[union-attr]
        offset += len(line)
        for section in sections:
            if section not in found and text.startswith(section, start):
                found[section] = (start, start + len(section))
    return found


def check_structure(text: str, required_sections: Sequence[str]) -> list[Finding]:
    """A missing section is reported where it belongs (before the next present one, else at the
    end); sections out of order (the fewest that break the required order) on their headings."""
    sections = [s for s in required_sections if s.strip()]
    found = heading_positions(text, sections)
    findings: list[Finding] = []
    for index, section in enumerate(sections):
        if section in found:
            continue
        later = [found[s][0] for s in sections[index + 1 :] if s in found]
        at = min(later) if later else len(text)
        findings.append(finding("structure.missing_section", at, at, section, section=section))
    present = [s for s in sections if s in found]
    in_order = _longest_ordered(present, found)
    order = "".join(sections)
    for section in present:
        if section not in in_order:
            start, end = found[section]
            findings.append(
                finding("structure.section_order", start, end, order, section=section, order=order)
            )
    return findings


def _longest_ordered(present: list[str], found: dict[str, tuple[int, int]]) -> set[str]:
    """The largest set of present sections whose headings already appear in the required order."""
    best: list[int] = []
    back: list[int] = []
    for i, section in enumerate(present):
        options = [j for j in range(i) if found[present[j]][0] < found[section][0]]
        j = max(options, key=lambda k: best[k], default=-1)
        best.append(best[j] + 1 if j >= 0 else 1)
        back.append(j)
    keep: set[str] = set()
    i = max(range(len(present)), key=lambda k: best[k], default=-1)
    while i >= 0:
        keep.add(present[i])
        i = back[i]
    return keep
