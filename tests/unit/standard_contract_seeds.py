"""Test documents made from the official standard contract: filled in as parties fill it in
(names, dates, 附录一, ticked boxes, a few harmless 附录二 terms, varied layout), clean or with
one seeded deviation of a known kind at a known place, and the precision/recall table of
app.review.contract on them. Run `python tests/unit/standard_contract_seeds.py` for the table."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.domain import Finding
from app.review.contract import contract_findings
from app.review.contract_text import Unit, official

KINDS = (
    "contract.item_deleted",
    "contract.obligation_weakened",
    "contract.period_changed",
    "contract.condition_dropped",
    "contract.conflicting_term",
    "contract.appendix_mismatch",
)
COMPANIES = (
    "上海云途信息科技有限公司",
    "北京智汇医疗科技有限公司",
    "深圳前海速达物流有限公司",
    "杭州远帆电子商务有限公司",
)
RECEIVERS = (
    "Nimbus Analytics Pte. Ltd.",
    "Helios Data GmbH",
    "Kestrel Services Inc.",
    "Aster Holdings Limited",
)
PLACES = ("新加坡", "德国法兰克福", "美国加利福尼亚州", "日本东京")
BENIGN = (
    "双方应每年对本合同的履行情况进行一次复核，并形成书面记录。",
    "本合同以中文和英文书就，两种文本具有同等效力；如有不一致，以中文文本为准。",
    "境外接收方应指定专人负责本合同项下个人信息保护工作的日常联络。",
    "双方同意通过电子邮件交换本合同项下的日常工作文件。",
    "本合同项下出境的个人信息涉及约{scale}名用户。",
    "境外接收方应在收到个人信息处理者的书面要求后配合开展个人信息保护影响评估。",
    "境外接收方应在收到个人信息主体的请求后15个工作日内予以答复。",
    "双方同意，选择仲裁的，仲裁地点为香港，适用香港国际仲裁中心届时有效的仲裁规则。",
    "双方确认，出境个人信息主体不超过{scale}人。",
    "境外接收方应每季度向个人信息处理者报告一次个人信息处理情况。",
)
CONFLICTS = (
    "境外接收方在本合同项下的累计赔偿责任以人民币{n}万元为上限。",
    "双方在本合同项下的责任总额不超过商业合同项下已支付服务费的{k}倍。",
    "境外接收方对个人信息主体的损失不承担连带责任。",
    "任何一方仅就其自身过错承担按份责任。",
    "境外接收方应于六十个工作日内处理个人信息主体的请求。",
    "对于个人信息主体的查阅、复制请求，境外接收方将在收到请求后{d}日内予以答复。",
    "因本合同引起的或与本合同有关的任何争议，均提交美国纽约州法院管辖。",
    "双方同意，本合同项下争议由新加坡高等法院专属管辖。",
    "本合同受英格兰和威尔士法律管辖并依其解释。",
    "本合同适用美国特拉华州法律。",
    "如本合同与商业合同约定不一致的，以商业合同为准。",
    "个人信息主体不得作为第三方受益人向境外接收方主张权利。",
    "境外接收方向其关联公司提供个人信息的，无需取得个人信息主体的单独同意。",
    "境外接收方可无限期保存已接收的个人信息。",
    "个人信息处理者的合规审计每年不超过一次，且须提前六十日通知。",
    "境外接收方不承担任何间接损失的赔偿责任。",
    "境外接收方的全部赔偿责任不应超过其在商业合同项下收取的年度费用。",
    "双方同意排除连带责任的适用，各自就本方的违约行为负责。",
    "个人信息主体行使权利的请求将在三个月内处理完毕。",
    "本合同的解释和履行适用新加坡法律。",
    "本合同项下的任何争议应由香港特别行政区法院管辖。",
)
WEAKER = {"应当": ("可以", "可", "应尽量", "原则上应当", "可视情况"), "不得": ("原则上不得", "尽量不", "不宜"),
          "方可": ("即可", "可以"), "有权": ("可以", "可")}  # fmt: skip
PERIODS = {"立即": ("及时", "尽快", "在5个工作日内", "在72小时内"), "及时": ("在30日内", "适时", "尽快"),
           "合理期限": ("90日", "六十个工作日"), "事先": ("事后", "在30日内"), "定期": ("每三年",),
           "最短时间": ("五年",)}  # fmt: skip


@dataclass
class Entry:
    """One line of a generated document: the official unit it renders (or None) and its text."""

    unit: str | None
    number: str
    text: str


@dataclass(frozen=True)
class Doc:
    text: str
    kind: str  # "clean" or the seeded code
    region: tuple[int, int]  # where the seeded finding must fall
    label: str  # the official clause the finding must name ("" for conflicts)


def _fill(unit: Unit, rng: random.Random, facts: dict[str, str]) -> list[Entry]:
    """The unit as the parties write it (blanks filled, boxes ticked), one or more lines."""
    text, uid = unit.text, unit.id
    fills = {
        "P2": f"个人信息处理者：{facts['processor']}", "P3": "地址：上海市浦东新区张江路88号",
        "P4": "联系方式：021-55550101", "P5": "联系人：王敏              职务：法务总监",
        "P6": f"境外接收方：{facts['receiver']}", "P7": f"地址：{facts['place']}某商务中心12层",
        "P8": "联系方式：+65 6555 0101", "P9": "联系人：Daniel Lee        职务：Data Protection Officer",
        "2(5)+1": "传输加密：采用TLS 1.2及以上协议加密传输；访问控制：按最小授权原则分配权限。",
        "6(1)+1": "联系人及联系方式（办公电话或电子邮箱）：Daniel Lee，privacy@example.com",
        "S1": "本合同在上海签订", "S2": f"个人信息处理者：{facts['processor']}（盖章）",
        "S3": "2024年6月1日", "S4": f"境外接收方：{facts['receiver']}（签字）", "S5": "2024年6月1日",
        "A1(8)+1": f"（{facts['from']}至{facts['to']}）",
    }  # fmt: skip
    if uid in fills:
        return [Entry(uid, unit.number, fills[uid])]
    if uid == "P10":
        text = text.replace("【已】/【约定】", "已").replace("   年    月   日", "2024年5月20日")
        text = text.replace(
            "    （商业合同，如有）",
            rng.choice(("《跨境数据服务协议》", "《技术服务协议》（商业合同，如有）")),
        )
    text = text.replace("（具体地址）          ", f"{facts['place']}某商务中心12层")
    text = text.replace("后的   天", "后的7天").replace("以后的   个工作日", "以后的1个工作日")
    text = text.replace("第   种", f"第{facts['forum']}种").replace(
        "一式   份，双方各执   份", "一式四份，双方各执两份"
    )
    text = text.replace(" （仲裁地点）       ", "北京")
    if unit.kind == "option":
        if facts["forum"] == "2" or (rng.random() < 0.5 and "贸易" not in text):
            return []
        text = text.replace("□", "☑" if "贸易" in text else "□")
    if uid.startswith("A1(") and "+" not in uid:
        value = facts.get(uid, "")
        if rng.random() < 0.5:
            return [Entry(uid, unit.number, text + value)]
        return (
            [Entry(uid, unit.number, text), Entry(None, "", value)]
            if value
            else [Entry(uid, unit.number, text)]
        )
    return [
        Entry(uid, unit.number, re.sub(r"[ \t]{2,}", "", text) if unit.kind == "preamble" else text)
    ]


def _facts(rng: random.Random) -> dict[str, str]:
    scale = rng.choice(("8万", "5.5万", "12万", "3万"))
    facts = {
        "processor": rng.choice(COMPANIES), "receiver": rng.choice(RECEIVERS),
        "place": rng.choice(PLACES), "forum": rng.choice("12"), "scale": scale,
        "from": "2024年7月1日", "to": "2027年6月30日",
        "A1(1)": "为境外接收方提供客户服务及订单处理", "A1(2)": "收集、存储、使用",
        "A1(3)": f"约{scale}人", "A1(4)": "姓名、电话号码、收货地址、订单信息",
        "A1(5)": rng.choice(("无", "不涉及")), "A1(6)": rng.choice(("无", "不适用")),
        "A1(7)": "通过加密专线传输", "A1(8)": "3年", "A1(9)": "新加坡", "A1(10)": "无",
    }  # fmt: skip
    return facts


def base(rng: random.Random, facts: dict[str, str]) -> list[Entry]:
    entries: list[Entry] = []
    for unit in official():
        entries += _fill(unit, rng, facts)
        if unit.id == "A2+1":
            for term in rng.sample(BENIGN, rng.randint(0, 3)):
                entries.append(Entry(None, "", term.format(scale=facts["scale"])))
    return entries


def render(entries: list[Entry], rng: random.Random) -> tuple[str, list[tuple[int, int]]]:
    """The document text and each entry's line span; layout varies by document."""
    sep = rng.choice((" ", "\u3000", "  "))
    indent = rng.choice(("", "", "  "))
    half = rng.random() < 0.2
    lost = rng.random() < 0.15  # Word's automatic numbering lost on the way out of the DOCX
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    for e in entries:
        number = e.number
        if half and number.startswith("（"):
            number = "(" + number[1:-1] + ")"
        if lost and not number.startswith("第"):
            number = ""
        line = (
            (number + sep + e.text)
            if number.startswith("第")
            else (indent if number else "") + number + e.text
        )
        parts.append(line)
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return "\n".join(parts), spans


def _units() -> dict[str, Unit]:
    return {u.id: u for u in official()}


def _descendants(entries: list[Entry], i: int) -> int:
    """The index after entry i and the entries under it (its 目, lines, sub-目)."""
    uid = entries[i].unit or ""
    j = i + 1
    if uid.startswith("A1("):  # an 附录一 entry goes with the value written under it
        return j + 1 if j < len(entries) and entries[j].unit is None else j
    while j < len(entries) and (entries[j].unit or "").startswith(uid) and entries[j].unit != uid:
        rest = (entries[j].unit or "")[len(uid) :]
        if not rest or rest[0] not in "(+0123456789":
            break
        j += 1
    return j


def seed_delete(entries: list[Entry], rng: random.Random) -> tuple[int, str]:
    units = _units()
    choices = [
        i for i, e in enumerate(entries)
        if e.unit and not units[e.unit].optional and units[e.unit].kind in ("item", "point", "subpoint", "line", "appendix")
        and "(" in e.unit and not e.unit.startswith("A1(8)")
    ]  # fmt: skip
    i = rng.choice(choices)
    label = units[entries[i].unit or ""].label_zh
    j = _descendants(entries, i)
    number = entries[i].number
    del entries[i:j]
    if number and rng.random() < 0.5:  # the lawyer renumbers the siblings that follow
        k = i
        while (
            k < len(entries)
            and entries[k].number
            and entries[k].number[0] == number[0]
            and len(entries[k].number) == len(number)
        ):
            entries[k].number, number = number, entries[k].number
            k += 1
    return i, label


def _replace_in(
    entries: list[Entry], rng: random.Random, table: dict[str, tuple[str, ...]]
) -> tuple[int, str]:
    units = _units()
    keys = "|".join(k + ("(?!以)" if k == "方可" else "") for k in table)
    choices = [
        (i, m) for i, e in enumerate(entries)
        if e.unit and not units[e.unit].optional and e.text == units[e.unit].text
        for m in re.finditer(keys, e.text)
    ]  # fmt: skip
    i, m = rng.choice(choices)
    e = entries[i]
    e.text = e.text[: m.start()] + rng.choice(table[m.group()]) + e.text[m.end() :]
    return i, units[e.unit or ""].label_zh


def seed_weaken(entries: list[Entry], rng: random.Random) -> tuple[int, str]:
    return _replace_in(entries, rng, WEAKER)


def seed_period(entries: list[Entry], rng: random.Random) -> tuple[int, str]:
    table = dict(PERIODS)
    table |= {
        "30日": ("15日", "10日", "7日"),
        "至少3年": ("至少1年", "至少六个月", "1年"),
        "1个月": ("3个月", "6个月", "两个月"),
    }
    return _replace_in(entries, rng, table)


def seed_drop(entries: list[Entry], rng: random.Random) -> tuple[int, str]:
    units = _units()
    choices: list[tuple[int, int, int]] = []
    for i, e in enumerate(entries):
        if (
            not e.unit
            or units[e.unit].optional
            or e.text != units[e.unit].text
            or units[e.unit].has_blanks
        ):
            continue
        for m in re.finditer(r"(?<=[。，；])[^。，；]{6,}[。，；]|（[^）]{4,}）", e.text):
            if m.start() > 0 and len(e.text) - len(m.group()) >= 8:
                choices.append((i, m.start(), m.end()))
    i, a, b = rng.choice(choices)
    e = entries[i]
    e.text = e.text[:a] + e.text[b:]
    return i, units[e.unit or ""].label_zh


def seed_conflict(entries: list[Entry], rng: random.Random) -> tuple[int, str]:
    term = rng.choice(CONFLICTS).format(
        n=rng.choice((50, 100, 500)), k=rng.choice((1, 2)), d=rng.choice((45, 60, 90))
    )
    where = rng.random()
    if where < 0.4:  # appended to an official clause
        units = _units()
        choices = [
            i
            for i, e in enumerate(entries)
            if e.unit and units[e.unit].kind == "item" and not e.unit.startswith("A")
        ]
        i = rng.choice(choices)
        entries[i].text += term
        _name_affiliates(entries, term)
        return i, ""
    if where < 0.7:  # a new paragraph after a clause
        i = rng.randrange(20, len(entries) - 20)
        entries.insert(i, Entry(None, "", term))
        _name_affiliates(entries, term)
        return i, ""
    entries.append(Entry(None, rng.choice(("", "1.", "（一）")), term))  # in 附录二
    _name_affiliates(entries, term)
    return len(entries) - 1, ""


def _name_affiliates(entries: list[Entry], term: str) -> None:
    """A term about the receiver's affiliates comes with 附录一（六） naming them (as a party
    that agreed to it would fill it in), so the only deviation is the term itself."""
    if "关联公司" not in term:
        return
    i = next(i for i, e in enumerate(entries) if e.unit == "A1(6)")
    if i + 1 < len(entries) and entries[i + 1].unit is None:
        entries[i + 1].text = "境外接收方的关联公司"
    else:
        entries[i].text = re.sub(r"：.*$", "：境外接收方的关联公司", entries[i].text)


def seed_appendix(
    entries: list[Entry], rng: random.Random, facts: dict[str, str]
) -> tuple[int, str]:
    where = {e.unit: i for i, e in enumerate(entries) if e.unit}
    variant = rng.randrange(4)
    if variant == 0:  # the scale in 附录一 is not the scale stated in 附录二
        other = rng.choice(("15万", "20万", "2万", "30万"))
        entries.append(
            Entry(
                None,
                "",
                rng.choice(
                    (
                        "本合同项下出境的个人信息涉及约{s}名用户。",
                        "双方确认，出境个人信息主体共计{s}人。",
                    )
                ).format(s=other),
            )
        )
        key = "A1(3)"
    elif variant == 1:  # the retention period elsewhere differs
        entries.append(
            Entry(
                None,
                "",
                rng.choice(
                    (
                        "境外接收方对出境个人信息的保存期限为{y}年。",
                        "出境的个人信息在境外保存{y}年后删除。",
                    )
                ).format(y=rng.choice((5, 10, 1))),
            )
        )
        key = "A1(8)"
    elif variant == 2:  # no sensitive information, yet sensitive kinds are listed
        i = where["A1(4)"]
        target = i + 1 if i + 1 < len(entries) and entries[i + 1].unit is None else i
        entries[target].text += rng.choice(
            ("、身份证件号码", "、银行卡号", "、健康状况信息", "、人脸图像")
        )
        key = "A1(5)"
    else:  # no third party, yet 附录二 lets the receiver pass data on
        entries.append(
            Entry(
                None,
                "",
                rng.choice(
                    (
                        "境外接收方可以向其关联公司提供本合同项下的个人信息。",
                        "境外接收方将向其云服务供应商传输出境个人信息。",
                    )
                ),
            )
        )
        key = "A1(6)"
    return where[key], _units()[key].label_zh


SEEDERS: dict[str, Callable[[list[Entry], random.Random], tuple[int, str]]] = {
    "contract.item_deleted": seed_delete,
    "contract.obligation_weakened": seed_weaken,
    "contract.period_changed": seed_period,
    "contract.condition_dropped": seed_drop,
    "contract.conflicting_term": seed_conflict,
}


def make(kind: str, seed: int) -> Doc:
    rng = random.Random(f"{kind}-{seed}")
    facts = _facts(rng)
    entries = base(rng, facts)
    if kind == "clean":
        text, _ = render(entries, rng)
        return Doc(text, kind, (0, 0), "")
    if kind == "contract.appendix_mismatch":
        i, label = seed_appendix(entries, rng, facts)
    else:
        i, label = SEEDERS[kind](entries, rng)
    text, spans = render(entries, rng)
    units = _units()
    before = max(
        [k for k in range(i) if entries[k].unit and not units[entries[k].unit or ""].optional]
        or [0]
    )
    a = spans[before][0] if kind == "contract.item_deleted" else spans[i][0]
    b = spans[min(i, len(spans) - 1)][1] if kind == "contract.item_deleted" else spans[i][1]
    if (
        kind == "contract.appendix_mismatch"
        and i + 1 < len(entries)
        and entries[i + 1].unit is None
    ):
        b = spans[i + 1][1]
    return Doc(text, kind, (a, b), label)


def corpus(per_kind: int = 110, clean: int = 60) -> list[Doc]:
    docs = [make("clean", s) for s in range(clean)]
    return docs + [make(kind, s) for kind in KINDS for s in range(per_kind)]


def hit(doc: Doc, f: Finding) -> bool:
    a, b = doc.region
    named = (
        not doc.label
        or f"标准合同{doc.label}" in f.message_zh
        or f"附录一{doc.label.removeprefix('附录一')}" in f.message_zh
    )
    return f.code == doc.kind and f.start < b and f.end > a and named


def evaluate(docs: list[Doc]) -> dict[str, dict[str, float]]:
    """Per kind: seeded documents, found (documents whose deviation is reported where it is,
    under its clause), reported (every finding of that code, on clean and seeded documents),
    precision (the share of reported findings that are a seeded deviation) and recall."""
    table = {
        k: {"seeded": 0.0, "tp": 0.0, "reported": 0.0, "right": 0.0}
        for k in (*KINDS, "contract.wording_changed")
    }
    for doc in docs:
        findings = contract_findings(doc.text)
        if doc.kind != "clean":
            table[doc.kind]["seeded"] += 1
            table[doc.kind]["tp"] += any(hit(doc, f) for f in findings)
        for f in findings:
            table[f.code]["reported"] += 1
            table[f.code]["right"] += doc.kind != "clean" and hit(doc, f)
    for row in table.values():
        row["precision"] = row["right"] / row["reported"] if row["reported"] else 1.0
        row["recall"] = row["tp"] / row["seeded"] if row["seeded"] else 1.0
    return table


if __name__ == "__main__":
    result = evaluate(corpus())
    print(f"{'kind':32} {'seeded':>6} {'found':>6} {'reported':>8} {'precision':>9} {'recall':>7}")
    for kind, row in result.items():
        print(
            f"{kind:32} {row['seeded']:6.0f} {row['tp']:6.0f} {row['reported']:8.0f} {row['precision']:9.3f} {row['recall']:7.3f}"
        )
