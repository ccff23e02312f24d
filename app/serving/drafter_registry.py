"""The one registry of drafters: speculative mode name -> factory.

`LEXSPEC_SPECULATIVE` (Settings) and `lexspec serve --speculative` accept exactly the names
below. A mode's name is also its drafter's `method`, the label the server reports in
`spec_decode.method`, in /v1/models (`speculative`) and in benchmark tables; `ngram` and
`draft_model` are the names vLLM's `--speculative-config` uses for the same methods.

To add a drafter: write a class with the `Drafter` interface (app/serving/drafters.py) whose
`method` is its mode name, and add `name: factory` to DRAFTERS here. This module imports
nothing heavy at import time (Settings imports it); factories import what they build.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from app.serving.drafters import Drafter
    from app.serving.model import Model

from app.domain import BilingualError

log = logging.getLogger(__name__)


class DrafterOptions(Protocol):
    """What a factory reads from the server's options (`launch.ServeOptions` has them all)."""

    @property
    def draft_model_path(self) -> Path | None: ...
    @property
    def prompts_dir(self) -> Path | None: ...
    @property
    def corpus_dir(self) -> Path | None: ...
    @property
    def prompt_lookup_min(self) -> int: ...
    @property
    def prompt_lookup_max(self) -> int: ...
    @property
    def n_ctx(self) -> int: ...
    @property
    def n_threads(self) -> int: ...


# A factory builds the drafter for a target model, with its cost of drafting one token relative
# to a target step (0 for lookups; a draft model's own forward passes are not free).
DrafterFactory = Callable[[DrafterOptions, "Model"], tuple["Drafter | None", float]]


# The longest draft one verify pass may carry (Settings.num_speculative_tokens): the adaptive
# planner drafts fewer tokens whenever more would not pay, so this only caps it. A verify pass of
# 16 + 1 rows stays below model.MAX_INVARIANT_ROWS (lossless batches) and is the largest pass
# that adaptive.DEFAULT_SEED and the start-up calibration time, so the cost fit covers it.
DEFAULT_DRAFT_TOKENS = 16


class DrafterConfigError(BilingualError, ValueError):
    """The options do not allow this drafter (e.g. draft_model without a draft model file)."""


def _off(opts: DrafterOptions, target: Model) -> tuple[Drafter | None, float]:
    return None, 0.0


def _ngram(opts: DrafterOptions, target: Model) -> tuple[Drafter | None, float]:
    from app.serving.drafters import NgramDrafter

    return NgramDrafter(opts.prompt_lookup_min, opts.prompt_lookup_max), 0.0


def _retrieval(opts: DrafterOptions, target: Model) -> tuple[Drafter | None, float]:
    from app.serving.corpus import Corpus
    from app.serving.drafters import RetrievalDrafter

    corpus = Corpus(lambda t: target.tokenize(t), opts.prompts_dir, opts.corpus_dir)
    log.info("corpus: %d files, %d tokens", corpus.n_files, corpus.n_tokens)
    return RetrievalDrafter(corpus, opts.prompt_lookup_min, opts.prompt_lookup_max), 0.0


def _draft_model(opts: DrafterOptions, target: Model) -> tuple[Drafter | None, float]:
    from app.serving.drafters import ModelDrafter, check_vocab
    from app.serving.model import Model

    if opts.draft_model_path is None:
        raise DrafterConfigError(
            "draft_model 模式需要 --draft-model",
            "--speculative draft_model needs --draft-model GGUF",
        )
    draft = Model(opts.draft_model_path, n_ctx=opts.n_ctx, n_threads=opts.n_threads)
    check_vocab(target, draft)
    ratio = draft.path.stat().st_size / max(1, target.path.stat().st_size)
    return ModelDrafter(draft), ratio  # file size as a proxy for per-token compute


DRAFTERS: dict[str, DrafterFactory] = {
    "off": _off,  # plain decoding
    "ngram": _ngram,  # prompt lookup in the request's own context
    "retrieval": _retrieval,  # prompt lookup plus the local corpus of approved outputs
    "draft_model": _draft_model,  # a small GGUF model with the target's vocabulary
}
MODES: tuple[str, ...] = tuple(DRAFTERS)

if TYPE_CHECKING:
    SpeculativeMode = str
else:  # the Settings type: pydantic refuses any other name, listing these
    SpeculativeMode = Literal[MODES]
