"""A GGUF model with one sequence in its KV cache, decoded through llama.cpp's batch API.

The high-level `Llama` object loads the model and gives us the tokenizer and the chat
template; decoding goes through `llama_decode` with a `llama_batch` so that one pass can
verify several drafted tokens, and rejected KV entries are dropped with `llama_memory_seq_rm`.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import llama_cpp
import numpy as np
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.domain import Bilingual

# llama.cpp's CPU kernels may give different numerics for a batch of >= 32 rows than for
# smaller ones, while batches below this many rows give bit-identical rows whatever their size
# (flash attention). Every llama_decode call stays below it: a verify pass (pending token + K
# drafts) for lossless speculation, and prompts, which are decoded in pieces of this size, so a
# token's KV entry is the same whichever request computed it and KV reuse can stop at any token.
MAX_INVARIANT_ROWS = 31


class ModelError(RuntimeError):
    """The model could not be loaded or decoded (bad path, context overflow, ...)."""


class TemplateError(ValueError):
    """The model's chat template refused the messages (e.g. roles that do not alternate)."""


GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path) -> None:
    """ModelError unless `path` is a regular file that starts as a GGUF model does (llama.cpp
    is never handed anything else)."""
    if not path.is_file():
        raise ModelError(str(Bilingual("模型文件不存在", f"model file not found: {path}")))
    with path.open("rb") as handle:
        magic = handle.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise ModelError(
            str(Bilingual(f"{path} 不是 GGUF 模型文件", f"{path} is not a GGUF model file"))
        )


class Model:
    """One loaded GGUF model; `cached` mirrors the tokens whose KV entries are in sequence 0."""

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int, n_batch: int = 512) -> None:
        check_gguf(Path(path))
        failed: str | None = None
        with contextlib.redirect_stderr(io.StringIO()):  # llama.cpp's own noise, and the
            try:  # "Exception ignored" of a half-built model freed before the block ends
                self.llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    n_batch=n_batch,
                    n_ubatch=n_batch,
                    logits_all=False,
                    flash_attn=True,  # batch-invariant attention: verified == single-token rows
                    verbose=False,
                )
            except ValueError as exc:
                failed = str(exc)
        if failed is not None:
            raise ModelError(str(Bilingual("无法加载模型文件", f"cannot load the model: {failed}")))
        self.path = Path(path)
        self.n_ctx = self.llama.n_ctx()
        self.n_batch = n_batch
        self.n_vocab = self.llama.n_vocab()
        self._ctx = self.llama._ctx.ctx
        self._vocab = self.llama._model.vocab
        self._mem = llama_cpp.llama_get_memory(self._ctx)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        self.cached: list[int] = []
        self.pieces = [self._piece(t) for t in range(self.n_vocab)]
        self.eog = frozenset(
            t for t in range(self.n_vocab) if llama_cpp.llama_vocab_is_eog(self._vocab, t)
        )
        self._formatter = self._make_formatter()

    def close(self) -> None:
        llama_cpp.llama_batch_free(self._batch)
        self.llama.close()

    # --- tokenizer and chat template -------------------------------------------------
    def _piece(self, token: int) -> bytes:
        buf = ctypes.create_string_buffer(64)
        n = llama_cpp.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        return buf.raw[: max(n, 0)]

    def _make_formatter(self) -> Jinja2ChatFormatter | None:
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        eos, bos = self.llama.token_eos(), self.llama.token_bos()
        model = self.llama._model
        return Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )

    def tokenize(self, text: str, *, special: bool = False, add_bos: bool = False) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def chat_tokens(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The prompt tokens for a chat, formatted with the model's own (GGUF) chat template."""
        if self._formatter is None:
            text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
            return self.tokenize(text, add_bos=True)
        try:
            result = self._formatter(messages=messages)  # type: ignore[arg-type]
        except jinja2.TemplateError as exc:  # the template's own raise_exception(...)
            raise TemplateError(str(exc)) from exc
        return self.tokenize(result.prompt, special=True, add_bos=not result.added_special)

    # --- KV cache and decoding --------------------------------------------------------
    def truncate(self, n: int) -> None:
        """Drop KV entries at positions >= n (rejected drafts, a changed prompt suffix)."""
        if n < len(self.cached):
            if not llama_cpp.llama_memory_seq_rm(self._mem, 0, n, -1):
                llama_cpp.llama_memory_clear(self._mem, True)
                n = 0
            del self.cached[n:]

    def prefill(self, prompt: Sequence[int], stop: Callable[[], bool] | None = None) -> int:
        """Put all but the last prompt token into the KV cache; return how many were reused.

        The longest prefix the cache already holds is kept, whatever computed it: every batch
        is batch-invariant (MAX_INVARIANT_ROWS), so reused and fresh KV are bit-identical.
        `stop()` is asked before each piece: when it says so (the client has gone) the rest
        is not computed, and the cache holds the prompt as far as it got.
        """
        n = self.reuse_prefix(prompt)
        rest = prompt[n:-1]
        for start in range(0, len(rest), MAX_INVARIANT_ROWS):
            if stop is not None and stop():
                break
            self.decode(rest[start : start + MAX_INVARIANT_ROWS], 0)
        return n

    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the cached KV for the longest shared prefix (leaving >= 1 token to decode)."""
        n = self._shared(tokens, min(len(self.cached), len(tokens) - 1))
        self.truncate(n)
        return n

    def _shared(self, tokens: Sequence[int], limit: int) -> int:
        """How many leading tokens (at most `limit`) the cache holds already."""
        n, cached = 0, self.cached
        while n < limit and cached[n] == tokens[n]:
            n += 1
        return n

    def decode(self, tokens: Sequence[int], n_logits: int) -> np.ndarray:
        """Append `tokens` to the sequence; return logits rows for its last `n_logits` tokens.

        Decoded in pieces of at most MAX_INVARIANT_ROWS tokens (a verify pass is one piece).
        The result is a view into llama.cpp's buffer (valid until the next decode) unless the
        rows span two pieces.
        """
        if len(self.cached) + len(tokens) > self.n_ctx:
            raise ModelError(
                str(
                    Bilingual(
                        "上下文已满",
                        f"context full: {len(self.cached) + len(tokens)} > {self.n_ctx}",
                    )
                )
            )
        first_logit = len(tokens) - n_logits
        rows: list[np.ndarray] = []
        start = 0
        while start < len(tokens):
            chunk = tokens[start : start + MAX_INVARIANT_ROWS]
            want = max(0, start + len(chunk) - max(first_logit, start))
            self._decode_chunk(chunk, want)
            if want:
                ptr = llama_cpp.llama_get_logits(self._ctx)
                rows.append(np.ctypeslib.as_array(ptr, shape=(want, self.n_vocab)))
                if start + len(chunk) < len(tokens):
                    rows[-1] = rows[-1].copy()  # the next chunk overwrites the buffer
            start += len(chunk)
        if not rows:
            return np.empty((0, self.n_vocab), dtype=np.float32)
        return rows[0] if len(rows) == 1 else np.concatenate(rows)

    def _decode_chunk(self, chunk: Sequence[int], n_logits: int) -> None:
        batch = self._batch
        pos0 = len(self.cached)
        n = len(chunk)
        first_logit = n - n_logits
        for i, tok in enumerate(chunk):
            batch.token[i] = tok
            batch.pos[i] = pos0 + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = i >= first_logit
        batch.n_tokens = n
        rc = llama_cpp.llama_decode(self._ctx, batch)
        if rc != 0:
            self.truncate(pos0)
            raise ModelError(f"llama_decode failed ({rc})")
        self.cached.extend(chunk)

    def kv_usage(self) -> float:
        return len(self.cached) / self.n_ctx
