"""A document that is a 个人信息出境标准合同, compared clause by clause with the official text.

《个人信息出境标准合同办法》第六条: the standard contract is concluded strictly on the official
annex; other terms may be agreed but must not conflict with it. So every official 条/项/目 must
be there with its words: a missing one is `contract.item_deleted` (anchored on the clause it
belongs after), a duty made optional `contract.obligation_weakened`, a changed period
`contract.period_changed`, cut words `contract.condition_dropped`, other rewording
`contract.wording_changed`; an added term against the official text is
`contract.conflicting_term`, and 附录一 entries that contradict the rest of the document are
`contract.appendix_mismatch`. What the parties fill in (blanks, 【已】/【约定】, □, the bracketed
instructions) is not a deviation.

The document's lines are aligned with the official units in order (the best-scoring monotone
matching, rapidfuzz ratios plus a regex that accepts any filling of a unit's blanks), then
each matched pair is compared character by character (difflib).
"""

from __future__ import annotations

import difflib
import re

import numpy as np
from rapidfuzz import fuzz, process

from app.domain import Finding, FindingCode
from app.review.contract_terms import appendix_findings, conflict_findings
from app.review.contract_text import BLANK, Line, Unit, by_id, document_lines, official
from app.validation.messages import finding

MATCH = 55.0  # a line and a unit are the same clause from this ratio on
NUMBER_BONUS = 8.0
MARKERS = (
    "个人信息出境标准合同",
    "个人信息处理者的义务",
    "境外接收方的义务",
    "第三方受益人",
    "个人信息出境说明",
    "对合同履行的影响",
    "个人信息主体的权利",
)
WEAK = re.compile(
    r"可以|可|尽量|尽可能|尽力|原则上|酌情|视情况|视需要|争取|努力|宜|一般|避免|合理可行|商业上合理"
)
WEAK_QUALIFIER = 14  # a duty word replaced by a qualifier as long as 在商业上合理可行的范围内
OBLIGATION = re.compile(r"应当|不得|方可(?!以)|有权|应就|必须")
PERIOD = re.compile(r"\d+(?:个工作日|个月|日|年|天)|立即|及时|事先|合理期限|最短时间|定期")
QUOTE = 40
TOKEN_CODES = ("contract.obligation_weakened", "contract.period_changed")


def looks_like_standard_contract(text: str) -> bool:
    """True when the text carries the standard contract's title or most of its headings."""
    head = text[:3000]
    found = sum(marker in text for marker in MARKERS)
    return found >= 5 or ("个人信息出境标准合同" in head and found >= 3)


def contract_findings(text: str) -> tuple[Finding, ...]:
    """Every deviation of `text` from the official standard contract, in document order."""
    lines = document_lines(text)
    units = official()
    pairs = align(units, lines)
    matched = dict(pairs)
    out: list[Finding] = []
    out += _deleted(units, lines, matched)
    official_at = {d: units[u] for u, d in pairs}
    for u, d in pairs:
        if _continued(units[u], lines, d, official_at):
            official_at[d + 1] = units[u]
        elif not units[u].optional:  # fill-in and choice lines: how they are filled is free
            out += _compare(units[u], lines[d], text)
    out += conflict_findings(text, lines, official_at)
    out += appendix_findings(text, lines, {units[u].id: d for u, d in pairs})
    return tuple(sorted(_dedupe(out), key=lambda f: (f.start, f.end, f.code)))


def _continued(unit: Unit, lines: tuple[Line, ...], d: int, taken: dict[int, Unit]) -> bool:
    """The clause broken over this line and the next, unnumbered and unmatched one (text
    copied out of a PDF or a hard line break): joined, they are the official clause."""
    nxt = d + 1
    if nxt >= len(lines) or nxt in taken or lines[nxt].number or _exact(unit, lines[d]):
        return False
    joined = lines[d].norm + lines[nxt].norm
    return joined == unit.norm or unit.pattern.fullmatch(joined) is not None


def _exact(unit: Unit, line: Line) -> bool:
    return unit.norm == line.norm or bool(unit.pattern.fullmatch(line.norm))


def _scores(units: tuple[Unit, ...], lines: tuple[Line, ...]) -> np.ndarray:
    """The units × lines matrix: rapidfuzz's ratio of each pair, plus NUMBER_BONUS where the
    numbers agree and the ratio is near MATCH; 100 where the line fills the unit's blanks."""
    plain = [u.norm.replace(BLANK, "") for u in units]
    scores = process.cdist(plain, [x.norm for x in lines], scorer=fuzz.ratio, dtype=np.float64)
    numbers = {number: k for k, number in enumerate({*(u.number for u in units)})}
    unit_numbers = np.array([numbers[u.number] for u in units])
    line_numbers = np.array([numbers.get(x.number, -1) for x in lines])
    filled = np.zeros(scores.shape, dtype=bool)
    for i, unit in enumerate(units):
        if len(plain[i]) >= 2 and unit.has_blanks:
            filled[i] = [unit.pattern.fullmatch(line.norm) is not None for line in lines]
    bonus = ~filled & (scores >= MATCH - NUMBER_BONUS)
    bonus &= unit_numbers[:, None] == line_numbers[None, :]
    scores[bonus] += NUMBER_BONUS
    scores[filled] = 100.0
    return scores


def align(units: tuple[Unit, ...], lines: tuple[Line, ...]) -> list[tuple[int, int]]:
    """(unit index, line index) pairs: the monotone matching with the largest total margin
    over MATCH (a longest-common-subsequence table weighted by the scores).

    best[i][j] = max(best[i+1][j], best[i][j+1], taking pair (i, j)); with best[i][m] = 0 that is
    the running maximum, from the right, of max(best[i+1][j], take[j]): one vector step a row."""
    n, m = len(units), len(lines)
    scores = _scores(units, lines) if n and m else np.zeros((n, m))
    best = np.zeros((n + 1, m + 1))
    for i in range(n - 1, -1, -1):
        below, srow = best[i + 1], scores[i]
        take = np.where(srow >= MATCH, srow - MATCH + below[1:], -1.0)
        best[i, :m] = np.maximum.accumulate(np.maximum(below[:m], take)[::-1])[::-1]
    return _walk(scores.tolist(), best.tolist())


def _walk(scores: list[list[float]], best: list[list[float]]) -> list[tuple[int, int]]:
    """The pairs the table `best` chose, read from its top left corner."""
    n, m = len(scores), len(best[0]) - 1
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        s = scores[i][j]
        if s >= MATCH and best[i][j] == s - MATCH + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _quote(text: str) -> str:
    return text if len(text) <= QUOTE else text[: QUOTE - 1] + "…"


def _deleted(
    units: tuple[Unit, ...], lines: tuple[Line, ...], matched: dict[int, int]
) -> list[Finding]:
    """A missing unit whose parent is there (a deleted 项 is one finding, not one per 目)."""
    present = {units[u].id for u in matched}
    ids = by_id()
    out: list[Finding] = []
    for i, unit in enumerate(units):
        parent = ids.get(unit.parent)
        if i in matched or unit.optional or (parent is not None and parent.id not in present):
            continue
        before = [matched[k] for k in range(i - 1, -1, -1) if k in matched][:1]
        after = [matched[k] for k in range(i + 1, len(units)) if k in matched][:1]
        anchor = lines[(before or after or [0])[0]] if lines else None
        start, end = (anchor.body, anchor.end) if anchor else (0, 0)
        restore = "\n".join(u.number + u.text for u in (unit, *_under(units, i)))
        out.append(
            finding(
                "contract.item_deleted", start, end, restore,
                label=unit.label_zh, label_en=unit.label_en, official=_quote(unit.text),
            )
        )  # fmt: skip
    return out


def _under(units: tuple[Unit, ...], i: int) -> list[Unit]:
    """The units that follow units[i] and sit under it (its 目, sub-目 and lines)."""
    ids, out = by_id(), []
    for unit in units[i + 1 :]:
        parent = unit.parent
        while parent and parent != units[i].id:
            parent = ids[parent].parent
        if not parent:
            break
        out.append(unit)
    return out


def _token_spans(regex: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in regex.finditer(text)]


def _touches(spans: list[tuple[int, int]], i1: int, i2: int) -> tuple[int, int] | None:
    for a, b in spans:
        if (i1 < b and i2 > a) or (i1 == i2 and a <= i1 <= b):
            return a, b
    return None


def _span(line: Line, j1: int, j2: int) -> tuple[int, int]:
    """Document offsets of norm[j1:j2] (at least one character)."""
    if not line.offsets:
        return line.body, line.end
    j1 = min(j1, len(line.offsets) - 1)
    j2 = max(j2, j1 + 1)
    return line.offsets[j1], line.offsets[min(j2, len(line.offsets)) - 1] + 1


def _compare(unit: Unit, line: Line, text: str) -> list[Finding]:
    """The findings of one matched pair: what changed inside the clause."""
    if _exact(unit, line):
        return []
    o = unit.norm
    label = {"label": unit.label_zh, "label_en": unit.label_en}
    tokens, dropped, reworded = _edits(o, line.norm)
    out = _merge(
        [_token_finding(c, line, text, o, hit, op, label) for c, hit, op in tokens], text, label
    )
    restore = "" if unit.has_blanks else unit.text  # a filled-in clause is not replaced whole
    if dropped:
        cut = _quote("……".join(dropped))
        out.append(
            finding(
                "contract.condition_dropped", line.body, line.end, restore, dropped=cut, **label
            )
        )
    elif reworded and not out:
        official = _quote(unit.text)
        out.append(
            finding(
                "contract.wording_changed", line.body, line.end, restore, official=official, **label
            )
        )
    return out


Edit = tuple[FindingCode, tuple[int, int], tuple[int, int, int, int]]


def _edits(o: str, d: str) -> tuple[list[Edit], list[str], bool]:
    """The diff of an official clause `o` and the document's `d`, sorted: edits on a duty word
    made weaker or on a period (code, the official token, the opcode), words cut, and whether
    anything else changed. Edits at a blank are the parties' filling."""
    duties, periods = _token_spans(OBLIGATION, o), _token_spans(PERIOD, o)
    tokens: list[Edit] = []
    dropped: list[str] = []
    reworded = False
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, o, d, autojunk=False).get_opcodes():
        gone, new = o[i1:i2], d[j1:j2]
        if tag == "equal" or (BLANK in gone and tag != "delete") or _is_filling(o, i1, i2):
            continue
        cut = gone.replace(BLANK, "")
        duty = _touches(duties, i1, i2)
        if len(cut) >= 4 and (tag == "delete" or len(new) * 2 < len(gone)):
            dropped.append(cut)
        elif (
            duty
            and len(gone) <= 4
            and (not new or (WEAK.search(new) and len(new) <= WEAK_QUALIFIER))
        ):
            tokens.append(("contract.obligation_weakened", duty, (i1, i2, j1, j2)))
        elif period := _touches(periods, i1, i2):
            tokens.append(("contract.period_changed", period, (i1, i2, j1, j2)))
        elif len(gone) + len(new) >= 2:
            reworded = True
    return tokens, dropped, reworded


def _token_finding(
    code: FindingCode,
    line: Line,
    text: str,
    o: str,
    hit: tuple[int, int],
    op: tuple[int, int, int, int],
    label: dict[str, str],
) -> Finding:
    """A finding on the document's words where an official duty word or period was."""
    (a, b), (i1, i2, j1, j2) = hit, op
    j_a = max(j1 - max(i1 - a, 0), 0)
    start, end = _span(line, j_a, max(j2 + max(b - i2, 0), j_a + 1))
    return finding(code, start, end, o[a:b], found=text[start:end], official=o[a:b], **label)


def _merge(found: list[Finding], text: str, label: dict[str, str]) -> list[Finding]:
    """Edits of one duty word or period that the diff splits in two become one finding."""
    out: list[Finding] = []
    for f in found:
        last = out[-1] if out else None
        if last is None or last.code != f.code or f.start - last.end > 2:
            out.append(f)
            continue
        official = (
            last.suggestion if last.suggestion == f.suggestion else last.suggestion + f.suggestion
        )
        out[-1] = finding(
            f.code, last.start, f.end, official,
            found=text[last.start : f.end], official=official, **label,
        )  # fmt: skip
    return out


def _is_filling(o: str, i1: int, i2: int) -> bool:
    """An edit right at a blank (the filling spills over the blank's edge)."""
    return (i1 > 0 and o[i1 - 1] == BLANK) or (i2 < len(o) and o[i2] == BLANK)


def _dedupe(found: list[Finding]) -> list[Finding]:
    """A conflicting term inside a reworded clause is reported as the conflict only; a changed
    official period or duty word is reported as that change only."""
    tokens = [f for f in found if f.code in TOKEN_CODES]
    conflicts = [f for f in found if f.code == "contract.conflicting_term"]
    keep: list[Finding] = []
    for f in found:
        soft = f.code in ("contract.wording_changed", "contract.condition_dropped")
        if soft and any(c.start < f.end and c.end > f.start for c in conflicts):
            continue
        if f in conflicts and any(t.start < f.end and t.end > f.start for t in tokens):
            continue  # an official period or duty changed in place, not an added term
        if f not in keep:
            keep.append(f)
    return keep
