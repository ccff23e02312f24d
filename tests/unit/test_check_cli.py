"""`lexspec check`: JSON and text output, exit status, --doc-type, clear messages on bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cli import main
from app.validation import line_col, line_cols
from tests.conftest import MakeContext

FIXTURES = Path(__file__).parent / "validation_fixtures"


class CheckCommand:
    """`lexspec check` acting with Settings of the test's own (`use` changes some)."""

    def __init__(self, make_context: MakeContext, **settings: object) -> None:
        self.make_context, self.settings = make_context, settings

    def use(self, **settings: object) -> None:
        self.settings.update(settings)

    def run(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        code = main(["check", *argv], context=self.make_context(**self.settings))
        out, err = capsys.readouterr()
        return code, out, err


@pytest.fixture
def env(tmp_path: Path, make_context: MakeContext) -> CheckCommand:
    """Settings of its own: a prompts dir with one document type, Chinese output, the bundled
    statute catalogue."""
    meta = tmp_path / "prompts" / "filing-guide" / "meta.yaml"
    meta.parent.mkdir(parents=True)
    meta.write_text(
        "id: filing-guide\nrequired_sections:\n  - 【适用情形】\n  - 【材料清单】\n  - 【常见错误】\n",
        encoding="utf-8",
    )
    broken = tmp_path / "prompts" / "broken" / "meta.yaml"
    broken.parent.mkdir()
    broken.write_text("required_sections: 【适用情形】\n", encoding="utf-8")
    return CheckCommand(
        make_context, prompts_dir=tmp_path / "prompts", lang="zh", statutes_file=None
    )


def test_json_output_of_the_flawed_guide(
    env: CheckCommand, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FIXTURES / "guide_flawed.md"
    code, out, _ = env.run(capsys, str(path), "--doc-type", "filing-guide", "--format", "json")
    assert code == 1
    payload = json.loads(out)
    text = path.read_text(encoding="utf-8")
    codes = [f["code"] for f in payload["findings"]]
    assert (
        codes.count("citation.article_out_of_range") == 2 and "structure.missing_section" in codes
    )
    first = payload["findings"][0]
    assert set(first) == {
        "code",
        "severity",
        "start",
        "end",
        "message_zh",
        "message_en",
        "suggestion",
    }
    assert text[first["start"] : first["end"]] == "第十五条"
    cite = next(c for c in payload["citations"] if c["status"] == "repealed")
    assert cite["statute"] == "中华人民共和国合同法" and cite["article"] == 10
    assert text[cite["start"] : cite["end"]] == cite["raw"]


def test_text_output_has_line_col_severity_code_message(
    env: CheckCommand, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = env.run(capsys, str(FIXTURES / "guide_flawed.md"))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        "23:42 error citation.article_out_of_range 《个人信息出境标准合同办法》共13条，"
        "不存在第15条 → 第一条至第十三条"
    )
    assert "structure.missing_section" not in out  # no --doc-type: no required sections
    assert "错误" in err


def test_english_messages_follow_settings(
    env: CheckCommand, capsys: pytest.CaptureFixture[str]
) -> None:
    env.use(lang="en")
    _, out, err = env.run(capsys, str(FIXTURES / "guide_flawed.md"))
    assert "has 13 articles; there is no article 15" in out
    assert "error(s)" in err


def test_clean_draft_exits_zero(env: CheckCommand, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = env.run(capsys, str(FIXTURES / "guide_ok.md"), "--doc-type", "filing-guide")
    assert (code, out) == (0, "")


def test_warnings_alone_exit_zero(
    env: CheckCommand, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("依据《网络安全审查办法》第三条"))
    code, out, _ = env.run(capsys, "-")
    assert code == 0 and "citation.unknown_statute" in out


def test_stdin_with_errors(
    env: CheckCommand, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("一、甲\n二、乙\n依据《合同法》第五十二条"))
    code, out, _ = env.run(capsys, "-", "--format", "json")
    assert code == 1
    assert [f["code"] for f in json.loads(out)["findings"]] == ["citation.repealed"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.md"], "找不到文件"),
        (
            ["-", "--doc-type", "no-such-type"],
            "未知文书类型：no-such-type（可用：broken、filing-guide）",
        ),
        (["-", "--doc-type", "../etc"], "未知文书类型"),
        (["-", "--doc-type", "broken"], "required_sections 应为字符串列表"),
    ],
)
def test_bad_input_gives_a_clear_message(
    env: CheckCommand,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("正文"))
    code, out, err = env.run(capsys, *argv)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_bad_firm_catalogue_gives_a_clear_message(
    env: CheckCommand, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    env.use(statutes_file=tmp_path / "absent.yaml")
    code, _, err = env.run(capsys, str(FIXTURES / "guide_ok.md"))
    assert code == 2 and "找不到法规目录文件" in err


def test_firm_catalogue_from_settings_is_used(
    env: CheckCommand,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    firm = tmp_path / "firm.yaml"
    firm.write_text("statutes:\n  - name: 网络安全审查办法\n    articles: 23\n", encoding="utf-8")
    env.use(statutes_file=firm)
    monkeypatch.setattr("sys.stdin", io.StringIO("《网络安全审查办法》第二十四条"))
    code, out, _ = env.run(capsys, "-")
    assert code == 1 and "citation.article_out_of_range" in out


@pytest.mark.parametrize(
    ("offset", "expected"), [(0, (1, 1)), (2, (1, 3)), (3, (2, 1)), (5, (2, 3)), (6, (3, 1))]
)
def test_line_col(offset: int, expected: tuple[int, int]) -> None:
    assert line_col("ab\ncd\nef", offset) == expected


def _line_col_by_rescanning(text: str, offset: int) -> tuple[int, int]:
    """The definition, written the slow way (count and search the text up to the offset)."""
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


@given(
    text=st.text(alphabet="ab条\n\r", max_size=60),
    picks=st.lists(st.integers(0, 60), max_size=12),
)
def test_line_cols_in_one_pass_agree_with_rescanning(text: str, picks: list[int]) -> None:
    offsets = sorted({min(p, len(text)) for p in picks})
    expected = [_line_col_by_rescanning(text, o) for o in offsets]
    assert line_cols(text, offsets) == expected


def test_text_output_puts_each_finding_on_its_own_line(
    env: CheckCommand, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Findings on lines 2, 4 and 5 of a draft (three out-of-range articles) are reported
    there, with the column of the article, whatever their order."""
    cite = "《个人信息出境标准合同办法》第十五条"
    draft = tmp_path / "draft.md"
    draft.write_text(f"标题\n{cite}\n\n前文{cite}\n  {cite}\n", encoding="utf-8")
    _, out, _ = env.run(capsys, str(draft))
    places = [line.split(" ", 1)[0] for line in out.splitlines() if "out_of_range" in line]
    col = len("《个人信息出境标准合同办法》") + 1
    assert places == [f"2:{col}", f"4:{col + 2}", f"5:{col + 2}"]
