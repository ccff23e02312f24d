"""Draft/target tokenizer compatibility (`lexspec doctor`).

vLLM's draft_model method verifies the draft's token ids with the target, so both must share
one vocabulary: the same size (embedding rows), the same id for every token, the same special
tokens. Reads HF directories (tokenizer.json parsed as plain JSON, config.json) or GGUF files
(vocabulary through llama.cpp with vocab_only=True); no transformers needed.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.domain import Bilingual

SAMPLE_TEXT = "数据处理者向境外提供个人信息，应当申报数据出境安全评估。The data processor shall file an assessment."
SPECIAL_ROLES = ("bos", "eos", "pad", "unk")
MAP_SAMPLE = 2000  # tokens of the target vocabulary whose ids are compared


class DoctorError(ValueError):
    """A model path is missing or unreadable."""


@dataclass(frozen=True)
class TokenizerInfo:
    """What doctor needs to know about one model's vocabulary."""

    path: str
    kind: str  # hf | gguf
    tokenizer_size: int  # highest token id + 1
    embedding_rows: int  # config vocab_size (HF) or n_vocab (GGUF): what vLLM compares
    special: dict[str, tuple[str, int | None]]  # role → (text, id)
    token_to_id: dict[str, int]
    tokenize: Callable[[str], list[int]] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    severity: str  # error | warning
    detail_zh: str
    detail_en: str

    @property
    def detail(self) -> Bilingual:
        return Bilingual(self.detail_zh, self.detail_en)


@dataclass(frozen=True)
class DoctorReport:
    target: TokenizerInfo
    draft: TokenizerInfo
    checks: tuple[Check, ...]

    @property
    def compatible(self) -> bool:
        return all(c.ok for c in self.checks if c.severity == "error")

    def reasons(self, lang: str = "zh") -> list[str]:
        return [c.detail.text(lang) for c in self.checks if not c.ok]


def _token_text(value: object) -> str | None:
    if isinstance(value, dict):
        return str(value.get("content")) if value.get("content") is not None else None
    return str(value) if value is not None else None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    except (OSError, json.JSONDecodeError) as exc:
        raise DoctorError(str(Bilingual("无法读取", f"cannot read {path.name}: {exc}"))) from exc


def load_hf(model_dir: Path) -> TokenizerInfo:
    """tokenizer.json (+ tokenizer_config.json, config.json) of a Hugging Face model directory."""
    tok_path = model_dir / "tokenizer.json"
    if not tok_path.is_file():
        raise DoctorError(
            str(Bilingual("目录中没有 tokenizer.json", f"no tokenizer.json in {model_dir}"))
        )
    tok = _read_json(tok_path)
    vocab = tok.get("model", {}).get("vocab", {})
    if isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        token_to_id = {str(p[0]): i for i, p in enumerate(vocab)}
    else:
        token_to_id = {str(k): int(v) for k, v in vocab.items()}
    for added in tok.get("added_tokens", []):
        token_to_id[str(added["content"])] = int(added["id"])
    size = max(token_to_id.values(), default=-1) + 1
    cfg = _read_json(model_dir / "config.json") if (model_dir / "config.json").is_file() else {}
    tcfg_path = model_dir / "tokenizer_config.json"
    tcfg = _read_json(tcfg_path) if tcfg_path.is_file() else {}
    special: dict[str, tuple[str, int | None]] = {}
    for role in SPECIAL_ROLES:
        text = _token_text(tcfg.get(f"{role}_token"))
        if text is not None:
            special[role] = (text, token_to_id.get(text))
        elif isinstance(cfg.get(f"{role}_token_id"), int):
            special[role] = ("", int(cfg[f"{role}_token_id"]))
    rows = int(cfg.get("vocab_size") or size)
    return TokenizerInfo(str(model_dir), "hf", size, rows, special, token_to_id)


def load_gguf(path: Path) -> TokenizerInfo:
    """The vocabulary of a GGUF file, loaded through llama.cpp without the weights."""
    try:
        import llama_cpp
    except ImportError as exc:  # pragma: no cover - llama-cpp-python is a dependency
        raise DoctorError(
            str(Bilingual("读取 GGUF 需要 llama-cpp-python", "reading GGUF needs llama-cpp-python"))
        ) from exc
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise DoctorError(str(Bilingual("不是 GGUF 文件", f"not a GGUF file: {path}")))
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise DoctorError(
            str(Bilingual("无法读取 GGUF", f"cannot read GGUF {path}: {exc}"))
        ) from exc
    n = llm.n_vocab()
    token_to_id: dict[str, int] = {}
    for i in range(n):
        token_to_id.setdefault(llm._model.token_get_text(i), i)
    special: dict[str, tuple[str, int | None]] = {}
    for role, key in (("bos", "bos"), ("eos", "eos"), ("pad", "padding"), ("unk", "unknown")):
        raw = llm.metadata.get(f"tokenizer.ggml.{key}_token_id")
        if raw is not None:
            tid = int(raw)
            special[role] = (llm._model.token_get_text(tid) if 0 <= tid < n else "", tid)

    def tokenize(text: str) -> list[int]:
        return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return TokenizerInfo(str(path), "gguf", n, n, special, token_to_id, tokenize)


def load_tokenizer(path: Path) -> TokenizerInfo:
    if path.is_dir():
        return load_hf(path)
    if path.is_file() and path.suffix.lower() == ".gguf":
        return load_gguf(path)
    if path.is_file() and path.name == "tokenizer.json":
        return load_hf(path.parent)
    raise DoctorError(
        str(
            Bilingual(
                "需要含 tokenizer.json 的模型目录或 .gguf 文件",
                f"expected a model directory with tokenizer.json or a .gguf file: {path}",
            )
        )
    )


def _size_checks(t: TokenizerInfo, d: TokenizerInfo) -> list[Check]:
    why_zh = "vLLM 的 draft_model 方法要求草稿模型与目标模型使用同一词表"
    why_en = "vLLM's draft_model method needs the draft and the target to share one vocabulary"
    rows_ok = t.embedding_rows == d.embedding_rows
    size_ok = t.tokenizer_size == d.tokenizer_size
    return [
        Check(
            "vocab_size", rows_ok, "error",
            f"词表大小（嵌入行数）{t.embedding_rows:,} 对 {d.embedding_rows:,}" + ("" if rows_ok else f"：不一致，{why_zh}"),
            f"vocab size (embedding rows) {t.embedding_rows:,} vs {d.embedding_rows:,}" + ("" if rows_ok else f": differ; {why_en}"),
        ),
        Check(
            "tokenizer_size", size_ok, "error",
            f"分词器词条数 {t.tokenizer_size:,} 对 {d.tokenizer_size:,}" + ("" if size_ok else "：不一致"),
            f"tokenizer entries {t.tokenizer_size:,} vs {d.tokenizer_size:,}" + ("" if size_ok else ": differ"),
        ),
    ]  # fmt: skip


def _special_checks(t: TokenizerInfo, d: TokenizerInfo) -> list[Check]:
    out = []
    for role in SPECIAL_ROLES:
        if role not in t.special and role not in d.special:
            continue
        a, b = t.special.get(role, ("-", None)), d.special.get(role, ("-", None))
        ok = a[1] == b[1]
        out.append(
            Check(
                f"special.{role}",
                ok,
                "warning",
                f"特殊词元 {role}: {a[0] or '?'}={a[1]} 对 {b[0] or '?'}={b[1]}"
                + ("" if ok else "：不一致"),
                f"special token {role}: {a[0] or '?'}={a[1]} vs {b[0] or '?'}={b[1]}"
                + ("" if ok else ": differ"),
            )
        )
    return out


def _map_check(t: TokenizerInfo, d: TokenizerInfo) -> Check:
    """Do the same token strings carry the same ids? (a spread sample of the target vocabulary)"""
    items = sorted(t.token_to_id.items(), key=lambda kv: kv[1])
    step = max(1, len(items) // MAP_SAMPLE)
    sample = items[::step]
    bad = [(tok, i, d.token_to_id.get(tok)) for tok, i in sample if d.token_to_id.get(tok) != i]
    ok = not bad
    shown = ", ".join(f"{tok!r}: {i}→{j}" for tok, i, j in bad[:3])
    return Check(
        "vocab_map", ok, "error",
        f"抽查 {len(sample)} 个词元的编号：{len(bad)} 个不同" + (f"（{shown}）" if bad else ""),
        f"ids of {len(sample)} sampled tokens: {len(bad)} differ" + (f" ({shown})" if bad else ""),
    )  # fmt: skip


def _sample_check(t: TokenizerInfo, d: TokenizerInfo, text: str) -> Check | None:
    if t.tokenize is None or d.tokenize is None:
        return None
    a, b = t.tokenize(text), d.tokenize(text)
    same = sum(1 for x, y in zip(a, b, strict=False) if x == y)
    ok = a == b
    return Check(
        "sample_text", ok, "error",
        f"样例文本逐词元比较：{len(a)} 对 {len(b)} 个词元，{same} 个相同",
        f"sample text token by token: {len(a)} vs {len(b)} tokens, {same} identical",
    )  # fmt: skip


def diagnose(
    target: TokenizerInfo, draft: TokenizerInfo, sample_text: str = SAMPLE_TEXT
) -> DoctorReport:
    """All checks for a target/draft pair; `compatible` is False if any error-level check fails."""
    checks = [*_size_checks(target, draft), _map_check(target, draft)]
    sample = _sample_check(target, draft, sample_text)
    if sample:
        checks.append(sample)
    checks += _special_checks(target, draft)
    return DoctorReport(target, draft, tuple(checks))


def format_report(report: DoctorReport, lang: str = "zh") -> str:
    lines = [f"target: {report.target.path} ({report.target.kind})"]
    lines.append(f"draft:  {report.draft.path} ({report.draft.kind})")
    for c in report.checks:
        mark = "✓" if c.ok else ("✗" if c.severity == "error" else "!")
        lines.append(f"  {mark} {c.detail.text(lang)}")
    if report.compatible:
        lines.append(str(Bilingual("结论：兼容，可作为 draft_model 草稿", "verdict: compatible")))
    else:
        lines.append(
            str(
                Bilingual(
                    "结论：不兼容——vLLM 的 draft_model 方法要求同一词表",
                    "verdict: incompatible — vLLM's draft_model method needs the same vocabulary",
                )
            )
        )
    return "\n".join(lines)
