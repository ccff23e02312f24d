"""A revision's DOCX with Word tracked changes: the XML Word reads, reopened with python-docx."""

from __future__ import annotations

import datetime as dt
import io
import shutil
import subprocess
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn

from app.config import REPO_ROOT
from app.export.docx_writer import ExportMeta
from app.export.tracked import tracked_docx

REFERENCE = REPO_ROOT / "templates" / "reference.docx"
META = ExportMeta(title="数据出境安全评估申报表填写指南", matter_ref="LX-1", client="甲公司")
WHEN = dt.datetime(2026, 12, 1, 3, 30, tzinfo=dt.UTC)

MODEL = """# 填写指南
一、申报主体
依据《合同法》第五十二条办理。
多余的一段，律师删除了。
二、材料
1. 申报书。
"""
REVISION = """# 填写指南
一、申报主体
依据《民法典》第五十二条办理。
二、材料
1. 申报书。
2. 自评估报告。
"""


def _build(model: str = MODEL, revision: str = REVISION) -> docx.document.Document:
    data = tracked_docx(model, revision, meta=META, author="张律师", date=WHEN, reference=REFERENCE)
    return docx.Document(io.BytesIO(data))


def _all_text(element) -> str:
    return "".join(t.text or "" for t in element.iter(qn("w:t"), qn("w:delText")))


def _texts(element, tag: str) -> list[str]:
    return ["".join(t.text or "" for t in m.iter(qn(tag))) for m in element]


def test_insertions_and_deletions_are_tracked_with_author_and_date() -> None:
    body = _build().element.body
    inserted = [m for m in body.iter(qn("w:ins")) if m.getparent().tag == qn("w:p")]
    deleted = [m for m in body.iter(qn("w:del")) if m.getparent().tag == qn("w:p")]
    assert _texts(inserted, "w:t") == ["民法典", "2. 自评估报告。"]
    assert _texts(deleted, "w:delText") == ["合同法", "多余的一段，律师删除了。"]
    for mark in [*inserted, *deleted]:
        assert mark.get(qn("w:author")) == "张律师"
        assert mark.get(qn("w:date")) == "2026-12-01T03:30:00Z"
    ids = [m.get(qn("w:id")) for m in body.iter(qn("w:ins"), qn("w:del"))]
    assert len(ids) == len(set(ids))
    assert not [t for t in body.iter(qn("w:t")) if t.getparent().getparent().tag == qn("w:del")]


def test_whole_paragraphs_track_their_paragraph_mark() -> None:
    doc = _build()
    gone = next(p for p in doc.paragraphs if "多余的一段" in _all_text(p._p))
    assert gone._p.pPr.find(qn("w:rPr")).find(qn("w:del")) is not None
    new = next(p for p in doc.paragraphs if _all_text(p._p) == "2. 自评估报告。")
    assert new._p.pPr.find(qn("w:rPr")).find(qn("w:ins")) is not None


def test_accepting_gives_the_revision_and_rejecting_gives_the_model_text() -> None:
    doc = _build()
    accepted, rejected = [], []
    for p in doc.paragraphs[1:]:  # after the title
        props = p._p.pPr.find(qn("w:rPr")) if p._p.pPr is not None else None
        mark = None if props is None else props[0].tag
        new = "".join(t.text for t in p._p.iter(qn("w:t")))
        old = "".join(
            t.text
            for t in p._p.iter(qn("w:t"), qn("w:delText"))
            if t.getparent().getparent().tag != qn("w:ins")
        )
        if mark != qn("w:del"):
            accepted.append(new)
        if mark != qn("w:ins"):
            rejected.append(old)
    assert accepted == [line.lstrip("# ") for line in REVISION.splitlines()]
    assert rejected == [line.lstrip("# ") for line in MODEL.splitlines()]


def test_title_from_type_and_matter_and_the_document_asks_word_to_keep_tracking() -> None:
    doc = _build()
    assert (doc.paragraphs[0].style.name, doc.paragraphs[0].text) == (
        "Title",
        "数据出境安全评估申报表填写指南（甲公司，LX-1）",
    )
    assert doc.settings.element.find(qn("w:trackRevisions")) is not None


def test_unchanged_revision_has_no_marks_and_bold_survives() -> None:
    text = "一、主体\n第五条 **应当**申报。\n"
    body = _build(text, text).element.body
    assert not list(body.iter(qn("w:ins"), qn("w:del")))
    bold = [r for r in body.iter(qn("w:r")) if r.find(qn("w:rPr")) is not None]
    assert any("应当" in _all_text(r) for r in bold)


def test_a_changed_table_is_deleted_rows_and_an_inserted_table() -> None:
    old = "| 项目 | 数量 |\n|---|---|\n| 个人信息 | 10万 |\n"
    new = "| 项目 | 数量 |\n|---|---|\n| 个人信息 | 20万 |\n"
    doc = _build(old, new)
    cell = doc.tables[0].cell(1, 1)._tc
    assert len(doc.tables) == 1 and _all_text(cell) == "20万"
    assert cell.find(".//" + qn("w:ins")) is not None
    deleted = _texts(list(doc.element.body.iter(qn("w:del"))), "w:delText")
    assert "个人信息 | 10万" in deleted


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) not installed")
def test_libreoffice_reads_the_marks_as_tracked_changes(tmp_path: Path) -> None:
    """A headless LibreOffice conversion to ODT keeps every mark as a tracked change."""
    import re
    import zipfile

    source = tmp_path / "tracked.docx"
    data = tracked_docx(MODEL, REVISION, meta=META, author="张律师", date=WHEN, reference=REFERENCE)
    source.write_bytes(data)
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--headless",
         "--convert-to", "odt", "--outdir", str(tmp_path), str(source)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    content = zipfile.ZipFile(tmp_path / "tracked.odt").read("content.xml").decode("utf-8")
    regions = re.findall(r"<text:changed-region.*?</text:changed-region>", content, re.S)
    kinds = [re.search(r"<text:(insertion|deletion)>", r).group(1) for r in regions]  # type: ignore[union-attr]
    assert kinds.count("insertion") >= 2 and kinds.count("deletion") >= 2
    assert all("张律师" in r for r in regions)
    deleted = " ".join(r for r in regions if "<text:deletion>" in r)
    assert "合同法" in deleted and "多余的一段" in deleted
