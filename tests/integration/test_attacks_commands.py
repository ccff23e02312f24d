"""Standing attacker suite: command lines that crashed, hung, lied or lost a record (issue 37,
item 11).

Before: six tracebacks (`study --help` with a `%` in its help, `check --generation
1180591620717411303424`, `clauses import` of a binary file, `serve --model` of a binary file,
`serve --port 70000`; the sixth, `study report` with a control character in a comment, is the
report's own, issue 37 item 5), `serve` exiting 0 after failing, a 34-line YAML error with a
Python repr, `check` of a link to /dev/zero hanging, `export` of a 20 MB file running for
minutes, `--user ghost` recorded as a draft's author, and a record lost when neither the
database nor the spool could be written. Must hold: one line on stderr and a non-zero exit for
each refusal, nothing hangs, and the record is kept (in memory, and printed for a command).
The real command line, in-process where it can be, the real entry point where a process
matters (`serve`), the real embedded server for a draft.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import build_parser, main
from app.commands.inputs import MAX_INPUT_BYTES
from app.drafting import recording
from audit.spool import SPOOL_FILE
from tests.conftest import MakeContext
from tests.integration.test_audit_faults import outcome
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
BINARY = bytes(range(256)) * 8


def _paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[list[str]]:
    yield list(prefix)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _paths(sub, (*prefix, name))


HELP_PATHS = list(_paths(build_parser()))


def test_every_command_is_tabled() -> None:
    assert ["study", "plan"] in HELP_PATHS and len(HELP_PATHS) > 30


@pytest.mark.parametrize("path", HELP_PATHS, ids=lambda p: " ".join(p) or "lexspec")
def test_attack_help_of_every_command(path: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*path, "--help"])
    assert done.value.code == 0
    assert "usage: lexspec" in capsys.readouterr().out


def _one_line(
    argv: list[str], ctx: object, capsys: pytest.CaptureFixture[str], code: int = 2
) -> str:
    try:
        got = main(argv, context=ctx)  # type: ignore[arg-type]
    except SystemExit as exc:  # the parser's own one-line error
        got = int(exc.code or 0)
    err = capsys.readouterr().err
    assert got == code and "Traceback" not in err, (argv, got, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, (argv, err)
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--generation", "1180591620717411303424"],
        ["check", "--generation", "0"],
        ["export", "--revision", "99999999999999999999", "--out", "x.docx"],
        ["clauses", "approve", "-5", "--as", "root"],
        ["clauses", "propose", "--revision", "1e3", "--as", "root"],
        ["study", "report", str(2**70), "--as", "root"],
        ["study", "plan", "0.5", "--study", str(2**40)],
        ["serve", "--port", "70000"],
        ["serve", "--port", "0"],
        ["serve", "--n-ctx", str(2**64)],
        ["draft", "--max-tokens", str(2**64)],
    ],
)
def test_attack_numbers_out_of_range_on_the_command_line(
    argv: list[str], make_context: MakeContext, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line(argv, make_context(lang="en"), capsys)
    assert "whole number from" in line


def test_attack_clauses_import_of_a_binary_file(
    make_context: MakeContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "clauses.yaml"
    binary.write_bytes(BINARY)
    argv = ["clauses", "import", str(binary), "--type", "cross-border-filing-guide", "--as", "x"]
    assert "Not a UTF-8 text file" in _one_line(argv, make_context(lang="en"), capsys)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("name: [unclosed\n  doc_type: x\n", "line 2, column 11"),
        ("- just\n- a list\n", "a field has the wrong type"),
        ("name: x\ndoc_type: y\n", "arms is missing"),
    ],
)
def test_attack_a_malformed_study_file_is_one_line_without_a_repr(
    content: str,
    said: str,
    make_context: MakeContext,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = tmp_path / "study.yaml"
    spec.write_text(content, encoding="utf-8")
    line = _one_line(["study", "create", str(spec), "--as", "x"], make_context(lang="en"), capsys)
    assert said in line and "Error(" not in line and "<unicode string>" not in line, line


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "directory"])
def test_attack_check_of_something_that_is_not_a_file_does_not_hang(
    special: str, tmp_path: Path
) -> None:
    target = tmp_path / "thing"
    if special == "fifo":
        os.mkfifo(target)
    elif special == "directory":
        target.mkdir()
    else:
        target.symlink_to(special)
    for command in (["check", str(target)], ["export", str(target), "--out", "x.docx"]):
        env = {"LEXSPEC_DATA_DIR": str(tmp_path / "data"), "LEXSPEC_LANG": "en"}
        done = run_lexspec(*command, env=env, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "is not a regular file" in done.stderr and len(done.stderr.splitlines()) == 1


def test_attack_an_input_over_the_limit_is_refused_before_it_is_read(
    make_context: MakeContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(
        ("第一条 数据出境。\n" * (MAX_INPUT_BYTES // 20)).encode()[: MAX_INPUT_BYTES + 1]
    )
    ctx = make_context(lang="en")
    for argv in (["check", str(big)], ["export", str(big), "--out", str(tmp_path / "x.docx")]):
        assert "larger than the 2 MB limit" in _one_line(argv, ctx, capsys)
    assert not (tmp_path / "x.docx").exists()


def test_attack_draft_as_a_user_who_is_no_account(
    make_context: MakeContext, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before any model is asked (the endpoint here answers nothing)."""
    ctx = make_context(lang="en", llm_base_url="http://127.0.0.1:1/v1")
    argv = ["draft", "--type", "clause-continuation", "--example", "--user", "ghost"]
    assert "--user ghost is not an enabled account" in _one_line(argv, ctx, capsys)


def test_attack_serve_a_binary_model_file(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(BINARY)
    done = run_lexspec("serve", "--model", str(model), "--port", "1", timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr
    assert "is not a GGUF model file" in done.stderr and len(done.stderr.splitlines()) == 1


def test_attack_serve_on_a_port_in_use_exits_non_zero_at_once() -> None:
    """The port is bound before the model loads: one line, exit 2 (it was 0, after loading)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run_lexspec("serve", "--port", str(port), timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    refusal = [line for line in done.stderr.splitlines() if "cannot listen" in line]
    assert len(refusal) == 1 and f"127.0.0.1:{port}" in refusal[0], done.stderr


def _unwritable(data: Path) -> None:
    """A data directory where neither the database nor the spool can be written (a directory
    stands where each file should be: these tests run as root, whom no mode stops)."""
    (data / "lexspec.db").mkdir(parents=True)
    (data / SPOOL_FILE).mkdir()


def test_attack_neither_database_nor_spool_writable_holds_the_record_in_memory(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """A page's process: the record waits in memory and goes in, in order, at the next write."""
    data = tmp_path / "data"
    _unwritable(data)
    ctx = make_context(lang="en", data_dir=data)
    first = recording.keep(outcome("第一稿"), user_name="alice", ctx=ctx)
    assert first.generation_id is None and first.problem is not None
    assert "held in this process's memory" in first.problem.en and first.record_line
    assert json.loads(first.record_line)["record"]["output_text"] == "第一稿"
    assert recording.held(ctx) == 1
    (data / "lexspec.db").rmdir()  # the disk is writable again
    (data / SPOOL_FILE).rmdir()
    second = recording.keep(outcome("第二稿"), user_name="alice", ctx=ctx)
    assert second.generation_id == 2 and second.problem is None and recording.held(ctx) == 0
    with ctx.session() as session:
        from audit.store import get_generation

        texts = [get_generation(i, session=session).record.output_text for i in (1, 2)]  # type: ignore[union-attr]
    assert texts == ["第一稿", "第二稿"]


def test_attack_a_draft_whose_record_no_file_takes_is_printed(
    plain_llm_base_url: str, tmp_path: Path
) -> None:
    """A command's process ends: the record is printed on stdout as one signed spool line,
    which replays when appended to the spool."""
    data = tmp_path / "data"
    data.mkdir()
    key = data / "audit-spool.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    _unwritable(data)
    env = {"LEXSPEC_DATA_DIR": str(data), "LEXSPEC_LLM_BASE_URL": plain_llm_base_url,
           "LEXSPEC_ENDPOINTS": "{}", "LEXSPEC_LANG": "en"}  # fmt: skip
    done = run_lexspec(
        "draft", "--type", "clause-continuation", "--example", "--mode", "free-form",
        "--max-tokens", "16", env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert "printed on standard output as one JSON line" in done.stderr
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["record"]["doc_type"] == "clause-continuation" and line["mac"]
    (data / "lexspec.db").rmdir()
    (data / SPOOL_FILE).rmdir()
    (data / SPOOL_FILE).write_text(done.stdout.strip().splitlines()[-1] + "\n", encoding="utf-8")
    verified = run_lexspec("audit", "verify", env=env)  # the next start replays it
    assert verified.returncode == 0, verified.stderr
    import sqlite3

    with sqlite3.connect(data / "lexspec.db") as conn:
        logged = conn.execute("SELECT user_name, output_text FROM generations").fetchall()
    assert logged == [("cli", line["record"]["output_text"])]
