"""The official DOCX style: what the filing templates prescribe (说明（四）), read back from the
exported document with python-docx — 四号仿宋 body, 一级标题黑体, 二级标题楷体加黑, 三级标题仿宋加黑,
Times New Roman for digits and letters, fixed 26 pt lines, a two-character first-line indent,
A4 with 2.54 cm / 3.18 cm margins, and the cover with the processor's name and date."""

from __future__ import annotations

import datetime as dt
import importlib.util
import io
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from docx import Document
from docx.enum.text import WD_LINE_SPACING
from docx.oxml.ns import qn
from docx.shared import Cm, Pt

from app.config import REPO_ROOT
from app.drafting.context import checking_context, decide_route
from app.export.docx_writer import ExportError, ExportMeta, draft_to_docx
from app.outline.compose import assemble
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values

PROMPTS = REPO_ROOT / "prompts"


@pytest.fixture(scope="module")
def report() -> tuple[str, ExportMeta]:
    """The self-assessment report of the example (clauses in place of prose) and its meta as
    the Draft page builds it from the draft's context."""
    library = load_library(PROMPTS)
    doc = library.types["self-assessment-report"]
    values = validate_values(doc, doc.example_values())
    outline = load_outlines(PROMPTS, library.types).outlines[doc.id]
    plan = plan_for(outline, doc, values, route=decide_route(doc, values))
    text, _ = assemble(plan.steps, {s.index: s.clause.text for s in plan.steps if s.clause})
    context = replace(checking_context(doc, values), plan=plan)
    header = context.header
    assert header.style == "official" and header.cover_label == "数据处理者名称"
    meta = ExportMeta(
        title=doc.title_zh,
        matter_ref=header.matter_ref,
        client=header.client,
        cover_label=header.cover_label,
        subtitle=header.subtitle,
        doc_date=context.doc_date,
    )
    return text, meta


def _read(data: bytes):  # type: ignore[no-untyped-def]
    return Document(io.BytesIO(data))


def _run_property(doc, style, tag: str, attr: str | None = None):  # type: ignore[no-untyped-def]
    """A run property as Word resolves it: the style, its bases, then the document defaults."""
    while style is not None:
        rpr = style.element.find(qn("w:rPr"))
        found = rpr.find(qn(f"w:{tag}")) if rpr is not None else None
        if found is not None:
            return found.get(qn(f"w:{attr}")) if attr else True
        style = style.base_style
    defaults = doc.styles.element.find(qn("w:docDefaults")).find(qn("w:rPrDefault"))
    found = defaults.find(qn("w:rPr")).find(qn(f"w:{tag}"))
    return (found.get(qn(f"w:{attr}")) if attr else True) if found is not None else None


def _paragraph(doc, text: str):  # type: ignore[no-untyped-def]
    return next(p for p in doc.paragraphs if p.text == text)


def test_the_page_is_a4_with_the_templates_margins(report) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    section = doc.sections[0]

    def cm(length) -> float:  # type: ignore[no-untyped-def]
        return round(length.cm, 2)  # Word stores twips: 3.18 cm is 1803 twips

    assert (cm(section.page_width), cm(section.page_height)) == (21.0, 29.7)
    assert (cm(section.top_margin), cm(section.bottom_margin)) == (2.54, 2.54)
    assert (cm(section.left_margin), cm(section.right_margin)) == (3.18, 3.18)


def test_the_body_is_sihao_fangsong_on_fixed_26pt_lines_indented_two_characters(report) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    body = _paragraph(doc, "〔待客户补充：股权结构、实际控制人、境内外投资情况〕")
    style = body.style
    assert style.name == "Normal"
    assert style.font.size == Pt(14)  # 四号
    assert _run_property(doc, style, "rFonts", "eastAsia") == "仿宋"
    assert style.font.name == "Times New Roman"  # digits and letters (w:ascii)
    assert _run_property(doc, style, "rFonts", "hAnsi") == "Times New Roman"
    form = style.paragraph_format
    assert form.line_spacing_rule == WD_LINE_SPACING.EXACTLY and form.line_spacing == Pt(26)
    assert form.first_line_indent == Pt(28)  # two characters of 14 pt
    ind = style.element.find(qn("w:pPr")).find(qn("w:ind"))
    assert ind.get(qn("w:firstLineChars")) == "200"


@pytest.mark.parametrize(
    ("line", "font", "bold"),
    [
        ("一、自评估工作情况", "黑体", None),  # 一级标题黑体
        ("（一）起止时间", "楷体", True),  # 二级标题楷体加黑
        (
            "1.基本情况简介，包括股权结构、实际控制人、境内外投资情况等",
            "仿宋",
            True,
        ),  # 三级标题仿宋加黑
    ],
)
def test_the_three_heading_levels(report, line: str, font: str, bold: bool | None) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    style = _paragraph(doc, line).style
    assert _run_property(doc, style, "rFonts", "eastAsia") == font
    assert _run_property(doc, style, "b") == bold
    assert style.font.size == Pt(14) and style.font.name == "Times New Roman"
    assert style.paragraph_format.line_spacing == Pt(26)


def test_the_cover_names_the_processor_and_the_date(report) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    texts = [p.text for p in doc.paragraphs]
    assert texts[0] == "数据出境风险自评估报告"
    assert doc.paragraphs[0].style.name == "Title"
    name = "数据处理者名称：上海明川跨境电子商务有限公司（盖章）"
    date = texts.index(name) + 1
    assert texts[date] == "2025年3月15日"
    breaks = doc.paragraphs[date]._p.findall(".//" + qn("w:br"))
    assert [b.get(qn("w:type")) for b in breaks] == ["page"]
    assert texts.index("一、自评估工作情况") > date  # the body starts after the cover


def test_no_draft_mark_only_the_page_number(report) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    section = doc.sections[0]
    assert all("草稿" not in p.text for p in section.header.paragraphs)
    footer = section.footer.paragraphs[0]
    instructions = [t.text for t in footer._p.iter(qn("w:instrText"))]
    assert any("PAGE" in i for i in instructions)
    assert section.different_first_page_header_footer  # the cover is not numbered
    assert all(not p.text for p in section.first_page_footer.paragraphs)


def test_the_data_item_table_is_a_word_table(report) -> None:  # type: ignore[no-untyped-def]
    doc = _read(draft_to_docx(report[0], meta=report[1], style="official"))
    header = [c.text for c in doc.tables[0].rows[0].cells]
    assert header == ["序号", "数据项名称", "内容描述", "出境必要性", "示例", "备注"]
    assert len(doc.tables[0].rows) == 6


def test_the_pia_cover_carries_its_subtitle() -> None:
    meta = ExportMeta(title="个人信息保护影响评估报告", client="甲公司", subtitle="（出境版）",
                      cover_label="个人信息处理者名称")  # fmt: skip
    doc = _read(draft_to_docx("一、出境活动整体情况\n正文。", meta=meta, style="official"))
    texts = [p.text for p in doc.paragraphs]
    assert texts[:2] == ["个人信息保护影响评估报告", "（出境版）"]
    assert "个人信息处理者名称：甲公司（盖章）" in texts
    assert "　　年　　月　　日" in texts  # no date: the template's blank for the processor


def test_any_type_can_be_exported_in_either_style(report) -> None:  # type: ignore[no-untyped-def]
    text = "【适用情形】\n一、基本情况\n（一）公司名称：甲公司\n正文。"
    meta = ExportMeta(title="指南", client="甲公司", doc_date=dt.date(2025, 3, 1))
    standard = _read(draft_to_docx(text, meta=meta))
    assert "草稿" in standard.sections[0].header.paragraphs[0].text
    assert standard.sections[0].top_margin != Cm(2.54)
    official = _read(draft_to_docx(text, meta=meta, style="official"))
    assert "单位名称：甲公司（盖章）" in [p.text for p in official.paragraphs]
    assert _paragraph(official, "一、基本情况").style.name == "Heading 1"
    with pytest.raises(ExportError):
        draft_to_docx(text, meta=meta, style="fancy")


def test_committed_official_reference_matches_its_build_script(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    script = REPO_ROOT / "templates" / "build_reference.py"
    spec = importlib.util.spec_from_file_location("build_reference", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "build_reference", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    rebuilt = module.build(module.OFFICIAL)
    committed = Path(module.OFFICIAL.output).read_bytes()
    with zipfile.ZipFile(io.BytesIO(rebuilt)) as new, zipfile.ZipFile(io.BytesIO(committed)) as old:
        for name in ("word/styles.xml", "word/document.xml", "word/settings.xml"):
            assert new.read(name) == old.read(name), f"{name}: run templates/build_reference.py"


def test_lexspec_export_takes_the_types_style_or_style(report, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.cli import main

    draft = tmp_path / "report.md"
    draft.write_text(report[0], encoding="utf-8")
    out = tmp_path / "report.docx"
    common = ["export", str(draft), "--out", str(out), "--client", "上海明川跨境电子商务有限公司"]
    assert main([*common, "--doc-type", "self-assessment-report", "--date", "2025-03-15"]) == 0
    texts = [p.text for p in _read(out.read_bytes()).paragraphs]
    assert texts[0] == "数据出境风险自评估报告" and "2025年3月15日" in texts
    assert "数据处理者名称：上海明川跨境电子商务有限公司（盖章）" in texts
    assert main([*common, "--doc-type", "self-assessment-report", "--style", "standard"]) == 0
    assert "草稿" in _read(out.read_bytes()).sections[0].header.paragraphs[0].text
    assert main([*common, "--style", "official"]) == 0  # any text, no type
    assert "单位名称：上海明川跨境电子商务有限公司（盖章）" in [
        p.text for p in _read(out.read_bytes()).paragraphs
    ]
