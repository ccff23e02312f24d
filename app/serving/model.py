"""A GGUF model with one sequence in its KV cache, decoded through llama.cpp's batch API.

The high-level `Llama` object loads the model and gives us the tokenizer and the chat
template; decoding goes through `llama_decode` with a `llama_batch` so that one pass can
verify several drafted tokens, and rejected KV entries are dropped with `llama_memory_seq_rm`.
Copies of recent prompts' KV entries (`PromptSnapshots`, in host memory) let a prompt that
shares a long prefix with one of them start from there instead of from the one cached sequence.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import logging
import os
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

# llama.cpp's CPU threads meet at an OpenMP barrier after every operation of a pass (hundreds
# per pass). GOMP's default lets a waiting thread spin for a long while first; when another
# process holds a core, the spinning thread keeps the one with work off it, and a pass takes
# seconds instead of milliseconds (measured on a 2-core machine at load 15: 300 prompt tokens
# in over 300 s, against 6 s with waiting threads asleep; one token 16 ms against about 1 s
# with GOMP_SPINCOUNT=10000). So waiting threads sleep, unless the operator says otherwise
# (OMP_WAIT_POLICY=ACTIVE for a machine that runs nothing else). libgomp reads it once, when
# llama.cpp's library is loaded by the import below.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import jinja2
import llama_cpp
import numpy as np
from llama_cpp.llama_chat_format import (
    ChatFormatterResponse,
    Jinja2ChatFormatter,
)

from app.domain import Bilingual
from audit.files import open_stream, private_dir, read_private, write_private

log = logging.getLogger(__name__)

# llama.cpp's CPU kernels may give different numerics for a batch of >= 32 rows than for
# smaller ones, while batches below this many rows give bit-identical rows whatever their size
# (flash attention). Every llama_decode call stays below it: a verify pass (pending token + K
# drafts) for lossless speculation, and prompts, which are decoded in pieces of this size, so a
# token's KV entry is the same whichever request computed it and KV reuse can stop at any token.
MAX_INVARIANT_ROWS = 31
CONTROL_ATTRS = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
# A prompt snapshot is taken after a prefill that computed at least this many tokens, and
# restored only when it saves at least this many over the cached sequence: below it, copying
# costs more than it saves (a copy is about 20 ms per 1,000 tokens of SmolLM2-135M; computing
# them about 7 s on 2 cores).
MIN_SNAPSHOT_TOKENS = 64


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

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int,
        n_threads: int,
        n_batch: int = 512,
        snapshot_bytes: int = 0,
        snapshot_dir: Path | None = None,
    ) -> None:
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
        self.snapshots = PromptSnapshots(
            snapshot_bytes, snapshot_dir / self.snapshot_recipe() if snapshot_dir else None
        )
        self.pieces = [self._piece(t) for t in range(self.n_vocab)]
        self.eog = frozenset(
            t for t in range(self.n_vocab) if llama_cpp.llama_vocab_is_eog(self._vocab, t)
        )
        # the tokens llama.cpp makes of their text only when special tokens are parsed
        self.control = frozenset(
            t
            for t in range(self.n_vocab)
            if llama_cpp.llama_vocab_get_attr(self._vocab, t) & CONTROL_ATTRS
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
        """The prompt tokens for a chat, formatted with the model's own (GGUF) chat template.

        Message contents are text: their control-token text (`<|im_start|>` typed into a
        form) never becomes a control token, so no content can open a turn; the template's
        own markers are control tokens. A prompt whose contents hold no control-token text
        is tokenized in one piece with special tokens parsed, as llama.cpp and vLLM do;
        otherwise the template's text and each content are tokenized apart (`_fenced`)."""
        if self._formatter is None:  # "role: content" lines, all of it text
            text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
            return self.tokenize(text, add_bos=True)
        if any(self._holds_control(str(m.get("content") or "")) for m in messages):
            return self._fenced(messages)
        result = self._render(messages)
        return self.tokenize(result.prompt, special=True, add_bos=not result.added_special)

    def _holds_control(self, text: str) -> bool:
        return any(t in self.control for t in self.tokenize(text, special=True))

    def _render(self, messages: Sequence[Mapping[str, Any]]) -> ChatFormatterResponse:
        assert self._formatter is not None
        try:
            return self._formatter(messages=messages)  # type: ignore[arg-type]
        except jinja2.TemplateError as exc:  # the template's own raise_exception(...)
            raise TemplateError(str(exc)) from exc

    def _fenced(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The template's text tokenized with special tokens parsed and each content without.

        Each content is rendered between fences carrying a random nonce, which no content
        can forge, and the prompt is cut at them; a template that cuts a fence off (slices a
        content apart) is refused, since where that content starts is then unknown."""
        nonce = secrets.token_hex(8)
        start, end = f"\ue000{nonce}\ue001", f"\ue001{nonce}\ue000"
        result = self._render(
            [{**m, "content": f"{start}{m.get('content') or ''}{end}"} for m in messages]
        )
        parts = re.split(f"({re.escape(start)}|{re.escape(end)})", result.prompt)
        fences = parts[1::2]
        if fences != [start, end] * (len(fences) // 2):
            raise TemplateError("the chat template cuts a message's content apart")
        tokens = self.tokenize("", add_bos=not result.added_special)
        for i, text in enumerate(parts[::2]):  # the template's, a content, the template's, ...
            if text:
                tokens += self.tokenize(text, special=i % 2 == 0)
        return tokens

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

        The longest prefix held already is kept, in the cached sequence or in a prompt
        snapshot, whatever computed it: every batch is batch-invariant (MAX_INVARIANT_ROWS)
        and a snapshot is a byte copy of KV entries, so reused and fresh KV are bit-identical.
        A prefill that computed MIN_SNAPSHOT_TOKENS or more leaves a snapshot of its prompt.
        `stop()` is asked before each piece: when it says so (the client has gone) the rest
        is not computed, and the cache holds the prompt as far as it got.
        """
        n = self._restore(prompt, self.reuse_prefix(prompt))
        rest = prompt[n:-1]
        for start in range(0, len(rest), MAX_INVARIANT_ROWS):
            if stop is not None and stop():
                return n
            self.decode(rest[start : start + MAX_INVARIANT_ROWS], 0)
        if len(rest) >= MIN_SNAPSHOT_TOKENS:
            self.snapshots.keep(self.cached, self._sequence_state)
        return n

    def _restore(self, prompt: Sequence[int], held: int) -> int:
        """Load the snapshot sharing the longest prefix with `prompt` when it holds at least
        MIN_SNAPSHOT_TOKENS more than the `held` cached tokens; how many prompt tokens the
        cache holds after (`held` when none was loaded, 0 when loading failed)."""
        found = self.snapshots.best(prompt, len(prompt) - 1)
        if found is None or found[1] < held + MIN_SNAPSHOT_TOKENS:
            return held
        tokens, shared = found
        state = self.snapshots.state(tokens)
        if state is None:
            return held
        if llama_cpp.llama_state_seq_set_data(self._ctx, state, len(state), 0) == 0:
            llama_cpp.llama_memory_clear(self._mem, True)  # nothing half-loaded stays
            self.cached = []
            self.snapshots.forget(tokens)
            return 0
        self.cached = list(tokens)
        self.truncate(shared)
        return shared

    @staticmethod
    def snapshot_recipe() -> str:
        """What a snapshot's KV entries depend on besides the model file and the tokens:
        llama.cpp's version, the CPU features its kernels were chosen for (another instruction
        set may round otherwise) and the piece size prompts are computed in. Files of another
        recipe live in another directory, so none is loaded into a model that would compute
        other entries (a directory shared by machines, or a machine moved to another CPU)."""
        features = hashlib.sha256(llama_cpp.llama_print_system_info()).hexdigest()[:12]
        return f"llama{llama_cpp.__version__}-cpu{features}-rows{MAX_INVARIANT_ROWS}"

    def _sequence_state(self) -> State:
        """A copy of the cached sequence's KV entries (llama.cpp's per-sequence state)."""
        size = llama_cpp.llama_state_seq_get_size(self._ctx, 0)
        state: State = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(self._ctx, state, size, 0) != size:
            raise ModelError("llama_state_seq_get_data copied less than it announced")
        return state

    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the cached KV for the longest shared prefix (leaving >= 1 token to decode)."""
        n = shared_prefix(self.cached, tokens, len(tokens) - 1)
        self.truncate(n)
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


State = ctypes.Array[ctypes.c_uint8]  # a sequence's KV entries, as llama.cpp copies them out
SNAPSHOT_MAGIC = b"LXKV1"  # a snapshot file: magic, token count (uint32), tokens (int32), state


class PromptSnapshots:
    """Copies of recent prompts' KV entries, the least recently used dropped first to stay
    within `budget` bytes (0: none kept). SmolLM2-135M's entries take 23 KB a token, so 1 GiB
    holds about 45,000 tokens: every part of several drafts, which a regenerate, a second
    matter of the same type or a repeated measurement then reuse.

    Kept in memory, or with `directory` as files there (`<sha256 of the tokens>.kv`, written
    whole or not at all): every server given the same directory shares them, and they outlast
    a restart; the budget is then the directory's, and the least recently used file goes
    first. The directory is the model file's and the recipe's (launch.build_state,
    Model.snapshot_recipe)."""

    def __init__(self, budget: int, directory: Path | None = None) -> None:
        self.budget = budget
        self.directory = directory
        self.kept: OrderedDict[tuple[int, ...], int] = OrderedDict()  # tokens -> bytes
        self._states: dict[tuple[int, ...], State] = {}  # in memory (no directory)
        self._files: dict[str, tuple[int, ...]] = {}  # in the directory: name -> tokens

    @property
    def size(self) -> int:
        return sum(self.kept.values())

    def best(self, prompt: Sequence[int], limit: int) -> tuple[tuple[int, ...], int] | None:
        """The tokens of the snapshot sharing the longest prefix (at most `limit` tokens) with
        `prompt`, and that length; it becomes the most recently used. None when none shares a
        token."""
        self._refresh()
        found, longest = None, 0
        for tokens in self.kept:
            n = shared_prefix(tokens, prompt, limit)
            if n > longest:
                found, longest = tokens, n
        if found is None:
            return None
        self.kept.move_to_end(found)
        return found, longest

    def state(self, tokens: tuple[int, ...]) -> State | None:
        """The KV entries kept for `tokens`; None when they are gone (another server dropped
        the file) or unreadable."""
        if self.directory is None:
            return self._states.get(tokens)
        path = self.directory / _snapshot_name(tokens)
        try:
            data = read_private(path)
            os.utime(path)  # used: the last to go
        except OSError:
            self.forget(tokens)
            return None
        start = len(SNAPSHOT_MAGIC) + 4 + 4 * len(tokens)
        if len(data) <= start:
            self.forget(tokens)
            return None
        return (ctypes.c_uint8 * (len(data) - start)).from_buffer_copy(data, start)

    def keep(self, tokens: Sequence[int], state_of: Callable[[], State]) -> None:
        """Keep a snapshot of `tokens` (`state_of()` copies it) unless one already holds them;
        a snapshot of a prefix of them goes, and old ones go until the budget holds it."""
        key = tuple(tokens)
        self._refresh()
        if self.budget <= 0 or any(shared_prefix(k, key, len(key)) == len(key) for k in self.kept):
            return
        state = state_of()
        if len(state) > self.budget:
            return
        for old in [k for k in self.kept if shared_prefix(k, key, len(k)) == len(k)]:
            self.forget(old)
        while self.kept and self.size + len(state) > self.budget:
            self.forget(next(iter(self.kept)))
        if self.directory is None:
            self._states[key] = state
        else:
            header = SNAPSHOT_MAGIC + len(key).to_bytes(4, "little")
            body = np.asarray(key, dtype="<i4").tobytes()
            try:
                write_private(self.directory / _snapshot_name(key), header + body + bytes(state))
            except OSError as exc:  # a cache: the prompt was computed, only its copy is lost
                log.warning("prompt snapshot not written to %s: %s", self.directory, exc)
                return
            self._files[_snapshot_name(key)] = key
        self.kept[key] = len(state)

    def forget(self, tokens: tuple[int, ...]) -> None:
        self.kept.pop(tokens, None)
        self._states.pop(tokens, None)
        if self.directory is not None:
            name = _snapshot_name(tokens)
            self._files.pop(name, None)
            with contextlib.suppress(OSError):
                (self.directory / name).unlink()

    def _refresh(self) -> None:
        """With a directory: take in the files other servers wrote, drop those they removed,
        oldest first (by the time each was last used)."""
        if self.directory is None:
            return
        try:
            found = sorted(
                (entry.stat().st_mtime, entry.name, entry.stat().st_size)
                for entry in os.scandir(private_dir(self.directory))
                if entry.name.endswith(".kv") and entry.is_file(follow_symlinks=False)
            )
        except OSError:
            found = []
        kept: OrderedDict[tuple[int, ...], int] = OrderedDict()
        for _, name, size in found:
            tokens = self._files.get(name) or _snapshot_tokens(self.directory / name)
            if tokens is not None:
                self._files[name] = tokens
                kept[tokens] = size
        for name in set(self._files) - {name for _, name, _ in found}:
            del self._files[name]
        self.kept = kept


def _snapshot_name(tokens: tuple[int, ...]) -> str:
    return hashlib.sha256(np.asarray(tokens, dtype="<i4").tobytes()).hexdigest()[:32] + ".kv"


def _snapshot_tokens(path: Path) -> tuple[int, ...] | None:
    """The tokens a snapshot file holds the KV entries of; None when it is not one (or gone)."""
    try:
        with open_stream(path, "rb") as handle:
            head = handle.read(len(SNAPSHOT_MAGIC) + 4)
            if len(head) < len(SNAPSHOT_MAGIC) + 4 or not head.startswith(SNAPSHOT_MAGIC):
                return None
            count = int.from_bytes(head[len(SNAPSHOT_MAGIC) :], "little")
            body = handle.read(4 * count)
    except OSError:
        return None
    if len(body) != 4 * count:
        return None
    tokens = tuple(int(t) for t in np.frombuffer(body, dtype="<i4"))
    return tokens if _snapshot_name(tokens) == path.name else None


def shared_prefix(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    """How many leading tokens `a` and `b` share, at most `limit`."""
    n, end = 0, min(len(a), len(b), limit)
    while n < end and a[n] == b[n]:
        n += 1
    return n
