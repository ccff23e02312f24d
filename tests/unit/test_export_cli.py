"""`lexspec export` end to end (in-process and as a subprocess), and the reference document."""

from __future__ import annotations

import importlib.util
import io
import sys
import zipfile
from pathlib import Path

import docx
import pytest

from app.cli import main
from app.config import REPO_ROOT
from tests.servers import run_lexspec

DRAFT = """# 个人信息出境标准合同备案指南

【适用情形】
一、适用主体
1. 非关键信息基础设施运营者。
2. 依据《个人信息出境标准合同办法》第十五条办理备案。

【常见错误】
一、引用错误
1. 依据《合同法》第五十二条主张合同无效。
"""


@pytest.fixture()
def draft_file(tmp_path: Path) -> Path:
    path = tmp_path / "guide.md"
    path.write_text(DRAFT, encoding="utf-8")
    return path


def test_export_file_with_header_and_title(draft_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "guide.docx"
    code = main(
        [
            "export",
            str(draft_file),
            "--out",
            str(out),
            "--matter",
            "LX-2026-0415",
            "--client",
            "某科技公司",
            "--generation-id",
            "42",
        ]
    )
    assert code == 0
    assert "已导出" in capsys.readouterr().out
    doc = docx.Document(str(out))
    assert doc.paragraphs[0].text == "个人信息出境标准合同备案指南"
    assert "LX-2026-0415" in doc.sections[0].header.paragraphs[0].text
    assert doc.core_properties.identifier == "42"
    assert not doc.tables  # no --findings: no appendix


def test_export_from_stdin(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(DRAFT))
    out = tmp_path / "stdin.docx"
    assert main(["export", "-", "--out", str(out), "--title", "备案指南"]) == 0
    assert docx.Document(str(out)).core_properties.title == "备案指南"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "missing.md", "--out", "x.docx"], "找不到文件"),
        (["export", "-"], "--out"),
    ],
)
def test_bad_input_gives_a_clear_message(args: list[str], message: str, capsys) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_empty_and_non_utf8_input(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.md"
    empty.write_text(" \n\n", encoding="utf-8")
    assert main(["export", str(empty), "--out", str(tmp_path / "e.docx")]) == 2
    gbk = tmp_path / "gbk.md"
    gbk.write_bytes("数据出境".encode("gbk"))
    assert main(["export", str(gbk), "--out", str(tmp_path / "g.docx")]) == 2
    err = capsys.readouterr().err
    assert "草稿为空" in err and "UTF-8" in err


def test_findings_become_comments_and_appendix(draft_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "checked.docx"
    assert main(["export", str(draft_file), "--out", str(out), "--findings"]) == 0
    doc = docx.Document(str(out))
    commented = {c.text.split("\n")[0] for c in doc.comments}
    assert any("citation.repealed" in line for line in commented)
    assert any("citation.article_out_of_range" in line for line in commented)
    codes = [row.cells[1].text.replace("\u200b", "") for row in doc.tables[-1].rows[1:]]
    assert "citation.repealed" in codes


def test_unknown_doc_type(draft_file: Path, tmp_path: Path, capsys) -> None:
    args = ["export", str(draft_file), "--out", str(tmp_path / "x.docx"), "--doc-type", "nope"]
    assert main(args) == 2
    assert "未知文书类型" in capsys.readouterr().err


def test_cli_subprocess(draft_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub.docx"
    result = run_lexspec("export", str(draft_file), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert zipfile.is_zipfile(out)


def test_committed_reference_document_matches_its_build_script(monkeypatch) -> None:
    script = REPO_ROOT / "templates" / "build_reference.py"
    spec = importlib.util.spec_from_file_location("build_reference", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "build_reference", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    rebuilt = module.build()
    committed = (REPO_ROOT / "templates" / "reference.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(rebuilt)) as new, zipfile.ZipFile(io.BytesIO(committed)) as old:
        assert new.namelist() == old.namelist()
        for name in ("word/styles.xml", "word/document.xml", "word/settings.xml"):
            assert new.read(name) == old.read(name), f"{name}: run templates/build_reference.py"


def test_broken_firm_catalogue_is_reported_not_a_traceback(
    draft_file: Path, tmp_path: Path, capsys
) -> None:
    from app.config import Settings
    from app.context import Context

    broken = Context(Settings(statutes_file=tmp_path / "absent.yaml"))
    args = ["export", str(draft_file), "--out", str(tmp_path / "x.docx"), "--findings"]
    assert main(args, context=broken) == 2
    assert "找不到法规目录文件" in capsys.readouterr().err
    assert not (tmp_path / "x.docx").exists()
