"""Fidelity gates: what makes model prose unusable as the text of a vetted clause. An adapted
part is the clause rewritten for the facts, so it is accepted only if it stays the clause:

- prose.lost_term (adapted parts): a citation (《statute》 and each 第…条/款/项 of the clause), a
  legal term of LEGAL_TERMS the clause carries, or a term the clause declares (`must_keep:`)
  is missing from the text;
- prose.unfaithful (adapted parts): the text's similarity to the clause rendered with the facts
  (rapidfuzz's normalised Indel ratio over the characters, whitespace ignored) is below
  MIN_SIMILARITY (calibrated on recorded good and bad adaptations, docs/benchmarks.md);
- prose.form_field (all model prose): a form field stated as "label：value" ("合同类型：数据处理协
  议", "公司名称：…"), a label the clause itself does not write so;
- prose.unfinished (all model prose): the text does not end a sentence (。！？；, a closing quote
  or bracket), however it stopped;
- prose.ellipsis (all model prose): "……" or "..." that the known text (facts and clause) does
  not write: a cut or a placeholder, never a lawyer's sentence;
- prose.stray_chars (all model prose): a character outside what Chinese legal prose plus the
  facts need (Chinese characters, digits, the punctuation of statutes, Latin letters of a word
  or acronym of the facts), e.g. emoji, box drawing, ★, ＃, a Latin word of its own.

Pure functions; table-driven tests with recorded outputs in tests/unit/test_fidelity.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from rapidfuzz import fuzz

from app import yamldata
from app.domain import Finding
from app.validation.messages import finding

# calibrated (docs/benchmarks.md, "Fidelity gates") on tests/fixtures/adaptations.yaml: the
# recorded bad adaptations score at most 29, the good ones at least 58 (a clause whose two
# sentences change places); the threshold sits between them
MIN_SIMILARITY = 45.0
TERMS_FILE = Path(__file__).with_name("legal_terms.yaml")
STATUTE = re.compile(r"《[^》]{2,40}》")
ARTICLE = re.compile(r"第[一二三四五六七八九十百零〇两\d]+(?:条|款|项)")
# a short label (no sentence punctuation) followed by a full-width or ASCII colon and a value
FIELD = re.compile(
    r"(?:^|(?<=[\n。；;！？]))[ \t\u3000]*(?:\d+(?:\.\d+)*[ \t\u3000.、]*)?"
    r"(?P<label>[^\s，。；：:、,;（）()《》“”]{2,10})[：:][ \t\u3000]*(?=\S)"
)
ENDS = re.compile(r"[。！？；!?;」』”’）)】]\s*$")
ELLIPSIS = re.compile(r"…|\.{3,}|。{3,}")
HAN = re.compile(r"[\u3400-\u9fff]")
# the punctuation (and symbols) of statute texts and Chinese legal prose
PUNCT = set("，。、；：？！“”‘’（）《》〈〉〔〕【】—－-·….,;:!?()%％/／ \t\n\u3000")
LATIN_RUN = re.compile(r"[A-Za-z]+")
ACRONYM = re.compile(r"[A-Z]{2,6}")


def legal_terms() -> tuple[str, ...]:
    """The legal terms a clause that carries one must keep (legal_terms.yaml), longest first."""
    data = yamldata.load(TERMS_FILE.read_text(encoding="utf-8")) or {}
    terms = {str(t) for group in data.get("terms", {}).values() for t in group}
    return tuple(sorted(terms, key=lambda t: (-len(t), t)))


def must_keep(clause_text: str, declared: Iterable[str] = ()) -> tuple[str, ...]:
    """What an adaptation of this (rendered) clause must still say: its statutes' titles, its
    articles, the legal terms it carries, and the terms it declares."""
    found = [m.group() for m in STATUTE.finditer(clause_text)]
    found += [m.group() for m in ARTICLE.finditer(clause_text)]
    found += [t for t in legal_terms() if t in clause_text]
    found += [t for t in declared if t]
    return tuple(dict.fromkeys(found))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def similarity(text: str, clause_text: str) -> float:
    """0–100: how much of the clause the text keeps, character by character (Indel ratio)."""
    return float(fuzz.ratio(_squash(text), _squash(clause_text)))


def lost_term(text: str, keep: Iterable[str]) -> list[Finding]:
    plain = _squash(text)
    missing = [term for term in keep if _squash(term) not in plain]
    if not missing:
        return []
    return [finding("prose.lost_term", 0, len(text), "", term="、".join(missing[:3]))]


def unfaithful(text: str, clause_text: str) -> list[Finding]:
    score = similarity(text, clause_text)
    if score >= MIN_SIMILARITY:
        return []
    return [
        finding(
            "prose.unfaithful", 0, len(text), "", score=f"{score:.0f}", min=f"{MIN_SIMILARITY:.0f}"
        )
    ]


def form_field(text: str, clause_text: str = "") -> list[Finding]:
    for m in FIELD.finditer(text):
        label = m.group("label")
        if HAN.search(label) and f"{label}：" not in clause_text and f"{label}:" not in clause_text:
            end = text.find("\n", m.end())
            end = len(text) if end < 0 else end
            return [
                finding("prose.form_field", m.start(), end, "", found=text[m.start() : end][:24])
            ]
    return []


def unfinished(text: str) -> list[Finding]:
    body = text.rstrip()
    if not body or (ENDS.search(body) and not ELLIPSIS.search(body[-3:])):
        return []
    start = max(body.rfind(c) for c in "。！？；!?;\n") + 1
    return [finding("prose.unfinished", start, len(body), "", tail=body[start:][-20:])]


def ellipsis(text: str, known: str = "") -> list[Finding]:
    for m in ELLIPSIS.finditer(text):
        if m.group() not in known:
            return [finding("prose.ellipsis", m.start(), m.end(), "")]
    return []


def stray_chars(text: str, known: str = "") -> list[Finding]:
    for m in LATIN_RUN.finditer(text):
        word = m.group()
        if not ACRONYM.fullmatch(word) and word not in known:
            return [finding("prose.stray_chars", m.start(), m.end(), "", found=word)]
    for i, ch in enumerate(text):
        if (ch.isascii() and ch.isalnum()) or ch in PUNCT or HAN.match(ch) or ch in known:
            continue
        if ch.isdigit():  # full-width digits
            continue
        return [finding("prose.stray_chars", i, i + 1, "", found=ch)]
    return []


def prose_form(text: str, known: str, clause_text: str = "") -> tuple[Finding, ...]:
    """The form gates every model-written part passes (write and adapt alike); `known`: the
    text it may quote (facts and clause), `clause_text`: its clause (a label it may write)."""
    return (
        *form_field(text, clause_text),
        *unfinished(text),
        *ellipsis(text, known),
        *stray_chars(text, known),
    )


def faithful(text: str, clause_text: str, keep: Iterable[str]) -> tuple[Finding, ...]:
    """The gates an adapted part passes besides the form gates: it keeps the clause's citations
    and terms, and stays close to the clause as rendered for the facts."""
    return (*lost_term(text, keep), *unfaithful(text, clause_text))
