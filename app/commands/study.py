"""`lexspec study ...`: blind review studies from the command line (admin work).

create  — from a YAML file (name, doc_type, arms, cases, reviewers)
generate — every draft for both arms with a progress bar; run it again to resume
progress — verdicts in per reviewer
unblind — open the results early (needs --reason; written to the audit log)
report  — the results table, optionally written as CSV and DOCX
Exit codes: 0 done, 1 refused or failed (with a message), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPEC_EXAMPLE = """name: n-gram vs plain
doc_type: clause-continuation
arms:
  - {label: speculative, endpoint: embedded, params: {temperature: 0}}
  - {label: plain, endpoint: plain, params: {temperature: 0}}
reviewers: [li, wang, zhao]
cases:
  - {clause: "...", contract_type: 数据处理协议, party_role: 甲方}
"""


def register(sub: Any) -> None:
    study = sub.add_parser("study", help="盲评研究 / blind review studies")
    study_sub = study.add_subparsers(dest="study_command", required=True)

    def command(name: str, help_text: str, handler: Callable[[argparse.Namespace], int]) -> Any:
        parser = study_sub.add_parser(name, help=help_text)
        parser.add_argument("--as", dest="actor", required=True, help="管理员用户名 / admin name")
        parser.set_defaults(func=_guarded(handler))
        return parser

    create = command("create", "从 YAML 新建研究 / create from a YAML file", cmd_create)
    create.add_argument("spec", type=Path, help="YAML:\n" + SPEC_EXAMPLE)
    for name, help_text, handler in (
        ("generate", "生成全部草稿（可续跑）/ generate every draft (resumable)", cmd_generate),
        ("progress", "评审进度 / verdicts in per reviewer", cmd_progress),
        ("unblind", "提前揭盲（记入审计日志）/ unblind early (audited)", cmd_unblind),
        ("report", "结果与导出 / results and exports", cmd_report),
    ):
        parser = command(name, help_text, handler)
        parser.add_argument("study_id", type=int)
        if name == "unblind":
            parser.add_argument("--reason", required=True)
        if name == "report":
            parser.add_argument("--csv", type=Path, help="汇总表 / summary table")
            parser.add_argument("--verdicts-csv", type=Path, help="逐条评审 / one row per verdict")
            parser.add_argument("--docx", type=Path)
            parser.add_argument("--lang", choices=("zh", "en"), default=None)


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Bad input, refused actions and unreachable services become a message and exit 1."""

    def run(args: argparse.Namespace) -> int:
        from sqlalchemy.exc import OperationalError

        from app.accounts import PermissionDenied
        from audit.review_domain import ReviewError

        try:
            return handler(args)
        except (ReviewError, PermissionDenied) as exc:
            print(f"错误 / Error: {exc.message_zh} / {exc.message_en}", file=sys.stderr)
        except OperationalError as exc:
            reason = str(exc.orig or exc).strip().splitlines()[0]
            print(f"无法访问数据库 / Cannot use the database: {reason}", file=sys.stderr)
        except OSError as exc:
            print(f"文件错误 / File error: {exc}", file=sys.stderr)
        return 1

    return run


def load_spec(path: Path) -> Any:
    """A StudySpec from YAML; ReviewError with both languages when the file is malformed."""
    import yaml

    from audit.review_domain import ArmSpec, ReviewError, StudySpec

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        arms = tuple(
            ArmSpec(str(a["label"]), str(a["endpoint"]), dict(a.get("params") or {}))
            for a in data["arms"]
        )
        cases = tuple({str(k): str(v) for k, v in case.items()} for case in data["cases"])
        reviewers = tuple(str(r) for r in data["reviewers"])
        return StudySpec(str(data["name"]), str(data["doc_type"]), cases, arms, reviewers)  # type: ignore[arg-type]
    except (yaml.YAMLError, KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ReviewError(
            f"研究定义文件格式有误（{path}）：{exc!r}；示例：\n{SPEC_EXAMPLE}",
            f"Malformed study file {path}: {exc!r}; example:\n{SPEC_EXAMPLE}",
        ) from exc


def cmd_create(args: argparse.Namespace) -> int:
    from app import studies
    from app.config import get_settings
    from app.database import session_scope

    spec = load_spec(args.spec)
    with session_scope() as session:
        study = studies.create_study(args.actor, spec, session=session, settings=get_settings())
    print(f"已创建研究 / Created study {study.id}: {study.name}")
    print(f"  {len(study.cases)} × 2 = {2 * len(study.cases)} 份草稿待生成 / drafts to generate")
    return 0


def _bar(p: Any) -> None:
    width = 30
    filled = width * p.done // max(p.total, 1)
    line = f"\r[{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total}"
    if p.failed:
        line += f"  失败 / failed: {p.failed}"
    print(line + f"  {p.current}", end="", file=sys.stderr, flush=True)


def cmd_generate(args: argparse.Namespace) -> int:
    from app import studies
    from app.config import get_settings
    from app.database import get_session_factory

    try:
        final = studies.generate_items(
            args.actor,
            args.study_id,
            session_factory=get_session_factory(),
            settings=get_settings(),
            progress=_bar,
        )
    except KeyboardInterrupt:
        print("\n已中断；再次运行即可续跑 / Interrupted; run again to resume", file=sys.stderr)
        return 130
    print(file=sys.stderr)
    if final.failed:
        print(
            f"{final.failed} 份草稿生成失败，再次运行会重试 / "
            f"{final.failed} drafts failed; run again to retry them",
            file=sys.stderr,
        )
        return 1
    print(f"全部完成 / All {final.total} drafts generated")
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    from app import studies
    from app.database import session_scope

    with session_scope() as session:
        p = studies.study_progress(args.actor, args.study_id, session=session)
    print(f"草稿 / drafts: {p.items_complete}/{p.items_total}  (失败 / failed: {p.items_failed})")
    for r in p.reviewers:
        print(f"  {r.reviewer:<24} {r.done}/{r.total}")
    print("全部评审完成 / all verdicts in" if p.all_verdicts_in else "评审进行中 / in progress")
    return 0


def cmd_unblind(args: argparse.Namespace) -> int:
    from app import studies
    from app.database import session_scope

    with session_scope() as session:
        study = studies.unblind_early(
            args.actor, args.study_id, session=session, reason=args.reason
        )
    print(f"已揭盲（已记入审计日志）/ Unblinded (logged): {study.name}, by {study.unblinded_by}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from app import studies, study_report
    from app.config import get_settings
    from app.database import session_scope

    lang = args.lang or get_settings().lang
    with session_scope() as session:
        report = studies.results(args.actor, args.study_id, session=session)
    header, rows = study_report.summary_header(lang), study_report.summary_rows(report, lang)
    for row in [header, *rows]:
        print(" | ".join(row))
    outputs = (
        (args.csv, study_report.report_csv(report, lang).encode("utf-8-sig")),
        (args.verdicts_csv, study_report.verdicts_csv(report, lang).encode("utf-8-sig")),
        (args.docx, study_report.report_docx(report, lang)),
    )
    for path, data in outputs:
        if path is not None:
            path.write_bytes(data)
            print(f"已写入 / Written: {path}", file=sys.stderr)
    return 0
