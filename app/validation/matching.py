"""How well a citing sentence's claim fits each article of a statute version: character bigrams
weighted by rarity (idf) within that version, over the claim's words that the statute uses.

score(claim, article) = the share of the claim's weighted bigrams that occur in the article, so
a partial quote or a close paraphrase of the article scores near 1 and another subject near 0.
Bigrams found in over 30% of a version's articles (个人信息, 应当 ...) weigh nothing."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass

from app.domain import Citation
from app.validation.texts import StatuteText

# citation apparatus and drafting filler: never part of what a sentence claims
NOISE = re.compile(
    r"《[^《》\n]*》|〈[^〈〉]*〉|第[0-9０-９零〇一二两三四五六七八九十百千]+[条款项章节]"
    r"|[（(][一二三四五六七八九十]+[）)]|中华人民共和国|以下简称|下称"
    r"|具体要求|详见|参见|依照|依据|根据|按照|参照|遵照|适用|之规定|的规定|规定|执行|办理|所述|载明|相关|有关"
    r"|本法|该法|本条例|该条例|本办法|该办法|本规定|该规定|前述|上述|同时"
)
COMMON_SHARE = 0.3  # a bigram in more than this share of articles carries no weight


def bigrams(text: str) -> frozenset[str]:
    """Bigrams of the Chinese characters of text, after the citation apparatus is removed."""
    grams: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", NOISE.sub("|", text)):
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(grams)


@dataclass(frozen=True)
class Index:
    """Bigrams of every article of one statute version, with their weights and postings."""

    grams: tuple[frozenset[str], ...]  # [i] = article i + 1
    weight: dict[str, float]
    postings: dict[str, tuple[int, ...]]

    def claim_weight(self, claim: frozenset[str]) -> float:
        return sum(self.weight.get(g, 0.0) for g in claim)

    def score(self, claim: frozenset[str], number: int, total: float) -> float:
        if total <= 0 or not 1 <= number <= len(self.grams):
            return 0.0
        shared = claim & self.grams[number - 1]
        return sum(self.weight.get(g, 0.0) for g in shared) / total

    def best(self, claim: frozenset[str], total: float) -> tuple[int, float]:
        """(article number, score) of the article that fits the claim best."""
        scores: dict[int, float] = defaultdict(float)
        for gram in claim:
            weight = self.weight.get(gram, 0.0)
            if weight:
                for number in self.postings[gram]:
                    scores[number] += weight
        if not scores or total <= 0:
            return 0, 0.0
        number = max(scores, key=lambda n: (scores[n], -n))
        return number, scores[number] / total


_INDEXES: dict[int, tuple[StatuteText, Index]] = {}


def index_for(text: StatuteText) -> Index:
    """The index of one version, built once (keyed by identity: hashing 1260 articles is slow)."""
    cached = _INDEXES.get(id(text))
    if cached is None or cached[0] is not text:
        cached = _INDEXES[id(text)] = (text, _build(text))
    return cached[1]


def _build(text: StatuteText) -> Index:
    grams = tuple(bigrams(article.text) for article in text.articles)
    seen: dict[str, list[int]] = defaultdict(list)
    for number, article_grams in enumerate(grams, start=1):
        for gram in article_grams:
            seen[gram].append(number)
    count = len(grams)
    weight = {
        gram: (math.log(count / len(numbers)) if len(numbers) <= COMMON_SHARE * count else 0.0)
        for gram, numbers in seen.items()
    }
    postings = {gram: tuple(numbers) for gram, numbers in seen.items()}
    return Index(grams, weight, postings)


@dataclass(frozen=True)
class Thresholds:
    """When a claim counts and when another article fits it clearly better.

    Chosen on tests/unit/validation_fixtures/citation_claims.yaml (bench/validation.py
    --calibrate prints the grid); see docs/validation.md."""

    min_claim: float = 6.0  # summed bigram weight below which the sentence claims nothing
    min_grams: int = 6  # ... or fewer weighted bigrams than this (违约责任……处理: four)
    margin: float = 0.25  # the better article must cover this much more of the claim
    min_better: float = 0.5  # ... and at least this share of it


DEFAULT = Thresholds()


@dataclass(frozen=True)
class Group:
    """Citations of one statute read together (第十三条、第三十九条) and the claim they carry:
    `claim` is the text of `spans` (their sentence without the citations, or the paragraph a
    basis block closes: `block`) joined by |."""

    members: tuple[Citation, ...]
    claim: str
    spans: tuple[tuple[int, int], ...] = ()
    block: bool = False
