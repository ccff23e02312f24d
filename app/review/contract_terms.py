"""Terms added to a standard contract that conflict with the official text (标准合同办法第六条),
and 附录一 entries that contradict the rest of the document.

Each conflict rule names the official clause it runs against and why; it is searched in every
line that is not an official line as it stands (added lines, 附录二, reworded clauses), one
sentence at a time. Periods for answering individuals' requests are compared with 30 days:
the official text says 及时 and 在合理期限内 (第五条第三项, 第六条第一项), and GB/T 35273-2020
8.7 puts a reasonable answer within 30 days."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from app.domain import Bilingual, Finding
from app.review.contract_text import Line, Unit, by_id, normalise
from app.validation.messages import finding

FOREIGN = (
    r"美国|英国|英格兰|威尔士|新加坡|香港|澳门|台湾|日本|德国|法国|欧盟|爱尔兰|荷兰|瑞士|韩国|"
    r"加拿大|澳大利亚|纽约|加州|加利福尼亚|特拉华|伦敦|卢森堡|开曼|印度|境外(?!接收方)|外国|[^\s，。；]{1,4}州"
)
SENTENCE = re.compile(r"[^。；;\n]+[。；;]?")
NUM = r"(\d+(?:\.\d+)?|[一二三四五六七八九十百两]+)"
CN = {c: i for i, c in enumerate("零一二三四五六七八九", 0)} | {"两": 2}
REQUEST = re.compile(r"请求|询问|投诉|申请|行使[^。；]{0,8}权利|查阅|复制|更正|删除其")
DAYS = re.compile(NUM + r"\s*个?(工作日|日|天|周|星期|个月|月)")
LONG_ANSWER_DAYS = 30


@dataclass(frozen=True)
class Rule:
    """One kind of conflicting term: a test on a sentence and the clause it runs against."""

    clause: str
    why: Bilingual
    test: Callable[[str], re.Match[str] | None]


def _rx(pattern: str) -> Callable[[str], re.Match[str] | None]:
    compiled = re.compile(pattern)
    return compiled.search


def _number(text: str) -> float:
    if text[0].isdigit():
        return float(text)
    total, unit = 0, 0
    for ch in text:
        if ch == "十":
            total += (unit or 1) * 10
            unit = 0
        elif ch == "百":
            total += (unit or 1) * 100
            unit = 0
        else:
            unit = CN.get(ch, 0)
    return float(total + unit)


def _late_answer(sentence: str) -> re.Match[str] | None:
    if not REQUEST.search(sentence):
        return None
    for m in DAYS.finditer(sentence):
        factor = {"工作日": 1.4, "周": 7, "星期": 7, "个月": 30, "月": 30}.get(m[2], 1)
        if _number(m[1]) * factor > LONG_ANSWER_DAYS:
            return m
    return None


def _foreign_court(sentence: str) -> re.Match[str] | None:
    """A court abroad in the clause that names the court (人民法院 are courts of the PRC)."""
    for clause in re.split(r"[，,：:]", sentence):
        court = re.search(r"法院|法庭", clause) and "人民法院" not in clause
        if court and (m := re.search(FOREIGN, clause)):
            return m
    return None


def _foreign_law(sentence: str) -> re.Match[str] | None:
    if "法院" in sentence or not re.search(r"适用|管辖|受[^。]{0,12}法律|依据|解释", sentence):
        return None
    m = re.search(rf"({FOREIGN})[^。；，]{{0,10}}法(律)?", sentence)
    return m if m and "中华人民共和国" not in m.group() else None


RECIPIENT = r"第三方|关联|服务商|服务提供商|供应商|子公司|母公司|集团|合作伙伴|其他实体|任何实体"
FREELY = r"无需|不需|无须|不必|自行决定|自主决定|自行选择"


def _onward_freely(sentence: str) -> re.Match[str] | None:
    """Passing the data on (to a third party, an affiliate, a provider) without the notice and
    consent 第三条第八项 requires, or at the receiver's own discretion."""
    if m := re.search(r"(无需|不需|无须|不必)[^。；]{0,12}(单独同意|同意|告知)", sentence):
        return m
    if not re.search(r"提供|转移|共享|披露|转让", sentence) or not re.search(RECIPIENT, sentence):
        return None
    return re.search(rf"({FREELY})[^。；]{{0,30}}(同意|告知|通知|提供|共享|转移|披露)", sentence)


def _audit_restricted(sentence: str) -> re.Match[str] | None:
    """An audit or inspection limited in number, scope or by the receiver's consent (第三条第十一项
    has the receiver allow them)."""
    if not re.search(r"审计|查阅|检查", sentence):
        return None
    return re.search(
        r"(每年|每季度|每半年)?(至多|最多|不超过|不得超过|仅限|仅可|只能|限于)[^。；]{0,10}(次|审计|查阅)|"
        r"经[^。；]{0,8}境外接收方[^。；]{0,6}同意|不(接受|配合)[^。；]{0,6}(审计|查阅|监督|检查)",
        sentence,
    )


RULES: tuple[Rule, ...] = (
    Rule(
        "8(2)",
        Bilingual("限制了对个人信息主体的赔偿责任", "it caps liability towards individuals"),
        _rx(
            r"(责任|赔偿)[^。；]{0,30}(上限|为限|不[应得会]?超过|最高|封顶|限额)|(上限|限额)[^。；]{0,10}(责任|赔偿)"
        ),
    ),
    Rule(
        "8(3)",
        Bilingual("排除了连带责任", "it excludes joint liability"),
        _rx(
            r"不(承担|负|负担)[^。；]{0,4}连带|连带责任[^。；]{0,6}(不适用|免除|排除)|"
            r"(排除|免除|不适用)[^。；]{0,4}连带|不对[^。；]{0,20}(负责|承担[^。；]{0,4}责任)|"
            r"仅(在|就|对)[^。；]{0,12}(重大过失|故意|直接损失)[^。；]{0,8}(承担|负)|"
            r"按份责任|(免除|豁免)[^。；]{0,10}(责任|赔偿)|不承担任何[^。；]{0,12}责任|"
            r"(均|概|一概|都)不(承担|负)[^。；]{0,4}责任|不(承担|负)(赔偿|损害赔偿|民事)责任"
        ),
    ),
    Rule(
        "5(3)",
        Bilingual(
            "推迟了对个人信息主体请求的处理", "it delays the answer to individuals' requests"
        ),
        _late_answer,
    ),
    Rule(
        "9(4)2",
        Bilingual("把争议交给境外法院", "it sends disputes to a court abroad"),
        _foreign_court,
    ),
    Rule(
        "9(2)",
        Bilingual("改用境外法律", "it chooses a foreign law"),
        _foreign_law,
    ),
    Rule(
        "9(1)",
        Bilingual("让其他协议优先于本合同", "it lets another agreement prevail over this contract"),
        _rx(
            r"(以|适用)[^。；]{0,12}(商业合同|主协议|服务协议|框架协议|主合同|其他协议|其他合同)[^。；]{0,6}(为准|优先)|"
            r"(商业合同|主协议|服务协议|框架协议|主合同)[^。；]{0,10}优先"
        ),
    ),
    Rule(
        "5+1",
        Bilingual(
            "剥夺了个人信息主体作为第三方受益人的权利",
            "it takes away individuals' rights as third-party beneficiaries",
        ),
        _rx(
            r"个人信息主体(不|无权|不得)[^。；]{0,20}(第三方受益人|主张|提起|要求履行)|"
            r"不(享有|视为|作为|构成)[^。；]{0,6}第三方受益人"
        ),
    ),
    Rule(
        "3(8)",
        Bilingual("免去了再提供时的告知和同意", "it drops notice and consent for onward transfers"),
        _onward_freely,
    ),
    Rule(
        "3(5)",
        Bilingual("免去了删除个人信息的义务", "it lifts the duty to delete"),
        _rx(
            r"(永久|无限期)(保存|保留|留存)|(无需|不予|不再|无义务)删除|"
            r"(保存|保留|留存|存储)[^。；]{0,16}(由其|由境外接收方)?(自行|自主)(确定|决定)|"
            r"(保存|保留|留存|存储)[^。；]{0,10}不受[^。；]{0,6}限制"
        ),
    ),
    Rule(
        "3(11)",
        Bilingual("限制了合规审计和查阅", "it restricts compliance audits and inspection"),
        _audit_restricted,
    ),
)


def _sentences(line: Line, text: str) -> Iterator[tuple[int, int]]:
    segment = text[line.body : line.end]
    for m in SENTENCE.finditer(segment):
        if m.group().strip():
            yield line.body + m.start(), line.body + m.end()


def _breaks(rule: Rule, sentence: str, unit: Unit | None) -> bool:
    """The rule holds on the sentence, on words that are not the clause's own official words."""
    m = rule.test(sentence)
    return m is not None and (unit is None or normalise(m.group())[0] not in unit.norm)


def conflict_findings(
    text: str, lines: tuple[Line, ...], official: dict[int, Unit]
) -> list[Finding]:
    """A finding for each sentence that breaks a rule, outside the official wording: in added
    lines, and in the words a matched clause does not share with its official text."""
    units = by_id()
    out: list[Finding] = []
    for index, line in enumerate(lines):
        unit = official.get(index)
        if unit is not None and (unit.norm == line.norm or unit.pattern.fullmatch(line.norm)):
            continue
        for start, end in _sentences(line, text):
            sentence = text[start:end]
            if unit is not None and normalise(sentence)[0] in unit.norm:
                continue
            rule = next((r for r in RULES if _breaks(r, sentence, unit)), None)
            if rule is None:
                continue
            clause = units[rule.clause]
            out.append(
                finding(
                    "contract.conflicting_term", start, end,
                    found=sentence.strip(), label=clause.label_zh, label_en=clause.label_en,
                    why=rule.why.zh, why_en=rule.why.en, official=clause.text[:60],
                )
            )  # fmt: skip
    return out


NONE = re.compile(r"^[（(]?(无|不涉及|不适用|否|没有|暂无|不包括|不提供|不向)|^[/—\-]+$")
COUNT = re.compile(
    r"(不超过|不满|少于|超过|逾|低于|约|共|合计|累计|涉及)?\s*(\d+(?:\.\d+)?)\s*(万|千)?\s*(名|人|位)(以上|以下|以内)?"
)
SENSITIVE = re.compile(
    r"身份证(件)?号|护照号|银行(卡|账户)|金融账户|生物识别|指纹|人脸|面部特征|虹膜|声纹|医疗|健康|"
    r"病历|行踪轨迹|精准定位|精确定位|宗教|不满十四周岁|儿童"
)
ONWARD = re.compile(
    r"向[^。；]{0,20}(关联公司|关联方|第三方|服务商|供应商|子公司|母公司|合作伙伴)[^。；]{0,12}(提供|传输|共享|披露)"
)
NEGATED = re.compile(r"不得|不会|不向|禁止|不应|未经")
DURATION = re.compile(NUM + r"\s*(年|个月)")
RANGE = re.compile(
    r"(\d{4})年(\d{1,2})月(\d{1,2})日[^\d]{0,3}至[^\d]{0,3}(\d{4})年(\d{1,2})月(\d{1,2})日"
)
RETAIN = re.compile(r"保存|保留|存储")


@dataclass(frozen=True)
class Entry:
    """The value the parties wrote into one 附录一 item, and where it is."""

    text: str
    start: int
    end: int


def _entries(text: str, lines: tuple[Line, ...], at: dict[str, int]) -> dict[str, Entry]:
    ends = sorted(at.values())
    out: dict[str, Entry] = {}
    for n in (3, 4, 5, 6, 8, 10):
        index = at.get(f"A1({n})")
        if index is None:
            continue
        stop = min([e for e in ends if e > index and e != at.get(f"A1({n})+1")] + [len(lines)])
        line = lines[index]
        colon = max(text.rfind("：", line.body, line.end), text.rfind(":", line.body, line.end))
        start = colon + 1 if colon >= 0 else line.end
        end = lines[stop - 1].end
        out[f"A1({n})"] = Entry(text[start:end].strip(), start, max(end, start))
    return out


def _persons(text: str) -> Iterator[tuple[str, float]]:
    for m in COUNT.finditer(text):
        scale = {"万": 10000, "千": 1000}.get(m[3] or "", 1)
        bound = m[1] or m[5] or ""
        yield bound, float(m[2]) * scale


def _months(text: str) -> float | None:
    if m := RANGE.search(text):
        y1, m1, d1, y2, m2, d2 = (int(x) for x in m.groups())
        return (y2 - y1) * 12 + (m2 - m1) + (d2 - d1) / 30
    if m := DURATION.search(text):
        return _number(m[1]) * (12 if m[2] == "年" else 1)
    return None


def _own_clash(entry: Entry) -> str:
    """附录一 (八)'s period against its own date range: the range ends before it starts, or
    its length differs from the period by more than a month."""
    if not (m := RANGE.search(entry.text)):
        return ""
    span = _months(m.group()) or 0
    stated = DURATION.search(entry.text[: m.start()] + " " + entry.text[m.end() :])
    if span < 0 or (
        stated and abs(_number(stated[1]) * (12 if stated[2] == "年" else 1) - span) > 1
    ):
        return m.group()
    return ""


def _scale_clash(entry: Entry, sentence: str) -> bool:
    stated = [v for _, v in _persons(entry.text)]
    if not stated or not re.search(r"个人信息|用户|客户|主体|员工|会员", sentence):
        return False
    for bound, value in _persons(sentence):
        if bound in ("不超过", "以下", "以内"):
            bad = max(stated) > value
        elif bound in ("不满", "少于", "低于"):
            bad = max(stated) >= value
        elif bound in ("超过", "逾", "以上"):
            bad = min(stated) < value
        else:
            bad = all(abs(v - value) > 0.01 * value for v in stated)
        if bad:
            return True
    return False


def _retention_clash(entry: Entry, sentence: str) -> bool:
    mine = _months(entry.text)
    if mine is None or not RETAIN.search(sentence) or re.search(r"报告|记录|日志", sentence):
        return False
    other = _months(sentence) if RANGE.search(sentence) or DURATION.search(sentence) else None
    return other is not None and abs(other - mine) > 1


def appendix_findings(text: str, lines: tuple[Line, ...], at: dict[str, int]) -> list[Finding]:
    """附录一 entries against each other and against the added lines (附录二 and the rest)."""
    entries = _entries(text, lines, at)
    if not entries:
        return []
    region = (at.get("A1", len(lines)), at.get("A2", len(lines)))
    matched = set(at.values())
    rest = [
        text[s:e]
        for i, line in enumerate(lines)
        if i not in matched and not region[0] <= i < region[1]
        for s, e in _sentences(line, text)
    ]
    if other_items := entries.pop("A1(10)", None):  # (十) 其他事项 is free text like 附录二
        rest += [m.group() for m in SENTENCE.finditer(other_items.text) if m.group().strip()]
    out: list[Finding] = []
    for key, entry in entries.items():
        other = _clash(key, entry, entries, rest)
        if other:
            unit = by_id()[key]
            out.append(
                finding(
                    "contract.appendix_mismatch", entry.start, entry.end,
                    found=entry.text[:40], other=other.strip()[:40],
                    label=unit.label_zh.removeprefix("附录一"), label_en=unit.label_en,
                )
            )  # fmt: skip
    return out


def _clash(key: str, entry: Entry, entries: dict[str, Entry], rest: list[str]) -> str:
    """The words elsewhere that contradict this entry, or ""."""
    if key == "A1(3)":
        return next((s for s in rest if _scale_clash(entry, s)), "")
    if key == "A1(8)":
        if own := _own_clash(entry):
            return own
        return next((s for s in rest if _retention_clash(entry, s)), "")
    if key == "A1(5)" and NONE.search(entry.text):
        kinds = entries.get("A1(4)")
        if kinds and SENSITIVE.search(kinds.text):
            return kinds.text
        return next((s for s in rest if SENSITIVE.search(s) and "信息" in s), "")
    if key == "A1(6)" and NONE.search(entry.text):
        return next((s for s in rest if ONWARD.search(s) and not NEGATED.search(s)), "")
    return ""
