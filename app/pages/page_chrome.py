"""Streamlit's own words on the page follow the UI language where Streamlit allows it: the
document's `lang` (the browser's fonts for Chinese, screen readers, its offer to translate) is
the UI language's, and the English key hint under text inputs and areas ("Press Ctrl+Enter to
apply") is not shown. What Streamlit's frontend draws in English and offers no setting for —
the table toolbar's tooltips (Download, Search, Fullscreen), the file uploader's "Drag and drop
file here", the app menu — stays English (docs/user-guide.md)."""

from __future__ import annotations

import streamlit as st

HTML_LANG = {"zh": "zh-CN", "en": "en"}
HIDE_KEY_HINT = '<style>[data-testid="InputInstructions"]{display:none}</style>'


def follow_language(lang: str) -> None:
    """Draw (inside the sidebar) the style that hides the key hint and the fixed script that
    sets the document's language; the code is one of HTML_LANG's, never user text."""
    st.html(HIDE_KEY_HINT)
    code = HTML_LANG.get(lang, HTML_LANG["zh"])
    st.html(
        f'<script>document.documentElement.lang = "{code}";</script>',
        unsafe_allow_javascript=True,
    )
