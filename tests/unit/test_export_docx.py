"""DOCX export: reopen the produced file with python-docx and check what a reader gets."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from docx.shared import Pt
from hypothesis import given, settings
from hypothesis import strategies as st

from app.config import REPO_ROOT
from app.domain import Finding
from app.export.docx_writer import ExportError, ExportMeta, document_title, draft_to_docx
from app.export.structure import parse_draft

REFERENCE = REPO_ROOT / "templates" / "reference.docx"

GUIDE = """# 数据出境安全评估申报表填写指南

【适用情形】
一、需要申报安全评估的情形
（一）关键信息基础设施运营者向境外提供个人信息或者重要数据。
（二）关键信息基础设施运营者以外的数据处理者向境外提供重要数据，或者自当年1月1日起累计向境外提供100万人以上个人信息（不含敏感个人信息）或者1万人以上敏感个人信息。
依据：《促进和规范数据跨境流动规定》第七条。
二、无需申报的情形
1. 为订立、履行个人作为一方当事人的合同，确需向境外提供个人信息的；
2. 按照依法制定的劳动规章制度和依法签订的集体合同实施跨境人力资源管理，确需向境外提供员工个人信息的；
3. 紧急情况下为保护自然人的生命健康和财产安全，确需向境外提供个人信息的。

【材料清单】
一、申报材料
（一）申报书；
（二）数据出境风险自评估报告；
（三）数据处理者与境外接收方拟订立的法律文件；
（四）安全评估工作需要的其他材料。
上述材料依据《数据出境安全评估办法》第六条准备。
二、填写要点
1. 申报书应加盖公章，并由法定代表人签字。
2. 自评估报告应当重点说明：
(1) 数据出境的目的、范围、方式的合法性、正当性、必要性；
(2) 出境数据的规模、范围、种类、敏感程度；
(3) 境外接收方承诺承担的责任义务。

【常见错误】
一、引用错误
（一）引用已废止的法律，例如依据《合同法》第五十二条主张合同无效，应改为《中华人民共和国民法典》的相关条款。
（三）条文序号超出范围，例如引用《个人信息出境标准合同办法》第十五条。
二、材料不全
1. 未提交法律文件的**中文译本**。
2. 自评估报告与申报书记载的出境数据规模不一致。
"""

META = ExportMeta(
    title="数据出境安全评估申报表填写指南",
    matter_ref="LX-2026-0415",
    client="华东某医疗科技有限公司",
    author="张律师",
    created=dt.datetime(2026, 11, 30, 9, 30, tzinfo=dt.UTC),
    generation_id="4711",
    template_hash="9f2c1e0b7d",
)


def _finding(text: str, needle: str, code: str, severity: str = "error", nth: int = 0) -> Finding:
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return Finding(
        code=code,
        severity=severity,  # type: ignore[arg-type]
        start=start,
        end=start + len(needle),
        message_zh=f"问题：{needle}",
        message_en=f"Problem: {code}",
        suggestion="请核对 / please check",
    )


FINDINGS = (
    _finding(GUIDE, "《合同法》第五十二条", "citation.repealed"),
    _finding(GUIDE, "《个人信息出境标准合同办法》第十五条", "citation.article_out_of_range"),
    _finding(GUIDE, "（三）", "numbering.gap", "warning", nth=1),
    _finding(GUIDE, "第七条", "citation.unverified", "info"),
)


def _open(data: bytes) -> docx.document.Document:
    return docx.Document(io.BytesIO(data))


@pytest.fixture(scope="module")
def exported() -> docx.document.Document:
    return _open(draft_to_docx(GUIDE, meta=META, findings=FINDINGS, reference=REFERENCE))


def _paragraph(doc: docx.document.Document, starts: str) -> docx.text.paragraph.Paragraph:
    return next(p for p in doc.paragraphs if p.text.startswith(starts))


@pytest.mark.parametrize(
    ("starts", "style"),
    [
        ("数据出境安全评估申报表填写指南", "Title"),
        ("【适用情形】", "Heading 1"),
        ("【常见错误】", "Heading 1"),
        ("一、需要申报安全评估的情形", "Heading 2"),
        ("（一）关键信息基础设施运营者向境外", "Normal"),  # a sentence: a paragraph
        ("（二）关键信息基础设施运营者以外", "Normal"),
        # its sibling （四）… ends in 。: the four items take one form, numbered paragraphs
        ("（一）申报书；", "Normal"),
        ("（四）安全评估工作需要的其他材料。", "Normal"),
        ("1. 为订立", "List Item"),
        ("(2) 出境数据的规模", "List Item 2"),
        ("依据：《促进和规范数据跨境流动规定》第七条。", "Normal"),
    ],
)
def test_lines_map_to_styles(exported, starts: str, style: str) -> None:
    assert _paragraph(exported, starts).style.name == style


def test_numbers_kept_as_written_without_auto_numbering(exported) -> None:
    texts = [p.text for p in exported.paragraphs]
    assert "（三）条文序号超出范围，例如引用《个人信息出境标准合同办法》第十五条。" in texts
    assert "3. 紧急情况下为保护自然人的生命健康和财产安全，确需向境外提供个人信息的。" in texts
    assert not exported.element.body.findall(".//" + qn("w:numPr"))


def test_markdown_markers_stripped_and_bold_kept(exported) -> None:
    assert not any(p.text.startswith("#") or "**" in p.text for p in exported.paragraphs)
    paragraph = _paragraph(exported, "1. 未提交法律文件")
    assert paragraph.text == "1. 未提交法律文件的中文译本。"
    assert [r.text for r in paragraph.runs if r.bold] == ["中文译本"]


def _rfonts(style_el) -> dict[str, str]:
    rfonts = style_el.find(qn("w:rPr")).find(qn("w:rFonts"))
    return {k.split("}")[1]: v for k, v in rfonts.attrib.items()}


def test_east_asian_and_latin_fonts_in_styles(exported) -> None:
    defaults = exported.styles.element.find(qn("w:docDefaults"))
    default_fonts = _rfonts(defaults.find(qn("w:rPrDefault")))
    assert default_fonts["eastAsia"] == "仿宋"
    assert default_fonts["ascii"] == default_fonts["hAnsi"] == "Times New Roman"
    assert not any(k.endswith("Theme") or k == "cstheme" for k in default_fonts)
    expected = {"Title": "宋体", "Heading 1": "黑体", "Heading 2": "楷体", "Header": "宋体"}
    for name, east_asia in expected.items():
        assert _rfonts(exported.styles[name].element)["eastAsia"] == east_asia


def test_sizes_spacing_and_page(exported) -> None:
    title = exported.styles["Title"]
    assert title.font.size == Pt(22) and title.font.bold
    assert title.paragraph_format.alignment == 1  # centre
    assert exported.styles["Heading 1"].font.size == Pt(16)
    defaults = exported.styles.element.find(qn("w:docDefaults"))
    assert defaults.find(".//" + qn("w:sz")).get(qn("w:val")) == "32"  # 三号 16 pt
    spacing = defaults.find(".//" + qn("w:spacing"))
    assert (spacing.get(qn("w:line")), spacing.get(qn("w:lineRule"))) == ("560", "exact")
    ind = exported.styles["Normal"].element.find(qn("w:pPr")).find(qn("w:ind"))
    assert ind.get(qn("w:firstLineChars")) == "200"
    section = exported.sections[0]
    measured = (section.page_width, section.page_height, section.left_margin, section.top_margin)
    assert [round(length.mm, 1) for length in measured] == [210, 297, 28, 37]  # A4


def test_header_and_footer_fields(exported) -> None:
    header = exported.sections[0].header.paragraphs[0].text
    assert "LX-2026-0415" in header and "华东某医疗科技有限公司" in header
    assert header.endswith("草稿 / DRAFT — 仅供审阅")
    footer = exported.sections[0].footer.paragraphs[0]._p
    instructions = [t.text.split()[0] for t in footer.iter(qn("w:instrText"))]
    assert instructions == ["PAGE", "NUMPAGES", "PAGE", "NUMPAGES"]
    kinds = [c.get(qn("w:fldCharType")) for c in footer.iter(qn("w:fldChar"))]
    assert kinds == ["begin", "separate", "end"] * 4
    assert "页" in exported.sections[0].footer.paragraphs[0].text


def test_core_properties(exported) -> None:
    props = exported.core_properties
    assert props.title == "数据出境安全评估申报表填写指南（华东某医疗科技有限公司，LX-2026-0415）"
    assert props.author == "张律师"
    assert props.created == dt.datetime(2026, 11, 30, 9, 30, tzinfo=dt.UTC)
    assert props.identifier == "4711"
    assert props.keywords == "lexspec generation:4711 template:9f2c1e0b7d"
    assert "generation_id=4711" in props.comments and "template_hash=9f2c1e0b7d" in props.comments


def commented_text(doc: docx.document.Document) -> dict[int, str]:
    """Comment id → the document text between its commentRangeStart and commentRangeEnd."""
    open_ids: set[int] = set()
    found: dict[int, str] = {}
    for el in doc.element.body.iter(qn("w:commentRangeStart"), qn("w:commentRangeEnd"), qn("w:t")):
        if el.tag == qn("w:commentRangeStart"):
            open_ids.add(int(el.get(qn("w:id"))))
            found[int(el.get(qn("w:id")))] = ""
        elif el.tag == qn("w:commentRangeEnd"):
            open_ids.discard(int(el.get(qn("w:id"))))
        else:
            for cid in open_ids:
                found[cid] += el.text or ""
    return found


def test_comments_cover_exactly_the_finding_spans(exported) -> None:
    comments = list(exported.comments)
    assert len(comments) == len(FINDINGS)
    ranges = commented_text(exported)
    for comment, finding in zip(comments, FINDINGS, strict=True):
        assert ranges[comment.comment_id] == GUIDE[finding.start : finding.end]
        assert finding.code in comment.text and finding.message_zh in comment.text
        assert comment.author == "LexSpec 校验 / Check"


def test_naive_created_is_local_time() -> None:
    local = dt.datetime(2026, 11, 30, 17, 30)
    meta = ExportMeta(title="T", created=local)
    doc = _open(draft_to_docx("正文。", meta=meta, reference=REFERENCE))
    assert doc.core_properties.created == local.astimezone(dt.UTC)


def test_comment_text_has_its_own_small_style(exported) -> None:
    comment = next(iter(exported.comments))
    style = comment.paragraphs[0].style
    assert (style.style_id, style.font.size) == ("CommentText", Pt(10.5))
    assert _rfonts(style.element)["eastAsia"] == "宋体"


def test_comment_spanning_two_paragraphs() -> None:
    start = GUIDE.index("3. 紧急情况")
    end = GUIDE.index("【材料清单】") + len("【材料清单】")
    finding = Finding("structure.odd", "warning", start, end, "跨段", "spans paragraphs")
    doc = _open(draft_to_docx(GUIDE, meta=META, findings=[finding], reference=REFERENCE))
    (comment,) = list(doc.comments)
    assert commented_text(doc)[comment.comment_id] == GUIDE[start:end].replace("\n", "")


def test_appendix_table_lists_findings_in_text_order(exported) -> None:
    table = exported.tables[-1]
    rows = [[c.text for c in row.cells] for row in table.rows]
    assert rows[0][0].startswith("严重程度") and rows[0][4].startswith("建议")
    ordered = sorted(FINDINGS, key=lambda f: f.start)
    assert [r[1].replace("\u200b", "") for r in rows[1:]] == [f.code for f in ordered]
    first = rows[1]
    assert first[0] == "提示 / Info" and "「第七条」" in first[2] and "第 7 行" in first[2]
    assert rows[2][0] == "错误 / Error" and "Problem: citation.repealed" in rows[2][3]
    assert _paragraph(exported, "附录").style.name == "Heading 1"


def test_markdown_table_becomes_a_word_table_with_comments_in_cells() -> None:
    text = (
        "【材料清单】\n"
        "| 材料 | 依据 |\n"
        "|:---|---|\n"
        "| 申报书 | 《数据出境安全评估办法》第六条 |\n"
        "| 标准合同 | 《个人信息出境标准合同办法》第十五条 |\n"
        "上述材料须加盖公章。\n"
    )
    finding = _finding(text, "第十五条", "citation.article_out_of_range")
    doc = _open(draft_to_docx(text, meta=META, findings=[finding], reference=REFERENCE))
    table = doc.tables[0]
    assert [[c.text for c in row.cells] for row in table.rows] == [
        ["材料", "依据"],
        ["申报书", "《数据出境安全评估办法》第六条"],
        ["标准合同", "《个人信息出境标准合同办法》第十五条"],
    ]
    assert table.style.name == "Table Grid"
    assert all(run.bold for run in table.rows[0].cells[0].paragraphs[0].runs)
    assert table.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None
    assert table.rows[1].cells[0].paragraphs[0].style.name == "Table Text"
    assert "上述材料须加盖公章。" in [p.text for p in doc.paragraphs]
    (comment,) = list(doc.comments)
    assert commented_text(doc)[comment.comment_id] == "第十五条"


def test_no_findings_no_comments_or_appendix() -> None:
    doc = _open(draft_to_docx(GUIDE, meta=META, reference=REFERENCE))
    assert len(list(doc.comments)) == 0 and not doc.tables


def test_comments_and_appendix_can_be_turned_off() -> None:
    kwargs = {"meta": META, "findings": FINDINGS, "reference": REFERENCE}
    no_comments = _open(draft_to_docx(GUIDE, comments=False, **kwargs))
    assert len(list(no_comments.comments)) == 0 and len(no_comments.tables) == 1
    no_appendix = _open(draft_to_docx(GUIDE, appendix=False, **kwargs))
    assert len(list(no_appendix.comments)) == len(FINDINGS) and not no_appendix.tables


def test_title_from_meta_when_draft_has_none() -> None:
    text = "【适用情形】\n本指南适用于向境外提供个人信息的数据处理者。"
    doc = _open(draft_to_docx(text, meta=META, reference=REFERENCE))
    assert [(p.style.name, p.text) for p in doc.paragraphs[:2]] == [
        ("Title", "数据出境安全评估申报表填写指南（华东某医疗科技有限公司，LX-2026-0415）"),
        ("Heading 1", "【适用情形】"),
    ]


@pytest.mark.parametrize(
    ("first_line", "style"),
    [
        ("# 模型自拟的标题", "Heading 1"),  # a markdown heading stays a heading
        ("模型自拟的标题", "Normal"),  # a short plain line is body text
        ("一、申报主体", "Heading 2"),  # a numbered line keeps its level
    ],
)
def test_title_comes_from_type_and_matter_not_the_first_line(first_line: str, style: str) -> None:
    doc = _open(draft_to_docx(f"{first_line}\n正文。", meta=META, reference=REFERENCE))
    texts = [(p.style.name, p.text) for p in doc.paragraphs[:2]]
    assert texts == [
        ("Title", "数据出境安全评估申报表填写指南（华东某医疗科技有限公司，LX-2026-0415）"),
        (style, first_line.lstrip("# ")),
    ]
    assert [p.text for p in doc.paragraphs if p.style.name == "Title"] == [texts[0][1]]


@pytest.mark.parametrize(
    ("title", "matter_ref", "client", "expected"),
    [
        ("保密协议要点", "", "", "保密协议要点"),
        ("保密协议要点", "LX-1", "", "保密协议要点（LX-1）"),
        ("保密协议要点", "LX-1", "甲公司", "保密协议要点（甲公司，LX-1）"),
        ("保密协议要点", " ", "甲公司 ", "保密协议要点（甲公司）"),
        ("", "LX-1", "甲公司", ""),  # no type title: the draft's own title line is used
    ],
)
def test_document_title(title: str, matter_ref: str, client: str, expected: str) -> None:
    assert document_title(title, matter_ref=matter_ref, client=client) == expected


def test_without_a_type_title_the_draft_keeps_its_own_title_line() -> None:
    meta = ExportMeta(title="")
    doc = _open(draft_to_docx("# 草稿自带标题\n正文。", meta=meta, reference=REFERENCE))
    assert (doc.paragraphs[0].style.name, doc.paragraphs[0].text) == ("Title", "草稿自带标题")


def test_control_characters_and_lone_surrogates_are_cleaned() -> None:
    text = (
        "# 指南\x00\n【适用情形】\x0b一、适\x1f用\ud800范围\n"
        "1. 依据《个人信息出境标准合同办法》\ufffe第十五条办理。\x7f\n"
    )
    start = text.index("《个人")
    end = text.index("办理")
    finding = Finding("citation.article_out_of_range", "error", start, end, "超\x00范围", "out")
    doc = _open(draft_to_docx(text, meta=META, findings=[finding], reference=REFERENCE))
    texts = [p.text for p in doc.paragraphs]
    assert texts[1:5] == [  # after the title made of the document type and matter
        "指南",
        "【适用情形】",
        "一、适用范围",
        "1. 依据《个人信息出境标准合同办法》第十五条办理。",
    ]
    (comment,) = list(doc.comments)
    assert commented_text(doc)[comment.comment_id] == "《个人信息出境标准合同办法》第十五条"
    assert "超范围" in comment.text


@settings(max_examples=25, deadline=None)
@given(
    text=st.text(st.characters(exclude_categories=[]), min_size=1, max_size=120),
    span=st.tuples(st.integers(0, 130), st.integers(0, 130)),
)
def test_any_text_gives_a_document_that_opens(text: str, span: tuple[int, int]) -> None:
    start, end = sorted(span)
    finding = Finding("x.any", "warning", start, end, "任意\x00", "any")
    doc = _open(draft_to_docx(text, meta=META, findings=[finding], reference=REFERENCE))
    assert doc.paragraphs[0].style.name == "Title"
    assert len(list(doc.comments)) == (1 if parse_draft(text) else 0)  # no text: appendix only
    assert len(doc.tables[-1].rows) == 2


def test_findings_with_odd_offsets_still_export() -> None:
    odd = [
        Finding("section.missing", "error", len(GUIDE), len(GUIDE), "缺少【办理流程】", "missing"),
        Finding("x.empty", "info", 0, 0, "空", "empty"),
        Finding("x.beyond", "info", 10, 10_000, "越界", "beyond"),
    ]
    doc = _open(draft_to_docx(GUIDE, meta=META, findings=odd, reference=REFERENCE))
    assert len(list(doc.comments)) == 3 and len(doc.tables[-1].rows) == 4


def test_missing_reference_document_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError) as info:
        draft_to_docx(GUIDE, meta=META, reference=tmp_path / "nope.docx")
    assert "build_reference.py" in info.value.message_en and info.value.message_zh
