"""The command line meets bad settings and files with one line and exit code 2, never a
traceback (app.commands.failures); binary stdin is refused like a binary file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import REPO, run_lexspec

pytestmark = pytest.mark.integration


def one_line_exit_2(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_unknown_database_url_scheme() -> None:
    line = one_line_exit_2(run_lexspec("audit", "verify", env={"LEXSPEC_DATABASE_URL": "foo://x"}))
    assert "Bad database URL" in line


def test_database_url_at_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 200, encoding="utf-8")
    for command in (("audit", "verify"), ("user", "list"), ("db", "upgrade")):
        line = one_line_exit_2(
            run_lexspec(*command, env={"LEXSPEC_DATABASE_URL": f"sqlite:///{notes}"})
        )
        assert "not a database" in line


def test_database_path_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    url = f"sqlite:///{blocker / 'sub' / 'lexspec.db'}"
    line = one_line_exit_2(run_lexspec("audit", "verify", env={"LEXSPEC_DATABASE_URL": url}))
    assert "a-file" in line


def test_bad_setting_is_one_line() -> None:
    line = one_line_exit_2(run_lexspec("audit", "verify", env={"LEXSPEC_LANG": "fr"}))
    assert "lang" in line


@pytest.mark.parametrize("command", [["check", "-"], ["export", "-", "--out", "OUT"]])
def test_binary_stdin_is_refused(command: list[str], tmp_path: Path) -> None:
    out = tmp_path / "x.docx"
    command = [str(out) if arg == "OUT" else arg for arg in command]
    binary = bytes(range(256)) * 4
    for data in (binary, b"\x00\x00text with NULs\x00"):
        result = subprocess.run(
            [sys.executable, "-m", "app.cli", *command],
            cwd=REPO,
            input=data,
            capture_output=True,
            timeout=120,
        )
        err = result.stderr.decode("utf-8", "replace")
        assert result.returncode == 2, err
        assert "Traceback" not in err and ("UTF-8" in err or "二进制" in err)
    assert not out.exists()


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("mysql://user@127.0.0.1/lexspec", "driver for mysql is not installed"),  # no MySQLdb
        ("sqlite:///DIR/x.db?timeout=abc", "timeout"),
        ("sqlite:///DIR/x.db?timeout=nan", "timeout"),
        ("sqlite:///DIR/x.db?timeout=-1", "timeout"),
    ],
)
def test_database_url_without_a_driver_or_with_a_bad_timeout(
    tmp_path: Path, url: str, needle: str
) -> None:
    env = {"LEXSPEC_DATABASE_URL": url.replace("DIR", str(tmp_path)), "LEXSPEC_LANG": "en"}
    line = one_line_exit_2(run_lexspec("audit", "verify", env=env))
    assert "Bad database URL" in line and needle in line


def test_endpoints_setting_that_is_not_json_is_one_line() -> None:
    line = one_line_exit_2(run_lexspec("audit", "verify", env={"LEXSPEC_ENDPOINTS": "{not json"}))
    assert "endpoints" in line
