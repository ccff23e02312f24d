"""User and model text on a page is shown as text, never as Markdown.

Streamlit renders Markdown in st.markdown, captions, alerts, headings, widget labels, help
tooltips, expander titles and progress texts, so a form value, a comment, a model's sentence
or a finding quoting it (`![t](http://host/p.png)`, `[x](http://…)`, a bare address) would
become an image the browser fetches or a link, in another user's browser. `plain` is the one
way such text reaches Markdown: every ASCII punctuation character is backslash-escaped
(CommonMark allows it for each of them, so no image, link, emphasis, HTML, math or Streamlit
directive can start), and a word joiner (U+2060, invisible) follows each ':' and '@' and each
"www" before a '.', which breaks the bare addresses GitHub-flavoured Markdown links after
escapes are read. `ui_state.tr` applies it to every value it fills into a UI string; a page
applies it to any other text it did not write itself. Text drawn as text (st.text, st.code,
st.dataframe, selectbox options, widget values) and HTML the app escapes itself
(findings_view.highlight_html, the redline) need neither.
"""

from __future__ import annotations

import re
import string

ESCAPED = frozenset(string.punctuation)
JOINER = "\u2060"  # WORD JOINER
_WWW = re.compile(r"(www)(?=\\\.)", re.IGNORECASE)


def plain(value: object) -> str:
    """`value` as Markdown that shows exactly its characters and nothing active."""
    out: list[str] = []
    for ch in str(value):
        out.append("\\" + ch if ch in ESCAPED else ch)
        if ch in ":@":
            out.append(JOINER)
    return _WWW.sub(r"\1" + JOINER, "".join(out))
