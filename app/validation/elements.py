"""What a citing sentence states besides its subject: figures with their units and bounds
(10个工作日内, 3年, 100万人以上, 不满十四周岁, 一百万元以下), the actors (国家网信部门, 省级网信部门,
专业机构 …), the conditions (不含敏感个人信息, 可以延长, 单独同意 …) and the modality (应当, 可以,
不得, 无需). Each is read with the words around it, in the sentence and in the article, so that a
sentence that says of an article's rule "5个工作日" where the article says "10个工作日" in the
same place is told apart from one that mentions another period for another reason.

Groups of terms are data (elements.yaml). Pure functions; the articles' elements are read once
per version (keyed by identity, as matching.index_for)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import yamldata
from app.domain import BilingualError
from app.validation.numerals import chinese_to_int
from app.validation.texts import StatuteText
from app.validation.widths import ARABIC_DIGITS, FROM_FULL_WIDTH

ELEMENTS_FILE = Path(__file__).with_name("elements.yaml")
_NUM = r"[0-9０-９]+(?:[.．][0-9０-９]+)?|[零〇一二两三四五六七八九十百千]+"
_BOUND_BEFORE = (
    r"不满|未满|不足|少于|低于|超过|超出|逾|达到|不少于|不低于|至少|不超过|最多|最长|满|届满前"
)
FIGURE = re.compile(
    rf"(?P<pre>{_BOUND_BEFORE})?[ \u3000]*(?P<num>{_NUM})[ \u3000]*(?P<mag>万|亿|千)?[ \u3000]*"
    r"(?P<unit>个工作日|工作日|个自然日|自然日|个月|日|天|年|小时|周岁|人|元|倍|%|％)?"
    r"(?P<post>以上|及以上|或以上|以下|以内|之内|内)?"
)
PERCENT = re.compile(r"百分之(?P<num>[零〇一二两三四五六七八九十百]+)")
UNITS = {
    "个工作日": ("time", "工作日"),
    "工作日": ("time", "工作日"),
    "个自然日": ("time", "日"),
    "自然日": ("time", "日"),
    "日": ("time", "日"),
    "天": ("time", "日"),
    "个月": ("time", "个月"),
    "年": ("time", "年"),
    "小时": ("time", "小时"),
    "周岁": ("age", "周岁"),
    "人": ("people", "人"),
    "元": ("money", "元"),
    "倍": ("multiple", "倍"),
    "%": ("share", "%"),
    "％": ("share", "%"),
    "": ("people", "人"),  # 注册用户5000万以上: a count of people written without 人
}
BOUNDS = {
    "ge": ("以上", "及以上", "或以上", "不少于", "不低于", "至少", "达到", "满"),
    "gt": ("超过", "超出", "逾"),
    "lt": ("不满", "未满", "不足", "少于", "低于"),
    "le": ("以下", "以内", "之内", "内", "不超过", "最多", "最长", "届满前"),
}
_BOUND_OF = {w: k for k, words in BOUNDS.items() for w in words}
CONFLICT = {("ge", "lt"), ("ge", "le"), ("gt", "lt"), ("gt", "le")}
WINDOW = 8  # characters of context on each side of an element of a sentence
ARTICLE_WINDOW = 14  # ... of an article: wider, so that a paraphrase's nearby words are in it
COUNTS_SENSITIVE = re.compile(r"(?:人|名|位|个)?(?:以上|以下)?(?:的)?敏感")
_MAG = {"": 1, "千": 1_000, "万": 10_000, "亿": 100_000_000}


class ElementsError(BilingualError, ValueError):
    """elements.yaml is unreadable or a group is incomplete."""


@dataclass(frozen=True)
class Figure:
    """A number with its unit and bound at [start, end) of its text."""

    start: int
    end: int
    value: Decimal
    family: str  # time, people, money, age, share, multiple
    unit: str  # canonical: 工作日, 日, 个月, 年 …
    bound: str | None  # ge, gt, lt, le
    context: frozenset[str]
    raw: str
    counts: str = ""  # a count of people: "敏感" when it counts sensitive personal information

    def comparable(self, other: Figure) -> bool:
        """Of one kind: the same family, and a count of the same category."""
        return self.family == other.family and self.counts == other.counts

    def same(self, other: Figure) -> bool:
        return (self.value, self.unit) == (other.value, other.unit)

    def bound_conflicts(self, other: Figure) -> bool:
        pair = (self.bound, other.bound)
        return pair in CONFLICT or pair[::-1] in CONFLICT


@dataclass(frozen=True)
class Term:
    """A term of a group (国家网信部门, 可以延长, must …) at [start, end) of its text."""

    start: int
    end: int
    group: str
    kind: str  # actor, condition, modality
    term: str
    context: frozenset[str]
    raw: str
    after: frozenset[str] = frozenset()  # the words after it only (what a modal verb governs)
    role: str = "subject"  # "object": after 向, 经, 由, 通过 …; "agent": before 提交的, 组织的 …


@dataclass(frozen=True)
class Group:
    name: str
    kind: str
    pattern: re.Pattern[str]  # every wording, longest first; the group `t<i>` names the term
    terms: tuple[str, ...]
    probes: tuple[str, ...] = ()  # a literal every wording holds one of: a cheap test first


def _grams(text: str) -> set[str]:
    grams: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return grams


UNITLESS_BEFORE = r"(?:用户|人数|用户数|会员|个人)$"
ITEM_BREAK = re.compile(r"[\n、；;。]")  # a citing sentence's element is read within its list item


def context(text: str, start: int, end: int, window: int = WINDOW) -> frozenset[str]:
    """Bigrams of the words around [start, end) (`window` characters each side, within the line;
    in a citing sentence, `window` == WINDOW, within its list item: 通过安全评估、经专业机构…)."""
    breaks = ITEM_BREAK if window == WINDOW else re.compile(r"\n")
    left = breaks.split(text[max(0, start - window) : start])[-1]
    right = breaks.split(text[end : end + window])[0]
    return frozenset(_grams(left) | _grams(right))


def similarity(a: frozenset[str], b: frozenset[str], weight: dict[str, float]) -> float:
    """The share of a's context found in b's, each bigram weighted by its rarity in the
    statute version (matching.Index.weight: words the statute does not use, or uses in most
    articles, weigh nothing); 0 when a has no weight."""
    total = sum(weight.get(g, 0.0) for g in a)
    return sum(weight.get(g, 0.0) for g in a & b) / total if total else 0.0


def shared(a: frozenset[str], b: frozenset[str], weight: dict[str, float]) -> float:
    """The summed weight of the bigrams a and b share."""
    return sum(weight.get(g, 0.0) for g in a & b)


def _value(num: str, mag: str) -> Decimal | None:
    if num[0] in ARABIC_DIGITS:
        try:
            base = Decimal(num.translate(FROM_FULL_WIDTH))
        except InvalidOperation:
            return None
    else:
        parsed = chinese_to_int(num)
        if parsed is None:
            return None
        base = Decimal(parsed)
    return base * _MAG[mag or ""]


def figures(text: str, window: int = WINDOW) -> list[Figure]:
    """Every figure with a unit (not a year of a date, not a 第X条 number, not 3月 of a date)."""
    out: list[Figure] = []
    for m in FIGURE.finditer(text):
        num, unit = m["num"], m["unit"] or ""
        if not unit and not (
            m["mag"] and m["post"] and re.search(UNITLESS_BEFORE, text[: m.start()])
        ):
            continue  # a bare number is no figure, but 用户5000万以上 is
        before = text[max(0, m.start("num") - 1) : m.start("num")]
        after = text[m.end() : m.end() + 1]
        if before in ("第", "月") or (unit == "年" and len(num) == 4) or after in ("月", "度"):
            continue  # 第三条, 3月15日, 2025年, 2年度
        if unit == "日" and re.search(r"[0-9０-９一二三四五六七八九十]月$", text[: m.start("num")]):
            continue
        value = _value(num, m["mag"] or "")
        if value is None:
            continue
        family, canonical = UNITS[unit]
        word = m["pre"] or m["post"]
        bound = _BOUND_OF.get(word) if word else None
        counted = COUNTS_SENSITIVE.match(text, m.end())  # 1万人以上敏感个人信息
        counts = "敏感" if family == "people" and counted else ""
        out.append(
            Figure(
                m.start(),
                m.end(),
                value,
                family,
                canonical,
                bound,
                context(text, m.start(), m.end(), window),
                m.group(0),
                counts,
            )
        )
    for m in PERCENT.finditer(text):
        parsed = chinese_to_int(m["num"])
        if parsed is not None:
            ctx = context(text, m.start(), m.end(), window)
            out.append(Figure(m.start(), m.end(), Decimal(parsed), "share", "%", None, ctx, m[0]))
    return sorted(out, key=lambda f: f.start)


def _group(raw: dict[str, Any], where: str) -> Group:
    try:
        terms = {str(k): [str(w) for w in v] for k, v in raw["terms"].items()}
        names = tuple(terms)
        wordings = sorted(
            ((w, i) for i, name in enumerate(names) for w in terms[name]),
            key=lambda p: -len(re.sub(r"\(\?<?[!=][^)]*\)", "", p[0])),
        )
        pattern = re.compile("|".join(f"(?P<t{i}_{n}>{w})" for n, (w, i) in enumerate(wordings)))
        probes = tuple({_literal(w) for w, _ in wordings})
        return Group(str(raw["name"]), str(raw["kind"]), pattern, names, probes)
    except (KeyError, TypeError, AttributeError, re.error) as exc:
        raise ElementsError(
            f"{where}：须有 name、kind、terms", f"{where}: name, kind and terms are required"
        ) from exc


def _literal(wording: str) -> str:
    """The first characters of a wording that are plain text (what any match of it holds)."""
    plain = re.sub(r"\(\?<?[!=][^)]*\)", "", wording)
    return re.split(r"[\\()\[\]|?*+{}.^$]", plain)[0] or plain[:1]


@lru_cache(maxsize=2)
def load_groups(path: str = str(ELEMENTS_FILE)) -> tuple[Group, ...]:
    """The groups of elements.yaml, validated; cached (the file ships with the app)."""
    try:
        data = yamldata.load(Path(path).read_text(encoding="utf-8"))
        rows = data["groups"]
    except (OSError, yamldata.YAMLError, KeyError, TypeError) as exc:
        raise ElementsError(
            f"{Path(path).name} 无法读取", f"{Path(path).name} is unreadable"
        ) from exc
    groups = tuple(_group(raw, f"{Path(path).name} #{n}") for n, raw in enumerate(rows, start=1))
    for group in groups:
        if group.kind not in ("actor", "condition", "modality"):
            raise ElementsError(
                f"{group.name}：kind 应为 actor、condition 或 modality",
                f"{group.name}: kind must be actor, condition or modality",
            )
    return groups


OBJECT_BEFORE = re.compile(
    r"(?:向|经|由|通过|报送|报|提交|提请|会同|组织|自|请|按照)(?:所在地|省级以上|本级|同级|上级)?$"
)
AGENT_AFTER = re.compile(r"(?:提交|出具|作出|制定|发布|组织|规定|认定|批准|确定)的")
SCOPE_END = re.compile(r"[。；;\n]")  # a modal verb governs the rest of its sentence ...
CLAIM_SCOPE_END = re.compile(r"[，,。；;\n]")  # ... in a citing sentence, the rest of its clause
CLAIM_SCOPE = 10  # characters of a citing sentence's clause read after a modal verb


def terms(text: str, groups: tuple[Group, ...], window: int = WINDOW) -> list[Term]:
    """Every term of every group in the text, with the words around it; `after` holds what a
    term governs (an article's: the rest of its sentence; a citing sentence's: the rest of its
    clause, at most CLAIM_SCOPE characters)."""
    out: list[Term] = []
    article = window > WINDOW
    stops = SCOPE_END if article else CLAIM_SCOPE_END
    for group in groups:
        if group.probes and not any(probe in text for probe in group.probes):
            continue
        for m in group.pattern.finditer(text):
            name = m.lastgroup or ""
            index = int(name[1:].split("_")[0])
            ctx = context(text, m.start(), m.end(), window)
            stop = stops.search(text, m.end())
            end = stop.start() if stop else len(text)
            if not article:
                end = min(end, m.end() + CLAIM_SCOPE)
            after = frozenset(_grams(text[m.end() : end]))
            role = (
                "agent"  # of a relative clause: 收到专业认证机构提交的…, 国家网信部门组织的…
                if AGENT_AFTER.match(text, m.end())
                else "object"
                if OBJECT_BEFORE.search(text, max(0, m.start() - 8), m.start())
                else "subject"
            )
            out.append(
                Term(
                    m.start(),
                    m.end(),
                    group.name,
                    group.kind,
                    group.terms[index],
                    ctx,
                    m[0],
                    after,
                    role,
                )
            )
    return out


@dataclass(frozen=True)
class ArticleElements:
    figures: tuple[Figure, ...]
    terms: tuple[Term, ...]
    text: str


_CACHE: dict[tuple[int, int, int], tuple[StatuteText, ArticleElements]] = {}


def article_elements(
    version: StatuteText, number: int, paragraph: int | None = None
) -> ArticleElements | None:
    """The figures and terms of one article (or of its 款 `paragraph`) of one version, read
    once."""
    article = version.article(number)
    if article is None:
        return None
    if paragraph is not None and not article.has_part(paragraph):
        paragraph = None
    key = (id(version), number, paragraph or 0)
    cached = _CACHE.get(key)
    if cached is None or cached[0] is not version:
        text = article.part(paragraph) if paragraph else article.text
        found = ArticleElements(
            tuple(figures(text, ARTICLE_WINDOW)),
            tuple(terms(text, load_groups(), ARTICLE_WINDOW)),
            text,
        )
        cached = _CACHE[key] = (version, found)
    return cached[1]
