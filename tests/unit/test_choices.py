"""Select choices: a canonical value (stored, logged, sent to the model) and an English label
the English UI shows. Plain-string choices (the older meta.yaml form) still load."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import REPO_ROOT
from app.prompts import FieldErrors, load_doc_type, load_library, render

SELECT_FIELD = """\
id: t
version: '0.1'
title: {{zh: 测试, en: Test}}
help: {{zh: 帮助, en: Help}}
fields:
  - name: industry
    label: {{zh: 所属行业, en: Industry}}
    kind: select
    required: true
    choices: {choices}
    example: 金融
"""


def write(root: Path, choices: str) -> Path:
    type_dir = root / "t"
    type_dir.mkdir()
    (type_dir / "meta.yaml").write_text(SELECT_FIELD.format(choices=choices), encoding="utf-8")
    (type_dir / "system.j2").write_text("系统", encoding="utf-8")
    (type_dir / "user.j2").write_text("行业：{{ industry }}", encoding="utf-8")
    return type_dir


def test_every_shipped_choice_has_an_english_label() -> None:
    lib = load_library(REPO_ROOT / "prompts")
    assert lib.errors == []
    selects = [f for t in lib.types.values() for f in t.fields if f.kind == "select"]
    assert selects
    for spec in selects:
        assert len(spec.choices_en) == len(spec.choices), spec.name
        for value in spec.choices:
            english = spec.choice_label(value, "en")
            assert english and english != value and english.isascii(), (spec.name, value)
        assert spec.example in spec.choices  # the example is a canonical value


@pytest.mark.parametrize(
    ("value", "lang", "shown"),
    [
        ("金融", "en", "Finance"),
        ("金融", "zh", "金融"),
        ("其他", "en", "其他"),  # untranslated (plain-string) choice: the value itself
        ("不在列表", "en", "不在列表"),
    ],
)
def test_choice_label(tmp_path: Path, value: str, lang: str, shown: str) -> None:
    doc = load_doc_type(write(tmp_path, '[{value: 金融, en: "Finance"}, 其他]'))
    assert doc.fields[0].choice_label(value, lang) == shown


def test_the_canonical_value_is_what_the_prompt_gets(tmp_path: Path) -> None:
    doc = load_doc_type(
        write(tmp_path, '[{value: 金融, en: "Finance"}, {value: 物流, en: "Logistics"}]')
    )
    assert doc.fields[0].choices == ("金融", "物流")
    assert "行业：金融" in render(doc, {"industry": "金融"}, route=None).user
    with pytest.raises(FieldErrors) as caught:
        render(doc, {"industry": "Finance"}, route=None)  # the English label is not a value
    error = caught.value.errors["industry"]
    assert error.code == "not_a_choice"
    assert "Finance (金融)" in error.message_en and "金融、物流" in error.message_zh


def test_plain_string_choices_still_load(tmp_path: Path) -> None:
    doc = load_doc_type(write(tmp_path, "[金融, 物流]"))
    assert doc.fields[0].choices == ("金融", "物流")
    assert doc.fields[0].choice_label("物流", "en") == "物流"


def test_duplicate_choice_values_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        load_doc_type(write(tmp_path, '[{value: 金融, en: "Finance"}, 金融]'))
