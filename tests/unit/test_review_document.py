"""A document someone else wrote, reviewed end to end: the 2024 template is checked on the
date its footer states (its 网络安全法第三十七条 right then, outdated today), the user's date
overrides it, and the original DOCX comes back with a Word comment on exactly the words of each
finding, its formatting kept and everything else as it was; with tracked changes, the fix."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

import docx
from docx.oxml.ns import qn

from app.config import Settings
from app.review.annotate import annotated_docx
from app.review.service import Review, audit_payload, review_document
from app.review.summary import summary_markdown
from tests.review_docs import CSL_37, WRONG, policy_docx, texts

TODAY = dt.date(2026, 12, 3)
SETTINGS = Settings(statutes_file=None)


def _review(data: bytes, **kw: object) -> Review:
    return review_document(data, "policy.docx", settings=SETTINGS, today=TODAY, **kw)  # type: ignore[arg-type]


def anchored(data: bytes) -> dict[str, str]:
    """Each comment's text → the document text between its range marks (python-docx reads
    the comments; the marks are walked in document order)."""
    document = docx.Document(io.BytesIO(data))
    by_id = {str(c.comment_id): c.text for c in document.comments}
    open_ids: set[str] = set()
    words: dict[str, str] = dict.fromkeys(by_id, "")
    for element in document.element.body.iter():
        if element.tag == qn("w:commentRangeStart"):
            open_ids.add(element.get(qn("w:id")))
        elif element.tag == qn("w:commentRangeEnd"):
            open_ids.discard(element.get(qn("w:id")))
        elif element.tag in (qn("w:t"), qn("w:delText")):
            for i in open_ids:
                words[i] += element.text or ""
    return {by_id[i]: words[i] for i in by_id}


def test_the_2024_template_is_checked_on_its_own_date_and_outdated_today() -> None:
    review = _review(policy_docx())
    assert (review.date.date, review.date.source) == (dt.date(2024, 5, 20), "footer")
    codes = {f.code: review.document.text[f.start : f.end] for f in review.findings}
    assert codes == {"citation.article_out_of_range": WRONG}  # 第三十七条 was right in 2024
    [outdated] = review.outdated
    assert outdated.code == "citation.renumbered"
    assert review.document.text[outdated.start : outdated.end] == CSL_37
    assert outdated.suggestion.endswith("第三十九条")
    passage = review.passage(outdated)
    assert passage is not None and passage.place == "body" and passage.paragraph == 1
    assert passage.text[passage.start : passage.end] == CSL_37


def test_a_date_given_overrides_the_documents_and_today_has_nothing_outdated() -> None:
    review = _review(policy_docx(), date=TODAY)
    assert review.date.source == "given" and not review.outdated
    assert {f.code for f in review.findings} == {
        "citation.article_out_of_range",
        "citation.renumbered",
    }
    early = _review(policy_docx(), date=dt.date(2015, 1, 1))  # before the 网络安全法 existed
    assert any(f.code == "citation.not_in_force" for f in early.findings)


def test_the_bodys_own_date_wins_and_core_properties_come_last() -> None:
    text = "第一条 依据《网络安全法》第三十七条办理。\n本制度自2025年3月1日起施行。"
    review = review_document(text.encode(), "memo.md", settings=SETTINGS, today=TODAY)
    assert (review.date.date, review.date.source, review.date.cue) == (
        dt.date(2025, 3, 1),
        "text",
        "施行",
    )
    document = docx.Document()
    document.add_paragraph("依据《个人信息保护法》第三十八条办理。")
    document.core_properties.modified = dt.datetime(2023, 8, 1, 9, 0)
    buffer = io.BytesIO()
    document.save(buffer)
    dated = review_document(buffer.getvalue(), "a.docx", settings=SETTINGS, today=TODAY)
    assert (dated.date.date, dated.date.source) == (dt.date(2023, 8, 1), "properties")


def test_comments_sit_on_the_exact_words_and_nothing_else_changes() -> None:
    original = policy_docx()
    review = _review(original)
    out = annotated_docx(original, review)
    on = anchored(out)
    assert sorted(on.values()) == sorted([WRONG, CSL_37])
    outdated = next(text for text in on if "citation.renumbered" in text)
    assert "今日已过时" in outdated and "第三十九条" in outdated
    assert texts(out) == texts(original)
    runs = {r.text: r.bold for p in docx.Document(io.BytesIO(out)).paragraphs for r in p.runs}
    assert runs["《网络安全法》第三"] is True and runs["十七条"] is not True  # formatting kept
    with zipfile.ZipFile(io.BytesIO(original)) as a, zipfile.ZipFile(io.BytesIO(out)) as b:
        for part in ("word/numbering.xml", "word/styles.xml", "word/header1.xml",
                     "word/footer1.xml", "word/settings.xml"):  # fmt: skip
            assert a.read(part) == b.read(part), part


def test_tracked_changes_propose_the_current_article() -> None:
    original = policy_docx()
    review = _review(original)
    out = annotated_docx(original, review, tracked=True)
    body = docx.Document(io.BytesIO(out)).element.body
    deleted = "".join(t.text or "" for t in body.iter(qn("w:delText")))
    inserted = "".join(t.text or "" for d in body.iter(qn("w:ins")) for t in d.iter(qn("w:t")))
    assert deleted == CSL_37
    assert inserted == "《中华人民共和国网络安全法》第三十九条"
    assert len(anchored(out)) == 2
    # the range-with-no-replacement finding (第九十九条) is a comment only
    assert texts(out)["table"] == texts(original)["table"]


def test_the_summary_and_the_audit_payload_say_what_was_found() -> None:
    review = _review(policy_docx())
    summary = summary_markdown(review, "zh")
    assert "2024-05-20" in summary and "【第九十九条】" in summary and "今日已过时" in summary
    assert "Review summary" in summary_markdown(review, "en")
    payload = audit_payload(review)
    assert payload["sha256"] == review.sha256 and payload["date"] == "2024-05-20"
    assert payload["codes"] == {"citation.article_out_of_range": 1}
    assert payload["outdated"] == {"citation.renumbered": 1}


def _contract_docx(text: str) -> bytes:
    """A 个人信息出境标准合同 as a lawyer's DOCX: one paragraph per line."""
    document = docx.Document()
    for line in text.split("\n"):
        document.add_paragraph(line)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_standard_contract_is_compared_with_the_official_text_end_to_end() -> None:
    """Filled in, it has no contract finding; a weakened duty is found, and its comment sits on
    the clause in the DOCX that comes back."""
    from tests.unit.standard_contract_seeds import make

    clean = _review(_contract_docx(make("clean", 1).text))
    assert not [f for f in clean.findings if f.code.startswith("contract.")]
    seeded = make("contract.obligation_weakened", 3)
    data = _contract_docx(seeded.text)
    review = _review(data)
    found = [f for f in review.findings if f.code == "contract.obligation_weakened"]
    assert found, [f.code for f in review.findings]
    on = anchored(annotated_docx(data, review))
    words = next(w for text, w in on.items() if "contract.obligation_weakened" in text)
    a, b = seeded.region
    assert words and words in seeded.text[a:b]
    assert texts(annotated_docx(data, review)) == texts(data)
