"""The statute-text store agrees with itself and with the catalogue (table-driven on the texts)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from app.validation import load_catalogue
from app.validation.texts import TEXTS_DIR, StatuteTextError, load_texts

CSL = "中华人民共和国网络安全法"


def test_every_statute_with_texts_is_catalogued_and_its_counts_agree() -> None:
    catalogue, store = load_catalogue(), load_texts()
    assert len(store.versions) >= 7
    for name, versions in store.versions.items():
        statute = catalogue.statutes[name]
        assert len(versions[-1].articles) == statute.articles, name
        for older in versions[:-1]:
            assert len(older.articles) == statute.articles_before_amendment, older.key


def test_article_numbers_run_from_one_without_gaps() -> None:
    for versions in load_texts().versions.values():
        for version in versions:
            numbers = [a.number for a in version.articles]
            assert numbers == list(range(1, len(numbers) + 1)), version.key
            assert all(a.first_line for a in version.articles), version.key


def test_every_version_records_its_source_and_dates() -> None:
    for versions in load_texts().versions.values():
        for version in versions:
            assert version.source and version.version
            assert version.adopted <= version.in_force_from


@pytest.mark.parametrize(
    ("key", "article", "expected"),
    [
        ("pipl-2021", 1, "为了保护个人信息权益"),
        ("pipl-2021", 55, "个人信息保护影响评估"),
        ("pipl-2021", 74, "本法自2021年11月1日起施行"),
        ("dsl-2021", 55, "本法自2021年9月1日起施行"),
        ("csl-2016", 37, "应当在境内存储"),
        ("csl-2016", 79, "本法自2017年6月1日起施行"),
        ("csl-2025", 3, "网络安全工作坚持中国共产党的领导"),
        ("csl-2025", 20, "人工智能"),
        ("csl-2025", 39, "应当在境内存储"),
        ("csl-2025", 81, "本法自2017年6月1日起施行"),
        ("ndsr-2024", 64, "本条例自2025年1月1日起施行"),
        ("sam-2022", 14, "有效期为2年"),
        ("sam-2022", 20, "本办法自2022年9月1日起施行"),
        ("scc-2023", 4, "（三）自上年1月1日起累计向境外提供个人信息不满10万人的"),
        ("scc-2023", 7, "标准合同生效之日起10个工作日内"),
        ("scc-2023", 13, "本办法自2023年6月1日起施行"),
        ("cbdf-2024", 7, "100万人以上个人信息（不含敏感个人信息）或者1万人以上敏感个人信息"),
        ("cbdf-2024", 8, "10万人以上、不满100万人个人信息"),
        ("cbdf-2024", 9, "结果有效期为3年"),
        ("cbdf-2024", 13, "与本规定不一致的，适用本规定"),
        ("cbdf-2024", 14, "本规定自公布之日起施行"),
        ("pic-2025", 8, "认证证书的有效期为3年"),
        ("pic-2025", 19, "本办法自2026年1月1日起施行"),
        ("civil-code-2020", 1, "为了保护民事主体的合法权益"),
        ("civil-code-2020", 464, "合同是民事主体之间设立、变更、终止民事法律关系的协议"),
        ("civil-code-2020", 1260, "同时废止"),
    ],
)
def test_article_texts(key: str, article: int, expected: str) -> None:
    version = load_texts().by_key(key)
    assert version is not None
    found = version.article(article)
    assert found is not None and expected in found.text


def test_the_cac_measures_record_their_cross_check_and_what_could_not_be_read() -> None:
    store = load_texts()
    scc, cbdf = store.by_key("scc-2023"), store.by_key("cbdf-2024")
    assert scc is not None and cbdf is not None
    assert "CN-GOV-015" in scc.source and "CN-REG-007" in cbdf.source
    assert scc.checked and cbdf.checked and "joined" in cbdf.checked
    # 第七条、第八条: the second 款, cut off in the transcription, is held from the parts read
    assert not cbdf.incomplete and not scc.incomplete
    prevails = "属于本规定第三条、第四条、第五条、第六条规定情形的，从其规定。"
    assert [cbdf.article(n).part(2) for n in (7, 8)] == [prevails, prevails]  # type: ignore[union-attr]
    joined = json.loads((TEXTS_DIR / "cbdf-2024.json").read_text(encoding="utf-8"))["joined"]
    assert set(joined) == {"7", "8"} and all("未经逐字读到" in note for note in joined.values())
    assert "备案指南（第二版）" in joined["8"]
    assert len(scc.article(4).paragraphs[0].items) == 4  # type: ignore[union-attr]


def test_paragraphs_and_items_are_kept() -> None:
    article = load_texts().by_key("pipl-2021").article(13)  # type: ignore[union-attr]
    assert article is not None
    assert len(article.paragraphs) == 2
    assert (
        article.paragraphs[0]
        .items[1]
        .startswith("（二）为订立、履行个人作为一方当事人的合同所必需")
    )
    assert article.part(1, 2).endswith("实施人力资源管理所必需；")
    assert article.part(2).startswith("依照本法其他有关规定")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (2, 2),
        (3, 4),
        (18, 19),
        (19, 21),
        (37, 39),
        (40, 42),
        (59, 61),
        (61, 64),
        (64, 71),
        (66, 71),
        (79, 81),
    ],
)
def test_cybersecurity_law_old_to_new_map(old: int, new: int) -> None:
    amended = load_texts().by_key("csl-2025")
    assert amended is not None and amended.renumber_map[old] == new


@pytest.mark.parametrize(
    ("day", "key"),
    [
        (dt.date(2017, 6, 1), "csl-2016"),
        (dt.date(2025, 12, 31), "csl-2016"),
        (dt.date(2026, 1, 1), "csl-2025"),
        (dt.date(2030, 1, 1), "csl-2025"),
    ],
)
def test_version_in_force_on_a_date(day: dt.date, key: str) -> None:
    version = load_texts().on(CSL, day)
    assert version is not None and version.key == key


def test_no_version_before_the_first_is_in_force() -> None:
    assert load_texts().on(CSL, dt.date(2017, 5, 31)) is None


def _write(directory: Path, name: str, record: dict[str, object]) -> None:
    (directory / name).write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")


def _record(numbers: list[int]) -> dict[str, object]:
    return {
        "statute": "示例法",
        "version": "2020-01-01通过",
        "adopted": "2020-01-01",
        "in_force_from": "2020-06-01",
        "source": "test",
        "articles": [
            {"n": n, "paragraphs": [{"text": f"第{n}条文本", "items": []}]} for n in numbers
        ],
    }


def test_a_gap_in_article_numbers_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "x.json", _record([1, 2, 4]))
    with pytest.raises(StatuteTextError) as raised:
        load_texts(str(tmp_path))
    assert "不连续" in raised.value.message_zh and "continuous" in raised.value.message_en


def test_a_missing_field_is_refused(tmp_path: Path) -> None:
    record = _record([1])
    del record["source"]
    _write(tmp_path, "x.json", record)
    with pytest.raises(StatuteTextError):
        load_texts(str(tmp_path))


def test_a_map_pointing_outside_the_texts_is_refused(tmp_path: Path) -> None:
    old = {**_record([1, 2]), "in_force_until": "2021-12-31"}
    new = {
        **_record([1, 2, 3]),
        "in_force_from": "2022-01-01",
        "renumbered_from": {"version_file": "a", "map": {"2": 9}},
    }
    _write(tmp_path, "a.json", old)
    _write(tmp_path, "b.json", new)
    with pytest.raises(StatuteTextError):
        load_texts(str(tmp_path))


def _build_script():  # scripts/ is not a package: load the rebuild script by path
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "build_statute_texts.py"
    spec = importlib.util.spec_from_file_location("build_statute_texts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while defined
    spec.loader.exec_module(module)
    return module


def test_a_cut_paragraph_is_joined_only_where_the_readings_agree(tmp_path: Path) -> None:
    """The build holds a cut 款 only if its head is the transcription's cut line and a second
    source quoting it begins with its tail; otherwise it stops."""
    script = _build_script()
    rows = [
        {"source_id": "X-1", "article_ref": "第一条", "content": "第一条 甲。\n 属于本规定"},
        {
            "source_id": "Q-2",
            "article_ref": "第六条",
            "content": "第六条规定情形的，从其规定。 \n 乙",
        },
    ]
    jsonl = tmp_path / "regulation_articles.jsonl"
    jsonl.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in rows), encoding="utf-8")
    text = "属于本规定第六条规定情形的，从其规定。"
    spec = script.Spec(
        "x", "某规定", "v", (), "2024-01-01", "2024-01-01", "s", ai4law="X-1",
        joined=(script.Join(1, text, "note", "Q-2", "第六条", "第六条规定情形的，从其规定。"),),
    )  # fmt: skip
    articles, _ = script.ai4law_articles(jsonl, "X-1")
    incomplete, notes = script.join_cut_paragraphs(spec, articles, jsonl)
    assert incomplete == [] and notes == {"1": "note"}
    assert articles[0]["paragraphs"][1] == {"text": text, "items": []}
    for wrong in ("不属于本规定……", "属于本规定第六条另有规定的，从其规定。"):
        bad = replace(spec, joined=(replace(spec.joined[0], text=wrong),))
        with pytest.raises(SystemExit):
            script.join_cut_paragraphs(bad, script.ai4law_articles(jsonl, "X-1")[0], jsonl)


def test_rebuild_reads_the_ai4law_lines_drops_page_furniture_and_flags_cut_text(
    tmp_path: Path,
) -> None:
    lines = [
        {
            "source_id": "X-1",
            "article_ref": "第一条",
            "content": "第一条 甲。\n 附件： 某.pdf \n 国家规章库",
        },
        {
            "source_id": "X-1",
            "article_ref": "第二条",
            "content": "第二条 乙：\n （一）丙；\n （二）丁。\n 属于本规定",
        },
        {"source_id": "OTHER", "article_ref": "第一条", "content": "第一条 别的。"},
    ]
    jsonl = tmp_path / "regulation_articles.jsonl"
    jsonl.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    articles, incomplete = _build_script().ai4law_articles(jsonl, "X-1")
    assert [a["n"] for a in articles] == [1, 2]
    assert articles[0]["paragraphs"] == [{"text": "甲。", "items": []}]
    assert articles[1]["paragraphs"] == [{"text": "乙：", "items": ["（一）丙；", "（二）丁。"]}]
    assert incomplete == [2]
