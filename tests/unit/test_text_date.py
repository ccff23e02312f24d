"""The date a text speaks from (read_text_date) and the dates sentences set themselves in
(sentence_dates): tables of (text, expected date, the date as written, cue); and check() reading
it when no date is given, saying which date it used."""

from __future__ import annotations

import datetime as dt

import pytest

from app.validation import check, load_catalogue
from app.validation.text_date import Dating, read_text_date, sentence_dates

CATALOGUE = load_catalogue()
D = dt.date

TEXT_DATES: list[tuple[str, dt.date | None, str, str]] = [
    (
        "数据出境合规意见书\n出具日期：2024年11月5日\n正文……",
        D(2024, 11, 5),
        "2024年11月5日",
        "出具日期",
    ),
    ("报告日期: 2025-06-30\n正文", D(2025, 6, 30), "2025-06-30", "报告日期"),
    ("日期：二〇二五年十二月一日", D(2025, 12, 1), "二〇二五年十二月一日", "日期"),
    ("本指引定稿于2025年12月。", D(2025, 12, 31), "2025年12月", "定稿于"),
    ("最近修订：2026年2月3日", D(2026, 2, 3), "2026年2月3日", "最近修订"),
    ("本清单更新于2025/9/1，供内部使用。", D(2025, 9, 1), "2025/9/1", "更新于"),
    ("【2026-01-20更新】个人信息出境操作指引", D(2026, 1, 20), "2026-01-20", "更新"),
    ("（2025年3月10日修订）\n第一条 为规范……", D(2025, 3, 10), "2025年3月10日", "修订"),
    ("第十八条 本制度自2025年1月1日起施行。", D(2025, 1, 1), "2025年1月1日", "施行"),
    ("本办法自二〇二四年七月一日起实施。", D(2024, 7, 1), "二〇二四年七月一日", "实施"),
    ("（本报告数据截至2025年6月30日）", D(2025, 6, 30), "2025年6月30日", "截至"),
    ("本意见所引法规截至2024年10月31日。", D(2024, 10, 31), "2024年10月31日", "截至"),
    ("某某律师事务所\n二〇二六年一月二十日", D(2026, 1, 20), "二〇二六年一月二十日", "落款"),
    # several revisions: the last one; a dateline wins over a commencement
    ("更新于2025年1月5日。更新于2025年8月9日。", D(2025, 8, 9), "2025年8月9日", "更新于"),
    (
        "本制度自2023年1月1日起施行。\n发布日期：2022年12月1日",
        D(2022, 12, 1),
        "2022年12月1日",
        "发布日期",
    ),
    # not the text's own date
    ("截至2025年12月31日，贵公司累计向境外提供个人信息120万人。", None, "", ""),
    ("贵公司拟于2026年3月15日申报。", None, "", ""),
    ("拟申报日期：2026年3月15日", None, "", ""),
    ("《个人信息保护法》自2021年11月1日起施行。", None, "", ""),
    ("2022年7月7日公布的《数据出境安全评估办法》第四条", None, "", ""),
    ("依据本协议第三条，双方应于2025年1月1日前完成交割，并继续履行其他义务。", None, "", ""),
    ("无日期的文本。", None, "", ""),
]


@pytest.mark.parametrize(("text", "day", "written", "cue"), TEXT_DATES)
def test_read_text_date(text: str, day: dt.date | None, written: str, cue: str) -> None:
    found = read_text_date(text)
    if day is None:
        assert found is None, text
        return
    assert found is not None, text
    assert (found.date, text[found.start : found.end], found.cue) == (day, written, cue)


SENTENCES: list[tuple[str, list[tuple[str, dt.date]]]] = [
    ("截至2025年6月30日，该条仍有效。", [("截至2025年6月30日，该条仍有效。", D(2025, 6, 30))]),
    ("2023年时，原规定以10万人为门槛。", [("2023年时，原规定以10万人为门槛。", D(2023, 12, 31))]),
    (
        "2024年3月前，评估办法第四条仍适用。",
        [("2024年3月前，评估办法第四条仍适用。", D(2024, 2, 29))],
    ),
    (
        "自2026年1月1日起，该条为第三十九条。",
        [("自2026年1月1日起，该条为第三十九条。", D(2026, 1, 1))],
    ),
    ("贵公司于2025年5月提交了申报材料。", [("贵公司于2025年5月提交了申报材料。", D(2025, 5, 31))]),
    # a statute's own date, a counting period, the present: no sentence date
    ("2022年7月7日公布的《数据出境安全评估办法》仍有约束力。", []),
    ("《网络安全法》（2016年11月7日通过）第三十七条。", []),
    ("贵公司自2024年1月1日起累计向境外提供个人信息。", []),
    ("贵公司于2023年签署了标准合同，目前应依据现行规定备案。", []),
    ("处理10万人以上个人信息的，应当申报。", []),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_sentence_dates(text: str, expected: list[tuple[str, dt.date]]) -> None:
    found = [(text[s.start : s.end], s.date) for s in sentence_dates(text)]
    assert found == expected


def test_dating_reads_a_citation_on_its_sentence_date_else_the_default() -> None:
    text = "2023年时，标准合同以10万人为限。现依据《促进和规范数据跨境流动规定》第八条办理。"
    dating = Dating.of(text, D(2026, 3, 1))
    assert dating.on(text.index("标准合同")) == D(2023, 12, 31)
    assert dating.on(text.index("《促进")) == D(2026, 3, 1)
    assert dating.when(text.index("《促进"))["when"] == "文书日期2026-03-01"
    assert dating.when(0)["when"] == "本句所述日期2023-12-31"


MEMO = "数据合规备忘录\n出具日期：2024年11月5日\n根据现行《网络数据安全管理条例》第三十五条，贵公司可以依标准合同向境外提供个人信息。\n"


def test_check_reads_the_text_date_when_none_is_given_and_says_so() -> None:
    result = check(MEMO, catalogue=CATALOGUE, default_date=D(2026, 3, 1))
    assert result.date is not None
    assert (result.date.date, result.date.source, result.date.cue) == (
        D(2024, 11, 5),
        "text",
        "出具日期",
    )
    called = [f for f in result.findings if f.code == "citation.called_in_force"]
    assert len(called) == 1 and "2024-11-05" in called[0].message_zh


def test_a_given_date_wins_over_the_text_and_the_default_is_used_last() -> None:
    given = check(MEMO, catalogue=CATALOGUE, doc_date=D(2026, 3, 1), default_date=D(2020, 1, 1))
    assert given.date is not None and given.date.source == "given"
    assert not [f for f in given.findings if f.code == "citation.called_in_force"]
    plain = "根据《个人信息保护法》第三十九条，应当取得个人的单独同意。\n"
    default = check(plain, catalogue=CATALOGUE, default_date=D(2026, 3, 1))
    assert default.date is not None and (default.date.source, default.date.date) == (
        "default",
        D(2026, 3, 1),
    )
    with pytest.raises(ValueError):
        check(plain, catalogue=CATALOGUE)
