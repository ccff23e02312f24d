"""How a draft writes a count of people (`PEOPLE_AFTER`, `about_sensitive`), and how it states a
count about the client: with a bound or an approximation (逾50万人, 超过10万人, 100万人以上,
不足1万人, 约120万人, 近120万人, 120万人左右), and over which counting period (the rules count
自当年1月1日起; 自上年1月1日起, 上一年度, 过去12个月 … is another).

The pieces of the one reader of claims (app/route/claims.py), which the facts check and the
outline's prose.wrong_fact gate both use: a bound the form's count cannot satisfy is a
contradiction; an approximation within APPROX of the form's count is not. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app import yamldata
from app.validation.quantities import Quantity

SENSITIVE_FILE = Path(__file__).with_name("sensitive.yaml")
# a number is a count of people when these words follow it (名 / 位 / 个, then 人, 自然人, 用户)
PEOPLE_AFTER = re.compile(r"\s*余?(?:名|位|个)?(?:自然人|用户|人(?!次|民)|个人)")
_NOT_SENSITIVE = re.compile(r"不含敏感|不包括敏感|除敏感|非敏感|敏感个人信息除外")


@lru_cache(maxsize=2)
def sensitive_categories(
    path: str = str(SENSITIVE_FILE),
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(the law's word, a pattern of its wordings) for each category of sensitive.yaml
    (个人信息保护法第二十八条)."""
    rows = yamldata.load(Path(path).read_text(encoding="utf-8"))["categories"]
    return tuple((str(r["law"]), re.compile("|".join(r["wordings"]))) for r in rows)


def about_sensitive(words: str) -> bool:
    """Whether `words` (the count's own words, or its label) speak of sensitive personal
    information: 敏感 not negated (不含敏感个人信息 is about the others), or a category the law
    makes sensitive (医疗健康, 金融账户, 行踪轨迹 … sensitive.yaml)."""
    words = _NOT_SENSITIVE.sub("", words)
    return "敏感" in words or any(p.search(words) for _, p in sensitive_categories())


APPROX = 0.1  # 约 / 左右 / 上下: within 10% of the stated figure; 近 / 将近: up to 10% below it
SLIP = 10  # a bound this many times off the count it holds for is a slip of the order
_BEFORE = {
    "gt": ("逾", "超过", "多于", "高于", "大于", "超出"),
    "ge": ("达到", "至少", "不少于", "不低于"),
    "lt": ("不足", "不满", "未满", "少于", "低于", "未达到", "未达"),
    "le": ("未超过", "不超过", "最多"),
    "approx": ("约", "大约", "大概", "大致"),
    "near": ("近", "将近", "接近", "几乎"),
}
_AFTER = {
    "over": ("余",),  # 12万余人: 120,000 and a little more (up to APPROX above)
    "ge": ("以上", "及以上", "或以上"),
    "le": ("以下", "以内"),
    "approx": ("左右", "上下"),
}
_WORDS_BEFORE = sorted(
    ((w, k) for k, words in _BEFORE.items() for w in words), key=lambda p: -len(p[0])
)
BOUND_BEFORE = re.compile("(?P<word>" + "|".join(re.escape(w) for w, _ in _WORDS_BEFORE) + r")\s*$")
BOUND_AFTER = re.compile(
    r"\s*(?:名|位|个)?(?:自然人|用户|人|个人)?\s*(?P<word>"
    + "|".join(re.escape(w) for k in _AFTER.values() for w in sorted(k, key=len, reverse=True))
    + ")"
)
_KIND = {w: k for k, words in (*_BEFORE.items(), *_AFTER.items()) for w in words}
# a clause that states a rule (…10万人以上个人信息的) rather than the client's count
RULE_CLAUSE = re.compile(r"数据处理者|运营者|门槛|阈值|标准|的$")
# counting periods other than the rules' 自当年1月1日起
OTHER_PERIOD = re.compile(
    r"自上(?:一)?年(?:度)?(?:1|一)月(?:1|一)日(?:起)?|上(?:一)?年度|去年|前一年|"
    r"过去(?:一|1)年|过去(?:十二|12)个月|(?:最)?近(?:一|1)年|近(?:十二|12)个月|"
    r"自成立以来|成立至今|历年累计|自[0-9０-９]{4}年(?:以来|起)"
)
RULE_PERIOD = "自当年1月1日起累计"


@dataclass(frozen=True)
class Bound:
    """A count with its bound or approximation: [start, end) spans the words and the number."""

    kind: str  # gt, ge, lt, le, approx, near, over (余)
    stated: int
    start: int
    end: int

    def allows(self, value: int) -> bool:
        """Whether a count of `value` can be what the draft states."""
        stated = self.stated
        return {
            "gt": value > stated,
            "ge": value >= stated,
            "lt": value < stated,
            "le": value <= stated,
            "approx": abs(value - stated) <= APPROX * stated,
            "near": (1 - APPROX) * stated <= value <= stated,
            "over": stated <= value <= (1 + APPROX) * stated,
        }[self.kind]

    def slips(self, value: int) -> bool:
        """Whether a bound that `value` satisfies is still an order of magnitude off it: 逾3.5万
        (a lower bound) for 350,000, 不足350万 (an upper one) for 350,000."""
        if self.kind in ("gt", "ge", "over"):
            return value >= SLIP * max(1, self.stated)
        if self.kind in ("lt", "le"):
            return self.stated >= SLIP * max(1, value)
        return False


def bound_at(text: str, q: Quantity) -> Bound | None:
    """The bound or approximation written around the count q, if any (逾 q, q 人以上 …)."""
    before = BOUND_BEFORE.search(text, max(0, q.start - 4), q.start)
    if before is not None:
        return Bound(_KIND[before["word"]], q.value, before.start(), q.end)
    after = BOUND_AFTER.match(text, q.end)
    if after is not None and after.end() - q.end <= 8:
        return Bound(_KIND[after["word"]], q.value, q.start, after.end())
    return None


def states_a_rule(clause: str) -> bool:
    """A clause such as 累计向境外提供10万人以上个人信息的 states a threshold, not a count."""
    return bool(RULE_CLAUSE.search(clause.rstrip("：:")))


def other_periods(sentence: str) -> Iterator[re.Match[str]]:
    """Counting periods in the sentence other than the rules' 自当年1月1日起."""
    return OTHER_PERIOD.finditer(sentence)


# a share of the count (三分之一, 半数, 一半, 30%, 百分之三十, 三成) said to be sensitive personal
# information: 其中约三分之一为敏感个人信息, 半数以上涉及敏感个人信息
_DIGIT = "零〇一二两三四五六七八九十"
_SHARE_CORE = (
    r"(?P<before>约|大约|近|将近|接近|超过|逾|不足|不到|少于|低于|不超过)?"
    rf"(?P<share>(?P<den>[{_DIGIT}]{{1,3}}|[0-9]{{1,3}})分之(?P<num>[{_DIGIT}]{{1,3}}|[0-9]{{1,3}})"
    r"|(?P<half>半数|一半)|(?P<most>过半|过半数|大半|大部分|多数|绝大多数)"
    r"|(?P<pct>[0-9]+(?:\.[0-9]+)?)\s*[%％]|百分之(?P<zpct>[" + _DIGIT + r"百]{1,4})"
    rf"|(?P<tenths>[{_DIGIT[2:-1]}])成)"
    r"(?P<after>以上|以下|左右)?"
)
_SENSITIVE = r"(?<!不含)(?<!不包括)(?<!非)敏感个人信息"
SHARES = (
    re.compile(_SHARE_CORE + rf"(?=[^，。；\n]{{0,8}}?{_SENSITIVE})"),
    re.compile(
        rf"(?<={_SENSITIVE[-6:]})(?:约|大约)?(?:占比|占|比例为|比例约为|约占)?" + _SHARE_CORE
    ),
)


@dataclass(frozen=True)
class Share:
    """A share said to be sensitive: [start, end) spans its words; `kind` as in Bound."""

    kind: str
    share: float
    start: int
    end: int


def _share_value(m: re.Match[str]) -> float | None:
    from app.validation.numerals import parse_number

    if m["den"]:
        den, num = parse_number(m["den"]), parse_number(m["num"])
        return num / den if den and num is not None and num <= den else None
    if m["half"] or m["most"]:
        return 0.5
    if m["pct"]:
        return float(m["pct"]) / 100
    if m["zpct"]:
        value = parse_number(m["zpct"])
        return value / 100 if value is not None else None
    value = parse_number(m["tenths"])
    return value / 10 if value is not None else None


def shares(sentence: str) -> Iterator[Share]:
    """The shares of a count said to be sensitive personal information in one sentence."""
    found = [m for pattern in SHARES for m in pattern.finditer(sentence)]
    for m in sorted(found, key=lambda m: m.start()):
        value = _share_value(m)
        if value is None or not 0 < value <= 1:
            continue
        word = m["before"] or m["after"] or ""
        kind = _KIND.get(word, "approx")
        if m["most"]:
            kind = "gt"
        elif word in ("不到",):
            kind = "lt"
        yield Share(kind, value, m.start(), m.end())


# a count of a population the transfer is drawn from (注册用户90万人), not of what is transferred
POPULATION = re.compile(
    r"注册用户|用户总数|总用户|用户规模|用户量|月活|日活|活跃用户|会员总数|注册会员|员工总数|在职员工|"
    r"累计用户|服务用户|客户总数|员工|职工|雇员|客户(?!信息|个人信息|数据)"
)
TRANSFER_WORDS = re.compile(r"出境|向境外|境外接收方|跨境提供|传输至境外|提供给境外|提供至境外")


def is_population(clause: str) -> bool:
    """A clause counting a population (注册用户90万人), not a transfer."""
    return bool(POPULATION.search(clause)) and not TRANSFER_WORDS.search(clause)


# a share of a total the text states: 约占用户总数的一半, 为注册用户总数的三分之一
TOTAL_SHARE = re.compile(
    r"(?:(?P<lead>约|大约|近|将近|接近|超过|逾|不足|不到|少于|低于)(?:约?占|为)?|约?占|为)"
    r"[^，。；\n]{0,10}?(?:总数|总量|总人数|全部|总和|用户数|人数)的?" + _SHARE_CORE
)


def total_shares(sentence: str) -> Iterator[Share]:
    """Shares of a stated total in one sentence (约占用户总数的一半); the kind as in Bound."""
    for m in TOTAL_SHARE.finditer(sentence):
        value = _share_value(m)
        if value is None or not 0 < value <= 1:
            continue
        word = m["lead"] or m["before"] or m["after"] or ""
        kind = "gt" if m["most"] else "lt" if word == "不到" else _KIND.get(word, "approx")
        yield Share(kind, value, m.start(), m.end())  # 一半 without 约 is read as about half


# a sentence that gathers the counts before it: 上述个人信息合计…, 以上用户均已向境外提供
GATHERS = re.compile(r"(?:上述|以上|前述)[^，。；\n]{0,10}?(?:合计|共计|总计|共|均|全部|都|一并)")
