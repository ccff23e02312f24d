"""`lexspec check FILE|- [--doc-type TYPE] [--format json|text]`: numbering and citation checks.

Exit status: 0 no error-severity finding, 1 at least one, 2 bad input (file, type, catalogue)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from app.commands.inputs import InputError, read_draft

TYPE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "check",
        help="校验编号与法规引用 / check numbering and statute citations",
        description="校验草稿的章节编号、必备章节和法规引用 / check a draft's numbering, "
        "required sections and statute citations (exit 1 when any error is found)",
    )
    p.add_argument("file", help="草稿文件，- 表示标准输入 / draft file, - for stdin")
    p.add_argument(
        "--doc-type", help="文书类型，读取其必备章节 / document type whose required sections apply"
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="输出格式 / output")
    p.set_defaults(func=handle)


def required_sections(type_id: str, prompts_dir: Path) -> tuple[str, ...]:
    """`required_sections` from prompts/<type>/meta.yaml (read directly, as plain YAML)."""
    import yaml

    meta = prompts_dir / type_id / "meta.yaml"
    if not TYPE_ID.match(type_id) or not meta.is_file():
        known = sorted(m.parent.name for m in prompts_dir.glob("*/meta.yaml"))
        listing = "、".join(known) or "-"
        raise InputError(
            f"未知文书类型：{type_id}（可用：{listing}）",
            f"Unknown document type: {type_id} (available: {', '.join(known) or '-'})",
        )
    try:
        data = yaml.safe_load(meta.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(
            f"无法读取 {type_id}/meta.yaml", f"Cannot read {type_id}/meta.yaml"
        ) from exc
    sections = data.get("required_sections") if isinstance(data, dict) else None
    if sections is None:
        return ()
    if not isinstance(sections, list) or not all(isinstance(s, str) for s in sections):
        raise InputError(
            f"{type_id}/meta.yaml 的 required_sections 应为字符串列表",
            f"required_sections in {type_id}/meta.yaml must be a list of strings",
        )
    return tuple(sections)


def format_text(text: str, result: Any, lang: str) -> str:
    """One line per finding: line:col severity code message [→ suggestion]."""
    from app.validation import line_col

    lines = []
    for f in result.findings:
        line, col = line_col(text, f.start)
        message = f.message_zh if lang == "zh" else f.message_en
        hint = f" → {f.suggestion}" if f.suggestion else ""
        lines.append(f"{line}:{col} {f.severity} {f.code} {message}{hint}")
    return "\n".join(lines)


def _summary(result: Any, lang: str) -> str:
    errors = sum(f.severity == "error" for f in result.findings)
    total, cites = len(result.findings), len(result.citations)
    if lang == "zh":
        return f"共 {total} 个问题（错误 {errors} 个），{cites} 处法规引用"
    return f"{total} finding(s), {errors} error(s); {cites} statute citation(s)"


def handle(args: argparse.Namespace) -> int:
    from app.config import get_settings
    from app.validation import CatalogueError, check, default_catalogue

    settings = get_settings()
    lang = settings.lang
    try:
        text = read_draft(args.file)
        sections = required_sections(args.doc_type, settings.prompts_dir) if args.doc_type else ()
        result = check(text, required_sections=sections, catalogue=default_catalogue())
    except (InputError, CatalogueError) as exc:
        print(exc.message_zh if lang == "zh" else exc.message_en, file=sys.stderr)
        return 2
    if args.format == "json":
        payload = {
            "findings": [f.to_dict() for f in result.findings],
            "citations": [c.to_dict() for c in result.citations],
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        if result.findings:
            print(format_text(text, result, lang))
        print(_summary(result, lang), file=sys.stderr)
    return 1 if result.has_errors else 0
