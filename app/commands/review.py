"""`lexspec review FILE|DIR [--facts F.json] [--date YYYY-MM-DD] [--out OUT.docx|OUTDIR]
[--tracked] [--format text|json] --as ACCOUNT`: review documents others wrote (app/review).

A FILE: its findings on the date it speaks from (and those outdated today), `--out OUT.docx`
the original with a comment on each finding's words (`--tracked`: and tracked fixes), `--out
OUT.md` the summary. A DIR: every .docx/.md/.txt in it, one table (file, date used, errors,
warnings, top finding), `--out OUTDIR` each DOCX annotated and each summary. Each review is
recorded in the audit chain as the `--as` account's. A file that cannot be read is one line
(JSON with --format json). Exit: 2 a file refused or bad input, 1 an error found, else 0."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain import BilingualError, describe
from app.i18n import cli_text
from app.review.reader import KINDS

LISTED = {*KINDS, ".doc"}  # a folder's .doc files are listed as refused, not passed over

if TYPE_CHECKING:
    from app.context import Context
    from app.review.service import Review
    from audit.domain import User


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("review", help=cli_text("cli.docreview.help"),
                       description=cli_text("cli.docreview.help"))  # fmt: skip
    p.add_argument("path", help=cli_text("cli.docreview.path"))
    p.add_argument("--facts", help=cli_text("cli.docreview.facts"))
    p.add_argument("--date", help=cli_text("cli.docreview.date"))
    p.add_argument("--out", type=Path, help=cli_text("cli.docreview.out"))
    p.add_argument("--tracked", action="store_true", help=cli_text("cli.docreview.tracked"))
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help=cli_text("cli.docreview.format"))  # fmt: skip
    p.add_argument("--as", dest="actor", required=True, help=cli_text("cli.docreview.as"))
    p.set_defaults(func=handle)


def _error(key: str, **values: object) -> BilingualError:
    from app.commands.inputs import InputError
    from app.i18n import both

    message = both(key, **values)
    return InputError(message.zh, message.en)


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix.lower() in LISTED and p.is_file())
        if not found:
            raise _error("cli.docreview.no_files", path=path)
        return found
    if not path.exists():
        raise _error("cli.docreview.not_found", path=path)
    return [path]


def _finding_json(review: Review, finding: object) -> dict[str, object]:
    from app.domain import Finding
    from app.review.summary import excerpt

    assert isinstance(finding, Finding)
    passage = review.passage(finding)
    where = {"paragraph": passage.paragraph, "place": passage.place} if passage else {}
    return {**finding.to_dict(), **where, "passage": excerpt(review, finding)}


def review_json(review: Review, out: list[Path]) -> dict[str, object]:
    return {
        "file": review.name, "sha256": review.sha256, "date": review.date.to_dict(),
        "counts": review.counts(),
        "findings": [_finding_json(review, f) for f in review.findings],
        "outdated": [_finding_json(review, f) for f in review.outdated],
        "out": [str(p) for p in out],
    }  # fmt: skip


def _outputs(review: Review, data: bytes, args: argparse.Namespace, batch: bool) -> list[Path]:
    """Write the annotated DOCX and / or the summary where --out says; the paths written."""
    from app.review.annotate import annotated_docx
    from app.review.summary import summary_markdown
    from audit.files import private_dir, write_private

    if args.out is None:
        return []
    lang = "zh"
    if not batch and args.out.suffix.lower() == ".md":
        return [write_private(args.out, summary_markdown(review, lang).encode())]
    if not batch and review.document.kind != "docx":
        raise _error("cli.docreview.out_needs_docx", out=args.out)
    if not batch:
        return [write_private(args.out, annotated_docx(data, review, tracked=args.tracked))]
    folder = private_dir(args.out)
    stem = Path(review.name).stem
    written = [write_private(folder / f"{stem}.review.md", summary_markdown(review, lang).encode())]
    if review.document.kind == "docx":
        docx_bytes = annotated_docx(data, review, tracked=args.tracked)
        written.append(write_private(folder / f"{stem}.reviewed.docx", docx_bytes))
    return written


def _one(
    path: Path, args: argparse.Namespace, ctx: Context, actor: User, facts: Mapping[str, str],
    day: dt.date | None, batch: bool,
) -> tuple[Review, list[Path]]:  # fmt: skip
    """Read, review, record and write one file; BilingualError when it is refused."""
    from app.commands.inputs import read_bytes
    from app.review.service import record_review, review_document

    settings = ctx.settings
    data = read_bytes(path, settings.review_max_bytes + 1)
    review = review_document(data, path.name, settings=settings, today=dt.date.today(),
                             facts=facts or None, date=day)  # fmt: skip
    with ctx.session() as session:
        record_review(review, data, settings=settings, session=session, actor=actor,
                      now=dt.datetime.now(dt.UTC))  # fmt: skip
    return review, _outputs(review, data, args, batch)


def _text(review: Review, out: list[Path]) -> str:
    from app.i18n import t
    from app.review.summary import excerpt

    lang, used = "zh", review.date
    lines = [f"{review.name}: " + t(f"docreview.date.{used.source}", lang,
                                     date=used.date.isoformat(), cue=used.cue)]  # fmt: skip
    for f in review.findings:
        hint = f" → {f.suggestion}" if f.suggestion else ""
        lines.append(f"  {f.severity} {f.code} {excerpt(review, f)} {f.message_zh}{hint}")
    if review.outdated:
        lines.append("  " + cli_text("cli.docreview.outdated", today=review.today.isoformat()))
        lines += [
            f"  warning {f.code} {excerpt(review, f)} → {f.suggestion}" for f in review.outdated
        ]
    lines += [cli_text("cli.docreview.written", path=p) for p in out]
    return "\n".join(lines)


def _row(review: Review) -> str:
    top = review.top()
    counts = review.counts()
    first = f"{top.code} {top.message_zh}" if top else "-"
    return f"{review.name}\t{review.date.date.isoformat()}\t{counts['error']}\t{counts['warning']}\t{first}"


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from app.accounts import require_role
    from app.commands.check import read_facts
    from app.commands.cite import parse_date
    from app.commands.clauses import _actor
    from app.domain import Role

    try:
        day = parse_date(args.date) if args.date else None
        facts = read_facts(args.facts) if args.facts else {}
        files = _files(Path(args.path))
        with ctx.session() as session:
            actor = require_role(_actor(args.actor, session), Role.DRAFTER, Role.ADMIN)
    except BilingualError as exc:
        print(describe(exc), file=sys.stderr)
        return 2
    batch = Path(args.path).is_dir()
    results: list[dict[str, object]] = []
    rows: list[str] = []
    refused = errors = warnings = 0
    for path in files:
        try:
            review, out = _one(path, args, ctx, actor, facts, day, batch)
        except (BilingualError, OSError) as exc:
            refused += 1
            message = describe(exc)
            line = str(message)
            results.append({"file": path.name, "refused": {"zh": message.zh, "en": message.en}})
            rows.append(f"{path.name}\t-\t-\t-\t{cli_text('cli.docreview.refused_row')}: {line}")
            if not batch and args.format == "text":
                print(line, file=sys.stderr)
            continue
        errors += review.counts()["error"]
        warnings += review.counts()["warning"]
        results.append(review_json(review, out))
        rows.append(_row(review) if batch else _text(review, out))
    _print(args, batch, results, rows)
    if batch or not refused:
        print(cli_text("cli.docreview.totals", files=len(files), errors=errors, warnings=warnings,
                       refused=refused), file=sys.stderr)  # fmt: skip
    return 2 if refused else 1 if errors else 0


def _print(
    args: argparse.Namespace, batch: bool, results: list[dict[str, object]], rows: list[str]
) -> None:
    """JSON (one object for a file, a list for a folder), else the table or the findings."""
    if args.format == "json":
        print(json.dumps(results if batch else results[0], ensure_ascii=False))
        return
    if batch:
        columns = ("file", "date", "errors", "warnings", "top")
        print("\t".join(cli_text(f"docreview.columns.{c}") for c in columns))
    elif "refused" in results[0]:
        return  # its one line is on stderr already
    for row in rows:
        print(row)
