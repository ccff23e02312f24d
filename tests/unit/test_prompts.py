"""The prompt library: loading, field validation, sandboxed rendering, golden prompts, budget.

Regenerate the golden rendered prompts after an intended template change with
`UPDATE_GOLDEN=1 .venv/bin/pytest tests/unit/test_prompts.py` and review the diff.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from app.config import REPO_ROOT
from app.domain import RenderedPrompt
from app.drafting.context import decide_route
from app.prompts import (
    ContextTooLong,
    DocType,
    FieldErrors,
    TemplateProblem,
    check_context,
    count_prompt_tokens,
    estimate_tokens,
    load_doc_type,
    load_library,
    render,
    template_hash,
    unknown_fields,
)
from tests.fakes import FakeClient

PROMPTS = REPO_ROOT / "prompts"
GOLDEN = Path(__file__).parent / "golden"
# every document type in prompts/: a new type is covered (golden file, loading) without an edit
TYPES = tuple(sorted(p.name for p in PROMPTS.iterdir() if (p / "meta.yaml").is_file()))


@pytest.fixture(scope="module")
def library() -> dict[str, DocType]:
    lib = load_library(PROMPTS)
    assert lib.errors == []
    return lib.types


def golden_text(rendered: RenderedPrompt) -> str:
    return (
        f"template: {rendered.template_id} {rendered.template_version} {rendered.template_hash}\n"
        f"=== system ===\n{rendered.system}\n=== user ===\n{rendered.user}\n"
    )


def test_the_type_list_is_the_library(library: dict[str, DocType]) -> None:
    assert TYPES and set(TYPES) == set(library)


@pytest.mark.parametrize("type_id", TYPES)
def test_every_type_renders_its_example_values_as_the_golden_file(
    library: dict[str, DocType], type_id: str
) -> None:
    doc = library[type_id]
    rendered = render(doc, doc.example_values(), route=decide_route(doc, doc.example_values()))
    path = GOLDEN / f"{type_id}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(golden_text(rendered), encoding="utf-8")
    assert path.is_file(), f"no golden prompt for {type_id}: run with UPDATE_GOLDEN=1, review it"
    assert golden_text(rendered) == path.read_text(encoding="utf-8")


def test_the_cross_border_guide_is_structured_like_a_lawyer_would(
    library: dict[str, DocType],
) -> None:
    doc = library["cross-border-filing-guide"]
    assert doc.required_sections == (
        "【适用情形】",
        "【逐项填写指引】",
        "【材料清单】",
        "【常见错误】",
    )
    assert "中华人民共和国个人信息保护法" in doc.statutes
    system = render(doc, doc.example_values(), route=decide_route(doc, doc.example_values())).system
    for ref in ("《数据出境安全评估办法》第四条", "第六条", "第三十八条", "第三十一条"):
        assert ref in system
    assert "一、" in system and "（一）" in system and "1." in system
    for section in doc.required_sections:
        assert section in system


def test_every_required_field_has_an_example_and_labels_in_both_languages(
    library: dict[str, DocType],
) -> None:
    for doc in library.values():
        assert doc.title("zh") != doc.title("en")
        for spec in doc.fields:
            assert spec.label("zh") and spec.label("en")
            assert spec.example or not spec.required, f"{doc.id}.{spec.name}"


def test_standard_contract_checklist_cites_its_articles(library: dict[str, DocType]) -> None:
    doc = library["standard-contract-filing"]
    system = render(doc, doc.example_values(), route=decide_route(doc, doc.example_values())).system
    assert "第四条" in system and "第七条" in system and "10个工作日" in system


def test_clause_continuation_has_a_textarea_for_the_clause(library: dict[str, DocType]) -> None:
    spec = library["clause-continuation"].get_field("clause")
    assert spec is not None and spec.kind == "textarea" and spec.required


# --- field errors ------------------------------------------------------------------------


def errors_for(doc: DocType, **changes: str) -> dict[str, str]:
    with pytest.raises(FieldErrors) as info:
        render(doc, {**doc.example_values(), **changes}, route=None)
    return {name: err.code for name, err in info.value.errors.items()}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"company_name": "  "}, {"company_name": "missing"}),
        ({"company_name": "公" * 101}, {"company_name": "too_long"}),
        ({"industry": "航天"}, {"industry": "not_a_choice"}),
        ({"individuals_count": "一百万"}, {"individuals_count": "not_a_count"}),
        ({"individuals_count": "1e400"}, {"individuals_count": "not_a_count"}),
        ({"sensitive_count": "-5"}, {"sensitive_count": "not_a_count"}),
        ({"sensitive_count": "+5"}, {"sensitive_count": "not_a_count"}),
        ({"individuals_count": "1200000.5"}, {"individuals_count": "not_a_count"}),
        ({"individuals_count": "1,0,0"}, {"individuals_count": "not_a_count"}),
        ({"individuals_count": "١٢٣"}, {"individuals_count": "not_a_count"}),  # ASCII digits only
        ({"individuals_count": "12,00,000"}, {"individuals_count": "not_a_count"}),
        ({"filing_date": "2025-02-30"}, {"filing_date": "bad_date"}),
        ({"filing_date": "15/03/2025"}, {"filing_date": "bad_date"}),
        (
            {"company_name": "", "industry": "x", "filing_date": "tomorrow"},
            {"company_name": "missing", "industry": "not_a_choice", "filing_date": "bad_date"},
        ),
    ],
)
def test_field_errors_come_back_per_field(
    library: dict[str, DocType], changes: dict[str, str], expected: dict[str, str]
) -> None:
    assert errors_for(library["cross-border-filing-guide"], **changes) == expected


def test_field_error_messages_are_bilingual_and_name_the_field(
    library: dict[str, DocType],
) -> None:
    doc = library["cross-border-filing-guide"]
    with pytest.raises(FieldErrors) as info:
        render(doc, {**doc.example_values(), "individuals_count": "many"}, route=None)
    err = info.value.errors["individuals_count"]
    assert "涉及人数" in err.message("zh") and "number" in err.message("en")
    assert "非负整数" in err.message("zh")


def test_optional_fields_may_be_empty_and_numbers_may_have_commas(
    library: dict[str, DocType],
) -> None:
    doc = library["cross-border-filing-guide"]
    values = {**doc.example_values(), "individuals_count": "1,200,000", "filing_date": ""}
    values.pop("matter_ref")
    rendered = render(doc, values, route=decide_route(doc, values))
    assert "1,200,000" in rendered.user and "拟申报日期" not in rendered.user
    assert "matter_ref" not in rendered.values


def test_unknown_field_names_are_reported(library: dict[str, DocType]) -> None:
    assert unknown_fields(library["clause-continuation"], ["clause", "colour"]) == ["colour"]


# --- sandbox: values are data, templates cannot reach Python internals --------------------


@pytest.mark.parametrize(
    "payload",
    ["{{ 7*7 }}", "{% for x in range(3) %}x{% endfor %}", "{% for %}", "{{ ''.__class__ }}"],
)
def test_user_values_come_out_literally(library: dict[str, DocType], payload: str) -> None:
    doc = library["clause-continuation"]
    rendered = render(doc, {**doc.example_values(), "instructions": payload}, route=None)
    assert payload in rendered.user
    assert "49" not in rendered.user


def write_type(root: Path, name: str, *, system: str = "系统", user: str = "{{ topic }}") -> Path:
    type_dir = root / name
    type_dir.mkdir(parents=True)
    (type_dir / "meta.yaml").write_text(
        f"id: {name}\nversion: '0.1'\n"
        "title: {zh: 测试, en: Test}\nhelp: {zh: 帮助, en: Help}\n"
        "fields:\n  - name: topic\n    label: {zh: 主题, en: Topic}\n    kind: text\n"
        "    required: true\n    example: 数据\n",
        encoding="utf-8",
    )
    (type_dir / "system.j2").write_text(system, encoding="utf-8")
    (type_dir / "user.j2").write_text(user, encoding="utf-8")
    return type_dir


def test_a_template_reaching_for_attributes_is_refused_by_the_sandbox(tmp_path: Path) -> None:
    write_type(tmp_path, "good")
    write_type(tmp_path, "evil", user="{{ ''.__class__.__mro__[1].__subclasses__() }}")
    write_type(tmp_path, "evil-attr", user="{{ topic.__class__ }}")
    lib = load_library(tmp_path)
    assert list(lib.types) == ["good"]
    assert len(lib.errors) == 2
    assert all("SecurityError" in e or "unsafe" in e for e in lib.errors), lib.errors
    evil = lib.errors[0] + lib.errors[1]
    assert "evil:" in evil and "evil-attr:" in evil


def test_rendering_an_unsafe_template_raises_template_problem(tmp_path: Path) -> None:
    doc = load_doc_type(write_type(tmp_path, "ok"))
    unsafe = DocType(**{**doc.__dict__, "user_source": "{{ topic.__class__.__base__ }}"})
    with pytest.raises(TemplateProblem):
        render(unsafe, {"topic": "x"}, route=None)


def test_an_undefined_variable_is_an_error_not_blank(tmp_path: Path) -> None:
    write_type(tmp_path, "typo", user="{{ topik }}")
    lib = load_library(tmp_path)
    assert lib.types == {} and "typo:" in lib.errors[0] and "topik" in lib.errors[0]


# --- loading broken types -------------------------------------------------------------------


def test_a_broken_type_is_reported_by_name_and_the_rest_still_load(tmp_path: Path) -> None:
    for name in TYPES:
        shutil.copytree(PROMPTS / name, tmp_path / name)
    (tmp_path / "clause-continuation" / "meta.yaml").write_text("id: [unclosed", encoding="utf-8")
    (tmp_path / "standard-contract-filing" / "user.j2").unlink()
    bad_kind = tmp_path / "confidentiality-agreement-points" / "meta.yaml"
    bad_kind.write_text(bad_kind.read_text(encoding="utf-8").replace("kind: number", "kind: money"))
    lib = load_library(tmp_path)
    broken = {"clause-continuation", "standard-contract-filing", "confidentiality-agreement-points"}
    assert "cross-border-filing-guide" in lib.types and set(lib.types) == set(TYPES) - broken
    reasons = dict(e.split(": ", 1) for e in lib.errors)
    assert "not valid YAML" in reasons["clause-continuation"]
    assert "user.j2" in reasons["standard-contract-filing"]
    assert "kind" in reasons["confidentiality-agreement-points"]


def test_a_missing_prompts_directory_is_an_error(tmp_path: Path) -> None:
    lib = load_library(tmp_path / "nowhere")
    assert lib.types == {} and lib.errors


# --- provenance -------------------------------------------------------------------------------


def test_rendered_prompts_carry_id_version_and_a_stable_hash(
    library: dict[str, DocType], tmp_path: Path
) -> None:
    doc = library["cross-border-filing-guide"]
    rendered = render(doc, doc.example_values(), route=None)
    assert (rendered.template_id, rendered.template_version) == (doc.id, doc.version)
    assert rendered.template_hash == template_hash(PROMPTS / doc.id) == doc.template_hash
    assert len(rendered.template_hash) == 64
    copy = shutil.copytree(PROMPTS / doc.id, tmp_path / doc.id)
    assert template_hash(copy) == doc.template_hash
    (copy / "user.j2").write_text((copy / "user.j2").read_text(encoding="utf-8") + " ")
    assert template_hash(copy) != doc.template_hash


# --- token budget -------------------------------------------------------------------------------


def test_context_check_refuses_with_the_numbers() -> None:
    check_context(3000, 1096, 4096)  # exactly fits
    with pytest.raises(ContextTooLong) as info:
        check_context(3000, 1097, 4096)
    err = info.value
    for text in (err.message("zh"), err.message("en")):
        assert "3000" in text and "1097" in text and "4096" in text
    check_context(10_000, 10_000, None)  # unknown context: nothing to check


def test_token_count_prefers_the_server_and_falls_back_to_an_estimate(
    library: dict[str, DocType],
) -> None:
    doc = library["clause-continuation"]
    rendered = render(doc, doc.example_values(), route=None)
    assert count_prompt_tokens(rendered, FakeClient([], tokens=321)) == 321
    estimate = count_prompt_tokens(rendered, FakeClient([], tokens=None))
    assert estimate == estimate_tokens(rendered.messages()) == count_prompt_tokens(rendered)


def test_the_estimate_is_conservative_for_chinese() -> None:
    text = "根据《中华人民共和国个人信息保护法》第三十八条"
    assert estimate_tokens([{"role": "user", "content": text}]) >= 2 * len(text)
    assert estimate_tokens([{"role": "user", "content": "abc" * 10}]) == 10 + 8 + 32
