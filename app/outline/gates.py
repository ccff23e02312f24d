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
- prose.outcome_promise: the part promises an outcome: a word of certainty (必然, 一定, 保证,
  确保, 承诺 …) before winning (胜诉, 打赢) or an approval (通过…审批/评估/备案, 获批), 承诺…结果,
  百分之百…通过, 万无一失; unless its clause denies it (无法保证, 不一定, 并不必然). 通过 as
  "by way of" (保证通过合法途径) is no approval.
- prose.unauthorised_disclosure: the part lets a party hand data to third parties on its own: a
  permission (可以, 可, 有权, 允许; not 不可, 无权) with 自行, 任意, 随意, 擅自 or 无需/未经…同意,
  then providing, disclosing, transferring or sharing to a third party (PIPL articles 21 and 23
  require the agreement and the consent this waives).
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
_CLAUSE = r"[^，。；！？,;!?\n]"  # a character inside one clause of a sentence
_WIN = r"(?:胜诉|赢得?(?:诉讼|官司|本案)|打赢|获胜)"
_PASS = rf"(?:通过{_CLAUSE}{{0,10}}?(?:审批|审核|审查|评估|备案|认证|申报|核准|许可)|获批|获得批准|得到批准|获准|过审)"
PROMISE = re.compile(
    rf"(?:必然|必定|一定|肯定|保证|确保|担保|包|稳)(?:能够|能|会|可以|可|将|得以)?(?:{_WIN}|{_PASS})"
    rf"|承诺{_CLAUSE}{{0,8}}?结果"
    rf"|(?:百分之百|100\s*[%％])(?:{_CLAUSE}{{0,6}}?)(?:{_WIN}|{_PASS}|成功)"
    r"|万无一失|稳操胜券|包赢|稳赢|包过"
)
DENIAL = re.compile(r"不|无法|未必|难以|没有|无从|并非|否")
DISCLOSE = re.compile(
    r"(?<![不无未非])(?:可以|可|有权|得以|允许|能够)"
    rf"(?:自行|任意|随意|擅自|(?:无需|无须|不必|不经|未经){_CLAUSE}{{0,10}}?(?:同意|授权|许可))"
    rf"{_CLAUSE}{{0,16}}?(?:第三方{_CLAUSE}{{0,4}}?(?:提供|披露|转让|共享|出售|转移|传输|泄露)"
    rf"|(?:提供|披露|转让|共享|出售|转移|传输|泄露){_CLAUSE}{{0,8}}?第三方)"
)


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


def outcome_promise(text: str) -> list[Finding]:
    for m in PROMISE.finditer(text):
        clause = re.split(r"[，。；！？,;!?\n]", text[: m.start()])[-1]
        if not DENIAL.search(clause[-8:]):
            return [finding("prose.outcome_promise", m.start(), m.end(), "", found=m.group())]
    return []


def unauthorised_disclosure(text: str) -> list[Finding]:
    m = DISCLOSE.search(text)
    if m is None:
        return []
    return [finding("prose.unauthorised_disclosure", m.start(), m.end(), "", found=m.group())]


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
        *outcome_promise(text),
        *unauthorised_disclosure(text),
    )
