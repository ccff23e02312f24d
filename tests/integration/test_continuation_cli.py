"""A clause continuation through `lexspec draft` on the real embedded server: the new clauses
are numbered right after the pasted one in its own style, come from the vetted library for the
lawyer's instruction and side, and restate no form field as "label：value". The model's wording
differs between machines, so only these properties are asserted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.test_draft_cli import run, stored

pytestmark = pytest.mark.integration

TYPE = ["--type", "clause-continuation", "--example"]
LABELS = ("待续写的条款原文", "合同类型", "我方立场", "续写要求", "补充要求")
RESTATED = re.compile(rf"(?:{'|'.join(LABELS)})\s*[：:]")


CASES = [
    (  # a decimal clause, the entrusted party's side: the balanced clauses, 8.3 and 8.4
        "第八条 数据安全\n8.1 乙方应当保护甲方数据。\n8.2 乙方不得超出约定目的处理甲方数据。",
        "乙方",
        "续写转委托与数据出境条款",
        [("8.3", "cont.dpa.subprocessing.balanced"), ("8.4", "cont.dpa.transfer.balanced")],
    ),
    (  # items in brackets, the entrusting party's side
        "第十二条 数据处理\n（一）乙方仅按甲方的书面指示处理甲方数据。\n（二）乙方应当指定数据保护联系人。",
        "甲方",
        "安全事件通知和处理记录",
        [("（三）", "cont.dpa.incident.entrusting"), ("（四）", "cont.dpa.records.entrusting")],
    ),
]


@pytest.mark.parametrize(("clause", "side", "ask", "expected"), CASES)
def test_the_continuation_continues_the_clause_from_the_library(
    llm_base_url: str,
    tmp_path: Path,
    audit_db: str,
    clause: str,
    side: str,
    ask: str,
    expected: list[tuple[str, str]],
) -> None:
    report_file = tmp_path / "report.json"
    fields = ("--field", f"clause={clause}", "--field", f"party_role={side}",
              "--field", f"instructions={ask}")  # fmt: skip
    code, out, err = run(
        *TYPE,
        *fields,
        "--max-tokens",
        "32",
        "--report",
        str(report_file),
        base_url=llm_base_url,
        timeout=600,
    )
    assert code == 0, err
    report = json.loads(report_file.read_text(encoding="utf-8"))
    parts = report["parts"]
    # numbered right after the pasted clause, in its style, one clause per asked topic
    assert [p["title"] for p in parts] == [label for label, _ in expected]
    lines = out.rstrip("\n").splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == [label for label, _ in expected]
    # each part is the library's clause for the instruction and our side (as written or adapted)
    assert [p["source"] for p in parts] == [
        p["source"] for p in parts if p["source"] in ("adapted", "clause")
    ]
    assert [(p["clause"] or "").split("@")[0] for p in parts] == [c for _, c in expected]
    from app.outline.prepare import load_outlines
    from app.prompts import load_library
    from tests.servers import REPO

    library = load_library(REPO / "prompts")
    clauses = {c.id: c for c in load_outlines(REPO / "prompts", library.types).outlines[
        "clause-continuation"].clauses}  # fmt: skip
    for part, line in zip(parts, lines, strict=True):
        if part["source"] == "clause":  # a fallback shows the vetted clause in full
            assert clauses[part["clause"].split("@")[0]].text in line
    # no form field restated, the pasted clause not repeated
    assert not RESTATED.search(out), out
    assert clause.splitlines()[-1] not in out
    record = stored(audit_db, err).record
    assert record.output_text == out.rstrip("\n")
    assert [p["clause"] for p in record.params["draft"]["provenance"]] == [
        (p["clause"] or "").split("@")[0] for p in parts
    ]
