"""`lexspec review` on a real database (temp SQLite; PostgreSQL when it answers): the 2024
template reviewed and recorded in the audit chain as `document.reviewed` (file, SHA-256, date
used, findings, who), the annotated DOCX written, a folder re-vetted in one table, and files
that cannot be read refused in one line (JSON with --format json), exit 2."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.cli import main
from app.domain import EventKind
from audit import store
from tests.review_docs import policy_docx

pytestmark = pytest.mark.integration


@pytest.fixture
def ctx(make_context, db_session_factory):
    from audit.users import create_user

    with db_session_factory.begin() as session:
        create_user("alice", "drafter", "correct horse battery", session=session)
        create_user("rita", "reviewer", "correct horse battery", session=session)
    return make_context(db_session_factory, lang="zh", statutes_file=None)


def _events(ctx) -> list[store.AuditEvent]:
    with ctx.session_factory() as session:
        return store.list_events(session=session, kind=EventKind.DOCUMENT_REVIEWED)


def test_a_file_is_reviewed_recorded_and_annotated(ctx, tmp_path: Path, capsys) -> None:
    import docx

    source = tmp_path / "policy.docx"
    source.write_bytes(policy_docx())
    out = tmp_path / "policy.reviewed.docx"
    code = main(["review", str(source), "--out", str(out), "--tracked", "--as", "alice"],
                context=ctx)  # fmt: skip
    printed = capsys.readouterr()
    assert code == 1  # the out-of-range article is an error
    assert "2024-05-20" in printed.out and "第九十九条" in printed.out
    assert "citation.renumbered" in printed.out  # outdated today, listed apart
    assert len(docx.Document(str(out)).comments) == 2
    [event] = _events(ctx)
    assert event.actor == "alice"
    payload = event.payload
    assert payload["file"] == "policy.docx" and payload["date"] == "2024-05-20"
    assert payload["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert payload["findings"]["error"] == 1 and payload["outdated"] == {"citation.renumbered": 1}
    assert not (ctx.settings.data_dir / "review-uploads").exists()  # retention 0: not stored


def test_json_and_a_date_given(ctx, tmp_path: Path, capsys) -> None:
    source = tmp_path / "policy.docx"
    source.write_bytes(policy_docx())
    code = main(["review", str(source), "--date", "2026-06-01", "--format", "json",
                 "--as", "alice"], context=ctx)  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["date"]["source"] == "given"
    assert {f["code"] for f in data["findings"]} >= {"citation.renumbered"}
    assert all("paragraph" in f and "【" in f["passage"] for f in data["findings"])


@pytest.mark.parametrize(
    ("name", "data"),
    [("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)), ("empty.docx", b""),
     ("broken.docx", b"PK\x03\x04 broken")],
)  # fmt: skip
def test_bad_files_are_one_line_and_exit_2(
    ctx, tmp_path: Path, capsys, name: str, data: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert main(["review", str(path), "--as", "alice"], context=ctx) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and len(printed.err.strip().splitlines()) == 1
    assert name in printed.err and "Traceback" not in printed.err
    assert main(["review", str(path), "--format", "json", "--as", "alice"], context=ctx) == 2
    refused = json.loads(capsys.readouterr().out)
    assert refused["file"] == name and refused["refused"]["en"]
    assert _events(ctx) == []  # nothing recorded, nothing stored


def test_a_folder_is_one_table_and_outdir_holds_the_annotated_files(
    ctx, tmp_path: Path, capsys
) -> None:
    folder, outdir = tmp_path / "templates", tmp_path / "out"
    folder.mkdir()
    (folder / "policy.docx").write_bytes(policy_docx())
    (folder / "memo.md").write_text("第一条 依据《合同法》第五十二条。\n", encoding="utf-8")
    (folder / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
    code = main(["review", str(folder), "--out", str(outdir), "--as", "alice"], context=ctx)
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 2  # old.doc refused; the others reviewed
    assert lines[0].startswith("文件 / File\t核对日期 / Date used")
    rows = {line.split("\t")[0]: line.split("\t") for line in lines[1:]}
    assert rows["policy.docx"][1:4] == ["2024-05-20", "1", "0"]
    assert rows["memo.md"][3] == "0" and "citation.repealed" in rows["memo.md"][4]
    assert "拒绝" in rows["old.doc"][4]
    assert sorted(p.name for p in outdir.iterdir()) == [
        "memo.review.md", "policy.review.md", "policy.reviewed.docx",
    ]  # fmt: skip
    assert len(_events(ctx)) == 2


def test_a_reviewer_may_not_review_documents(ctx, tmp_path: Path, capsys) -> None:
    source = tmp_path / "policy.docx"
    source.write_bytes(policy_docx())
    assert main(["review", str(source), "--as", "rita"], context=ctx) == 2
    assert "drafter" in capsys.readouterr().err and _events(ctx) == []


def test_retention_keeps_the_upload_and_purges_it_later(
    make_context, db_session_factory, tmp_path: Path
) -> None:
    import datetime as dt
    import os

    from app.review.retention import purge_uploads, uploads_dir
    from audit.users import create_user

    with db_session_factory.begin() as session:
        create_user("alice", "drafter", "correct horse battery", session=session)
    ctx = make_context(db_session_factory, review_retention_days=30, statutes_file=None)
    source = tmp_path / "policy.docx"
    source.write_bytes(policy_docx())
    assert main(["review", str(source), "--as", "alice"], context=ctx) == 1
    [kept] = list(uploads_dir(ctx.settings).iterdir())
    assert kept.read_bytes() == source.read_bytes() and kept.stat().st_mode & 0o077 == 0
    now = dt.datetime.now(dt.UTC)
    assert purge_uploads(settings=ctx.settings, now=now) == 0
    old = now.timestamp() - 31 * 86400
    os.utime(kept, (old, old))
    assert purge_uploads(settings=ctx.settings, now=now) == 1 and not kept.exists()
