"""`lexspec draft` as a user runs it: a real subprocess against the real embedded server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.servers import REPO, as_at_a_terminal, free_port, run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("audit_db")]

CLAUSE = ["--type", "clause-continuation", "--example"]


def lexspec(
    *args: str, base_url: str | None = None, lang: str = "zh", env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "LEXSPEC_LLM_BASE_URL": base_url or f"http://127.0.0.1:{free_port()}/v1",
        "LEXSPEC_LANG": lang,
        "LEXSPEC_ENDPOINTS": "{}",
        # these tests are of the model's drafting; an unmeasured endpoint would assemble
        "LEXSPEC_LLM_WRITING": "adapt",
        **(env or {}),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "draft", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,  # the Ctrl-C test signals it
    )


def run(
    *args: str,
    base_url: str | None = None,
    lang: str = "zh",
    env: dict[str, str] | None = None,
    timeout: float = 180,
) -> tuple[int, str, str]:
    proc = lexspec(*args, base_url=base_url, lang=lang, env=env)
    out, err = proc.communicate(timeout=timeout)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


def stored(url: str, err: str) -> Any:
    """The audit record whose id the CLI printed on stderr."""
    from audit.db import make_engine, make_session_factory
    from audit.store import get_generation

    found = re.search(r"已记入审计日志，编号 (\d+)", err)
    assert found, err
    engine = make_engine(url)
    try:
        with make_session_factory(engine)() as session:
            return get_generation(int(found.group(1)), session=session)
    finally:
        engine.dispose()


def test_streams_a_draft_with_stats_writes_it_and_logs_it(
    llm_base_url: str, tmp_path: Path, audit_db: str
) -> None:
    out_file, report_file = tmp_path / "draft.txt", tmp_path / "report.json"
    added = run_lexspec(
        "user", "add", "王律师", "--role", "drafter", "--password", "long enough",
        env={"LEXSPEC_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert added.returncode == 0, added.stderr  # --user names an account (issue 37)
    args = ("--max-tokens", "24", "--out", str(out_file), "--user", "王律师",
            "--report", str(report_file))  # fmt: skip
    code, out, err = run(*CLAUSE, *args, base_url=llm_base_url)
    assert code == 0, err
    assert out.strip()
    assert out_file.read_text(encoding="utf-8") == out.rstrip("\n")
    # drafted from the outline (8.3, 8.4 written by the app); parts cut at 24 tokens are truncated
    assert out.startswith("8.3 ")
    status = "complete" if "status complete" in err else "truncated"
    assert f"status {status}" in err and "TTFT" in err and "tok/s" in err
    assert "draft accepted" in err
    assert "校验" in err  # findings summary
    record = stored(audit_db, err).record
    assert (record.user_name, record.doc_type) == ("王律师", "clause-continuation")
    assert record.status == status and record.output_text == out.rstrip("\n")
    assert record.params["max_tokens"] == 24 and record.prompt_tokens
    # --report: the parts' sources (adapt, the embedded default: the rewrite or its clause)
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["doc_type"] == "clause-continuation" and report["route"] is None
    assert report["status"] == status and report["fields"]["contract_type"] == "数据处理协议"
    assert [p["title"] for p in report["parts"]] == ["8.3", "8.4"]
    assert all(p["source"] in ("adapted", "clause") for p in report["parts"])
    assert all(bool(p["gates"]) == (p["source"] == "clause") for p in report["parts"])
    assert [p["source"] for p in record.params["draft"]["provenance"]] == [
        p["source"] for p in report["parts"]
    ]
    assert "各部分来源" in err


def test_ctrl_c_stops_and_keeps_the_partial_text(
    llm_base_url: str, tmp_path: Path, audit_db: str
) -> None:
    out_file = tmp_path / "partial.txt"
    proc = lexspec(
        *CLAUSE, "--mode", "free-form", "--max-tokens", "1500", "--out", str(out_file),
        base_url=llm_base_url,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.read(8)  # blocks until the draft has started streaming
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    rest, err = proc.stdout.read(), proc.stderr.read()  # through the same buffered readers
    assert "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert "status stopped" in err and "已停止" in err
    saved = out_file.read_text(encoding="utf-8")
    assert saved and (first + rest).startswith(saved)
    assert "1500 tokens" not in err  # stopped well before the budget (~20 s at 70 tokens/s)
    record = stored(audit_db, err).record
    assert record.status == "stopped" and record.output_text == saved


def test_too_many_tokens_for_the_context_is_refused_with_the_numbers(llm_base_url: str) -> None:
    args = ("--mode", "free-form", "--max-tokens", "5000")  # outline parts have their own budgets
    code, out, err = run(*CLAUSE, *args, base_url=llm_base_url, lang="en")
    assert code == 2 and out == ""
    assert "5000" in err and "4096" in err and "max_tokens" in err


def test_server_down_is_a_clear_message_and_logged_as_an_error(audit_db: str) -> None:
    code, _, err = run(*CLAUSE, "--max-tokens", "8")
    assert code == 1
    assert "无法连接模型服务" in err and "Cannot reach" in err and "status error" in err
    record = stored(audit_db, err).record
    assert record.status == "error" and "Cannot reach" in (record.error_message or "")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--type", "nope"], "未知的文书类型"),
        ([], "--type"),
        ([*CLAUSE, "--field", "colour=red"], "colour"),
        ([*CLAUSE, "--field", "novalue"], "名称=值"),
        ([*CLAUSE, "--field", "party_role=丙方"], "须为以下之一"),
        (["--type", "clause-continuation"], "为必填项"),
        ([*CLAUSE, "--endpoint", "vllm"], "vllm"),
        ([*CLAUSE, "--max-tokens", "0"], "--max-tokens"),
        ([*CLAUSE, "--temperature", "nan"], "--temperature"),
        ([*CLAUSE, "--temperature", "inf"], "--temperature"),
        ([*CLAUSE, "--temperature", "-0.5"], "--temperature"),
        ([*CLAUSE, "--temperature", "2.5"], "--temperature"),
    ],
)
def test_bad_input_gets_a_message_not_a_traceback(args: list[str], needle: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert needle in err


def test_messages_follow_the_language_setting() -> None:
    code, _, err = run("--type", "nope", lang="en")
    assert (
        code == 2 and "Unknown document type 'nope'" in err and "cross-border-filing-guide" in err
    )


def test_out_into_a_missing_directory_fails_before_generating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", f"sqlite:///{tmp_path / 'untouched.db'}")
    code, out, err = run(*CLAUSE, "--out", str(tmp_path / "missing" / "draft.md"), lang="en")
    assert code == 2 and out == ""
    assert "does not exist" in err and str(tmp_path / "missing") in err
    assert "Cannot reach" not in err  # refused before asking any model server
    assert not (tmp_path / "untouched.db").exists()  # nor opened the database


def test_audit_log_that_cannot_be_written_is_not_success(
    llm_base_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The draft is printed, the failure is said, the exit code is not 0, the record is spooled."""
    from audit.spool import SPOOL_FILE, Spool

    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("not a database\n" * 200, encoding="utf-8")
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", f"sqlite:///{not_a_db}")
    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path / "data"))
    code, out, err = run(*CLAUSE, "--max-tokens", "16", base_url=llm_base_url, lang="en")
    assert code == 3, err
    assert out.strip() and "Could not write the audit log" in err and "not a database" in err
    assert Spool(tmp_path / "data" / SPOOL_FILE).pending() == 1


def test_unreadable_spool_lines_block_no_later_draft(
    audit_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue: after one truncated spool line every later `lexspec draft` exited 3 and lost its
    record; a line with an unknown field raised TypeError. Now they are quarantined."""
    from audit.spool import SPOOL_FILE, Spool

    spool = Spool(tmp_path / "data" / SPOOL_FILE)
    spool.path.parent.mkdir()
    bad = [b'{"record": {"user_name": "half', b'{"record": {"user_name": "a", "colour": 1}}']
    spool.path.write_bytes(b"\n".join(bad) + b"\n")
    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path / "data"))
    for _ in range(2):  # the server is down: each draft is an error record, and logged
        code, _, err = run(*CLAUSE, "--max-tokens", "8")
        assert code == 1 and stored(audit_db, err).record.status == "error", err
    assert spool.pending() == 0
    assert [entry.raw for entry in spool.quarantine_entries()] == bad


def test_a_draft_queued_behind_long_requests_waits_and_succeeds(llm_base_url: str) -> None:
    """Two long requests hold the one-at-a-time server while the draft waits longer than its
    timeout (LEXSPEC_REQUEST_TIMEOUT_S=2 counts silence only): the server's queue comments keep
    the draft's stream alive, the CLI says where it waits, and once the two are released
    (their connections closed, which cancels them) the draft completes."""
    from tests.servers import holding, metric_total

    count = [{"role": "user", "content": "Count from 1 to 5000, one number per line."}]
    bodies = [
        {"messages": count, "temperature": 0.8, "seed": seed, "max_tokens": 2000}
        for seed in range(2)
    ]
    with holding(llm_base_url, *bodies) as holds:
        while metric_total(llm_base_url, "vllm:num_requests_waiting{") < 1:
            assert all(hold.alive() for hold in holds), "a long request ended before it waited"
            time.sleep(0.02)  # both sent: one running, one waiting
        proc = lexspec(*CLAUSE, "--mode", "free-form", "--max-tokens", "4", "--no-audit",
                       base_url=llm_base_url, env={"LEXSPEC_REQUEST_TIMEOUT_S": "2"})  # fmt: skip
        assert proc.stderr is not None
        seen = ""
        while "排队中" not in seen and proc.poll() is None:
            seen += proc.stderr.readline()  # the CLI's lines up to where it says it waits
        # queued on for longer than the silence the CLI allows: only the comments keep it
        time.sleep(3)
    out, rest = proc.communicate(timeout=580)
    code, err = proc.returncode, seen + rest
    assert "Traceback" not in err, err
    assert code == 0, err
    assert out.strip() and "status " in err
    assert re.search(r"排队中：前面还有 [12] 个请求", err), err
