"""Rebuild app/validation/statute_texts/*.json from the public transcriptions of the statutes.

Usage:
    python scripts/build_statute_texts.py LAWS_CHECKOUT [--extra DIR] [--ai4law JSONL] [--out DIR]

LAWS_CHECKOUT is a checkout of github.com/LawRefBook/Laws (a transcription of the national laws
and regulations database, flk.npc.gov.cn). DIR holds the texts that repository does not have,
in the same markdown layout (a `# title` line, `<!-- INFO END -->`, then one `第X条 ...` line per
article with its 款 and 项 as the following lines); each file's `source` below says where its
text was read. JSONL is resources/legal/registry/regulation_articles.jsonl of a snapshot of the
public repository github.com/JH-gh07/ai4law (one article per line, by `source_id`): the CAC
measures are read from it. A statute listed here whose source is missing is reported and left
unchanged.

Each output file holds one version of one statute: every article with its 款 and 项, the
version's dates (adopted / amended / in force from / until) and where the text came from.
For a statute with two versions the later file also records the old → new article map,
computed by matching the two texts and checked by tests/unit/test_statute_texts.py.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.validation.numerals import parse_number  # noqa: E402

OUT = ROOT / "app" / "validation" / "statute_texts"
LAWREFBOOK = "github.com/LawRefBook/Laws（国家法律法规数据库文本的公开转录）"
ARTICLE = re.compile(r"^第(?P<n>[零〇一二两三四五六七八九十百千]+)条[\s\u3000]+(?P<text>.*)$")
ITEM = re.compile(r"^[（(][零〇一二三四五六七八九十]+[）)]")
AI4LAW = "github.com/JH-gh07/ai4law resources/legal/registry/regulation_articles.jsonl"
# 规定第七条、第八条第二款 (the exemptions prevail), joined from partial readings (Join)
PREVAILS = "属于本规定第三条、第四条、第五条、第六条规定情形的，从其规定。"
# where a page's article text ends and the site's furniture begins (附件, 关闭, 版权所有 ...)
FURNITURE = re.compile(r"^(?:附件|关闭|国家规章库|【|中央网络安全和信息化委员会办公室)")
CIVIL_CODE_BOOKS = (
    "总则",
    "物权编",
    "合同编",
    "人格权编",
    "婚姻家庭编",
    "继承编",
    "侵权责任编",
    "附则",
)


@dataclass(frozen=True)
class Join:
    """A 款 the transcription cuts off, held from the parts that public sources do show.

    `text` is the 款; its head must be the cut line of the transcription itself, and where a
    second source quotes the same 款, its record (`tail_source`, `tail_ref` in the JSONL) must
    begin with `tail`; `note` records what was read where and what no source showed."""

    article: int
    text: str
    note: str
    tail_source: str = ""
    tail_ref: str = ""
    tail: str = ""


@dataclass(frozen=True)
class Spec:
    """One version of one statute: where its text is and the facts of the version."""

    key: str
    statute: str
    version: str
    files: tuple[str, ...]
    adopted: str
    in_force_from: str
    source: str
    amended: str | None = None
    in_force_until: str | None = None
    extra: bool = False  # the file is in --extra DIR, not in the LawRefBook checkout
    renumbered_from: str | None = None  # key of the version this one renumbers
    map_overrides: dict[int, int | None] = field(default_factory=dict)
    ai4law: str | None = None  # source_id of the text in the ai4law JSONL (--ai4law)
    checked: str = ""  # how the text was cross-checked against a second public source
    joined: tuple[Join, ...] = ()  # 款 cut off in the transcription, joined from partial readings


JOIN7_NOTE = "第二款在中国网信网全文页的公开转录（ai4law CN-REG-007，两个快照版本一致）中只存“属于本规定”四字，转录在所引条号处截断；其余文字未在任何可读的公开来源中读到。本款按第八条第二款收录：两条的第二款在同一转录中于同一处截断，第八条第二款的结尾另见《个人信息出境标准合同备案指南（第二版）》的引用。中间所列条号“第三条、第四条、第五条、”系据截断位置（转录在每个“第X条”处断行）与发布页所列第三条至第六条的豁免情形推定，未经逐字读到"
JOIN8_NOTE = "第二款的开头“属于本规定”读自中国网信网全文页的公开转录（ai4law CN-REG-007），结尾“第六条规定情形的，从其规定。”读自《个人信息出境标准合同备案指南（第二版）》“一、适用范围”对本款的引用（天津市网信办转载页，ai4law CN-GUIDE-010，记录“第六条”）；两份转录都在所引条号处断行，中间所列条号“第三条、第四条、第五条、”未经逐字读到，系据截断位置与发布页所列第三条至第六条的豁免情形推定"

SPECS = (
    Spec(
        "pipl-2021",
        "中华人民共和国个人信息保护法",
        "2021-08-20通过",
        ("行政法/个人信息保护法(2021-08-20).md",),
        "2021-08-20",
        "2021-11-01",
        f"{LAWREFBOOK}：行政法/个人信息保护法(2021-08-20).md",
    ),
    Spec(
        "dsl-2021",
        "中华人民共和国数据安全法",
        "2021-06-10通过",
        ("行政法/数据安全法(2021-06-10).md",),
        "2021-06-10",
        "2021-09-01",
        f"{LAWREFBOOK}：行政法/数据安全法(2021-06-10).md",
    ),
    Spec(
        "csl-2016",
        "中华人民共和国网络安全法",
        "2016-11-07通过",
        ("行政法/网络安全法(2016-11-07).md",),
        "2016-11-07",
        "2017-06-01",
        f"{LAWREFBOOK}：行政法/网络安全法(2016-11-07).md",
        in_force_until="2025-12-31",
    ),
    Spec(
        "csl-2025",
        "中华人民共和国网络安全法",
        "2025-10-28修正",
        ("网络安全法(2025-10-28).md",),
        "2016-11-07",
        "2026-01-01",
        "中国网信网2025年12月29日转载自中国人大网的修正后全文，cac.gov.cn/2025-12/29/c_1768735112911946.htm"
        "（该页的公开存档副本，github.com/JH-gh07/ai4law resources/legal/sources/cn/snapshots/"
        "cac_2025_12_29_cybersecurity_law.html，逐条转录）",
        amended="2025-10-28",
        extra=True,
        renumbered_from="csl-2016",
        # 2016 第六十四条 (personal information penalties) and 第六十六条 (CII data stored or sent
        # abroad) are not kept as articles: the amended 第七十一条 refers both to other laws
        # (its 项 (二) and (三)); read in both texts.
        map_overrides={64: 71, 66: 71},
    ),
    Spec(
        "ndsr-2024",
        "网络数据安全管理条例",
        "2024-09-24公布",
        ("行政法规/网络数据安全管理条例(2024-09-24).md",),
        "2024-09-24",
        "2025-01-01",
        f"{LAWREFBOOK}：行政法规/网络数据安全管理条例(2024-09-24).md",
    ),
    Spec(
        "sam-2022",
        "数据出境安全评估办法",
        "2022-07-07公布",
        ("数据出境安全评估办法(2022-07-07).md",),
        "2022-07-07",
        "2022-09-01",
        "国家互联网信息办公室令第11号，cac.gov.cn/2022-07/07/c_1658811536594644.htm 所载文本；转录自公开仓库"
        "github.com/JH-gh07/ai4law scripts/reingest_cn_reg_004.py（据官方PDF逐条录入），第一至第三条另与"
        "公开转载（cnpre.com）对读",
        extra=True,
    ),
    Spec(
        "scc-2023",
        "个人信息出境标准合同办法",
        "2023-02-22公布",
        (),
        "2023-02-22",
        "2023-06-01",
        "国家互联网信息办公室令第13号，中国政府网国家规章库转载 gov.cn/zhengce/202311/content_6917770.htm 所载"
        f"文本；转录自 {AI4LAW}（source_id CN-GOV-015，逐条）",
        ai4law="CN-GOV-015",
        checked="中国网信网发布页（cac.gov.cn/2023-02/24/c_1678884831596384.htm，同一仓库 CN-REG-005）段落4"
        "几乎逐字复述第二条、第三条、第四条（四项条件及第二、三款），与本文本一致；段落5概述第五条（影响评估及重点内容）、"
        "第七条（生效之日起10个工作日内备案）、第八条（重新评估、补充或重新订立的情形），段落2载明自2023年6月1日起施行"
        "（第十三条），均一致；第四条数字（100万、10万）与第七条“10个工作日”另见其他公开仓库的引文。第一条、第六条、"
        "第九至第十二条及第十三条后段（6个月内完成整改）只有这一份逐字全文，未能与第二份公开来源对读",
    ),
    Spec(
        "cbdf-2024",
        "促进和规范数据跨境流动规定",
        "2024-03-22公布",
        (),
        "2024-03-22",
        "2024-03-22",
        "国家互联网信息办公室令第16号，中国网信网全文页 cac.gov.cn/2024-03/22/c_1712776611775634.htm 所载文本；"
        f"转录自 {AI4LAW}（source_id CN-REG-007，逐条）",
        ai4law="CN-REG-007",
        checked="中国网信网发布页（cac.gov.cn/2024-03/22/c_1712776612187994.htm，同一仓库 CN-REG-006）段落4至7"
        "逐项复述第二条至第八条的条件（重要数据申报标准、六类免予情形、自贸区负面清单、申报评估与订立标准合同的门槛），"
        "与本文本一致；段落8概述第九条（有效期和延期申请）、第十一条、第十二条（数据安全保护义务和监督管理责任）、"
        "第十三条（衔接适用），段落2载明自公布之日起施行（第十四条）；第七条第一款第（二）项、第八条第一款、第九条、"
        "第十三条另与其他公开仓库中注明出自该全文页的逐字引文一致。第一条、第十条只有这一份逐字全文。第七条、第八条的"
        "第二款在该转录中只存“属于本规定”四字（转录在条号引用处截断；2026年的快照版本相同）；没有一份可读的公开来源"
        "载有两款的全文。两款据可读到的部分收录，每款读到何处、推定何处见 joined",
        joined=(
            Join(7, PREVAILS, JOIN7_NOTE),
            Join(8, PREVAILS, JOIN8_NOTE, "CN-GUIDE-010", "第六条", "第六条规定情形的，从其规定。"),
        ),
    ),
    Spec(
        "pic-2025",
        "个人信息出境认证办法",
        "2025-10-14公布",
        ("个人信息出境认证办法(2025-10-14).md",),
        "2025-10-14",
        "2026-01-01",
        "国家互联网信息办公室 国家市场监督管理总局令第20号规章文本（官方PDF的公开文本副本，github.com/JH-gh07/ai4law "
        "resources/legal/sources/cn/snapshots/cn-sup-001_个人信息出境认证办法_b1078d14.md，逐条转录）",
        extra=True,
    ),
    Spec(
        "civil-code-2020",
        "中华人民共和国民法典",
        "2020-05-28通过",
        tuple(f"民法典/{book}.md" for book in CIVIL_CODE_BOOKS),
        "2020-05-28",
        "2021-01-01",
        f"{LAWREFBOOK}：民法典/总则.md 至 附则.md（七编及附则）",
    ),
)


def parse_articles(markdown: str) -> list[dict[str, object]]:
    """Articles of one transcription: [{"n", "paragraphs": [{"text", "items": [...]}]}]."""
    _, marker, body = markdown.partition("<!-- INFO END -->")
    lines = [line.strip() for line in (body if marker else markdown).splitlines()]
    articles: list[dict[str, object]] = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        head = ARTICLE.match(line)
        if head:
            number = parse_number(head["n"])
            articles.append(
                {"n": number, "paragraphs": [{"text": head["text"].strip(), "items": []}]}
            )
        elif articles:
            paragraphs = articles[-1]["paragraphs"]
            assert isinstance(paragraphs, list)
            if ITEM.match(line) and paragraphs:
                paragraphs[-1]["items"].append(line)
            else:
                paragraphs.append({"text": line, "items": []})
    return articles


def ai4law_articles(jsonl: Path, source_id: str) -> tuple[list[dict[str, object]], list[int]]:
    """One instrument's articles from the ai4law JSONL, and the articles whose text is cut off.

    Each line's `content` is one article (第X条 text, then its 款 and 项 on their own lines);
    the site furniture after the last article is dropped. A 款 that does not end like a
    sentence (。；：) was cut off in the transcription: it is left out and its article listed."""
    lines: list[str] = []
    incomplete: list[int] = []
    for raw in jsonl.read_text(encoding="utf-8").splitlines():
        record = json.loads(raw) if raw.strip() else {}
        if record.get("source_id") != source_id:
            continue
        for line in (part.strip() for part in str(record["content"]).split("\n")):
            if FURNITURE.match(line):
                break
            if line and not line.endswith(("。", "；", "：")):
                incomplete.append(parse_number(str(record["article_ref"])[1:-1]) or 0)
                break
            if line:
                lines.append(line)
    return parse_articles("\n".join(lines)), incomplete


def _records(jsonl: Path, source_id: str) -> list[dict[str, object]]:
    rows = (
        json.loads(raw) for raw in jsonl.read_text(encoding="utf-8").splitlines() if raw.strip()
    )
    return [row for row in rows if row.get("source_id") == source_id]


def ai4law_cut_lines(jsonl: Path, source_id: str) -> dict[int, str]:
    """Article number -> the line the transcription cut off (what ai4law_articles leaves out)."""
    cut: dict[int, str] = {}
    for record in _records(jsonl, source_id):
        for line in (part.strip() for part in str(record["content"]).split("\n")):
            if FURNITURE.match(line):
                break
            if line and not line.endswith(("。", "；", "：")):
                cut[parse_number(str(record["article_ref"])[1:-1]) or 0] = line
                break
    return cut


def join_cut_paragraphs(
    spec: Spec, articles: list[dict[str, object]], jsonl: Path
) -> tuple[list[int], dict[str, str]]:
    """Append each Join's 款 to its article after checking the partial readings it rests on:
    its head is the transcription's own cut line, its tail (where given) begins the record of
    the second source. Returns the articles still incomplete and the notes to record."""
    cut = ai4law_cut_lines(jsonl, spec.ai4law or "")
    notes: dict[str, str] = {}
    for join in spec.joined:
        head = cut.get(join.article, "")
        if not head or not join.text.startswith(head):
            raise SystemExit(
                f"{spec.key} 第{join.article}条: the cut line {head!r} is not the 款's head"
            )
        if join.tail_source:
            quoted = [
                str(r["content"])
                for r in _records(jsonl, join.tail_source)
                if r.get("article_ref") == join.tail_ref
            ]
            if not any(q.startswith(join.tail) for q in quoted) or not join.text.endswith(
                join.tail
            ):
                raise SystemExit(
                    f"{spec.key} 第{join.article}条: {join.tail_source} does not read {join.tail!r}"
                )
        article = next(a for a in articles if a["n"] == join.article)
        paragraphs = article["paragraphs"]
        assert isinstance(paragraphs, list)
        paragraphs.append({"text": join.text, "items": []})
        notes[str(join.article)] = join.note
    return sorted(set(cut) - {j.article for j in spec.joined}), notes


def article_text(article: dict[str, object]) -> str:
    paragraphs = article["paragraphs"]
    assert isinstance(paragraphs, list)
    return "".join(p["text"] + "".join(p["items"]) for p in paragraphs)


def _bigrams(text: str) -> set[str]:
    text = re.sub(r"第[零〇一二两三四五六七八九十百千]+[条款项]|[^\u4e00-\u9fff]", "", text)
    return {text[i : i + 2] for i in range(len(text) - 1)}


def renumbering(
    old: list[dict[str, object]], new: list[dict[str, object]], overrides: dict[int, int | None]
) -> dict[int, int | None]:
    """Old article number → the new article with the most similar text (None: no counterpart)."""
    new_grams = {int(a["n"]): _bigrams(article_text(a)) for a in new}  # type: ignore[call-overload]
    mapping: dict[int, int | None] = {}
    for article in old:
        number = int(article["n"])  # type: ignore[call-overload]
        grams = _bigrams(article_text(article))
        best, score = None, 0.0
        for candidate, other in new_grams.items():
            overlap = len(grams & other) / max(1, min(len(grams), len(other)))
            if overlap > score:
                best, score = candidate, overlap
        mapping[number] = best if score >= 0.6 else None
    mapping.update(overrides)
    return mapping


def _commit(checkout: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return done.stdout.strip()


def build(spec: Spec, root: Path) -> list[dict[str, object]] | None:
    if spec.ai4law:
        if not root.is_file():
            print(f"skip {spec.key}: no --ai4law JSONL", file=sys.stderr)
            return None
        articles, _ = ai4law_articles(root, spec.ai4law)
        return _in_order(spec, articles)
    paths = [root / name for name in spec.files]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"skip {spec.key}: missing {', '.join(missing)}", file=sys.stderr)
        return None
    articles: list[dict[str, object]] = []
    for path in paths:
        articles.extend(parse_articles(path.read_text(encoding="utf-8")))
    return _in_order(spec, articles)


def _in_order(spec: Spec, articles: list[dict[str, object]]) -> list[dict[str, object]]:
    numbers = [a["n"] for a in articles]
    if numbers != list(range(1, len(numbers) + 1)):
        raise SystemExit(f"{spec.key}: article numbers are not 1..{len(numbers)} in order")
    return articles


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("laws", type=Path, help="LawRefBook/Laws checkout")
    parser.add_argument("--extra", type=Path, help="directory of the texts LawRefBook lacks")
    parser.add_argument(
        "--ai4law", type=Path, help="regulation_articles.jsonl of an ai4law snapshot"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--commit", default="", help="LawRefBook commit, when LAWS is not a git checkout"
    )
    args = parser.parse_args()
    commit = _commit(args.laws) or args.commit
    built: dict[str, list[dict[str, object]]] = {}
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        root = args.ai4law if spec.ai4law else args.extra if spec.extra else args.laws
        articles = build(spec, root) if root is not None else None
        if articles is None:
            continue
        built[spec.key] = articles
        record: dict[str, object] = {
            "statute": spec.statute,
            "version": spec.version,
            "adopted": spec.adopted,
            "amended": spec.amended,
            "in_force_from": spec.in_force_from,
            "in_force_until": spec.in_force_until,
            "source": spec.source + (f"（commit {commit}）" if commit and not spec.extra else ""),
            "articles": articles,
        }
        if spec.checked:
            record["checked"] = spec.checked
        if spec.ai4law:
            incomplete, joined = join_cut_paragraphs(spec, articles, args.ai4law)
            record["incomplete"] = incomplete
            if joined:
                record["joined"] = joined
        if spec.renumbered_from and spec.renumbered_from in built:
            mapping = renumbering(built[spec.renumbered_from], articles, spec.map_overrides)
            record["renumbered_from"] = {
                "version_file": spec.renumbered_from,
                "map": {str(k): v for k, v in mapping.items()},
            }
        path = args.out / f"{spec.key}.json"
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{path.name}: {len(articles)} articles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
