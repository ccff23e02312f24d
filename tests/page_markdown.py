"""What a page hands the browser as Markdown, read from an AppTest run, and whether any of it
is active: an image or a link (inline, reference or definition), an autolink, raw HTML or a
bare address GitHub-flavoured Markdown turns into a link. Escaped characters (a backslash
before ASCII punctuation) take part in nothing, as CommonMark reads them."""

from __future__ import annotations

import re

from app.pages.plain_text import JOINER

# the elements whose `body` Streamlit renders as Markdown (st.text, st.code and st.html do not)
BODY = {"markdown", "caption", "title", "header", "subheader", "error", "warning", "info",
        "success", "toast"}  # fmt: skip
ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
ACTIVE = (
    re.compile(r"!?\[[^\]\n]*\]\s*[(\[:]"),  # ![alt](url), [text](url), [text][ref], [ref]: url
    re.compile(r"<[A-Za-z][A-Za-z0-9+.-]*:"),  # <http://…>
    re.compile(r"<[A-Za-z/!?]"),  # raw HTML
    re.compile(r"(?i)\b(?:https?|ftp)://|\bwww\.|[\w.+-]+@[\w-]+\.\w"),  # bare addresses
)


def markdown_strings(at: object) -> list[str]:
    """Every string the run's elements carry that Streamlit renders as Markdown: bodies of
    Markdown, captions, headings and alerts; labels and help of widgets, expanders and tabs;
    progress texts; radio options."""
    found: list[str] = []

    def walk(node: object) -> None:
        proto, kind = getattr(node, "proto", None), getattr(node, "type", None)
        if proto is not None and hasattr(proto, "ListFields"):
            fields = {f.name: v for f, v in proto.ListFields()}
            if kind in BODY and isinstance(fields.get("body"), str):
                found.append(fields["body"])
            found.extend(fields[n] for n in ("label", "help") if isinstance(fields.get(n), str))
            if kind == "progress" and isinstance(fields.get("text"), str):
                found.append(fields["text"])
            if kind == "radio":
                found.extend(proto.options)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)  # type: ignore[attr-defined]
    return found


def active(markdown: str) -> list[str]:
    """The active markup in `markdown` (empty: it renders as text)."""
    text = ESCAPE.sub("\x00", markdown)
    return [m.group() for pattern in ACTIVE for m in pattern.finditer(text)]


def shown(markdown: str) -> str:
    """The characters `markdown` shows when it holds only escaped text."""
    return ESCAPE.sub(lambda m: m.group()[1], markdown).replace(JOINER, "")


def page_is_inert(at: object) -> list[str]:
    """Every active piece of Markdown on the page, with the string it is in (empty: none)."""
    return [f"{hit!r} in {md!r}" for md in markdown_strings(at) for hit in active(md)]
