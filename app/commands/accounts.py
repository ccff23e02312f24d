"""`lexspec user ...`, `lexspec audit verify|checkpoint` and `lexspec db upgrade`."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, Any

from app.i18n import cli_text
from audit.vocabulary import Role

if TYPE_CHECKING:
    from app.context import Context

ROLE_CHOICES = tuple(r.value for r in Role)  # exactly the roles audit/vocabulary.py declares


def register(sub: Any) -> None:
    user = sub.add_parser("user", help=cli_text("cli.accounts.user.help"))
    user_sub = user.add_subparsers(dest="user_command", required=True)
    add = user_sub.add_parser("add", help=cli_text("cli.accounts.add.help"))
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=ROLE_CHOICES)
    add.add_argument("--password", help=cli_text("cli.accounts.add.password"))
    add.set_defaults(func=cmd_user_add)
    listing = user_sub.add_parser("list", help=cli_text("cli.accounts.list.help"))
    listing.set_defaults(func=cmd_user_list)
    reset = user_sub.add_parser("reset-password", help=cli_text("cli.accounts.reset-password.help"))
    reset.add_argument("name")
    reset.set_defaults(func=cmd_user_reset)
    role = user_sub.add_parser("set-role", help=cli_text("cli.accounts.set-role.help"))
    role.add_argument("name")
    role.add_argument("--role", required=True, choices=ROLE_CHOICES)
    role.set_defaults(func=cmd_user_role)

    audit = sub.add_parser("audit", help=cli_text("cli.accounts.audit.help"))
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser("verify", help=cli_text("cli.accounts.verify.help"))
    verify.add_argument(
        "--checkpoint", action="append", default=[], help=cli_text("cli.accounts.verify.checkpoint")
    )
    verify.set_defaults(func=cmd_audit_verify)
    checkpoint = audit_sub.add_parser("checkpoint", help=cli_text("cli.accounts.checkpoint.help"))
    checkpoint.set_defaults(func=cmd_audit_checkpoint)

    db = sub.add_parser("db", help=cli_text("cli.accounts.db.help"))
    db_sub = db.add_subparsers(dest="db_command", required=True)
    upgrade = db_sub.add_parser("upgrade", help=cli_text("cli.accounts.upgrade.help"))
    upgrade.set_defaults(func=cmd_db_upgrade)


def _ask_password() -> str | None:
    """Prompt twice on a terminal; None (generate one) when not interactive or left empty."""
    if not sys.stdin.isatty():
        return None
    first = getpass.getpass("密码（留空自动生成）/ Password (empty: generate one): ")
    if not first:
        return None
    if getpass.getpass(cli_text("cli.accounts.repeat") + " ") != first:
        from audit.users import UserError

        raise UserError("mismatch", "两次输入的密码不一致", "The passwords do not match")
    return first


def cmd_user_add(args: argparse.Namespace, ctx: Context) -> int:
    from audit.users import create_user, generate_password

    password = args.password or _ask_password()
    generated = password is None
    password = password or generate_password()
    with ctx.session() as session:
        user = create_user(
            args.name, args.role, password, session=session, must_change_password=generated
        )
    print(cli_text("cli.accounts.created", name=user.name, role=user.role))
    if generated:
        print(f"{cli_text('cli.accounts.one_time_password')}: {password}")
    return 0


def cmd_user_list(_args: argparse.Namespace, ctx: Context) -> int:
    from audit.users import list_users

    with ctx.session() as session:
        users = list_users(session=session)
    if not users:
        print(cli_text("cli.accounts.no_users"))
    for user in users:
        flag = f"  ({cli_text('cli.accounts.must_change')})" if user.must_change_password else ""
        flag += f"  ({cli_text('cli.accounts.disabled')})" if user.disabled else ""
        print(f"{user.name:<24} {user.role:<9} {user.created_at:%Y-%m-%d %H:%M} UTC{flag}")
    return 0


def cmd_user_reset(args: argparse.Namespace, ctx: Context) -> int:
    from audit.users import reset_password

    with ctx.session() as session:
        password = reset_password(args.name, session=session, actor="cli")
    print(f"{cli_text('cli.accounts.one_time_password')}: {password}")
    return 0


def cmd_user_role(args: argparse.Namespace, ctx: Context) -> int:
    from audit.users import set_role

    with ctx.session() as session:
        user = set_role(args.name, args.role, session=session, actor="cli")
    print(cli_text("cli.accounts.role_changed", name=user.name, role=user.role))
    return 0


def _report_spool(ctx: Context) -> bool:
    """Say how many records wait in the spool and how many lines sit in its quarantine."""
    from app.database import spool_status

    status = spool_status(ctx.settings)
    if status.problem is not None:
        print(cli_text("cli.failure.error", detail=status.problem), file=sys.stderr)
    if status.pending:
        line = cli_text("cli.accounts.spooled", n=status.pending, path=status.spool_path)
        print(line, file=sys.stderr)
    if status.quarantined:
        line = cli_text(
            "cli.accounts.quarantined", n=status.quarantined, path=status.quarantine_path
        )
        print(line, file=sys.stderr)
        for reason, n in sorted(status.reasons.items()):  # why each line was set aside
            print(cli_text("cli.accounts.quarantine_reason", n=n, reason=reason), file=sys.stderr)
    return bool(status.pending or status.quarantined or status.problem)


def cmd_audit_verify(args: argparse.Namespace, ctx: Context) -> int:
    from app.database.verify import verify_all
    from app.precedents.firm_clauses import published_faults
    from audit.anchor import parse

    kept = [parse(line) for line in args.checkpoint]
    try:
        with ctx.session() as session:  # first use replays the spool when it can
            verdict = verify_all(settings=ctx.settings, session=session, kept=kept)
            published = published_faults(settings=ctx.settings, session=session)
    except Exception:
        _report_spool(ctx)
        raise
    _report_spool(ctx)
    report = verdict.chain
    if verdict.ok:
        print(cli_text("cli.accounts.chain_intact", n=report.checked))
    elif report.first_bad is None:
        print(cli_text("cli.accounts.links_ok", n=report.checked))
    print(cli_text("cli.accounts.chain_head", seq=report.head_seq, hash=report.head_hash))
    if verdict.newest is not None:
        print(
            cli_text("cli.accounts.newest_checkpoint", seq=verdict.newest.seq, at=verdict.newest.at)
        )
    if report.first_bad is not None:
        table, row_id, reason = report.first_bad
        print(
            cli_text("cli.accounts.chain_altered", table=table, id=row_id, reason=reason)
            + "\n"
            + cli_text("cli.accounts.verified_before", n=report.checked),
            file=sys.stderr,
        )
    for table, row_id, reason in report.uncovered:
        print(
            cli_text("cli.accounts.uncovered", table=table, id=row_id, reason=reason),
            file=sys.stderr,
        )
    for fault in verdict.anchor_faults:
        print(cli_text("cli.accounts.anchor_fault", detail=fault), file=sys.stderr)
    for fault in published:
        print(cli_text("cli.accounts.published_fault", detail=fault), file=sys.stderr)
    return 0 if verdict.ok and not published else 1


def cmd_audit_checkpoint(_args: argparse.Namespace, ctx: Context) -> int:
    from app.database import get_engine
    from app.database.anchoring import anchor

    get_engine(ctx.settings)  # first use anchors a chain that has no checkpoint yet
    target = anchor(ctx.settings)
    newest = target.read().newest
    if newest is None:
        print(cli_text("cli.accounts.no_checkpoint", path=target.checkpoint_path), file=sys.stderr)
        return 1
    print(cli_text("cli.accounts.checkpoint_caption"), file=sys.stderr)
    print(newest.line())
    return 0


def cmd_db_upgrade(_args: argparse.Namespace, ctx: Context) -> int:
    from app.database import get_engine
    from audit.db import current_revision, make_engine

    engine = make_engine(ctx.settings.resolved_database_url)
    before = current_revision(engine)
    engine.dispose()
    engine = get_engine(ctx.settings)  # migrated as every first use is: with the audit key,
    after = current_revision(engine)  # and the rows a migration chains anchored
    print(cli_text("cli.accounts.schema", before=before or "(empty)", after=after))
    return 0
