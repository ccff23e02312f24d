"""`lexspec export INPUT --out FILE.docx`: a draft (text / markdown file or -) to DOCX."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.commands.inputs import InputError, read_draft


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "export",
        help="导出草稿为 DOCX / export a draft to DOCX",
        description="把草稿（纯文本或 Markdown）导出为带样式的 Word 文档 / "
        "export a draft (plain text or markdown) to a styled Word document",
    )
    p.add_argument("input", help="草稿文件，- 表示标准输入 / draft file, - for stdin")
    p.add_argument("--out", type=Path, help="输出 .docx 文件 / output .docx file")
    p.add_argument(
        "--findings",
        action="store_true",
        help="运行校验并以批注和附录标出问题 / run the checks; findings become comments + appendix",
    )
    p.add_argument("--matter", default="", help="案号 / matter reference (header)")
    p.add_argument("--client", default="", help="客户 / client (header)")
    p.add_argument("--title", help="标题 / document title")
    p.add_argument("--author", default="", help="作者 / author (document properties)")
    p.add_argument("--doc-type", help="文书类型（必备章节、默认标题）/ document type id")
    p.add_argument("--generation-id", help="审计日志中的生成编号 / audit-log generation id")
    p.add_argument("--template-hash", default="", help="提示模板哈希 / prompt template sha256")
    p.add_argument("--no-comments", action="store_true", help="不加批注 / no Word comments")
    p.add_argument("--no-appendix", action="store_true", help="不加附录 / no findings appendix")
    p.set_defaults(func=handle)


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _doc_type(type_id: str | None) -> Any:
    """The DocType named `type_id`, or None; raises ValueError with a bilingual message."""
    if not type_id:
        return None
    from app.config import get_settings
    from app.prompts import load_library

    library = load_library(get_settings().prompts_dir)
    if type_id not in library.types:
        known = ", ".join(sorted(library.types)) or "-"
        raise ValueError(f"未知文书类型 / unknown document type: {type_id} ({known})")
    return library.types[type_id]


def _findings(text: str, doc_type: Any) -> tuple[Any, ...]:
    """The checks against the configured catalogue (a broken firm file is reported)."""
    from app.validation import check, default_catalogue

    required = tuple(doc_type.required_sections) if doc_type is not None else ()
    return tuple(check(text, required_sections=required, catalogue=default_catalogue()).findings)


def _output_path(args: argparse.Namespace) -> Path:
    if args.out is not None:
        return Path(args.out)
    if args.input == "-":
        raise ValueError("从标准输入读取时必须给出 --out / --out is required when reading stdin")
    return Path(args.input).with_suffix(".docx")


def handle(args: argparse.Namespace) -> int:
    from app.export import ExportError, ExportMeta, draft_to_docx
    from app.validation import CatalogueError

    try:
        out = _output_path(args)
        text = read_draft(args.input)
        doc_type = _doc_type(args.doc_type)
    except (InputError, ValueError) as exc:
        return _fail(str(exc))
    if not text.strip():
        return _fail("草稿为空 / the draft is empty")
    title = args.title or (doc_type.title_zh if doc_type is not None else "")
    try:
        findings = _findings(text, doc_type) if args.findings else ()
    except CatalogueError as exc:
        return _fail(str(exc))
    meta = ExportMeta(
        title=title,  # empty: the draft's own title line
        matter_ref=args.matter,
        client=args.client,
        author=args.author,
        generation_id=args.generation_id,
        template_hash=args.template_hash,
    )
    try:
        data = draft_to_docx(
            text,
            meta=meta,
            findings=findings,
            comments=not args.no_comments,
            appendix=not args.no_appendix,
        )
        out.write_bytes(data)
    except ExportError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"无法写入 / cannot write {out}: {exc.strerror}")
    errors = sum(1 for f in findings if f.severity == "error")
    summary = f"；{len(findings)} 条校验结果（{errors} 个错误）" if args.findings else ""
    summary_en = f"; {len(findings)} findings ({errors} errors)" if args.findings else ""
    print(f"已导出 {out}{summary} / exported {out}{summary_en}")
    return 0
