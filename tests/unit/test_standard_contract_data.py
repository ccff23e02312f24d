"""app/review/standard_contract.json: the official 个人信息出境标准合同 as units. The units
rebuild the transcription they came from (its digest is recorded), and the rebuild script
reads that transcription back into the same JSON."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

from app.review.contract_text import DATA, official

ROOT = Path(__file__).resolve().parents[2]


def _script():  # scripts/ is not a package: load the rebuild script by path
    path = ROOT / "scripts" / "build_filing_templates.py"
    spec = importlib.util.spec_from_file_location("build_filing_templates", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def test_the_source_is_recorded() -> None:
    data = _data()
    assert data["repo"] == "github.com/JH-gh07/ai4law"
    assert data["path"].endswith("cn-tpl-016_个人信息出境标准合同模板_da18a8f4.md")
    assert len(data["commit"]) == 40 and data["retrieved"]
    assert "第二份" in data["cross_check"]  # says whether a second full text was found
    assert set(data["restored"]) == {"4(5)", "4(6)", "5(4)", "6(2)"}


def test_the_units_rebuild_the_transcription_and_the_script_rebuilds_the_json(
    tmp_path: Path,
) -> None:
    script, data = _script(), _data()
    text = script.rebuild_source(data)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == data["sha256"]
    source = tmp_path / "contract.md"
    source.write_text(text.replace("\n", "\r\n"), encoding="utf-8")  # line ends do not count
    assert script.build_contract(source) == data


def test_a_changed_transcription_changes_the_digest(tmp_path: Path) -> None:
    script, data = _script(), _data()
    source = tmp_path / "contract.md"
    source.write_text(script.rebuild_source(data).replace("30日", "15日"), encoding="utf-8")
    rebuilt = script.build_contract(source)
    assert rebuilt["sha256"] != data["sha256"]
    changed = {u["id"]: u for u in rebuilt["units"]}["2(4)"]
    assert "15日" in changed["text"] and changed["periods"][0][0] == "15日"


def test_the_structure_is_the_official_one() -> None:
    units = official()
    articles = [u for u in units if u.kind == "article"]
    assert [u.text for u in articles][:3] == ["定义", "个人信息处理者的义务", "境外接收方的义务"]
    assert len(articles) == 9
    items = {a.id: sum(1 for u in units if u.kind == "item" and u.parent == a.id) for a in articles}
    assert items == {"1": 9, "2": 11, "3": 13, "4": 6, "5": 5, "6": 6, "7": 4, "8": 3, "9": 6}
    assert len({u.id for u in units}) == len(units)


def test_each_unit_records_its_duties_periods_and_blanks() -> None:
    rows = {row["id"]: row for row in _data()["units"]}
    assert ["30日", 46] in rows["2(4)"]["periods"]
    assert rows["3(12)"]["periods"][0][0] == "3年"
    assert rows["7(2)1"]["periods"][0][0] == "1个月"
    assert ["应当", 5] in rows["5(3)"]["obligations"]
    assert rows["9(3)"]["blanks"] and rows["P2"]["optional"]
    for row in rows.values():
        for word, at in row["obligations"] + row["periods"]:
            assert row["text"][at : at + len(word)] == word
