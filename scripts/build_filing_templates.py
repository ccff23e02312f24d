"""Rebuild app/filing/templates.yaml: the official templates the two filing reports follow.

Usage:
    python scripts/build_filing_templates.py SELF_ASSESSMENT_MD PIA_MD [--out FILE]

The two files are the public transcriptions of the annexes in github.com/JH-gh07/ai4law
(resources/legal/sources/cn/snapshots/): cn-tpl-019_数据出境风险自评估报告模板_48ec6e2b.md
(附件4 of 《数据出境安全评估申报指南（第二版）》) and cn-tpl-020_个人信息保护影响评估报告模板
_bcacf6d1.md (附件5 of 《个人信息出境标准合同备案指南（第二版）》). Each is read line by line:
the cover, the four notes (说明), then the chapters 一、 with their sub-chapters （一）, items 1.
and sub-items （1）, the guidance lines under each, and the columns of the data-item table.
tests/unit/test_filing_templates.py holds the outlines of the two types to the result.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "app" / "filing" / "templates.yaml"
SNAPSHOTS = "github.com/JH-gh07/ai4law resources/legal/sources/cn/snapshots/"
LEVELS = (
    (1, re.compile(r"^(?P<n>[一二三四五六七八九十]+)、(?P<text>.+)$")),
    (2, re.compile(r"^（(?P<n>[一二三四五六七八九十]+)）(?P<text>.+)$")),
    (3, re.compile(r"^(?P<n>\d+)\.(?P<text>.+)$")),
    (4, re.compile(r"^（(?P<n>\d+)）(?P<text>.+)$")),
)
TABLE_HEAD = "序号"
TABLE_COLUMNS = 6

SOURCES: dict[str, dict[str, str]] = {
    "self-assessment-report": {
        "document": "数据出境安全评估申报指南（第二版）",
        "annex": "附件4",
        "publisher": "国家互联网信息办公室",
        "published": "2024-03-22",
        "source": SNAPSHOTS
        + "cn-tpl-019_数据出境风险自评估报告模板_48ec6e2b.md（官方模板 .docx 的转录）",
        "cross_check": (
            "公开转载 www.boteman.cn/paper/369973826.html（附件4，该页只显示至二（二）3的开头）："
            "封面、说明（一）至（四）、一、二章的说明、二（一）1至3、二（二）1至2逐字相同；"
            "其余各项仅见于上述转录"
        ),
    },
    "pia-report": {
        "document": "个人信息出境标准合同备案指南（第二版）",
        "annex": "附件5",
        "publisher": "国家互联网信息办公室",
        "published": "2024-03-22",
        "source": SNAPSHOTS
        + "cn-tpl-020_个人信息保护影响评估报告模板_bcacf6d1.md（官方模板 .docx 的转录）",
        "cross_check": (
            "未找到附件5的第二份公开全文；说明（二）（四）与附件4逐字相同。第一版（2023年）模板"
            "（www.everlaw.com.cn/index/Pc/knowledgeDetail?id=6357）以“一、评估工作简述”开篇，"
            "与此不同，可见此转录为第二版"
        ),
    },
}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _node(level: int, number: str, text: str) -> dict[str, Any]:
    return {"level": level, "number": number, "heading": text, "guidance": [], "children": []}


def parse(text: str) -> dict[str, Any]:
    """The cover, notes and chapter tree of one template's transcription."""
    lines = [line for line in _lines(text) if line and not line.startswith("#")]
    start = lines.index("说明：")
    cover = [re.sub(r"\s+", " ", line) for line in lines[1:start] if not line.startswith("附件")]
    notes: list[str] = []
    root: dict[str, Any] = {"children": []}
    stack: list[dict[str, Any]] = [root]
    columns: list[str] = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        i += 1
        if line == TABLE_HEAD:  # the data-item table: its six column names, then sample rows
            columns = [TABLE_HEAD, *lines[i : i + TABLE_COLUMNS - 1]]
            i += TABLE_COLUMNS - 1
            while i < len(lines) and re.fullmatch(r"\d+|\.+", lines[i]):
                i += 1
            stack[-1]["table"] = columns
            continue
        level, match = next(((lv, m) for lv, p in LEVELS if (m := p.match(line))), (0, None))
        if match is not None and len(root["children"]) == 0 and level == 2 and not notes[4:]:
            notes.append(line)  # （一）…（四） before the first chapter are the notes
            continue
        if match is None:
            stack[-1]["guidance"].append(line)
            continue
        node = _node(level, match["n"], match["text"].rstrip("；。;"))
        while len(stack) > 1 and stack[-1]["level"] >= level:
            stack.pop()
        stack[-1]["children"].append(node)
        stack.append(node)
    return {"cover": cover, "notes": notes, "chapters": root["children"]}


def build(self_assessment: Path, pia: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for type_id, path in (("self-assessment-report", self_assessment), ("pia-report", pia)):
        out[type_id] = {**SOURCES[type_id], **parse(path.read_text(encoding="utf-8"))}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("self_assessment", type=Path)
    parser.add_argument("pia", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    data = build(args.self_assessment, args.pia)
    header = (
        "# The official templates of the two filing reports (scripts/build_filing_templates.py\n"
        "# writes this file from the public transcriptions named in `source`; do not edit by hand).\n"
    )
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
    args.out.write_text(header + text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
