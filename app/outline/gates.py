"""Prose gates: what makes a model-written part unusable, as findings over the part's text, its
instruction and the form's facts. A part that fails a gate falls back to its clause (or to the
placeholder) and says which gate failed. Pure functions; table-driven tests in
tests/unit/test_gates.py.

- prose.instruction_echo: the part repeats its instruction back: a run of ECHO_CHARS or more
  characters of the instruction (whitespace ignored) that is not also in the text the part may
  quote (the facts block and its clause); or a sentence that speaks to the model in its own
  prompt's voice, however paraphrased (你是一个……律师, 你的读者是……, 作为一名AI……, "You are"),
  which no document addressed to a client says.
- prose.dangling_lead_in: the part ends on a lead-in with nothing after it: its last line ends
  with "：" or ":", or ends with 如下 / 以下 / 下列 (optionally followed by punctuation).
- prose.garble: (a) a run of letters of another script (Latin, Greek, Cyrillic, kana, Hangul)
  written directly between two Chinese characters ("该公ocese的"), unless it is an acronym of
  2–6 capital letters (APP) or is found in the known text; (b) kana, Hangul or Cyrillic anywhere
  unless found in the known text; (c) a Chinese character outside GB 2312 (the 6,763 common
  characters; every character of the held statute texts is in it) that is not in the known text
  ("措斉": 斉 is a Japanese form); (d) U+FFFD or a private-use character.
- prose.repetition: a sentence of at least MIN_SENTENCE characters written twice, or a stretch of
  2 or more characters repeated 4 or more times in a row.
- prose.wrong_fact: a count of people, a share said to be sensitive, a counting period or a date
  that the facts check would report (app/route/claims.py reads them for both), or a figure or
  date it cannot confirm (neither the form's nor a statutory threshold such as 100万人, in a
  hypothetical or a rule's condition; a date no field of the form holds) unless it is written
  the same way in the known text (the `GATE` policy).
- prose.cut_off: the part's budget cut it (the caller says so) and its text does not end a
  sentence (。！？；…, a closing quote or bracket): the last sentence is unfinished.
"""

from __future__ import annotations

import re

from app.domain import Finding
from app.route.claims import GATE, Facts, read_claims
from app.validation.messages import finding

ECHO_CHARS = 10
MIN_SENTENCE = 6
HAN = "\u4e00-\u9fff"
OTHER_LETTERS = "A-Za-z\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\uac00-\ud7af"
BETWEEN_HAN = re.compile(rf"(?<=[{HAN}])[{OTHER_LETTERS}]+(?=[{HAN}])")
FOREIGN_SCRIPT = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\uac00-\ud7af]+")
ACRONYM = re.compile(r"[A-Z]{2,6}")
BROKEN = re.compile(r"[\ufffd\ue000-\uf8ff]")
LEAD_IN = re.compile(r"(?:[：:]|(?:如下|以下|下列)[。，,：:]?)\s*$")
SENTENCE = re.compile(r"[^。！？；!?;\n]+[。！？；!?;]?")
RUN = re.compile(r"(.{2,}?)\1{3,}", re.DOTALL)
# a sentence in the prompt's voice: the model addressed as "you", or describing itself
ROLE_VOICE = re.compile(
    r"(?:^|(?<=[。！？；!?;\n]))\s*(?:"
    r"(?:你|您)(?:是(?!否)|作为|的(?:读者|任务|角色))"
    r"|作为(?:一名|一个)?(?:[^。，,\n]{0,12})?(?:AI|人工智能|语言模型|助手)"
    r"|(?:You are|As an? (?:AI|assistant|lawyer)|I am an? (?:AI|assistant|language model))"
    r")",
    re.IGNORECASE,
)
SENTENCE_END = re.compile(r"[。！？；!?;…」』”’）)】]\s*$")


def instruction_echo(text: str, instruction: str, known: str = "") -> list[Finding]:
    voice = ROLE_VOICE.search(text)
    if voice is not None:
        start = voice.start() + len(voice.group()) - len(voice.group().lstrip())
        end = min(len(text), start + ECHO_CHARS)
        return [finding("prose.instruction_echo", start, end, "", echo=text[start:end])]
    ask = re.sub(r"\s+", "", instruction)
    for i in range(len(ask) - ECHO_CHARS + 1):
        window = ask[i : i + ECHO_CHARS]
        at = text.find(window)
        if at >= 0 and window not in known:
            return [finding("prose.instruction_echo", at, at + ECHO_CHARS, "", echo=window)]
    return []


def dangling_lead_in(text: str) -> list[Finding]:
    body = text.rstrip()
    if not body or not LEAD_IN.search(body):
        return []
    start = body.rfind("\n") + 1
    return [finding("prose.dangling_lead_in", start, len(body), "", lead=body[start:][-20:])]


def _is_known(run: str, known: str) -> bool:
    return run in known


def garble(text: str, known: str = "") -> list[Finding]:
    spans: list[tuple[int, int]] = []
    for m in BETWEEN_HAN.finditer(text):
        if not ACRONYM.fullmatch(m.group()) and not _is_known(m.group(), known):
            spans.append(m.span())
    spans += [m.span() for m in FOREIGN_SCRIPT.finditer(text) if not _is_known(m.group(), known)]
    for i, ch in enumerate(text):
        rare = "\u4e00" <= ch <= "\u9fff" and not ch.encode("gb2312", errors="ignore")
        if (rare and ch not in known) or BROKEN.match(ch):
            spans.append((i, i + 1))
    return [finding("prose.garble", a, b, "", found=text[a:b]) for a, b in sorted(set(spans))[:1]]


def repetition(text: str) -> list[Finding]:
    seen: dict[str, int] = {}
    for m in SENTENCE.finditer(text):
        key = m.group().strip().rstrip("。！？；!?;")
        if len(key) < MIN_SENTENCE:
            continue
        if key in seen:
            return [finding("prose.repetition", m.start(), m.end(), "", found=key[:20])]
        seen[key] = m.start()
    run = RUN.search(text)
    if run and len(run.group()) >= 8:
        return [finding("prose.repetition", run.start(), run.end(), "", found=run.group()[:20])]
    return []


def wrong_fact(text: str, facts: Facts) -> list[Finding]:
    """The first claim about the form's facts the gate rejects (app/route/claims.GATE)."""
    rejected = GATE.flagged(read_claims(text, facts), facts.known)
    return [finding("prose.wrong_fact", c.start, c.end, "", found=c.quoted) for c in rejected[:1]]


def cut_off(text: str, truncated: bool) -> list[Finding]:
    body = text.rstrip()
    if not truncated or not body or SENTENCE_END.search(body):
        return []
    start = max(body.rfind(c) for c in "。！？；!?;\n") + 1
    return [finding("prose.cut_off", start, len(body), "", tail=body[start:][-20:])]


def gate_findings(
    text: str, instruction: str, facts: Facts, *, truncated: bool = False
) -> tuple[Finding, ...]:
    """Every gate a part's prose fails (at most one finding per gate), in gate order;
    `truncated`: the part's budget cut it."""
    return (
        *instruction_echo(text, instruction, facts.known),
        *dangling_lead_in(text),
        *garble(text, facts.known),
        *repetition(text),
        *wrong_fact(text, facts),
        *cut_off(text, truncated),
    )
