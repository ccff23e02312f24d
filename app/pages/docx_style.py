"""The DOCX style a download is set in (app/export/official.py): standard, or the filing
templates' official format; the document type's own style first."""

from __future__ import annotations

import streamlit as st

from app.export.official import STYLE_NAMES
from app.i18n import t
from app.pages.ui_state import lang, tr


def style_picker(default: str, key: str, *, disabled: bool = False) -> str:
    """A compact choice of style, defaulting to the type's; returns the chosen name."""
    options = list(STYLE_NAMES)
    ui_lang = lang()  # bound now: format_func may be called outside the script run

    return str(
        st.radio(
            tr("docx.style"),
            options,
            index=options.index(default) if default in options else 0,
            key=key,
            horizontal=True,
            format_func=lambda name: t(f"docx.style_{name}", ui_lang),
            help=tr("docx.style_help"),
            disabled=disabled,
        )
    )
