"""Reading a document as its reader sees it: Word's automatic numbering rendered, tables cell
by cell, headers and footers after the body, offsets mapped back to runs; and every file that
cannot be read refused with one line."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest

from app.review.numbering import format_number
from app.review.reader import OLE_HEADER, Refused, read_document
from tests.review_docs import CSL_37, FOOTER, HEADER, policy_docx

LIMIT = 5 * 1024 * 1024


@pytest.mark.parametrize(
    ("n", "fmt", "shown"),
    [
        (1, "decimal", "1"),
        (12, "chineseCounting", "十二"),
        (105, "chineseCountingThousand", "一百零五"),
        (3, "ideographTraditional", "丙"),
        (4, "upperRoman", "IV"),
        (27, "lowerLetter", "aa"),
        (2, "decimalEnclosedCircle", "②"),
        (7, "decimalZero", "07"),
    ],
)
def test_word_number_formats(n: int, fmt: str, shown: str) -> None:
    assert format_number(n, fmt) == shown


def test_the_policy_reads_as_its_reader_sees_it() -> None:
    doc = read_document(policy_docx(), "policy.docx", max_bytes=LIMIT)
    lines = doc.text.split("\n")
    assert lines[0] == "数据出境管理制度"
    assert lines[1].startswith("第一条 为规范公司数据出境活动") and CSL_37 in lines[1]
    assert lines[2].startswith("第二条 向境外提供个人信息的")
    assert lines[3].startswith("（一）本制度所称个人信息") and lines[4].startswith("（二）本制度由")
    assert lines[5].startswith("第三条 本制度未尽事宜")  # the level-0 count carries on
    assert lines[6:10] == ["事项", "依据", "个人信息出境", "《个人信息保护法》第三十八条"]
    assert lines[10:] == [HEADER, FOOTER]
    assert doc.furniture == f"{HEADER}\n{FOOTER}"
    assert [p.place for p in doc.paragraphs][-2:] == ["header", "footer"]
    assert doc.properties_date is not None


def test_offsets_map_back_to_runs() -> None:
    doc = read_document(policy_docx(), "policy.docx", max_bytes=LIMIT)
    start = doc.text.index(CSL_37)
    span = doc.paragraph_at(start)
    assert span is not None and span.label == "第一条 "
    runs = [r for r in span.runs if r.start < start + len(CSL_37) and r.end > start]
    assert [doc.text[r.start : r.end] for r in runs] == ["《网络安全法》第三", "十七条"]


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _blank_docx() -> bytes:
    buffer = io.BytesIO()
    docx.Document().save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("old.doc", OLE_HEADER + b"\x00" * 600, "legacy_doc"),
        ("locked.docx", OLE_HEADER + b"\x00" * 600, "encrypted"),
        ("broken.docx", b"PK\x03\x04 this is not a zip at all", "corrupt"),
        ("notword.docx", _zip({"hello.txt": b"hi"}), "corrupt"),
        ("bomb.docx", _zip({"word/document.xml": b"<" + b"a" * (30 * 1024 * 1024)}), "bomb"),
        ("blank.docx", _blank_docx(), "empty"),
        ("empty.txt", b"", "empty"),
        ("spaces.md", "  \n\u3000\n".encode(), "empty"),
        ("big.txt", "条".encode() * (LIMIT // 3 + 1), "too_large"),
        ("binary.txt", b"\x00\x01\x02 abc", "not_text"),
        ("scan.pdf", b"%PDF-1.7", "unsupported"),
    ],
)
def test_what_cannot_be_read_is_refused_in_one_line(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(Refused) as caught:
        read_document(data, name, max_bytes=LIMIT)
    assert caught.value.reason == reason
    for lang in ("zh", "en"):
        line = caught.value.message(lang)
        assert name in line and "\n" not in line and "docreview." not in line


def test_text_files_in_gb18030_and_markdown_are_read() -> None:
    text = "第一条 依据《个人信息保护法》第三十八条。\n第二条 完。"
    doc = read_document(text.encode("gb18030"), "memo.txt", max_bytes=LIMIT)
    assert doc.text == text and doc.kind == "txt" and len(doc.paragraphs) == 2
    md = read_document(text.encode(), "memo.md", max_bytes=LIMIT)
    assert md.kind == "md" and md.paragraph_at(md.text.index("第二条")).index == 1  # type: ignore[union-attr]
