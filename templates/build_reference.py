"""Build the style sheets DOCX exports start from: templates/reference.docx (the standard
style) and templates/official.docx (the filing templates' format, the `official` style).

Run `python templates/build_reference.py` after changing a style below and commit the files.
The output is byte-for-byte reproducible (fixed core properties and zip dates), so a test can
check that each committed reference document matches this script.

Standard: sizes follow Chinese legal / official-document practice (GB/T 9704 as a guide):
title 二号 (22 pt) bold centred, body 三号 (16 pt) 仿宋 on a fixed 28 pt line with a
two-character first-line indent, headings in 黑体 / 楷体 / 仿宋 bold, A4 paper.
Official: what the templates of the 2024 filing guides prescribe (说明（四）, app/filing/
templates.yaml): body 四号 (14 pt) 仿宋, 一级标题黑体, 二级标题楷体加黑, 三级标题仿宋加黑, digits
and letters Times New Roman 四号, fixed 26 pt line spacing, a two-character first-line indent,
A4 with 2.54 cm top and bottom and 3.18 cm left and right margins. The templates do not size
the cover: its title is set 黑体 二号 and the processor's name and date 仿宋 四号 (our choice).
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

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "reference.docx"
LATIN_FONT = "Times New Roman"
FIXED_DATE = dt.datetime(2026, 1, 1)  # naive UTC, as core properties store it

# A4 with GB/T 9704 margins: text block 156 mm wide.
PAGE = {"width": Mm(210), "height": Mm(297), "top": Mm(37), "bottom": Mm(35)}
PAGE_SIDES = {"left": Mm(28), "right": Mm(26), "header": Mm(15), "footer": Mm(17.5)}
TEXT_WIDTH_TWIPS = round((210 - 28 - 26) / 25.4 * 1440)

# Chinese point-size names → half-points (w:sz): 二号 22pt, 三号 16pt, 四号 14pt, 小五 9pt,
# 五号 10.5pt.
ERHAO, SANHAO, SIHAO, WUHAO, XIAOWU = 44, 32, 28, 21, 18
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


@dataclass(frozen=True)
class Sheet:
    """One reference document: its styles, page and body defaults."""

    output: Path
    styles: tuple[StyleSpec, ...]
    page: dict[str, Mm]
    sides: dict[str, Mm]
    text_width: int  # twips, the header's right tab
    body_size: int  # half-points
    body_line: int  # twips, exact
    title: str


STANDARD = Sheet(
    OUTPUT, STYLES, PAGE, PAGE_SIDES, TEXT_WIDTH_TWIPS, SANHAO, BODY_LINE_TWIPS,
    "LexSpec reference document",
)  # fmt: skip

# The filing templates' format (说明（四）): A4, 2.54 cm top and bottom, 3.18 cm left and right.
OFFICIAL_PAGE = {"width": Mm(210), "height": Mm(297), "top": Mm(25.4), "bottom": Mm(25.4)}
OFFICIAL_SIDES = {"left": Mm(31.8), "right": Mm(31.8), "header": Mm(15), "footer": Mm(17.5)}
OFFICIAL_LINE_TWIPS = 520  # fixed 26 pt
OFFICIAL_STYLES = (
    StyleSpec("Normal", east_asia="仿宋", size=SIHAO, align="both", first_line_chars=200,
              line=OFFICIAL_LINE_TWIPS),
    StyleSpec("Title", east_asia="黑体", size=ERHAO, align="center", first_line_chars=0,
              after=360, line=240, line_rule="auto", keep_next=True),
    StyleSpec("Subtitle", east_asia="黑体", size=SANHAO, align="center", first_line_chars=0,
              line=240, line_rule="auto"),
    StyleSpec("Cover Line", east_asia="仿宋", size=SIHAO, align="center", first_line_chars=0,
              before=240, line=240, line_rule="auto"),
    StyleSpec("Heading 1", east_asia="黑体", size=SIHAO, first_line_chars=200, keep_next=True,
              outline=0, line=OFFICIAL_LINE_TWIPS),  # 一级标题黑体 (not bold: 黑体 is)
    StyleSpec("Heading 2", east_asia="楷体", size=SIHAO, bold=True, first_line_chars=200,
              keep_next=True, outline=1, line=OFFICIAL_LINE_TWIPS),  # 二级标题楷体加黑
    StyleSpec("Heading 3", east_asia="仿宋", size=SIHAO, bold=True, first_line_chars=200,
              outline=2, line=OFFICIAL_LINE_TWIPS),  # 三级标题仿宋加黑
    StyleSpec("List Item", first_line_chars=200),
    StyleSpec("List Item 2", first_line_chars=200),
    StyleSpec("Quote", east_asia="楷体", first_line_chars=200),
    StyleSpec("Header", east_asia="宋体", size=XIAOWU, first_line_chars=0, line=240,
              line_rule="auto"),
    StyleSpec("Footer", east_asia="宋体", size=XIAOWU, align="center", first_line_chars=0,
              line=240, line_rule="auto"),
    StyleSpec("annotation text", east_asia="宋体", size=WUHAO, align="left", first_line_chars=0,
              line=240, line_rule="auto"),
    StyleSpec("Table Text", east_asia="仿宋", size=WUHAO, align="left", first_line_chars=0,
              line=240, line_rule="auto"),
)  # fmt: skip
OFFICIAL = Sheet(
    HERE / "official.docx", OFFICIAL_STYLES, OFFICIAL_PAGE, OFFICIAL_SIDES,
    round((210 - 2 * 31.8) / 25.4 * 1440), SIHAO, OFFICIAL_LINE_TWIPS,
    "LexSpec official filing format",
)  # fmt: skip
SHEETS = (STANDARD, OFFICIAL)


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


def _set_defaults(doc: DocxDocument, sheet: Sheet) -> None:
    """docDefaults: 仿宋 at the sheet's body size on its fixed line, Chinese language tag."""
    defaults = doc.styles.element.find(qn("w:docDefaults"))
    rpr = defaults.find(qn("w:rPrDefault")).find(qn("w:rPr"))
    ppr = defaults.find(qn("w:pPrDefault")).find(qn("w:pPr"))
    for el in (rpr, ppr):
        el.clear()
    _fonts(rpr, "仿宋")
    _child(rpr, "kern", val="2")
    _child(rpr, "sz", val=str(sheet.body_size))
    _child(rpr, "szCs", val=str(sheet.body_size))
    _child(rpr, "lang", val="en-US", eastAsia="zh-CN", bidi="ar-SA")
    _child(ppr, "spacing", after="0", line=str(sheet.body_line), lineRule="exact")


def _strip_theme_fonts(doc: DocxDocument) -> None:
    """Theme font attributes override explicit ones, so no style may keep them."""
    for rfonts in doc.styles.element.iter(qn("w:rFonts")):
        for attr in ("asciiTheme", "hAnsiTheme", "eastAsiaTheme", "cstheme"):
            rfonts.attrib.pop(qn(f"w:{attr}"), None)


def _paragraph_props(style_el, spec: StyleSpec, sheet: Sheet) -> None:
    ppr = _child(style_el, "pPr")
    if spec.keep_next:
        _child(ppr, "keepNext")
        _child(ppr, "keepLines")
    if spec.name == "Header":
        _child(_child(ppr, "pBdr"), "bottom", val="single", sz="4", space="1", color="auto")
        _child(_child(ppr, "tabs"), "tab", val="right", pos=str(sheet.text_width))
    spacing = {"before": str(spec.before), "after": str(spec.after)}
    if spec.line is not None:
        spacing |= {"line": str(spec.line), "lineRule": spec.line_rule}
    _child(ppr, "spacing", **spacing)
    if spec.first_line_chars is not None or spec.left_chars is not None:
        ind: dict[str, str] = {}
        size_twips = (spec.size or sheet.body_size) * 10  # one character = font size
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


def _apply(doc: DocxDocument, spec: StyleSpec, sheet: Sheet) -> None:
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
    _paragraph_props(el, spec, sheet)
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


def _page_setup(doc: DocxDocument, sheet: Sheet) -> None:
    section = doc.sections[0]
    page, sides = sheet.page, sheet.sides
    section.page_width, section.page_height = page["width"], page["height"]
    section.top_margin, section.bottom_margin = page["top"], page["bottom"]
    section.left_margin, section.right_margin = sides["left"], sides["right"]
    section.header_distance, section.footer_distance = sides["header"], sides["footer"]


def _settings(doc: DocxDocument) -> None:
    """Chinese as the East-Asian theme language (affects fallback fonts in Word)."""
    lang = doc.settings.element.find(qn("w:themeFontLang"))
    if lang is not None:
        lang.set(qn("w:eastAsia"), "zh-CN")


def _core(doc: DocxDocument, sheet: Sheet) -> None:
    props = doc.core_properties
    props.title = sheet.title
    props.author = props.last_modified_by = "LexSpec"
    props.created = props.modified = FIXED_DATE
    props.revision = 1
    props.comments = "Styles for LexSpec DOCX export; rebuild with templates/build_reference.py"
    props.keywords = props.subject = props.category = ""


def build(sheet: Sheet = STANDARD) -> bytes:
    """A reference document as bytes (deterministic); the standard one by default."""
    doc = Document()
    _set_defaults(doc, sheet)
    _strip_theme_fonts(doc)
    for spec in sheet.styles:
        _apply(doc, spec, sheet)
    _comment_reference(doc)
    _drop_thumbnail(doc)
    _page_setup(doc, sheet)
    _settings(doc)
    _core(doc, sheet)
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
    """Write every sheet next to this script, or the standard one to the path given."""
    targets = [(Path(argv[0]), STANDARD)] if argv else [(s.output, s) for s in SHEETS]
    for target, sheet in targets:
        target.write_bytes(build(sheet))
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
