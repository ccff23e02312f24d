"""The first draft of an installation (issue 40): before its model is measured an endpoint
assembles the vetted clauses, so the draft needs no model at all (here none listens) and says
complete; the page says in a lawyer's words how it writes and why, and shows no codes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import database
from app.config import get_settings
from app.drafting.writing_mode import WritingMeasure, cache_path, save
from app.outline.provenance import part_counts
from tests.integration.test_pages_apptest import DEAD_URL, app_as, make_user
from tests.page_markdown import shown

pytestmark = pytest.mark.integration

# what a lawyer must not read on the page (codes and internals, kept behind the details toggle)
CODES = re.compile(
    r"\((?:adapt|assemble|write)\)|assemble|lexspec doctor|outline\.yaml|max_tokens|finish_reason"
    r"|\bNone\b|[a-z]+\.[a-z_]+_[a-z_]+|\d{4}-\d\d-\d\dT\d\d:\d\d"
)


@pytest.fixture
def unmeasured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh installation whose model server does not answer, writing left to measurement."""
    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", f"sqlite:///{tmp_path / 'app.db'}")
    monkeypatch.setenv("LEXSPEC_LLM_BASE_URL", DEAD_URL)
    monkeypatch.setenv("LEXSPEC_LANG", "zh")
    monkeypatch.delenv("LEXSPEC_LLM_WRITING", raising=False)
    get_settings.cache_clear()
    database.reset()
    yield tmp_path
    get_settings.cache_clear()
    database.reset()


def _shown(at: AppTest) -> list[str]:
    """The lawyer's text on the page: captions, alerts and Markdown outside the details."""
    texts = [c.value for c in at.caption] + [m.value for m in at.markdown]
    texts += [e.value for kind in (at.success, at.warning, at.error, at.info) for e in kind]
    inside = {c.value for x in at.expander for c in x.caption}
    return [shown(t) for t in texts if t not in inside]


def _captions(at: AppTest) -> list[str]:
    return [shown(c.value) for c in at.caption]


def test_the_first_draft_assembles_without_the_model_and_says_complete(unmeasured: Path) -> None:
    at = app_as(make_user("alice", "drafter"))
    banner = [c for c in _captions(at) if "写作方式" in c]
    assert banner and "还没有测量" in banner[0] and "直接采用审定条款" in banner[0]
    at.button(key="draft.fill").click().run()
    at.button(key="draft.go").click().run(timeout=120)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]  # no model was needed (none answers)
    result = at.session_state["draft.result"]
    assert result.status == "complete" and result.text
    assert {o.source for o in result.provenance} <= {"app", "clause"}
    assert any("生成完成" in s.value for s in at.success)
    status = next(c for c in _captions(at) if c.startswith("状态"))
    assert status.startswith("状态：已完成")
    for text in _shown(at):
        assert not CODES.search(text), text


def test_a_measured_model_is_named_with_its_date_in_the_ui_language(unmeasured: Path) -> None:
    measured = WritingMeasure(
        DEAD_URL, "SmolLM2-135M-Instruct@0123abcd", 14, 2, measured_at="2026-12-01T00:00:00+00:00"
    )
    save(measured, cache_path(get_settings()))
    for lang, words in (("zh", "2026年12月"), ("en", "Dec 2026")):
        at = app_as(make_user(f"bob-{lang}", "drafter"), lang=lang)
        banner = next(c for c in _captions(at) if words in c)
        assert "2/14" in banner and "SmolLM2-135M-Instruct" in banner
        assert "@0123abcd" not in banner and "+00:00" not in banner


def test_parts_that_fell_back_read_complete_and_show_no_codes(
    unmeasured: Path, monkeypatch: pytest.MonkeyPatch, llm_base_url: str
) -> None:
    """The real embedded model adapting on a small budget: its cut or failed parts fall back
    to their whole vetted clauses, so the status is complete, saying how many stand as their
    clause, never "truncated"; no code or internal reaches the lawyer's text (issue 40)."""
    monkeypatch.setenv("LEXSPEC_LLM_BASE_URL", llm_base_url)
    monkeypatch.setenv("LEXSPEC_LLM_WRITING", "adapt")
    get_settings.cache_clear()
    at = app_as(make_user("carol", "drafter"))
    at.button(key="draft.fill").click().run()
    at.number_input(key="draft.max_tokens.cross-border-filing-guide").set_value(16).run()
    at.button(key="draft.go").click().run(timeout=600)
    assert not at.exception
    result = at.session_state["draft.result"]
    counts = part_counts(result.provenance, result.parts)
    assert counts.fell_back > 0  # 16 tokens cut an adapted clause: it falls back, whole
    assert (result.status == "truncated") == (counts.truncated > 0), result.error
    status = next(c for c in _captions(at) if c.startswith("状态"))
    if not counts.placeholder and not counts.truncated:
        assert result.status == "complete"
        assert status.startswith(f"状态：已完成（其中 {counts.fell_back} 个部分")
    for text in _shown(at):
        assert not CODES.search(text), text
