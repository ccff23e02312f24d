"""`lexspec user ...`, `lexspec audit verify` and `lexspec db upgrade`."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from typing import Any

ROLE_CHOICES = ("drafter", "reviewer", "admin")


def register(sub: Any) -> None:
    user = sub.add_parser("user", help="用户管理 / manage user accounts")
    user_sub = user.add_subparsers(dest="user_command", required=True)
    add = user_sub.add_parser("add", help="新建用户 / create a user")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=ROLE_CHOICES)
    add.add_argument(
        "--password", help="省略则提示输入或自动生成 / omit to be prompted or get a generated one"
    )
    add.set_defaults(func=_guarded(cmd_user_add))
    listing = user_sub.add_parser("list", help="列出用户 / list users")
    listing.set_defaults(func=_guarded(cmd_user_list))
    reset = user_sub.add_parser(
        "reset-password", help="重置为一次性密码 / set a new one-time password"
    )
    reset.add_argument("name")
    reset.set_defaults(func=_guarded(cmd_user_reset))

    audit = sub.add_parser("audit", help="审计日志 / audit log")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser(
        "verify", help="校验哈希链 / verify the hash chain (exit 1 when altered)"
    )
    verify.set_defaults(func=_guarded(cmd_audit_verify))

    db = sub.add_parser("db", help="数据库 / database")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    upgrade = db_sub.add_parser("upgrade", help="迁移到最新结构 / migrate to the newest schema")
    upgrade.set_defaults(func=_guarded(cmd_db_upgrade))


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn bad input and an unreachable database into a clear message and exit code 1."""

    def run(args: argparse.Namespace) -> int:
        from sqlalchemy.exc import OperationalError

        from audit.users import UserError

        try:
            return handler(args)
        except UserError as exc:
            print(f"错误 / Error: {exc}", file=sys.stderr)
            return 1
        except OperationalError as exc:
            reason = str(exc.orig or exc).strip().splitlines()[0]
            print(f"无法访问数据库 / Cannot use the database: {reason}", file=sys.stderr)
            return 1

    return run


def _ask_password() -> str | None:
    """Prompt twice on a terminal; None (generate one) when not interactive or left empty."""
    if not sys.stdin.isatty():
        return None
    first = getpass.getpass("密码（留空自动生成）/ Password (empty: generate one): ")
    if not first:
        return None
    if getpass.getpass("再次输入 / Repeat: ") != first:
        from audit.users import UserError

        raise UserError("mismatch", "两次输入的密码不一致", "The passwords do not match")
    return first


def cmd_user_add(args: argparse.Namespace) -> int:
    from app.database import session_scope
    from audit.users import create_user, generate_password

    password = args.password or _ask_password()
    generated = password is None
    password = password or generate_password()
    with session_scope() as session:
        user = create_user(
            args.name, args.role, password, session=session, must_change_password=generated
        )
    print(f"已创建用户 / Created user: {user.name} ({user.role})")
    if generated:
        print(f"一次性密码（仅显示一次）/ One-time password (shown once): {password}")
    return 0


def cmd_user_list(_args: argparse.Namespace) -> int:
    from app.database import session_scope
    from audit.users import list_users

    with session_scope() as session:
        users = list_users(session=session)
    if not users:
        print("还没有用户 / No users yet")
    for user in users:
        flag = "  (须改密码 / must change password)" if user.must_change_password else ""
        print(f"{user.name:<24} {user.role:<9} {user.created_at:%Y-%m-%d %H:%M} UTC{flag}")
    return 0


def cmd_user_reset(args: argparse.Namespace) -> int:
    from app.database import session_scope
    from audit.users import reset_password

    with session_scope() as session:
        password = reset_password(args.name, session=session, actor="cli")
    print(f"一次性密码（仅显示一次）/ One-time password (shown once): {password}")
    return 0


def cmd_audit_verify(_args: argparse.Namespace) -> int:
    from app.database import session_scope
    from audit.store import verify_chain

    with session_scope() as session:
        report = verify_chain(session=session)
    if report.ok:
        print(f"审计链完好 / Audit chain intact: {report.checked} rows checked")
        print(f"链头 / Chain head: seq {report.head_seq}, {report.head_hash}")
        return 0
    assert report.first_bad is not None
    table, row_id, reason = report.first_bad
    print(
        f"审计链被改动 / Audit chain ALTERED at {table} id={row_id}: {reason}\n"
        f"此前 {report.checked} 行完好 / {report.checked} rows before it verified",
        file=sys.stderr,
    )
    return 1


def cmd_db_upgrade(_args: argparse.Namespace) -> int:
    from app.config import get_settings
    from audit.db import current_revision, make_engine, migrate

    engine = make_engine(get_settings().resolved_database_url)
    before = current_revision(engine)
    migrate(engine)
    after = current_revision(engine)
    engine.dispose()
    print(f"数据库结构 / Schema: {before or '(empty)'} -> {after}")
    return 0
