"""DOCX appendix 引用条文 (`lexspec export --cited-articles`): every cited article in full."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from app.cli import main

DRAFT = """# 数据出境合规意见

一、依据《个人信息保护法》第三十九条，应当取得个人的单独同意。
二、依据《个人信息保护法》第三十九条及《民法典》第五百八十五条约定违约金。
三、《个人信息出境标准合同办法》第六条要求备案。
"""


def _export(tmp_path: Path, *flags: str) -> list[str]:
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    out = tmp_path / "d.docx"
    assert main(["export", str(draft), "--out", str(out), *flags]) == 0
    return [p.text for p in docx.Document(str(out)).paragraphs]


def test_appendix_holds_each_cited_article_once_with_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paragraphs = _export(tmp_path, "--cited-articles", "--date", "2026-11-30")
    start = paragraphs.index("附录　引用条文 / Appendix: Cited Articles")
    appendix = paragraphs[start:]
    headings = [p for p in appendix if p.startswith("《")]
    assert headings == [
        "《中华人民共和国个人信息保护法》第三十九条（2021-08-20通过，自2021-11-01起施行）",
        "《中华人民共和国民法典》第五百八十五条（2020-05-28通过，自2021-01-01起施行）",
        "《个人信息出境标准合同办法》第六条（2023-02-22公布，自2023-06-01起施行）",
    ]
    assert any(p.startswith("个人信息处理者向中华人民共和国境外提供个人信息的") for p in appendix)
    assert "约定的违约金低于造成的损失的" in "".join(appendix)  # 第五百八十五条第二款
    assert "标准合同生效后方可开展个人信息出境活动。" in appendix  # held in full since this change
    assert sum(p.startswith("来源 / Source：") for p in appendix) == 3
    assert "引用条文 3 条" in capsys.readouterr().out


def test_no_appendix_without_the_flag(tmp_path: Path) -> None:
    assert not any("引用条文" in p for p in _export(tmp_path))
