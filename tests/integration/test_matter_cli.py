"""`lexspec matter` and `lexspec draft --matter` as a user runs them: real subprocesses, a real
SQLite audit log and the real embedded model server. The facts are entered once; the report
drafted from them names the matter in its chained record and is listed under it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_draft_cli import run, stored
from tests.servers import REPO

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("audit_db")]
NO_SERVER = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
FACTS = {
    "company_name": "上海明川跨境电子商务有限公司",
    "industry": "电子商务",
    "is_ciio": "否",
    "important_data": "否",
    "data_categories": "姓名、手机号码、收货地址、订单记录",
    "individuals_count": "1200000",
    "sensitive_count": "0",
    "exemption": "无",
    "recipient": "Mingchuan Global Pte. Ltd.（新加坡）",
    "purpose": "由新加坡关联公司统一处理跨境订单履约与售后客服",
    "filing_date": "2025-03-15",
    "assessment_start": "2025-01-06",
    "assessment_end": "2025-02-28",
}


@pytest.fixture
def account(audit_db: str, audit_key_file: Path) -> str:
    """A drafter account in the test's audit log, which `--as` names (signed with the
    installation's audit key, which the CLI in its subprocess reads from the same file)."""
    from audit.db import make_engine, migrate
    from audit.users import create_user
    from tests.conftest import TEST_AUDIT_KEY, keyed_factory

    engine = make_engine(audit_db)
    try:
        migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
        with keyed_factory(engine)() as session:
            create_user("alice", "drafter", "correct horse battery", session=session)
            session.commit()
    finally:
        engine.dispose()
    return "alice"


def matter(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "matter", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def test_a_matter_is_created_changed_shown_and_listed(account: str) -> None:
    fields = [a for name, value in FACTS.items() for a in ("--field", f"{name}={value}")]
    code, out, err = matter("create", "MC-2025-017", "--client", "明川", *fields, "--as", account)
    assert code == 0, err
    assert "MC-2025-017" in out
    code, _, err = matter("update", "MC-2025-017", "--field", "filing_date=2025-06-30",
                          "--as", account)  # fmt: skip
    assert code == 0, err
    code, out, err = matter("show", "MC-2025-017", "--as", account)
    assert code == 0, err
    assert "第2版" in out and "申报数据出境安全评估" in out
    assert "[filed] self-assessment-report" in out and "[kept] pia-report" in out
    assert "晚于评估完成之日（2025-02-28）起3个月" in out  # filed too late for the assessment
    code, out, _ = matter("list", "--as", account)
    assert code == 0 and out.startswith("MC-2025-017\tv2\t明川")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["create", "bad number!", "--client", "甲"], "案件编号"),
        (["create", "MC-1", "--client", "甲", "--field", "individuals_count=-5"], "非负整数"),
        (["create", "MC-1", "--client", "甲", "--field", "nonsense"], "NAME=VALUE"),
        (["show", "MC-404"], "没有案件 MC-404"),
    ],
)
def test_bad_input_is_one_line(account: str, args: list[str], words: str) -> None:
    code, _, err = matter(*args, "--as", account)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_a_report_drafted_from_the_matter_is_recorded_with_it(account: str, audit_db: str) -> None:
    """Written from the vetted clauses (`assemble`: the matter's link is under test here, not the
    model's prose, which test_each_report_drafts_from_its_example_on_the_model covers), so no
    model server is needed: the prompt's size is estimated."""
    fields = [a for name, value in FACTS.items() for a in ("--field", f"{name}={value}")]
    assert matter("create", "MC-2025-017", "--client", "明川", *fields, "--as", account)[0] == 0
    code, out, err = run(
        "--type", "self-assessment-report", "--matter", "MC-2025-017", "--user", account,
        base_url=NO_SERVER, env={"LEXSPEC_LLM_WRITING": "assemble"},
    )  # fmt: skip
    assert code == 0, err
    for chapter in (
        "一、自评估工作情况",
        "二、出境活动整体情况",
        "三、出境活动的风险自评估情况及结论",
    ):
        assert chapter in out
    assert "涉及1200000人" in out and "校验：0 个错误，0 个警告" in err
    record = stored(audit_db, err).record
    assert record.params["matter"] == {"number": "MC-2025-017", "version": 1}
    assert record.field_values["individuals_count"] == "1200000"
    assert record.field_values["matter_ref"] == "MC-2025-017"
    code, listed, _ = matter("show", "MC-2025-017", "--as", account)
    assert code == 0 and "已起草的文书 1 份" in listed and "self-assessment-report" in listed
    code, _, err = run("--type", "pia-report", "--matter", "MC-404", base_url=NO_SERVER)
    assert code == 2 and "没有案件 MC-404" in err


@pytest.mark.parametrize("type_id", ["self-assessment-report", "pia-report"])
def test_each_report_drafts_from_its_example_on_the_model(
    llm_base_url: str, audit_db: str, type_id: str
) -> None:
    """Through the real server, each part adapted by the model (or, where it fails a gate, its
    vetted clause): the structure and the facts are the app's whatever the model writes. On a
    loaded machine a part's prompt may take minutes to compute: the timeout is generous."""
    code, out, err = run("--type", type_id, "--example", "--max-tokens", "8",
                         base_url=llm_base_url, timeout=3000)  # fmt: skip
    assert code == 0, err
    assert "【待客户补充事项】" in out and "〔未生成正文，请补写〕" not in out
    assert "0 个错误" in err
    assert stored(audit_db, err).record.doc_type == type_id
