"""Finding codes, severities, citation statuses and numbering styles are closed vocabularies
(app/domain.py); a finding read back from the audit log is the finding that was written."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from app.domain import FINDING_CODES, SEVERITIES, Finding
from app.prompts import load_library
from app.validation import check, load_catalogue
from app.validation.messages import MESSAGES

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


def test_every_message_row_is_a_declared_code_with_a_declared_severity() -> None:
    for code, (severity, zh, en) in MESSAGES.items():
        assert code in FINDING_CODES and severity in SEVERITIES
        assert zh.strip() and en.strip()


def test_the_facts_codes_are_declared() -> None:
    assert {"facts.route_mismatch", "facts.number_mismatch"} <= set(FINDING_CODES)


def test_from_dict_reads_back_what_to_dict_wrote() -> None:
    text = "一、甲\n三、乙\n依据《中华人民共和国合同法》第五十二条。"
    result = check(text, catalogue=load_catalogue(), doc_date=dt.date.today())
    assert result.findings
    for f in result.findings:
        assert Finding.from_dict(f.to_dict()) == f
        assert Finding.from_dict({**f.to_dict(), "extra": 1}) == f


@pytest.mark.parametrize("broken", [{}, {"code": "numbering.gap", "severity": "error"}])
def test_from_dict_refuses_an_entry_with_fields_missing(broken: dict[str, object]) -> None:
    with pytest.raises(KeyError):
        Finding.from_dict(broken)


def test_a_numbering_style_outside_the_vocabulary_breaks_the_type(tmp_path: Path) -> None:
    source = next(
        p
        for p in sorted(PROMPTS.iterdir())
        if "numbering: chinese" in (p / "meta.yaml").read_text(encoding="utf-8")
    )
    target = tmp_path / source.name
    target.mkdir()
    for item in source.iterdir():
        text = item.read_text(encoding="utf-8")
        if item.name == "meta.yaml":
            text = text.replace("numbering: chinese", "numbering: roman", 1)
            assert "numbering: roman" in text
        (target / item.name).write_text(text, encoding="utf-8")
    library = load_library(tmp_path)
    assert source.name not in library.types and library.errors
