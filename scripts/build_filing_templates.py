"""Rebuild app/filing/templates.yaml and app/review/standard_contract.json from the official templates.

Usage:
    python scripts/build_filing_templates.py SELF_ASSESSMENT_MD PIA_MD [--out FILE]
    python scripts/build_filing_templates.py --standard-contract CONTRACT_MD [--contract-out FILE]

The two files are the public transcriptions of the annexes in github.com/JH-gh07/ai4law
(resources/legal/sources/cn/snapshots/): cn-tpl-019_数据出境风险自评估报告模板_48ec6e2b.md
(附件4 of 《数据出境安全评估申报指南（第二版）》) and cn-tpl-020_个人信息保护影响评估报告模板
_bcacf6d1.md (附件5 of 《个人信息出境标准合同备案指南（第二版）》). Each is read line by line:
the cover, the four notes (说明), then the chapters 一、 with their sub-chapters （一）, items 1.
and sub-items （1）, the guidance lines under each, and the columns of the data-item table.
tests/unit/test_filing_templates.py holds the outlines of the two types to the result.

CONTRACT_MD is cn-tpl-016_个人信息出境标准合同模板_da18a8f4.md of the same folder: the text of
the 个人信息出境标准合同 (the annex of 《个人信息出境标准合同办法》). It becomes one unit per line:
条 (id "3"), 项 ("3(7)"), 目 ("3(7)2"), sub-目 ("3(7)2(1)"), a line under an article or a 项 that
has no number of its own ("2(8)+1": the lead-in, a closing sentence, a fill-in line), the
preamble ("P1"…), the signature block ("S1"…) and 附录一/二 ("A1", "A1(3)", "A2+1"), each with its
text exactly as the line reads (after its number), the obligation words, periods and blanks in
it. Four numbers the transcription lost (Word's automatic numbering became a bullet or nothing)
are restored in RESTORED, each for the reason given there. The JSON also keeps what rebuilds
the transcription line for line, so tests/unit/test_standard_contract_data.py checks the
units against the source's digest and that this script rebuilds the same JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
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


CONTRACT_OUT = ROOT / "app" / "review" / "standard_contract.json"
CONTRACT_FILE = "cn-tpl-016_个人信息出境标准合同模板_da18a8f4.md"
CONTRACT_SOURCE = {
    "document": "个人信息出境标准合同",
    "annex_of": "个人信息出境标准合同办法（国家互联网信息办公室令第13号，2023年2月22日公布，"
    "2023年6月1日起施行）附件",
    "repo": "github.com/JH-gh07/ai4law",
    "path": "resources/legal/sources/cn/snapshots/" + CONTRACT_FILE,
    "commit": "7fe7ac940ed65ed2fd471dbde1098415fa4f0641",
    "retrieved": "2026-12-03",
    "note": (
        "官方模板 .docx 的公开转录，文件首行“# 个人信息出境标准合同【模板】”、第三行“附件4”为转录所加或"
        "所在指南的附件号，不属合同文本。办法第六条：标准合同应当严格按照本办法附件订立，国家网信部门可以"
        "根据实际情况对附件进行调整；本转录未载明版本日期。所存文件比所读文本多163个字符，恰为正文每一"
        "非空行一个（行尾），各行内容逐字取自该文件；sha256 为以 LF 换行读出的文本的摘要"
    ),
    "cross_check": (
        "未找到第二份公开全文：公开检索所见的全文（lawinsider 等）是2022年6月征求意见稿的附件"
        "（“个人信息出境标准合同规定”，第一条定义的次序和措辞均不同），不能用来对读；"
        "因此各条文本只有这一份来源"
    ),
}
# Numbers the transcription lost (Word's automatic numbering became a bullet or nothing):
# the line's opening -> (article, item number, why that number).
RESTORED: dict[str, tuple[str, int, str]] = {
    "因境外接收方所在国家或者地区": ("4", 5, "第五条第五项3目“第四条，但第四条第五项、第六项除外”"),
    "境外接收方接到所在国家或者地区": ("4", 6, "同上；转录在第四条（四）后以项目符号列出两项"),
    # 第五条 goes from （三） to （五）: the unnumbered line before this one continues （三）
    "境外接收方拒绝个人信息主体的请求": ("5", 4, "第五条转录自（三）跳到（五），此行为项目符号"),
    "一方因履行本合同与个人信息主体": ("6", 2, "第六条转录自（一）跳到（三），此行为项目符号"),
}
SECTION_LABELS = {
    "cover": ("标题", "title"),
    "preamble": ("首部", "preamble"),
    "signature": ("签署部分", "signature block"),
}
CN_DIGITS = "一二三四五六七八九十"
C_ARTICLE = re.compile(r"^第(?P<n>[一二三四五六七八九十]+)条 (?P<text>.+)$")
C_ITEM = re.compile(r"^（(?P<n>[一二三四五六七八九十]+)）(?P<text>.*)$")
C_POINT = re.compile(r"^(?P<n>\d+)\.(?P<text>.+)$")
C_SUB = re.compile(r"^（(?P<n>\d+)）(?P<text>.+)$")
C_BLANK = re.compile(
    r"[ \t]{2,}|【已】/【约定】|□|（(?:如|参考|视情况|具体地址|地点|仲裁地点|办公电话|商业合同| 年 月)[^（）]*）"
)
C_OBLIGATION = re.compile(r"应当|不得|方可(?!以)|有权|应就|必须")
C_PERIOD = re.compile(r"\d+(?:个工作日|个月|日|年|天)|立即|及时|事先|合理期限|最短时间|定期")


def _cn(n: int) -> str:
    """1..19 as 一 … 十九 (the contract's 项 run to 十三)."""
    return CN_DIGITS[n - 1] if n <= 10 else "十" + ("" if n == 10 else CN_DIGITS[n - 11])


def _from_cn(text: str) -> int:
    if text.startswith("十"):
        return 10 + (CN_DIGITS.index(text[1]) + 1 if len(text) > 1 else 0)
    return CN_DIGITS.index(text) + 1


def _labels(article: str, item: int = 0, point: int = 0, sub: int = 0) -> tuple[str, str]:
    if article.startswith("A"):
        zh, en = f"附录{'一二'[int(article[1]) - 1]}", f"appendix {article[1]}"
    else:
        zh, en = f"第{_cn(int(article))}条", f"art. {article}"
    if item:
        zh, en = zh + f"第{_cn(item)}项", en + f"({item})"
    if point:
        zh, en = zh + f"第{point}目", en + f"{point}"
    if sub:
        zh, en = zh + f"（{sub}）", en + f"({sub})"
    return zh, en


def _features(text: str, kind: str) -> dict[str, Any]:
    blanks = [[m.start(), len(m.group())] for m in C_BLANK.finditer(text)]
    if kind in ("preamble", "appendix") and text.endswith("："):
        blanks.append([len(text), 0])  # the value follows the colon
    return {
        "obligations": [[m.group(), m.start()] for m in C_OBLIGATION.finditer(text)],
        "periods": [[m.group(), m.start()] for m in C_PERIOD.finditer(text)],
        "blanks": blanks,
    }


def _classify(line: str, at: dict[str, Any]) -> tuple[str, str, str, str, bool]:
    """(id, kind, number as printed, text, restored) of one line of the body; `at` is the
    position so far (article, item, point, continuation counts), updated in place."""
    body = line.lstrip(" \t•")
    for opening, (art, n, _why) in RESTORED.items():
        if body.startswith(opening) and at["article"] == art:
            at.update(item=n, point=0, cont=0)
            return f"{art}({n})", "item", f"（{_cn(n)}）", body, True
    if m := C_ARTICLE.match(body):
        at.update(article=str(_from_cn(m["n"])), item=0, point=0, cont=0)
        return at["article"], "article", f"第{m['n']}条", m["text"], False
    if m := C_ITEM.match(body):
        at.update(item=_from_cn(m["n"]), point=0, cont=0)
        return f"{at['article']}({at['item']})", "item", f"（{m['n']}）", m["text"], False
    if (m := C_POINT.match(body)) and at["item"]:
        at.update(point=int(m["n"]))
        return f"{at['article']}({at['item']}){m['n']}", "point", f"{m['n']}.", m["text"], False
    if (m := C_SUB.match(body)) and at["point"]:
        uid = f"{at['article']}({at['item']}){at['point']}({m['n']})"
        return uid, "subpoint", f"（{m['n']}）", m["text"], False
    at["cont"] += 1
    parent = f"{at['article']}({at['item']})" if at["item"] else at["article"]
    kind = "option" if body.startswith("□") else "line"
    return f"{parent}+{at['cont']}", kind, "", body, False


def parse_contract(text: str) -> dict[str, Any]:
    """The contract's units, one per non-empty line, and what rebuilds the transcription."""
    lines = text.split("\n")
    units: list[dict[str, Any]] = []
    furniture: list[dict[str, Any]] = []
    at: dict[str, Any] = {"article": "", "item": 0, "point": 0, "cont": 0}
    section, counters = "cover", {"P": 0, "S": 0}
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        body = raw.lstrip(" \t•")
        prefix = raw[: len(raw) - len(body)]
        if raw.startswith("#") or body == "附件4":
            furniture.append({"line": index, "raw": raw})
            continue
        if C_ARTICLE.match(body):
            section = "body"
        elif body.startswith("本合同在"):
            section = "signature"
        elif body in ("附录一", "附录二"):
            section = "appendix"
            at.update(article=f"A{'一二'.index(body[2]) + 1}", item=0, point=0, cont=0)
        number = ""
        restored = False
        if section == "cover" and body != "个人信息出境标准合同" and not body.startswith("国家"):
            section = "preamble"
        if section in ("cover", "preamble", "signature"):
            key = {"cover": "T", "preamble": "P", "signature": "S"}[section]
            counters[key] = counters.get(key, 0) + 1
            uid, kind, text_ = f"{key}{counters[key]}", section, body
        elif section == "appendix" and body in ("附录一", "附录二"):
            uid, kind, text_ = at["article"], "appendix", body
        else:
            uid, kind, number, text_, restored = _classify(raw, at)
            kind = "appendix" if section == "appendix" and kind in ("item", "line") else kind
        if number and not restored:
            prefix += number + (" " if kind == "article" else "")
        zh, en = SECTION_LABELS.get(section, ("", ""))
        if not zh:
            item = at["item"] if "(" in uid else 0
            zh, en = _labels(at["article"], item, at["point"] if kind.endswith("point") else 0)
        if kind == "subpoint":
            zh, en = zh + number, en + f"({uid.rsplit('(', 1)[1]}"
        units.append({
            "id": uid, "label_zh": zh, "label_en": en, "kind": kind, "line": index,
            "prefix": prefix, "number": number, "restored": restored, "text": text_,
            "optional": _optional(uid, kind, text_), **_features(text_, kind),
        })  # fmt: skip
    ids = [u["id"] for u in units]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate unit ids: the transcription's layout has changed")
    return {"lines": len(lines), "furniture": furniture, "units": units}


def _optional(uid: str, kind: str, text: str) -> bool:
    """Fill-in and choice lines whose absence is a way of filling the form, not a deletion
    (9(4): the parties keep arbitration, with its institutions, or litigation)."""
    if kind in ("signature", "option") or uid in ("T2", "A2+1", "9(4)1", "9(4)+6", "9(4)2"):
        return True
    if kind == "preamble" and (C_BLANK.search(text) or text.endswith("：")):
        return True
    if kind == "appendix" and C_BLANK.fullmatch(text):
        return True
    return kind == "line" and bool(C_BLANK.fullmatch(text.strip()) or text.endswith(" "))


def rebuild_source(data: dict[str, Any]) -> str:
    """The transcription (LF line ends) from the JSON: each unit's prefix and text on its line."""
    lines = [""] * data["lines"]
    for row in data["furniture"]:
        lines[row["line"]] = row["raw"]
    for unit in data["units"]:
        lines[unit["line"]] = unit["prefix"] + unit["text"]
    return "\n".join(lines)


def build_contract(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    data = {**CONTRACT_SOURCE, "sha256": digest, **parse_contract(text)}
    data["restored"] = {f"{a}({n})": why for a, n, why in RESTORED.values()}
    if rebuild_source(data) != text:
        raise SystemExit("the units do not rebuild the transcription")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("self_assessment", type=Path, nargs="?")
    parser.add_argument("pia", type=Path, nargs="?")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--standard-contract", type=Path, help=CONTRACT_FILE)
    parser.add_argument("--contract-out", type=Path, default=CONTRACT_OUT)
    args = parser.parse_args(argv)
    if args.standard_contract is not None:
        contract = build_contract(args.standard_contract)
        dumped = json.dumps(contract, ensure_ascii=False, indent=1)
        args.contract_out.write_text(dumped + "\n", encoding="utf-8")
        print(f"wrote {args.contract_out}")
    if args.self_assessment is None or args.pia is None:
        if args.standard_contract is None:
            parser.error("give SELF_ASSESSMENT_MD and PIA_MD, or --standard-contract")
        return 0
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
