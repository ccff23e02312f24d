"""The facts check runs live while a transfer draft streams, and its findings become Word
comments in the DOCX (a replayed stream; the draft run, checker and DOCX writer are real)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import docx

from app.config import REPO_ROOT
from app.drafting.checking import check
from app.drafting.context import checking_context, prepare
from app.drafting.freeform import stream_draft
from app.export.docx_writer import ExportMeta, draft_to_docx
from app.knowledge import Knowledge
from app.prompts import load_library
from tests.fakes import FakeClient
from tests.unit.test_export_docx import commented_text

FIXTURES = Path(__file__).parent / "facts_fixtures"
VALUES = json.loads((FIXTURES / "filing-guide.facts.json").read_text(encoding="utf-8"))
WRONG = (FIXTURES / "wrong-route.md").read_text(encoding="utf-8") + "该公司涉及150万人。\n"


def _context():  # type: ignore[no-untyped-def]
    doc = load_library(REPO_ROOT / "prompts").types["cross-border-filing-guide"]
    values = {**doc.example_values(), **VALUES}
    return prepare(doc, values, knowledge=Knowledge(REPO_ROOT / "prompts"), mode="free-form")


def test_the_route_mismatch_shows_while_streaming_not_only_at_the_end() -> None:
    pieces = [WRONG[i : i + 10] for i in range(0, len(WRONG), 10)]
    run = stream_draft(
        FakeClient(pieces),
        _context(),
        endpoint_name="fake",
        check_every_chars=20,
    )
    live = []
    for update in run:
        if update.check is not None and len(update.text) < len(WRONG):
            live.append({f.code for f in update.check.findings})
    assert any("facts.route_mismatch" in codes for codes in live)
    final = {f.code for f in run.outcome().check.findings}  # type: ignore[union-attr]
    assert {"facts.route_mismatch", "facts.number_mismatch"} <= final
    assert "facts.route_mismatch" in {f["code"] for f in run.outcome().findings}  # audit log


def test_a_type_without_transfer_facts_gets_no_facts_check() -> None:
    context = checking_context(None, {"clause": "第一条"})
    assert context.facts is None and context.route is None
    assert not [f for f in check(context, WRONG).findings if f.code.startswith("facts.")]


def test_facts_findings_are_word_comments_on_their_spans() -> None:
    found = check(checking_context(None, VALUES), WRONG)
    facts = [f for f in found.findings if f.code.startswith("facts.")]
    assert len(facts) == 2
    data = draft_to_docx(WRONG, meta=ExportMeta(title="指南"), findings=facts)
    exported = docx.Document(io.BytesIO(data))
    comments = list(exported.comments)
    ranges = commented_text(exported)
    for comment, finding in zip(comments, facts, strict=True):
        assert finding.code in comment.text
        assert ranges[comment.comment_id] == WRONG[finding.start : finding.end].strip()
