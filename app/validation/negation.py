"""citation.negates_duty (error) for a sentence that sets a cited article aside: 受托人无需遵守
《个人信息保护法》第二十一条, 可以不履行…第五十五条规定的义务, 不受…第四十条约束, …第二十一条对其
不适用. (A sentence that lifts one duty of the article in the article's own words — 无需取得…单独
同意 where the article says 应当取得 — is found by statements.py.)

Not a finding: the negation is itself denied or reported as a mistake (并非无需遵守, 误以为无需…,
不得以…为由不履行), or the sentence cites, besides, an article that itself exempts or excepts
(免予, 不需要, 可以不, 除外, 不适用: 依据《规定》第五条…无需…). Pure functions."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from app.domain import Citation, Finding
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese
from app.validation.texts import StatuteText

SENTENCE_END = re.compile(r"[。！？；!?;\n]")
NEG = r"无需|无须|不需要|不需|不必|不用|可以不|可不|免于|免予|毋须|毋需"
BEFORE = re.compile(
    rf"(?P<neg>(?:{NEG})(?:再)?(?:遵守|遵循|履行|适用|执行|受|按照|依照|依据|考虑|理会)"
    r"|不受|不再受|不适用|不再适用)[ \t\u3000]*(?:中华人民共和国)?$"
)
AFTER = re.compile(
    r"^(?:的规定|之规定|规定的(?:义务|要求|限制)|所规定的(?:义务|要求)|的(?:义务|要求|限制))?"
    r"[^，,。；;]{0,16}?(?P<neg>不适用|不再适用|无约束力|不具有约束力|不具约束力)"
)
CONSTRAINED = re.compile(r"(?:的规定|之规定)?的?(?:约束|限制|规制)")  # .match at the citation's end
DENIED = re.compile(
    r"并非|并不是|不是|不能|不得|不应|不意味着|并不意味着|误以为|误认为|错误地|错误认为|不能认为|"
    r"以为|声称|主张|所谓"
)
EXEMPTING = re.compile(r"免予|不需要|不需|可以不|除外|不适用|从其规定|另有规定")


def _article(n: int) -> str:
    return f"第{int_to_chinese(n)}条"


def _sentence(text: str, ends: list[int], citation: Citation) -> tuple[int, int]:
    before = bisect.bisect_right(ends, citation.start)
    after = bisect.bisect_right(ends, citation.end - 1)
    start = ends[before - 1] if before else 0
    return start, ends[after] if after < len(ends) else len(text)


def _negation(text: str, citation: Citation, start: int, end: int) -> tuple[int, int] | None:
    """The span of the words that set the citation aside, if any."""
    lead = BEFORE.search(text, max(start, citation.start - 12), citation.start)
    if lead is not None:
        if lead["neg"] == "不受" and not CONSTRAINED.match(text, citation.end):
            return None
        return lead.start("neg"), lead.end("neg")
    tail = AFTER.match(text[citation.end : end])
    if tail is not None:
        return citation.end + tail.start("neg"), citation.end + tail.end("neg")
    return None


def check_negations(
    text: str,
    citations: Sequence[Citation],
    versions: dict[int, StatuteText],
) -> list[Finding]:
    """One finding per citation whose sentence sets it aside; `versions` maps a citation's start
    to the version it is read in (a citation of a statute not held is not judged)."""
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    out: list[Finding] = []
    for citation in citations:
        version = versions.get(citation.start)
        article = version.article(citation.article) if version and citation.article else None
        if version is None or article is None:
            continue
        start, end = _sentence(text, ends, citation)
        span = _negation(text, citation, start, end)
        if span is None:
            continue
        clause = max(start, *(text.rfind(ch, start, span[0]) + 1 for ch in "，,："))
        if DENIED.search(text, clause, span[0]):
            continue
        if EXEMPTING.search(article.text) or _exempted(citation, citations, versions, start, end):
            continue  # the article itself, or another cited one, exempts: the sentence may say so
        says = (
            article.first_line if len(article.first_line) <= 40 else article.first_line[:40] + "…"
        )
        out.append(
            finding(
                "citation.negates_duty",
                span[0],
                span[1],
                says,
                statute=version.statute,
                article=_article(article.number),
                article_en=f"article {article.number}",
                found=text[span[0] : span[1]],
                says=says,
            )
        )
    return out


def _exempted(
    citation: Citation,
    citations: Sequence[Citation],
    versions: dict[int, StatuteText],
    start: int,
    end: int,
) -> bool:
    """Whether another article cited in the sentence exempts or excepts (the negation's basis)."""
    for other in citations:
        if other is citation or not start <= other.start < end or other.article is None:
            continue
        version = versions.get(other.start)
        article = version.article(other.article) if version else None
        if article is not None and EXEMPTING.search(article.text):
            return True
    return False
