"""Drafters are declared once (app/serving/drafter_registry.DRAFTERS): the Settings literal,
`lexspec serve --speculative` and each drafter's reported `method` all come from that table."""

from __future__ import annotations

import argparse

import pytest
from pydantic import ValidationError

from app.commands import serve
from app.config import Settings
from app.serving.drafter_registry import DEFAULT_DRAFT_TOKENS, DRAFTERS, MODES
from app.serving.drafters import ModelDrafter, NgramDrafter, RetrievalDrafter
from app.serving.model import MAX_INVARIANT_ROWS


def test_settings_accept_exactly_the_registered_modes() -> None:
    for mode in MODES:
        assert Settings(speculative=mode).speculative == mode
    with pytest.raises(ValidationError, match="draft_model"):
        Settings(speculative="draft")  # the old name of draft_model


def test_serve_choices_are_the_registry() -> None:
    parser = argparse.ArgumentParser()
    serve.register(parser.add_subparsers())
    assert parser.parse_args(["serve", "--speculative", "draft_model"]).speculative == "draft_model"
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--speculative", "draft"])


def test_each_drafter_reports_its_mode_name() -> None:
    methods = {cls.method for cls in (NgramDrafter, RetrievalDrafter, ModelDrafter)}
    assert methods == set(DRAFTERS) - {"off"}


def test_the_default_draft_length_fits_a_lossless_verify_pass() -> None:
    assert DEFAULT_DRAFT_TOKENS + 1 < MAX_INVARIANT_ROWS
    assert Settings().num_speculative_tokens == DEFAULT_DRAFT_TOKENS


def test_the_server_and_its_engine_default_to_the_settings_draft_length() -> None:
    """`lexspec serve` passes Settings' length; a ServeOptions or an Engine built without one
    (benchmarks, tests) drafts the same number, not a second, older default."""
    import inspect
    from pathlib import Path

    from app.serving.launch import ServeOptions
    from app.serving.speculative import Engine

    assert ServeOptions(Path("m.gguf"), "m").num_speculative_tokens == DEFAULT_DRAFT_TOKENS
    k_max = inspect.signature(Engine).parameters["k_max"].default
    assert k_max == DEFAULT_DRAFT_TOKENS
