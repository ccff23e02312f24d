"""DOCX fixtures for the document review tests, made with python-docx: a 2024 policy template
with Word automatic numbering (第%1条 in chineseCounting, and （%2） under it), a citation split
over runs of different formatting, a table, a header and a dated footer."""

from __future__ import annotations

import io

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn

ABSTRACT = f"""<w:abstractNum {nsdecls("w")} w:abstractNumId="77">
  <w:multiLevelType w:val="multilevel"/>
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/>
    <w:lvlText w:val="第%1条"/><w:suff w:val="space"/></w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/>
    <w:lvlText w:val="（%2）"/><w:suff w:val="nothing"/></w:lvl>
</w:abstractNum>"""
NUM = f'<w:num {nsdecls("w")} w:numId="77"><w:abstractNumId w:val="77"/></w:num>'

HEADER = "明川科技有限公司　内部制度"
FOOTER = "最近修订：2024年5月20日"
TITLE = "数据出境管理制度"
# (level, runs as (text, bold)) of the numbered paragraphs
CLAUSES: list[tuple[int, list[tuple[str, bool]]]] = [
    (0, [("为规范公司数据出境活动，根据", False), ("《网络安全法》第三", True),
         ("十七条", False), ("，关键信息基础设施的运营者在中华人民共和国境内运营中收集和产生的个人信息"
                            "和重要数据应当在境内存储。", False)]),
    (0, [("向境外提供个人信息的，依照《个人信息保护法》第九十九条办理。", False)]),
    (1, [("本制度所称个人信息，是指以电子或者其他方式记录的与已识别或者可识别的自然人有关的各种信息。",
          False)]),
    (1, [("本制度由法务部负责解释。", False)]),
    (0, [("本制度未尽事宜，依照有关法律、行政法规执行。", False)]),
]  # fmt: skip
TABLE = [["事项", "依据"], ["个人信息出境", "《个人信息保护法》第三十八条"]]
CSL_37 = "《网络安全法》第三十七条"
WRONG = "第九十九条"


def _numbered(document: docx.document.Document, level: int) -> docx.text.paragraph.Paragraph:
    paragraph = document.add_paragraph()
    num_pr = parse_xml(
        f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{level}"/><w:numId w:val="77"/></w:numPr>'
    )
    paragraph._p.get_or_add_pPr().append(num_pr)
    return paragraph


def policy_docx() -> bytes:
    """The 2024 template: body, automatic numbering, a table, header and dated footer."""
    document = docx.Document()
    numbering = document.part.numbering_part.element
    numbering.insert(0, parse_xml(ABSTRACT))
    numbering.append(parse_xml(NUM))
    document.add_heading(TITLE, level=1)
    for level, runs in CLAUSES:
        paragraph = _numbered(document, level)
        for text, bold in runs:
            paragraph.add_run(text).bold = bold
    table = document.add_table(rows=len(TABLE), cols=2)
    for r, row in enumerate(TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    section = document.sections[0]
    section.header.paragraphs[0].text = HEADER
    section.footer.paragraphs[0].text = FOOTER
    document.core_properties.author = "明川法务部"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def texts(data: bytes) -> dict[str, list[str]]:
    """Every paragraph's, cell's, header's and footer's text (python-docx's reading)."""
    document = docx.Document(io.BytesIO(data))
    section = document.sections[0]
    return {
        "body": [p.text for p in document.paragraphs],
        "table": [c.text for t in document.tables for row in t.rows for c in row.cells],
        "header": [p.text for p in section.header.paragraphs],
        "footer": [p.text for p in section.footer.paragraphs],
        "numbering": [
            str(p._p.pPr.find(qn("w:numPr")) is not None) if p._p.pPr is not None else "False"
            for p in document.paragraphs
        ],
    }
