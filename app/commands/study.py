"""`lexspec study ...`: blind review studies from the command line (admin work).

create  — from a YAML file (name, doc_type, design, gold_per_reviewer, arms, cases, reviewers)
plan    — how many cases a design needs (80% power, α = 0.05), before or during a study
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
from typing import TYPE_CHECKING, Any

from app.commands.inputs import InputError, count, read_yaml, record_id
from app.domain import describe
from app.i18n import cli_text
from audit.files import write_private

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.context import Context
    from app.studies.domain import StudySpec
    from app.studies.service import GenerationProgress
    from audit.domain import User

SPEC_EXAMPLE = """name: n-gram vs plain
doc_type: clause-continuation
design: both            # scores | preference | both
gold_per_reviewer: 0    # drafts with a seeded error per reviewer (at most half the cases)
# 2–6 arms, each a drafting configuration (keys: mode, temperature, max_tokens, top_p, seed,
# stop); speculation is recorded from each generation as the endpoint reports it
arms:
  - {label: speculative, endpoint: embedded, params: {mode: outline, temperature: 0}}
  - {label: free-form, endpoint: embedded, params: {mode: free-form, temperature: 0}}
  - {label: plain, endpoint: plain, params: {mode: outline, temperature: 0}}
reviewers: [li, wang, zhao]
cases:
  - {clause: "...", contract_type: 数据处理协议, party_role: 甲方}
# or, instead of cases, the firm's saved revisions (History) as the cases and a first arm:
# revisions: [12, 15]
# revision_label: 律所定稿
"""


def register(sub: Any) -> None:
    study = sub.add_parser("study", help=cli_text("cli.study.study.help"))
    study_sub = study.add_subparsers(dest="study_command", required=True)

    def command(
        name: str, help_text: str, handler: Callable[[argparse.Namespace, Context], int]
    ) -> Any:
        parser = study_sub.add_parser(name, help=help_text)
        parser.add_argument("--as", dest="actor", required=True, help=cli_text("cli.study.as"))
        parser.set_defaults(func=_guarded(handler))
        return parser

    create = command("create", cli_text("cli.study.create.help"), cmd_create)
    create.add_argument("spec", type=Path, help="YAML:\n" + SPEC_EXAMPLE)
    plan = study_sub.add_parser("plan", help=cli_text("cli.study.plan.help"))
    plan.add_argument(
        "--difference", type=float, default=1.0, help=cli_text("cli.study.plan.difference")
    )
    plan.add_argument("--arms", type=count, default=2)
    plan.add_argument("--reviewers", type=count, default=3)
    plan.add_argument(
        "--study", type=record_id, default=None, help=cli_text("cli.study.plan.study")
    )
    plan.add_argument("--as", dest="actor", default=None, help=cli_text("cli.study.as"))
    plan.set_defaults(func=_guarded(cmd_plan))
    for name, help_text, handler in (
        ("generate", cli_text("cli.study.generate.help"), cmd_generate),
        ("progress", cli_text("cli.study.progress.help"), cmd_progress),
        ("unblind", cli_text("cli.study.unblind.help"), cmd_unblind),
        ("report", cli_text("cli.study.report.help"), cmd_report),
    ):
        parser = command(name, help_text, handler)
        parser.add_argument("study_id", type=record_id)
        if name == "unblind":
            parser.add_argument("--reason", required=True)
        if name == "report":
            parser.add_argument("--csv", type=Path, help=cli_text("cli.study.csv"))
            parser.add_argument(
                "--verdicts-csv", type=Path, help=cli_text("cli.study.verdicts_csv")
            )
            parser.add_argument("--docx", type=Path)
            parser.add_argument("--lang", choices=("zh", "en"), default=None)


def _actor(args: argparse.Namespace, session: Session) -> User:
    """The account named by --as (looked up once, by the command); PermissionDenied if none."""
    from app.accounts import PermissionDenied
    from audit.users import get_user

    user = get_user(args.actor, session=session)
    if user is None or user.disabled:
        raise PermissionDenied("请先登录", "Please sign in first")
    return user


def _guarded(
    handler: Callable[[argparse.Namespace, Context], int],
) -> Callable[[argparse.Namespace, Context], int]:
    """Bad input, refused actions and unreachable services become a message and exit 1."""

    def run(args: argparse.Namespace, ctx: Context) -> int:
        from sqlalchemy.exc import OperationalError

        from app.accounts import PermissionDenied
        from app.studies.domain import ReviewError

        try:
            return handler(args, ctx)
        except (ReviewError, PermissionDenied, InputError) as exc:  # a mistake: exit 2
            print(cli_text("cli.study.error", detail=describe(exc)), file=sys.stderr)
        except OperationalError as exc:  # the database does not answer: exit 1, as elsewhere
            reason = str(exc.orig or exc).strip().splitlines()[0]
            print(cli_text("cli.study.no_database", detail=reason), file=sys.stderr)
            return 1
        except OSError as exc:
            print(cli_text("cli.study.file_error", detail=describe(exc)), file=sys.stderr)
        return 2

    return run


def load_spec(path: Path) -> StudySpec:
    """A StudySpec from YAML; InputError or ReviewError, in one line, when the file is not a
    study (`lexspec study create --help` shows an example)."""
    from app.studies.domain import ArmSpec, ReviewError, StudySpec

    data = read_yaml(path)
    try:
        arms = tuple(
            ArmSpec(str(a["label"]), str(a["endpoint"]), dict(a.get("params") or {}))
            for a in data["arms"]
        )
        cases = tuple({str(k): str(v) for k, v in c.items()} for c in data.get("cases") or ())
        reviewers = tuple(str(r) for r in data["reviewers"])
        design, gold = str(data.get("design", "scores")), int(data.get("gold_per_reviewer", 0))
        name, doc_type = str(data["name"]), str(data["doc_type"])
        return StudySpec(name, doc_type, cases, arms, reviewers, design, gold)  # type: ignore[arg-type]
    except KeyError as exc:
        reason_zh, reason_en = f"缺少 {exc.args[0]}", f"{exc.args[0]} is missing"
    except (TypeError, AttributeError, ValueError):
        reason_zh, reason_en = "字段的类型不对", "a field has the wrong type"
    raise ReviewError(
        f"研究定义文件格式有误（{path}）：{reason_zh}；示例见 lexspec study create --help",
        f"Malformed study file {path}: {reason_en}; see lexspec study create --help",
    )


def _revisions(path: Path) -> tuple[list[int], str] | None:
    """`revisions: [ids]` and `revision_label:` of a study built from saved revisions."""
    from app.studies.domain import ReviewError

    data = read_yaml(path)
    if not isinstance(data, dict) or not data.get("revisions"):
        return None
    try:
        return [int(r) for r in data["revisions"]], str(data.get("revision_label") or "saved")
    except (TypeError, ValueError) as exc:
        raise ReviewError(
            f"revisions 须为修订编号列表（{exc}）",
            f"revisions must be a list of revision ids ({exc})",
        ) from exc


def cmd_create(args: argparse.Namespace, ctx: Context) -> int:
    from app.studies import service as studies
    from app.studies.revisions import create_from_revisions

    spec = load_spec(args.spec)
    from_revisions = _revisions(args.spec)
    with ctx.session() as session:
        actor, settings = _actor(args, session), ctx.settings
        if from_revisions is None:
            study = studies.create_study(spec, session=session, settings=settings, actor=actor)
        else:
            ids, label = from_revisions
            study = create_from_revisions(
                ids, spec, label=label, session=session, actor=actor, settings=settings
            )
    print(cli_text("cli.study.created", id=study.id, name=study.name))
    n = len(study.cases) * len(study.arms)
    print(
        "  " + cli_text("cli.study.to_generate", cases=len(study.cases), arms=len(study.arms), n=n)
    )
    return 0


def cmd_plan(args: argparse.Namespace, ctx: Context) -> int:
    """Cases needed for a design (--arms, --reviewers, the default spread); with --study ID
    (and --as an admin), that study's arms and reviewers and the spread observed so far."""
    from app.studies import service as studies
    from app.studies.power import plan_cases

    settings = ctx.settings
    if args.study is None:
        plan = plan_cases(
            args.difference,
            n_arms=args.arms,
            n_reviewers=args.reviewers,
            default_sd=settings.study_plan_sd,
        )
    else:
        with ctx.session() as session:
            plan = studies.plan(
                args.difference,
                n_arms=args.arms,
                n_reviewers=args.reviewers,
                study_id=args.study,
                session=session,
                settings=settings,
                actor=_actor(args, session),
            )
    print(plan.message())
    return 0


def _bar(p: GenerationProgress) -> None:
    width = 30
    filled = width * p.done // max(p.total, 1)
    line = f"\r[{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total}"
    if p.failed:
        line += "  " + cli_text("cli.study.failed", n=p.failed)
    print(line + f"  {p.current}", end="", file=sys.stderr, flush=True)


def cmd_generate(args: argparse.Namespace, ctx: Context) -> int:
    from app.studies import service as studies

    with ctx.session_factory() as session:
        actor = _actor(args, session)
    try:
        final = studies.generate_items(
            args.study_id,
            session_factory=ctx.session_factory,
            settings=ctx.settings,
            progress=_bar,
            actor=actor,
        )
    except KeyboardInterrupt:
        print("\n" + cli_text("cli.study.interrupted"), file=sys.stderr)
        return 130
    print(file=sys.stderr)
    if final.failed:
        print(
            cli_text("cli.study.some_failed", n=final.failed),
            file=sys.stderr,
        )
        return 1
    print(cli_text("cli.study.all_done", n=final.total))
    return 0


def cmd_progress(args: argparse.Namespace, ctx: Context) -> int:
    from app.studies import service as studies

    with ctx.session() as session:
        p = studies.study_progress(args.study_id, session=session, actor=_actor(args, session))
    print(
        cli_text(
            "cli.study.drafts", done=p.items_complete, total=p.items_total, failed=p.items_failed
        )
    )
    for r in p.reviewers:
        print(f"  {r.reviewer:<24} {r.done}/{r.total}")
    print(cli_text("cli.study.all_in" if p.all_verdicts_in else "cli.study.in_progress"))
    return 0


def cmd_unblind(args: argparse.Namespace, ctx: Context) -> int:
    from app.studies import service as studies

    with ctx.session() as session:
        study = studies.unblind_early(
            args.study_id, session=session, reason=args.reason, actor=_actor(args, session)
        )
    print(cli_text("cli.study.unblinded", name=study.name, by=study.unblinded_by))
    return 0


def cmd_report(args: argparse.Namespace, ctx: Context) -> int:
    from app.studies import report as study_report
    from app.studies import service as studies

    lang = args.lang or ctx.settings.lang
    with ctx.session() as session:
        report = studies.results(
            args.study_id, settings=ctx.settings, session=session, actor=_actor(args, session)
        )
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
            write_private(path, data)
            print(cli_text("cli.study.written", path=path), file=sys.stderr)
    return 0
