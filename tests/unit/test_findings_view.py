"""Highlighting findings in a draft: user text is escaped, spans become <mark>s."""

from __future__ import annotations

import pytest

from app.domain import Finding
from app.pages.findings_view import highlight_html


def finding(start: int, end: int, severity: str = "error", zh: str = "说明") -> Finding:
    return Finding("citation.repealed", severity, start, end, zh, "note")  # type: ignore[arg-type]


def body(html: str) -> str:
    return html.split('<div class="lx-draft">', 1)[1].removesuffix("</div>")


@pytest.mark.parametrize(
    ("text", "findings", "expected"),
    [
        ("plain", [], "plain"),
        ("<script>x</script>", [], "&lt;script&gt;x&lt;/script&gt;"),
        (
            "依据《合同法》",
            [finding(2, 7)],
            '依据<mark class="lx-error" title="说明">《合同法》</mark>',
        ),
        (
            "a<b>c",
            [finding(1, 4, "warning")],
            'a<mark class="lx-warning" title="说明">&lt;b&gt;</mark>c',
        ),
        (
            "abcdef",
            [finding(1, 4), finding(2, 5)],
            'a<mark class="lx-error" title="说明">bcd</mark>ef',
        ),
        ("abc", [finding(2, 9), finding(1, 1)], "abc"),  # past the end / empty: not marked
        (
            "abc",
            [finding(0, 1, "odd")],
            "a".join(['<mark class="lx-info" title="说明">', "</mark>bc"]),
        ),
    ],
)
def test_highlight_html(text: str, findings: list[Finding], expected: str) -> None:
    assert body(highlight_html(text, findings)) == expected


def test_tooltip_is_escaped_and_in_the_ui_language() -> None:
    f = Finding("x", "info", 0, 1, '中"文', 'say "hi" <b>')
    assert 'title="say &quot;hi&quot; &lt;b&gt;"' in highlight_html("ab", [f], "en")
    assert 'title="中&quot;文"' in highlight_html("ab", [f], "zh")


def _panel() -> None:
    import datetime as dt

    from app.pages.findings_view import show_findings
    from app.validation import check, load_catalogue

    text = "依据《个人信息保护法》第五十一条，处理者应当事前进行个人信息保护影响评估。《民法典》第五百八十五条。"
    result = check(text, catalogue=load_catalogue(), doc_date=dt.date(2026, 11, 30))
    show_findings(result.findings, citations=result.citations)


def test_panel_opens_each_citation_and_the_suggested_article() -> None:
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_function(_panel).run(timeout=60)
    assert not app.exception
    labels = [e.label for e in app.expander]
    assert labels[0].startswith("所引条文：《中华人民共和国个人信息保护法》第五十一条")
    assert labels[1].startswith("建议条文：《中华人民共和国个人信息保护法》第五十五条")
    assert any(label.startswith("《中华人民共和国民法典》第五百八十五条") for label in labels)
    texts = [t.value for t in app.text]
    assert any(
        v.startswith("有下列情形之一的，个人信息处理者应当事前进行个人信息保护影响评估")
        for v in texts
    )
    assert any("来源：" in c.value for c in app.caption)
