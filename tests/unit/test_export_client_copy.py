"""The client copy, lawyer-readable file names and the tracked copy's comments, each read back
from the DOCX with python-docx (#40 item 4)."""

from __future__ import annotations

import datetime as dt
import io

import docx
import pytest
from docx.oxml.ns import qn

from app.config import REPO_ROOT
from app.domain import Finding
from app.export.docx_writer import ExportMeta, client_copy_docx, draft_to_docx
from app.export.naming import export_name
from app.export.tracked import tracked_docx

REFERENCE = REPO_ROOT / "templates" / "reference.docx"
TITLE = "《数据出境安全评估申报表》填写指南"
META = ExportMeta(
    title=TITLE,
    matter_ref="MC-2025-017",
    client="上海明川跨境电子商务有限公司",
    author="张律师",
    created=dt.datetime(2026, 12, 3, 9, 0),
    generation_id=17,
    template_hash="abc123",
    doc_date=dt.date(2025, 3, 15),
)
# an outline draft opens with its own cover: title, addressee, date
DRAFT = f"""{TITLE}
致：上海明川跨境电子商务有限公司
日期：2025年3月15日
【适用情形】
一、基本情况
（一）公司名称：上海明川跨境电子商务有限公司
依据《中华人民共和国合同法》第五十二条办理。
"""
WRONG = DRAFT.index("《中华人民共和国合同法》")
FINDING = Finding(
    code="citation.repealed",
    severity="error",
    start=WRONG,
    end=WRONG + len("《中华人民共和国合同法》"),
    message_zh="《中华人民共和国合同法》已废止",
    message_en="repealed",
    suggestion="《中华人民共和国民法典》",
)


def _open(data: bytes) -> docx.document.Document:
    return docx.Document(io.BytesIO(data))


def _body_text(doc: docx.document.Document) -> str:
    return "\n".join(p.text for p in doc.paragraphs)


def test_the_client_copy_has_title_addressee_matter_and_date_and_nothing_of_the_checks() -> None:
    doc = _open(client_copy_docx(DRAFT, meta=META, reference=REFERENCE))
    lines = [p.text for p in doc.paragraphs if p.text]
    assert lines[:4] == [
        TITLE,
        "致：上海明川跨境电子商务有限公司",
        "案号：MC-2025-017",
        "日期：2025年3月15日",
    ]
    assert lines[4] == "【适用情形】"  # the draft's own cover gave way, nothing doubled
    assert _body_text(doc).count(TITLE) == 1 and _body_text(doc).count("致：") == 1
    text = _body_text(doc)
    for absent in ("附录", "Appendix", "citation.", "校验", "LexSpec"):
        assert absent not in text, absent
    assert all(not r.reltype.endswith("/comments") for r in doc.part.rels.values())
    header = " ".join(p.text for p in doc.sections[0].header.paragraphs)
    assert "MC-2025-017" in header and "草稿" not in header and "DRAFT" not in header
    props = doc.core_properties
    assert props.title == TITLE and props.author == "张律师"
    assert not props.keywords and not props.comments and not props.identifier
    assert "abc123" not in (props.keywords + props.comments + props.identifier)


def test_the_client_copy_dates_a_draft_without_a_date_by_its_making() -> None:
    meta = ExportMeta(title=TITLE, client="甲公司", created=dt.datetime(2026, 12, 3, 9, 0))
    doc = _open(client_copy_docx("【适用情形】\n一、基本情况", meta=meta, reference=REFERENCE))
    assert [p.text for p in doc.paragraphs][1:3] == ["致：甲公司", "日期：2026年12月3日"]


def test_the_review_copy_keeps_its_comments_and_writes_the_title_once() -> None:
    doc = _open(draft_to_docx(DRAFT, meta=META, findings=[FINDING], reference=REFERENCE))
    titles = [p.text for p in doc.paragraphs if TITLE in p.text]
    assert len(titles) == 1 and "MC-2025-017" in titles[0]
    assert any(r.reltype.endswith("/comments") for r in doc.part.rels.values())


def test_the_tracked_copy_keeps_the_comments_on_the_revisions_text() -> None:
    model = DRAFT.replace("依据《中华人民共和国合同法》第五十二条办理。", "依据原文办理。")
    data = tracked_docx(
        model,
        DRAFT,
        meta=META,
        author="张律师",
        date=dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.UTC),
        findings=[FINDING],
        reference=REFERENCE,
    )
    doc = _open(data)
    body = doc.element.body
    starts = list(body.iter(qn("w:commentRangeStart")))
    assert len(starts) == 1
    comment_id = starts[0].get(qn("w:id"))
    # the comment covers exactly the statute's name, which the lawyer inserted
    anchored, inside = [], False
    for element in body.iter():
        if element.tag == qn("w:commentRangeStart") and element.get(qn("w:id")) == comment_id:
            inside = True
        elif element.tag == qn("w:commentRangeEnd") and element.get(qn("w:id")) == comment_id:
            inside = False
        elif inside and element.tag == qn("w:t"):
            anchored.append(element.text or "")
    assert "".join(anchored) == "《中华人民共和国合同法》"
    comments = next(
        r.target_part for r in doc.part.rels.values() if r.reltype.endswith("/comments")
    )
    assert "已废止" in comments.blob.decode("utf-8")
    assert list(body.iter(qn("w:ins"))) and list(body.iter(qn("w:del")))


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"client": "上海明川跨境电子商务有限公司", "copy": "client"},
            "上海明川跨境电子商务有限公司 — 《数据出境安全评估申报表》填写指南 — 2025-03-15.docx",
        ),
        (
            {"client": "上海明川跨境电子商务有限公司", "copy": "review", "revision": 2},
            "上海明川跨境电子商务有限公司 — 《数据出境安全评估申报表》填写指南 — 2025-03-15 — 第2稿（审阅稿）.docx",
        ),
        (
            {"client": "甲/乙:公司*", "copy": "tracked", "revision": 1, "ext": "docx"},
            "甲 乙 公司 — 《数据出境安全评估申报表》填写指南 — 2025-03-15 — 第1稿（修订痕迹）.docx",
        ),
        ({"client": "", "ext": "md"}, "《数据出境安全评估申报表》填写指南 — 2025-03-15.md"),
    ],
)
def test_file_names_read_client_document_date(kwargs: dict[str, object], expected: str) -> None:
    name = export_name(title=TITLE, day=dt.date(2025, 3, 15), **kwargs)  # type: ignore[arg-type]
    assert name == expected
    assert "standard-contract" not in name and "-r" not in name
