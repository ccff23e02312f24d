"""Build templates/reference.docx, the style sheet every DOCX export starts from.

Run `python templates/build_reference.py` after changing a style below and commit both
files. The output is byte-for-byte reproducible (fixed core properties and zip dates), so
a test can check that the committed reference document matches this script.

Sizes follow Chinese legal / official-document practice (GB/T 9704 as a guide):
title 二号 (22 pt) bold centred, body 三号 (16 pt) 仿宋 on a fixed 28 pt line with a
two-character first-line indent, headings in 黑体 / 楷体 / 仿宋 bold, A4 paper.
Latin text uses Times New Roman; East-Asian text uses the font named in w:eastAsia.
"""

from __future__ import annotations

import datetime as dt
import io
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Mm

OUTPUT = Path(__file__).resolve().parent / "reference.docx"
LATIN_FONT = "Times New Roman"
FIXED_DATE = dt.datetime(2026, 1, 1)  # naive UTC, as core properties store it

# A4 with GB/T 9704 margins: text block 156 mm wide.
PAGE = {"width": Mm(210), "height": Mm(297), "top": Mm(37), "bottom": Mm(35)}
PAGE_SIDES = {"left": Mm(28), "right": Mm(26), "header": Mm(15), "footer": Mm(17.5)}
TEXT_WIDTH_TWIPS = round((210 - 28 - 26) / 25.4 * 1440)

# Chinese point-size names → half-points (w:sz): 二号 22pt, 三号 16pt, 小五 9pt, 五号 10.5pt.
ERHAO, SANHAO, WUHAO, XIAOWU = 44, 32, 21, 18
BODY_LINE_TWIPS = 560  # fixed 28 pt


@dataclass(frozen=True)
class StyleSpec:
    """The look of one paragraph style; None leaves the property inherited from Normal."""

    name: str
    east_asia: str | None = None
    size: int | None = None  # half-points
    bold: bool = False
    align: str | None = None  # w:jc value
    first_line_chars: int | None = None  # hundredths of a character (200 = 2 characters)
    left_chars: int | None = None
    before: int = 0  # twips
    after: int = 0
    line: int | None = None  # twips
    line_rule: str = "exact"
    keep_next: bool = False
    outline: int | None = None
    base: str = "Normal"


STYLES = (
    StyleSpec("Normal", align="both", first_line_chars=200),
    StyleSpec("Title", east_asia="宋体", size=ERHAO, bold=True, align="center",
              first_line_chars=0, after=360, line=240, line_rule="auto", keep_next=True),
    StyleSpec("Heading 1", east_asia="黑体", size=SANHAO, bold=True, first_line_chars=0, before=240,
              after=120, keep_next=True, outline=0),
    StyleSpec("Heading 2", east_asia="楷体", size=SANHAO, bold=True, first_line_chars=200,
              before=120, keep_next=True, outline=1),
    StyleSpec("Heading 3", east_asia="仿宋", size=SANHAO, bold=True, first_line_chars=200,
              outline=2),  # no keep-with-next: runs of short （一）（二） items would chain
    StyleSpec("List Item", first_line_chars=200),
    StyleSpec("List Item 2", first_line_chars=200, left_chars=200),
    StyleSpec("Quote", east_asia="楷体", left_chars=200, first_line_chars=0),
    StyleSpec("Header", east_asia="宋体", size=XIAOWU, first_line_chars=0, line=240,
              line_rule="auto"),
    StyleSpec("Footer", east_asia="宋体", size=XIAOWU, align="center", first_line_chars=0,
              line=240, line_rule="auto"),
    StyleSpec("annotation text", east_asia="宋体", size=WUHAO, align="left", first_line_chars=0,
              line=240, line_rule="auto"),
    StyleSpec("Table Text", east_asia="宋体", size=WUHAO, align="left", first_line_chars=0,
              line=240, line_rule="auto"),
)  # fmt: skip


# Word's fixed ids for the built-in comment styles (python-docx's comments refer to them).
STYLE_IDS = {"annotation text": "CommentText"}


def _child(parent, tag: str, **attrs: str):
    """Append a w:<tag> element with w:-namespaced attributes."""
    el = OxmlElement(f"w:{tag}")
    for key, value in attrs.items():
        el.set(qn(f"w:{key}"), value)
    parent.append(el)
    return el


def _fonts(rpr, east_asia: str) -> None:
    """Latin in Times New Roman, East-Asian text in `east_asia` (explicit, no theme fonts)."""
    _child(rpr, "rFonts", ascii=LATIN_FONT, hAnsi=LATIN_FONT, eastAsia=east_asia, cs=LATIN_FONT)


def _set_defaults(doc: DocxDocument) -> None:
    """docDefaults: 仿宋 三号 on a fixed 28 pt line, Chinese language tag."""
    defaults = doc.styles.element.find(qn("w:docDefaults"))
    rpr = defaults.find(qn("w:rPrDefault")).find(qn("w:rPr"))
    ppr = defaults.find(qn("w:pPrDefault")).find(qn("w:pPr"))
    for el in (rpr, ppr):
        el.clear()
    _fonts(rpr, "仿宋")
    _child(rpr, "kern", val="2")
    _child(rpr, "sz", val=str(SANHAO))
    _child(rpr, "szCs", val=str(SANHAO))
    _child(rpr, "lang", val="en-US", eastAsia="zh-CN", bidi="ar-SA")
    _child(ppr, "spacing", after="0", line=str(BODY_LINE_TWIPS), lineRule="exact")


def _strip_theme_fonts(doc: DocxDocument) -> None:
    """Theme font attributes override explicit ones, so no style may keep them."""
    for rfonts in doc.styles.element.iter(qn("w:rFonts")):
        for attr in ("asciiTheme", "hAnsiTheme", "eastAsiaTheme", "cstheme"):
            rfonts.attrib.pop(qn(f"w:{attr}"), None)


def _paragraph_props(style_el, spec: StyleSpec) -> None:
    ppr = _child(style_el, "pPr")
    if spec.keep_next:
        _child(ppr, "keepNext")
        _child(ppr, "keepLines")
    if spec.name == "Header":
        _child(_child(ppr, "pBdr"), "bottom", val="single", sz="4", space="1", color="auto")
        _child(_child(ppr, "tabs"), "tab", val="right", pos=str(TEXT_WIDTH_TWIPS))
    spacing = {"before": str(spec.before), "after": str(spec.after)}
    if spec.line is not None:
        spacing |= {"line": str(spec.line), "lineRule": spec.line_rule}
    _child(ppr, "spacing", **spacing)
    if spec.first_line_chars is not None or spec.left_chars is not None:
        ind: dict[str, str] = {}
        size_twips = (spec.size or SANHAO) * 10  # one character = font size
        if spec.left_chars is not None:
            ind |= {"leftChars": str(spec.left_chars),
                    "left": str(size_twips * spec.left_chars // 100)}  # fmt: skip
        chars = spec.first_line_chars or 0
        ind |= {"firstLineChars": str(chars), "firstLine": str(size_twips * chars // 100)}
        _child(ppr, "ind", **ind)
    if spec.align:
        _child(ppr, "jc", val=spec.align)
    if spec.outline is not None:
        _child(ppr, "outlineLvl", val=str(spec.outline))


def _apply(doc: DocxDocument, spec: StyleSpec) -> None:
    """Replace the style's paragraph and run properties with exactly those of `spec`."""
    styles = doc.styles
    if spec.name in [s.name for s in styles]:
        style = styles[spec.name]
    else:
        style = styles.add_style(spec.name, WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = styles[spec.base]
        if spec.name in STYLE_IDS:  # a Word built-in: its fixed id, not a custom style
            style.style_id = STYLE_IDS[spec.name]
            style.element.attrib.pop(qn("w:customStyle"), None)
    style.quick_style = True
    el = style.element
    for tag in ("w:pPr", "w:rPr", "w:link"):
        for old in el.findall(qn(tag)):
            el.remove(old)
    _paragraph_props(el, spec)
    rpr = _child(el, "rPr")
    if spec.east_asia:
        _fonts(rpr, spec.east_asia)
    if spec.bold:
        _child(rpr, "b")
        _child(rpr, "bCs")
    if spec.name.startswith("Heading") or spec.name == "Title":
        _child(rpr, "color", val="000000")
    if spec.size:
        _child(rpr, "sz", val=str(spec.size))
        _child(rpr, "szCs", val=str(spec.size))


def _comment_reference(doc: DocxDocument) -> None:
    """The character style of comment marks (id CommentReference), 8 pt as in Word."""
    style = doc.styles.add_style("annotation reference", WD_STYLE_TYPE.CHARACTER)
    style.style_id = "CommentReference"
    style.element.attrib.pop(qn("w:customStyle"), None)
    rpr = _child(style.element, "rPr")
    _child(rpr, "sz", val="16")
    _child(rpr, "szCs", val="16")


def _drop_thumbnail(doc: DocxDocument) -> None:
    """python-docx's template carries a thumbnail of an unrelated page; exports must not."""
    rels = doc.part.package.rels
    for rel_id, rel in list(rels.items()):
        if rel.reltype == RT.THUMBNAIL:
            del rels[rel_id]


def _page_setup(doc: DocxDocument) -> None:
    section = doc.sections[0]
    section.page_width, section.page_height = PAGE["width"], PAGE["height"]
    section.top_margin, section.bottom_margin = PAGE["top"], PAGE["bottom"]
    section.left_margin, section.right_margin = PAGE_SIDES["left"], PAGE_SIDES["right"]
    section.header_distance, section.footer_distance = PAGE_SIDES["header"], PAGE_SIDES["footer"]


def _settings(doc: DocxDocument) -> None:
    """Chinese as the East-Asian theme language (affects fallback fonts in Word)."""
    lang = doc.settings.element.find(qn("w:themeFontLang"))
    if lang is not None:
        lang.set(qn("w:eastAsia"), "zh-CN")


def _core(doc: DocxDocument) -> None:
    props = doc.core_properties
    props.title = "LexSpec reference document"
    props.author = props.last_modified_by = "LexSpec"
    props.created = props.modified = FIXED_DATE
    props.revision = 1
    props.comments = "Styles for LexSpec DOCX export; rebuild with templates/build_reference.py"
    props.keywords = props.subject = props.category = ""


def build() -> bytes:
    """The reference document as bytes (deterministic)."""
    doc = Document()
    _set_defaults(doc)
    _strip_theme_fonts(doc)
    for spec in STYLES:
        _apply(doc, spec)
    _comment_reference(doc)
    _drop_thumbnail(doc)
    _page_setup(doc)
    _settings(doc)
    _core(doc)
    buffer = io.BytesIO()
    doc.save(buffer)
    return _normalise_zip(buffer.getvalue())


def _normalise_zip(data: bytes) -> bytes:
    """Rewrite the zip with fixed member dates so rebuilding gives identical bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else OUTPUT
    target.write_bytes(build())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
