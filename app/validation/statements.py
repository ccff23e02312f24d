"""Right article, something else changed: a citing sentence's figures, actors, conditions and
modality compared with the article it means (citation.figure_mismatch, citation.actor_mismatch,
citation.condition_mismatch, citation.negates_duty), and a figure whose rule is in another held
statute (citation.rule_elsewhere).

A sentence's element is compared with the article's element of the same kind that stands in the
same place — the words around both (elements.context) overlap at least MIN_CONTEXT — so a period
the sentence gives for another reason is not compared. The article meant is the cited one, or the
one content.py found to fit the sentence clearly better (a wrong number and a wrong figure are
two errors, both reported). Not compared: a clause that gives advice or states a fact of the
client (建议, 本所, 已…), a count of people that is not a statutory threshold (no 以上, 不满 …,
or about the client). Pure functions; called by app/validation/content.py."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from app.domain import Citation, Finding
from app.validation.elements import (
    CLAIM_SCOPE,
    ArticleElements,
    Figure,
    Group,
    Term,
    article_elements,
    figures,
    load_groups,
    shared,
    similarity,
    terms,
)
from app.validation.matching import COMMON_SHARE, index_for
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese
from app.validation.superseded import HISTORY
from app.validation.texts import StatuteText, TextStore

MIN_CONTEXT = (
    0.5  # weighted share of the sentence's words around an element found around the article's
)
MARGIN = 0.2  # ... and this much more than around an element of the sentence's own value
MIN_MASS = 2.5  # ... sharing at least this much weight (two rare words, or three common ones)
# a clause that is not a statement of the rule: advice, the writer's own view, a fact, a contract
ASIDE = re.compile(
    r"建议|本所|我们|我方|笔者|为稳妥|稳妥起见|宜|最好|可考虑|内部|公司政策|约定|本协议|本合同|"
    r"已经|已于|业已|已(?!满|达|超|按|由|被)|实际|拟|计划|预计|例如|比如|假设|若|如果|如"
)
CLIENT = re.compile(r"(贵|该|本|我)(公司|司|单位|企业|集团)|委托人|客户")
# a clause that reports a mistaken view (the common-mistakes section writes them on purpose)
MISTAKEN = re.compile(r"误以为|误认为|错误地|错误认为|误将|混淆|并非|不是|而非")
# 将应当申报…的个人信息: a modal verb in a relative clause is not the sentence's (the article's)
ATTRIBUTIVE = re.compile(r"(?:将|把|对|凡|属于|的)$")
RELATIVE = re.compile(r"(?:将|把|凡)[^，,。；;]{0,3}$")
CHOICE = re.compile(r"或者(?:通过|订立|按照|经|选择)|之一|任一")  # alternative ways: a choice
COORDINATED = re.compile(r"^(?:并且?|且|以及|同时|并应当?)?$")
_MODAL_WORDS = {"must": "应当", "may": "可以", "must_not": "不得", "need_not": "无需"}
MODALITY_NEGATES = {("must", "need_not"), ("must_not", "may"), ("must_not", "need_not")}
# (the article's, the sentence's): the sentence lifts or loosens what the article imposes
WEAKENS = MODALITY_NEGATES | {("must", "may")}


@dataclass(frozen=True)
class Meant:
    """The article a group of citations is compared with, and where the finding goes."""

    version: StatuteText
    number: int
    start: int  # the citation span the finding names
    end: int
    store: TextStore | None = None  # for the words' rarity across every statute held


def _clause_of(text: str, start: int, end: int) -> str:
    left = max(text.rfind(ch, 0, start) for ch in "，,：:。；;\n（(")
    rights = [i for i in (text.find(ch, end) for ch in "，,：:。；;\n）)") if i >= 0]
    return text[left + 1 : min(rights) if rights else len(text)]


def _compared(text: str, figure: Figure) -> bool:
    """Whether a figure of the sentence states the rule (not advice, a fact, a client count or
    a mistaken view)."""
    clause = _clause_of(text, figure.start, figure.end)
    if ASIDE.search(clause):
        return False
    client_count = figure.bound is None or CLIENT.search(clause) or "约" in clause
    return not (figure.family == "people" and client_count)


_PIECES: dict[tuple[str, str, tuple[str, ...]], tuple[Figure, ...] | tuple[Term, ...]] = {}
CACHE_LIMIT = 20_000  # pieces of claims remembered (a re-check while streaming reads each once)


def claim_figures(piece: str) -> tuple[Figure, ...]:
    """The figures of a piece of a citing sentence, read once per piece."""
    key = ("figures", piece, ())
    if key not in _PIECES:
        if len(_PIECES) > CACHE_LIMIT:
            _PIECES.clear()
        _PIECES[key] = tuple(figures(piece))
    return _PIECES[key]  # type: ignore[return-value]


def claim_terms(piece: str, groups: tuple[Group, ...]) -> tuple[Term, ...]:
    """The terms of the given groups in a piece of a citing sentence, read once per piece."""
    key = ("terms", piece, tuple(g.name for g in groups))
    if key not in _PIECES:
        if len(_PIECES) > CACHE_LIMIT:
            _PIECES.clear()
        _PIECES[key] = tuple(terms(piece, groups))
    return _PIECES[key]  # type: ignore[return-value]


def _states_rule(text: str, pieces: Sequence[tuple[int, int]]) -> bool:
    """A sentence that reports a mistaken view or tells of a change (原…, 已由…调整为) states
    no rule of its own to compare."""
    whole = "|".join(text[a:b] for a, b in pieces)
    return not (MISTAKEN.search(whole) or HISTORY.search(whole))


def _close(mine: frozenset[str], other: frozenset[str], weight: dict[str, float]) -> bool:
    return (
        shared(mine, other, weight) >= MIN_MASS and similarity(mine, other, weight) >= MIN_CONTEXT
    )


def _article(n: int) -> str:
    return f"第{int_to_chinese(n)}条"


def figure_findings(
    text: str, pieces: Sequence[tuple[int, int]], meant: Meant, arts: Sequence[ArticleElements]
) -> list[Finding]:
    """A figure of the sentence where the article states another in the same place."""
    out: list[Finding] = []
    if not _states_rule(text, pieces):
        return out
    weight = index_for(meant.version).weight  # a figure's place, read in its statute's words
    candidates = [f for art in arts for f in art.figures]
    for a, b in pieces:
        for fig in claim_figures(text[a:b]):
            same_family = [c for c in candidates if c.comparable(fig)]
            if not same_family or not _compared(text[a:b], fig):
                continue
            scores = [similarity(fig.context, c.context, weight) for c in same_family]
            index = max(range(len(scores)), key=lambda i: scores[i])
            best, score = same_family[index], scores[index]
            alone = len(same_family) == 1 and best.unit == fig.unit  # the article's only one
            if not (_close(fig.context, best.context, weight) or (alone and score >= ALONE)):
                continue
            near = [
                (s, c)
                for s, c in zip(scores, same_family, strict=True)
                if c.unit == fig.unit
                and s >= score - MARGIN
                and _close(fig.context, c.context, weight)
            ]
            if best.unit != fig.unit and near:
                score, best = max(near, key=lambda n: n[0])  # the same unit, nearly as near
            exact = [(s, c) for s, c in zip(scores, same_family, strict=True) if c.same(fig)]
            span = (a + fig.start, a + fig.end)
            if best.same(fig) or (exact and score - max(exact)[0] < MARGIN):
                match = best if best.same(fig) else max(exact, key=lambda e: e[0])[1]
                if fig.bound_conflicts(match):
                    out.append(_changed(meant, span, fig.raw, match.raw, "condition"))
                continue
            if best.unit != fig.unit and score < OTHER_UNIT:
                continue  # 5个工作日 against 2年: another period, unless in the very same words
            out.append(_changed(meant, span, fig.raw, best.raw, "figure"))
    return out


ALONE = 0.2  # the place the article's only figure of the kind needs to share
OTHER_UNIT = 0.8  # ... and a figure in another unit (10日 for 10个工作日)


def _governing(
    scope: str, arts: Sequence[ArticleElements], group: str, weight: dict[str, float]
) -> dict[str, bool]:
    """The modal classes the articles put on what a sentence's modal verb governs (`scope`, the
    words after it): each place where those words stand in an article (found by one of their
    first rare bigrams, and read on for as long as `scope`) is governed by the nearest modal
    verb before it in its sentence (并取得…单独同意 after 应当向个人告知…). Each class says
    whether the duty is one of a choice: alternatives (或者, 之一) follow it, or it binds who
    chose a way of doing it (…通过认证方式…的，应当…), so 可以 describes the choice fairly."""
    classes: dict[str, bool] = {}
    grams = set(_bigrams(scope))
    if len(grams) < 2:
        return classes
    anchors = [(i, g) for i, g in enumerate(_bigrams(scope)[:4]) if weight.get(g, 0.0) > 0]
    for offset, anchor in anchors:
        for art in arts:
            text = art.text
            for m in re.finditer(re.escape(anchor), text):
                at = max(0, m.start() - offset)
                window = set(_bigrams(text[at : at + len(scope) + 6]))
                if len(grams & window) / len(grams) < PLACE:
                    continue
                stop = max(text.rfind(ch, 0, m.start()) for ch in "。；;\n")
                before = [
                    t
                    for t in art.terms
                    if t.group == group
                    and stop < t.start
                    and t.end <= m.start()
                    and not RELATIVE.search(text, max(0, t.start - 4), t.start)
                ]
                if not before:
                    continue
                modal = max(before, key=lambda t: t.start)
                comma = max(text.rfind(ch, modal.end, m.start()) for ch in "，,：:")
                if comma < 0 or COORDINATED.match(text[comma + 1 : m.start()]):
                    # its own clause, or one joined to it (，并取得…)
                    stops = [text.find(ch, modal.end) for ch in "。；;\n"]
                    end = min([i for i in stops if i >= 0] + [len(text)])
                    chosen = (
                        bool(CHOICE.search(text, modal.end, end))
                        or "方式" in text[stop + 1 : modal.start]
                    )
                    classes[modal.term] = classes.get(modal.term, False) or chosen
        if classes:
            break
    return classes


def _bigrams(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(len(text) - 1)]


PLACE = 0.6  # share of a modal verb's scope found at a place in the article


def _other_term(term: Term, candidates: Sequence[Term], weight: dict[str, float]) -> Term | None:
    """The article's term of the same group in the sentence term's place (a body in the same
    role: the one acting, or the one acted towards), when it is another term and stands there
    clearly more than the sentence's own one does anywhere. A condition the article words only
    the other way (含 where it says 不含) needs less of the place to agree."""
    if term.kind == "actor":
        candidates = [c for c in candidates if c.role == term.role]
    if not candidates:
        return None
    scores = [similarity(term.context, c.context, weight) for c in candidates]
    index = max(range(len(scores)), key=lambda i: scores[i])
    best, score = candidates[index], scores[index]
    own = [s for c, s in zip(candidates, scores, strict=True) if c.term == term.term]
    if best.term == term.term:
        return None
    if term.kind == "condition" and not own:
        bare = not any(weight.get(g, 0.0) for c in candidates for g in c.context)  # list items
        return best if score >= LOOSE or bare else None
    if not _close(term.context, best.context, weight):
        return None
    return best if score - max(own, default=0.0) >= MARGIN else None


LOOSE = 0.3  # the place a condition worded only the other way needs to share


def term_findings(
    text: str, pieces: Sequence[tuple[int, int]], meant: Meant, arts: Sequence[ArticleElements]
) -> list[Finding]:
    """An actor, condition or modality of the sentence where the article, in the same place,
    has another term of the same group."""
    out: list[Finding] = []
    if not _states_rule(text, pieces):
        return out
    weight = _global_weight(meant.store) if meant.store else index_for(meant.version).weight
    candidates = [t for art in arts for t in art.terms]
    present = {c.group for c in candidates}
    groups = tuple(g for g in load_groups() if g.name in present)
    for a, b in pieces:
        piece = text[a:b]
        for term in claim_terms(piece, groups):
            clause = _clause_of(piece, term.start, term.end)
            if ASIDE.search(clause):
                continue
            if term.kind == "modality" and ATTRIBUTIVE.search(piece[: term.start]):
                continue
            same_group = [c for c in candidates if c.group == term.group]
            if not same_group:
                continue
            span = (a + term.start, a + term.end)
            if term.kind == "modality":
                scope = piece[term.end : term.end + CLAIM_SCOPE]
                scope = re.split(r"[，,。；;、\n]", scope)[0]
                governing = _governing(scope, arts, term.group, weight)
                if len(governing) != 1 or term.term in governing:
                    continue  # none, or the article says it both ways, or as the sentence does
                said, chosen = governing.popitem()
                if (said, term.term) not in WEAKENS or (
                    chosen and (said, term.term) == ("must", "may")
                ):
                    continue  # stricter than the article (another case?), or 可以 for a choice
                kind = "negates" if (said, term.term) in MODALITY_NEGATES else "condition"
                out.append(_changed(meant, span, term.raw, _MODAL_WORDS[said], kind))
                continue
            if (other := _other_term(term, same_group, weight)) is not None:
                out.append(_changed(meant, span, term.raw, other.raw, term.kind))
    return out


CODES = {
    "figure": "citation.figure_mismatch",
    "actor": "citation.actor_mismatch",
    "condition": "citation.condition_mismatch",
    "negates": "citation.negates_duty",
}


def _changed(meant: Meant, span: tuple[int, int], found: str, says: str, kind: str) -> Finding:
    version, number = meant.version, meant.number
    return finding(
        CODES[kind],  # type: ignore[arg-type]
        span[0],
        span[1],
        says,
        statute=version.statute,
        article=_article(number),
        article_en=f"article {number}",
        found=found,
        says=says,
    )


def meant_articles(
    version: StatuteText, numbers: Sequence[int], paragraph: int | None = None
) -> list[ArticleElements]:
    """The elements of the articles meant (of the 款 cited, when one article's 款 is)."""
    part = paragraph if len(numbers) == 1 else None
    found = [article_elements(version, n, part) for n in numbers]
    return [f for f in found if f is not None]


# --- a figure whose rule is in another held statute ---------------------------------------------

_BY_FIGURE: dict[
    int, tuple[TextStore, dict[tuple[str, Decimal], list[tuple[StatuteText, int, Figure]]]]
] = {}


def _figure_index(
    store: TextStore,
) -> dict[tuple[str, Decimal], list[tuple[StatuteText, int, Figure]]]:
    """(unit, value) → every (version, article, figure) of the held texts (built once)."""
    cached = _BY_FIGURE.get(id(store))
    if cached is None or cached[0] is not store:
        index: dict[tuple[str, Decimal], list[tuple[StatuteText, int, Figure]]] = {}
        for versions in store.versions.values():
            for version in versions:
                for article in version.articles:
                    elements = article_elements(version, article.number)
                    for fig in elements.figures if elements else ():
                        index.setdefault((fig.unit, fig.value), []).append(
                            (version, article.number, fig)
                        )
        cached = _BY_FIGURE[id(store)] = (store, index)
    return cached[1]


def figure_home(
    text: str,
    pieces: Sequence[tuple[int, int]],
    cited: Sequence[Citation],
    arts: Sequence[ArticleElements],
    store: TextStore,
    day: dt.date,
) -> tuple[StatuteText, int] | None:
    """The held article (in force on `day`, not one cited) that states a figure of the sentence
    in the same place, clearly more so (by MARGIN) than any figure of its kind in the articles
    cited: the rule the sentence states is there. An article of the cited statute wins a near
    tie."""
    statutes = {c.statute for c in cited}
    numbers = {(c.statute, c.article) for c in cited}
    index = _figure_index(store)
    weight = _global_weight(store)  # one scale for places in different statutes
    for a, b in pieces:
        for fig in claim_figures(text[a:b]):
            if fig.family == "people" or not _compared(text[a:b], fig):
                continue
            mine = [f for art in arts for f in art.figures if f.comparable(fig)]
            here = max((similarity(fig.context, f.context, weight) for f in mine), default=0.0)
            hits = []
            for version, number, f in index.get((fig.unit, fig.value), ()):
                if (version.statute, number) in numbers or not version.in_force_on(day):
                    continue
                score = similarity(fig.context, f.context, weight)
                if _close(fig.context, f.context, weight) and score - here >= MARGIN:
                    hits.append((score + TIE * (version.statute in statutes), version, number))
            if hits:
                _, version, number = max(hits, key=lambda h: h[0])
                return version, number
    return None


TIE = 0.1  # how much nearer an article of the cited statute counts
_GLOBAL: dict[int, tuple[TextStore, dict[str, float]]] = {}


def _global_weight(store: TextStore) -> dict[str, float]:
    """Each bigram's rarity over every article the store holds (matching.Index's idf, taken
    across statutes), built once."""
    cached = _GLOBAL.get(id(store))
    if cached is None or cached[0] is not store:
        counts: dict[str, int] = {}
        total = 0
        for versions in store.versions.values():
            for version in versions:
                index = index_for(version)
                total += len(index.grams)
                for grams in index.grams:
                    for gram in grams:
                        counts[gram] = counts.get(gram, 0) + 1
        weight = {
            g: math.log(total / n) if n <= COMMON_SHARE * total else 0.0 for g, n in counts.items()
        }
        cached = _GLOBAL[id(store)] = (store, weight)
    return cached[1]
