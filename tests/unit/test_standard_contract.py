"""app.review.contract: a standard contract compared clause by clause with the official text
(table-driven: one edit of a filled-in contract, the finding it must raise and where)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from app.review.contract import contract_findings, looks_like_standard_contract
from app.review.contract_text import official

sys.path.insert(0, str(Path(__file__).resolve().parent))
from standard_contract_seeds import _facts, base, render


def filled(seed: int = 7) -> str:
    rng = random.Random(seed)
    return render(base(rng, _facts(rng)), rng)[0]


def test_the_official_text_itself_and_a_filled_in_contract_have_no_findings() -> None:
    blank = "\n".join(u.number + (" " if u.kind == "article" else "") + u.text for u in official())
    assert looks_like_standard_contract(blank)
    assert contract_findings(blank) == ()
    for seed in range(5):
        text = filled(seed)
        assert looks_like_standard_contract(text)
        assert contract_findings(text) == ()


def test_other_documents_are_not_standard_contracts() -> None:
    nda = "保密协议\n第一条 保密信息\n接收方应当对披露方提供的保密信息予以保密。\n第二条 期限\n本协议有效期三年。"
    assert not looks_like_standard_contract(nda)
    assert not looks_like_standard_contract("")


CASES = [
    # (old, new, code, the words the finding is on, suggestion, clause named)
    ("保存记录至少3年", "保存记录至少1年", "contract.period_changed", "1年", "3年", "第三条第十二项"),
    ("未在30日内明确拒绝", "未在15日内明确拒绝", "contract.period_changed", "15日", "30日", "第二条第四项"),
    ("应当在知道该变化后立即通知", "应当在知道该变化后5个工作日内通知", "contract.period_changed", "5个工作日内", "立即", "第四条第五项"),
    ("基于个人同意向境外提供个人信息的，应当取得", "基于个人同意向境外提供个人信息的，可以取得", "contract.obligation_weakened", "可以", "应当", "第二条第三项"),
    ("不得对个人信息主体在交易价格", "原则上不得对个人信息主体在交易价格", "contract.obligation_weakened", "原则上不得", "不得", "第三条第十项"),
    ("向第三方提供敏感个人信息的，还应当向个人信息主体告知提供敏感个人信息的必要性以及对个人权益的影响。但是法律", "但是法律", "contract.condition_dropped", None, None, "第三条第八项第2目"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "code", "words", "suggestion", "clause"), CASES)
def test_an_edited_clause_is_reported_on_its_words(
    old: str, new: str, code: str, words: str | None, suggestion: str | None, clause: str
) -> None:
    text = filled()
    at = text.index(old)
    edited = text.replace(old, new, 1)
    (f,) = contract_findings(edited)
    assert f.code == code and f"标准合同{clause}" in f.message_zh and f.message_en
    if words is not None:
        assert edited[f.start : f.end] == words and f.suggestion == suggestion
    else:
        assert f.start <= at < f.end  # the clause whose words are cut


def test_a_deleted_item_is_one_finding_anchored_on_its_neighbour_and_restorable() -> None:
    text = filled()
    start = text.index("4.与第三方达成书面协议")
    end = text.index("\n", start)
    for renumber in (False, True):
        edited = text[:start] + text[end + 1 :]
        if renumber:
            edited = edited.replace(
                "5.根据个人信息主体的要求向个人信息主体提供该书面协议",
                "4.根据个人信息主体的要求向个人信息主体提供该书面协议",
            )
        (f,) = contract_findings(edited)
        assert f.code == "contract.item_deleted" and "第三条第八项第4目" in f.message_zh
        assert edited[f.start : f.end].startswith("基于个人同意处理个人信息的")  # 第3目, before it
        assert f.suggestion.startswith("4.与第三方达成书面协议")


def test_a_deleted_article_is_one_finding_with_all_its_items() -> None:
    text = filled()
    start = text.rindex("\n", 0, text.index("违约责任")) + 1
    end = text.rindex("\n", 0, text.index("其他\n")) + 1
    (f,) = contract_findings(text[:start] + text[end:])
    assert f.code == "contract.item_deleted" and "第八条" in f.message_zh
    assert f.suggestion.count("\n") == 3 and "连带责任" in f.suggestion


@pytest.mark.parametrize(
    ("term", "clause"),
    [
        ("境外接收方对个人信息主体的损失不承担连带责任。", "第八条第三项"),
        ("境外接收方在本合同项下的赔偿责任以人民币100万元为上限。", "第八条第二项"),
        ("境外接收方应于六十个工作日内处理个人信息主体的请求。", "第五条第三项"),
        ("因本合同引起的任何争议，提交美国纽约州法院管辖。", "第九条第四项第2目"),
        ("如本合同与商业合同约定不一致的，以商业合同为准。", "第九条第一项"),
    ],
)
def test_an_added_conflicting_term_names_the_clause_it_conflicts_with(
    term: str, clause: str
) -> None:
    text = filled() + "\n1." + term
    (f,) = contract_findings(text)
    assert f.code == "contract.conflicting_term" and f"标准合同{clause}" in f.message_zh
    assert text[f.start : f.end] == term and "第六条" in f.message_zh


def test_a_harmless_added_term_is_not_a_conflict() -> None:
    text = filled() + "\n双方应每年对本合同的履行情况进行一次复核。\n本合同以中文书就。"
    assert contract_findings(text) == ()


def test_appendix_entries_that_contradict_the_rest_are_reported() -> None:
    text = filled()
    sensitive = text.replace("姓名、电话号码", "姓名、身份证件号码、电话号码", 1)
    (f,) = contract_findings(sensitive)
    assert f.code == "contract.appendix_mismatch" and "第五项" in f.message_zh
    scale = text + "\n本合同项下出境的个人信息涉及约50万名用户。"
    (g,) = contract_findings(scale)
    assert (
        g.code == "contract.appendix_mismatch"
        and "第三项" in g.message_zh
        and "50万" in g.message_zh
    )
    reversed_dates = text.replace("2027年6月30日", "2023年6月30日")
    (h,) = contract_findings(reversed_dates)
    assert h.code == "contract.appendix_mismatch" and "第八项" in h.message_zh


def test_every_finding_is_inside_the_text() -> None:
    text = filled().replace("应当", "可以", 3) + "\n本合同适用美国特拉华州法律。"
    found = contract_findings(text)
    assert len(found) >= 3
    for f in found:
        assert 0 <= f.start < f.end <= len(text)


def test_a_stronger_duty_is_a_rewording_not_a_weakening() -> None:
    text = filled()
    (f,) = contract_findings(
        text.replace("应当删除个人信息（包括所有备份）", "必须删除个人信息（包括所有备份）", 1)
    )
    assert f.code == "contract.wording_changed" and "第三条第五项" in f.message_zh


def test_an_empty_or_unrelated_text_does_not_fail() -> None:
    assert all(f.code == "contract.item_deleted" for f in contract_findings("保密协议"))
    assert contract_findings("") == contract_findings("\n\n")
