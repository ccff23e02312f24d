"""A cited article's heading and source as a lawyer reads them (issue 40): its dates in the UI
language, its source without the commit of the transcription it was read from."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from app.i18n import long_date
from app.validation import load_catalogue
from app.validation.lookup import lookup
from app.validation.texts import load_texts

ON = dt.date(2026, 1, 15)


def _view(reference: str):  # type: ignore[no-untyped-def]
    return lookup(reference, catalogue=load_catalogue(None), store=load_texts(), on=ON)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh",
            "《中华人民共和国个人信息保护法》第三十八条（2021年8月20日通过，自2021年11月1日起施行）",
        ),
        (
            "en",
            "《中华人民共和国个人信息保护法》第三十八条 (adopted 20 August 2021, in force from 1 November 2021)",
        ),
    ],
)
def test_the_heading_dates_follow_the_ui_language(lang: str, expected: str) -> None:
    assert _view("个人信息保护法第三十八条").heading_in(lang) == expected


def test_an_amended_version_says_so() -> None:
    heading = _view("网络安全法第二十一条").heading_in("en")
    assert "amended 28 October 2025" in heading and "2025-10-28" not in heading


def test_the_source_shown_has_no_commit_hash() -> None:
    view = _view("个人信息保护法第三十八条")
    assert "commit" in view.source  # the data keeps where the text was read from
    assert "commit" not in view.shown_source and "LawRefBook" in view.shown_source
    assert re.search("[0-9a-f]{40}", view.source)
    assert not re.search("[0-9a-f]{7,}", view.shown_source)


@pytest.mark.parametrize(("lang", "expected"), [("zh", "2021年11月1日"), ("en", "1 November 2021")])
def test_long_dates(lang: str, expected: str) -> None:
    assert long_date(dt.date(2021, 11, 1), lang) == expected
