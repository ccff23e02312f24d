"""Standing attacker suite: malformed command lines and environment values.

Attack: any invocation a user or a script can type, and any LEXSPEC_ value. Must hold for
each: exit 2, exactly one line on stderr, no traceback (the parser's usage errors through
app.cli.OneLineParser, the rest through app.commands.failures). Extends
test_cli_errors.py (which runs a few of these through a real subprocess) without repeating
its cases; `main` runs in-process here so the table stays cheap, and one case goes through
the real `lexspec` entry point to show they agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from tests.integration.test_cli_errors import one_line_exit_2
from tests.servers import run_lexspec

pytestmark = pytest.mark.integration

BAD_INVOCATIONS = [
    [],
    ["nonsense"],
    ["--bogus"],
    ["user"],
    ["user", "add"],
    ["user", "add", "bob"],
    ["user", "add", "bob", "--role", "king"],
    ["user", "set-role", "bob"],
    ["user", "set-role", "bob", "--role", "root"],
    ["user", "reset-password"],
    ["user", "list", "extra"],
    ["audit"],
    ["audit", "verify", "--checkpoint"],
    ["audit", "verify", "--checkpoint", "not json"],
    ["audit", "verify", "--checkpoint", '{"first": 5, "seq": 1, "hash": "", "at": "", "sig": ""}'],
    ["audit", "verify", "--checkpoint", '{"first": "x"}'],
    ["audit", "checkpoint", "extra"],
    ["db"],
    ["db", "upgrade", "extra"],
    ["draft", "--type"],
    ["draft", "--max-tokens", "many"],
    ["draft", "--temperature", "hot"],
    ["draft", "--mode", "poem"],
    ["check"],
    ["check", "MISSING"],
    ["export"],
    ["export", "MISSING", "--out", "OUT"],
    ["route", "--employees", "x"],
    ["clauses"],
    ["clauses", "approve"],
    ["clauses", "approve", "notanumber"],
    ["clauses", "import"],
    ["study"],
    ["serve", "--port", "http"],
    ["serve", "--head-timeout", "0"],
    ["serve", "--body-timeout", "soon"],
    ["bench", "--bogus"],
    ["endpoints"],
    ["endpoints", "switch"],
    ["cite", "--bogus"],
]

BAD_ENVIRONMENT = {
    "LEXSPEC_DATABASE_URL": "not a url",
    "LEXSPEC_REQUEST_TIMEOUT_S": "soon",
    "LEXSPEC_CONNECT_TIMEOUT_S": "[]",
    "LEXSPEC_SERVER_PORT": "eighty",
    "LEXSPEC_SESSION_IDLE_HOURS": "-1",
    "LEXSPEC_SPECULATIVE": "psychic",
    "LEXSPEC_LLM_WRITING": "dictate",
    "LEXSPEC_LLM_CHAT_TEMPLATE_KWARGS": "[1, 2",
    "LEXSPEC_ENDPOINTS": '{"a": 1}',
    "LEXSPEC_N_CTX": "big",
    "LEXSPEC_AUDIT_KEY_FILE": "DIR",  # a directory, not a key file
    "LEXSPEC_AUDIT_CHECKPOINT_FILE": "DIR",
}


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh data directory and settings; the cached engine and settings reset after."""
    from app import database
    from app.config import get_settings

    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LEXSPEC_LANG", "en")
    get_settings.cache_clear()
    database.reset()
    yield tmp_path
    get_settings.cache_clear()
    database.reset()


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own exit (OneLineParser)
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2, (argv, code, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, (argv, err)
    return lines[0]


def test_at_least_forty_attacks_are_tabled() -> None:
    assert len(BAD_INVOCATIONS) + len(BAD_ENVIRONMENT) >= 40


@pytest.mark.parametrize("argv", BAD_INVOCATIONS, ids=" ".join)
def test_attack_malformed_invocation_is_one_line_exit_2(
    argv: list[str], isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {"MISSING": str(isolated / "no-such-file.txt"), "OUT": str(isolated / "x.docx")}
    line = _one_line(capsys, [paths.get(arg, arg) for arg in argv])
    assert line.strip()
    assert not (isolated / "x.docx").exists()


@pytest.mark.parametrize("name", sorted(BAD_ENVIRONMENT))
def test_attack_malformed_environment_value_is_one_line_exit_2(
    name: str, isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    value = BAD_ENVIRONMENT[name].replace("DIR", str(isolated))
    monkeypatch.setenv(name, value)
    from app.config import get_settings

    get_settings.cache_clear()
    _one_line(capsys, ["audit", "verify"])


def test_the_real_entry_point_agrees(tmp_path: Path) -> None:
    line = one_line_exit_2(run_lexspec("user", "add", "bob", "--role", "king"))
    assert "invalid choice: 'king'" in line
