"""The local corpus the retrieval drafter looks up: prompt-library texts, approved outputs and
the firm's approved clauses (`<corpus dir>/<type>/clauses.yaml`, app/precedents/firm_clauses.py).

Files are re-read when they change (checked at most every `check_every_s` seconds, at the
start of a request); the token suffix automaton is rebuilt only then.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from app.serving.suffix_index import SuffixAutomaton

log = logging.getLogger(__name__)

CORPUS_SUFFIXES = (".md", ".txt", ".yaml")  # .yaml: the firm's clause libraries
PROMPT_SUFFIXES = (".j2", ".md", ".txt", ".yaml", ".yml")


def corpus_files(prompts_dir: Path | None, corpus_dir: Path | None) -> list[Path]:
    """Prompt library texts, the firm's approved outputs (*.md, *.txt) and clauses, sorted."""
    found: list[Path] = []
    for root, suffixes in ((prompts_dir, PROMPT_SUFFIXES), (corpus_dir, CORPUS_SUFFIXES)):
        if root is not None and root.is_dir():
            found.extend(p for p in root.rglob("*") if p.is_file() and p.suffix in suffixes)
    return sorted(found)


class Corpus:
    """A suffix automaton over the tokenised corpus files, rebuilt when the files change."""

    def __init__(
        self,
        tokenize: Callable[[str], list[int]],
        prompts_dir: Path | None,
        corpus_dir: Path | None,
        *,
        check_every_s: float = 2.0,
    ) -> None:
        self._tokenize = tokenize
        self._dirs = (prompts_dir, corpus_dir)
        self._check_every_s = check_every_s
        self._signature: tuple[tuple[str, float, int], ...] | None = None
        self._checked_at = 0.0
        self.sam = SuffixAutomaton([])
        self.n_files = 0
        self.n_tokens = 0
        self.refresh(force=True)

    def _scan(self) -> tuple[list[Path], tuple[tuple[str, float, int], ...]]:
        files = corpus_files(*self._dirs)
        sig = []
        for p in files:
            try:
                st = p.stat()
            except OSError:
                continue
            sig.append((str(p), st.st_mtime, st.st_size))
        return files, tuple(sig)

    def refresh(self, *, force: bool = False) -> bool:
        """Rebuild the index if any file was added, removed or changed. Returns True if rebuilt."""
        now = time.monotonic()
        if not force and now - self._checked_at < self._check_every_s:
            return False
        self._checked_at = now
        files, sig = self._scan()
        if sig == self._signature:
            return False
        self._signature = sig
        docs = list(self._read(files))
        self.sam = SuffixAutomaton.from_documents(docs)
        self.n_files = len(docs)
        self.n_tokens = sum(len(d) for d in docs)
        log.info("corpus index: %d files, %d tokens", self.n_files, self.n_tokens)
        return True

    def _read(self, files: list[Path]) -> Iterable[list[int]]:
        for p in files:
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if text.strip():
                yield self._tokenize(text)
