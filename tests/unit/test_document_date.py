"""The document's date (the form's date field where the type has one, today otherwise) reaches
citation.not_in_force and the statute versions through every check call: the draft service
(page and `lexspec draft`), `lexspec check --date` and `lexspec export --date`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import docx
import pytest

from app.cli import main
from app.config import get_settings
from app.context import Context
from app.domain import GenerationParams, RenderedPrompt
from app.drafting.checking import check
from app.drafting.context import DraftContext
from app.drafting.freeform import stream_draft
from app.knowledge import Knowledge
from app.prompts import load_library
from tests.fakes import FakeClient

NOT_IN_FORCE = "citation.not_in_force"
# 个人信息出境认证办法 is in force from 2026-01-01; 网络安全法 第八十条 exists only in the text
# in force from 2026-01-01 (the 2016 text has 79 articles)
DRAFT = "【适用情形】\n依据《个人信息出境认证办法》第五条办理认证。\n另见《网络安全法》第八十条。\n"
BEFORE, AFTER = dt.date(2025, 6, 1), dt.date(2026, 6, 1)
LIBRARY = load_library(Path(__file__).resolve().parents[2] / "prompts")


@pytest.mark.parametrize(
    ("type_id", "values", "expected"),
    [
        ("cross-border-filing-guide", {"filing_date": "2025-03-15"}, dt.date(2025, 3, 15)),
        ("cross-border-filing-guide", {"filing_date": " 2025-03-15 "}, dt.date(2025, 3, 15)),
        ("cross-border-filing-guide", {"filing_date": ""}, None),  # optional, left empty
        ("cross-border-filing-guide", {}, None),
        ("cross-border-filing-guide", {"filing_date": "2025/03/15"}, None),
        (
            "standard-contract-filing",
            {"contract_effective_date": "2025-04-01"},
            dt.date(2025, 4, 1),
        ),
        ("clause-continuation", {"clause": "第八条 数据安全"}, None),  # no date field
        ("confidentiality-agreement-points", {"term_months": "36"}, None),
    ],
)
def test_document_date_is_the_forms_date_field(
    type_id: str, values: dict[str, str], expected: dt.date | None
) -> None:
    assert LIBRARY.types[type_id].document_date(values) == expected


def _codes(result: object) -> list[str]:
    return [f.code for f in result.findings]  # type: ignore[attr-defined]


def _context(day: dt.date) -> DraftContext:
    rendered = RenderedPrompt("cross-border-filing-guide", "t", "1", "ab" * 32, "s", "u")
    return DraftContext(
        doc_type_id=rendered.doc_type,
        values={},
        required_sections=("【适用情形】",),
        doc_date=day,
        rendered=rendered,
        params=GenerationParams(),
    )


def test_the_check_uses_the_document_date() -> None:
    assert _codes(check(_context(BEFORE), DRAFT)).count(NOT_IN_FORCE) == 2
    assert NOT_IN_FORCE not in _codes(check(_context(AFTER), DRAFT))


@pytest.mark.parametrize(("day", "flagged"), [(BEFORE, 2), (AFTER, 0)])
def test_streamed_draft_is_checked_on_the_document_date(day: dt.date, flagged: int) -> None:
    pieces = [DRAFT[i : i + 9] for i in range(0, len(DRAFT), 9)]
    run = stream_draft(
        FakeClient(pieces), _context(day), endpoint_name="embedded", check_every_chars=10
    )
    updates = list(run)
    checks = [u.check for u in updates if u.check is not None]
    assert len(checks) > 2  # re-checked while streaming, each time on the document's date
    assert _codes(run.outcome().check).count(NOT_IN_FORCE) == flagged
    assert all(_codes(c).count(NOT_IN_FORCE) <= flagged for c in checks)


@pytest.mark.parametrize(
    ("day", "flagged", "version"),
    [("2025-06-01", 2, "2016-11-07通过"), ("2026-06-01", 0, "2025-10-28修正")],
)
def test_check_cli_date_option(
    zh_context: Context,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    day: str,
    flagged: int,
    version: str,
) -> None:
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    assert main(["check", str(draft), "--format", "json", "--date", day], context=zh_context) == 0
    payload = json.loads(capsys.readouterr().out)
    hits = [f for f in payload["findings"] if f["code"] == NOT_IN_FORCE]
    assert len(hits) == flagged
    assert all(day in f["message_zh"] for f in hits)
    csl = next(c for c in payload["citations"] if c["article"] == 80)
    assert csl["version"] == version  # the text in force on the document's date


def test_check_cli_reads_the_texts_own_date_without_date_option(
    zh_context: Context, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --date: the date the text states (出具日期 …) is the document's date, and the output
    says so; --date still wins."""
    draft = tmp_path / "d.md"
    draft.write_text("出具日期：2025年6月1日\n" + DRAFT, encoding="utf-8")
    assert main(["check", str(draft), "--format", "json"], context=zh_context) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["date"] == {
        "date": "2025-06-01", "source": "text", "cue": "出具日期", "start": 5, "end": 14
    }  # fmt: skip
    assert len([f for f in payload["findings"] if f["code"] == NOT_IN_FORCE]) == 2
    assert main(["check", str(draft)], context=zh_context) == 0
    assert "2025-06-01（“出具日期”）" in capsys.readouterr().err
    assert (
        main(["check", str(draft), "--format", "json", "--date", "2026-06-01"], context=zh_context)
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["date"]["source"] == "given" and not payload["findings"]


def test_check_cli_bad_date(zh_context: Context, tmp_path: Path, capsys) -> None:
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    assert main(["check", str(draft), "--date", "2025-13-01"], context=zh_context) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


def _export(tmp_path: Path, text: str, *flags: str, context: Context) -> docx.document.Document:
    draft = tmp_path / "d.md"
    draft.write_text(text, encoding="utf-8")
    out = tmp_path / "d.docx"
    assert main(["export", str(draft), "--out", str(out), *flags], context=context) == 0
    return docx.Document(str(out))


@pytest.mark.parametrize(("day", "flagged"), [("2025-06-01", 2), ("2026-06-01", 0)])
def test_export_findings_on_the_document_date(
    zh_context: Context, tmp_path: Path, day: str, flagged: int
) -> None:
    doc = _export(tmp_path, DRAFT, "--findings", "--date", day, context=zh_context)
    comments = [c.text for c in doc.comments]
    assert sum(NOT_IN_FORCE in c for c in comments) == flagged


@pytest.mark.parametrize(
    ("day", "version", "opening"),
    [
        ("2025-06-01", "2016-11-07通过", "国家网信部门应当统筹协调有关部门"),
        ("2026-06-01", "2025-10-28修正", "关键信息基础设施的运营者在中华人民共和国境内"),
    ],
)
def test_export_appendix_quotes_the_version_in_force_on_the_date(
    zh_context: Context, tmp_path: Path, day: str, version: str, opening: str
) -> None:
    text = "一、依据《网络安全法》第三十九条。\n"
    doc = _export(tmp_path, text, "--cited-articles", "--date", day, context=zh_context)
    paragraphs = [p.text for p in doc.paragraphs]
    start = next(i for i, p in enumerate(paragraphs) if "引用条文" in p)
    appendix = "\n".join(paragraphs[start:])
    assert f"《中华人民共和国网络安全法》第三十九条（{version}" in appendix
    assert opening in appendix


@pytest.mark.parametrize(("filing_date", "flagged"), [("2025-06-01", 2), ("2026-06-01", 0)])
def test_lexspec_draft_checks_on_the_forms_date(
    capsys: pytest.CaptureFixture[str], filing_date: str, flagged: int
) -> None:
    """`lexspec draft` streams through the same service with the date field of its values."""
    from app.commands.draft import _stream
    from app.drafting.context import prepare
    from app.drafting.service import start_draft

    doc = LIBRARY.types["cross-border-filing-guide"]
    values = {**doc.example_values(), "filing_date": filing_date}
    pieces = [DRAFT[i : i + 9] for i in range(0, len(DRAFT), 9)]
    client = FakeClient(pieces)
    prepared = prepare(
        doc, values, knowledge=Knowledge(get_settings().prompts_dir), params=GenerationParams(),
        mode="free-form",
    )  # fmt: skip
    outcome = _stream(start_draft(prepared, client, endpoint_name="embedded"), "zh")
    assert capsys.readouterr().out.strip() == DRAFT.strip()
    assert _codes(outcome.check).count(NOT_IN_FORCE) == flagged
