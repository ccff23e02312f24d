"""The two UI language files stay in step, and lookups behave."""

from __future__ import annotations

import re
from pathlib import Path

from app.domain import Bilingual
from app.i18n import LANGUAGES, strings, t

APP = Path(__file__).resolve().parents[2] / "app"


def test_both_languages_have_the_same_keys() -> None:
    zh, en = strings("zh"), strings("en")
    assert set(zh) == set(en), sorted(set(zh) ^ set(en))
    assert len(zh) > 100


def test_placeholders_match_between_languages() -> None:
    fields = re.compile(r"\{(\w+)")
    for key, zh_text in strings("zh").items():
        assert set(fields.findall(zh_text)) == set(fields.findall(strings("en")[key])), key


def test_every_key_used_by_the_pages_exists() -> None:
    used = re.compile(r"""\btr\(\s*["']([a-z_]+\.[a-z_.]+)["']""")
    sources = [APP / "main.py", *(APP / "pages").glob("*.py")]
    keys = {k for path in sources for k in used.findall(path.read_text(encoding="utf-8"))}
    assert keys, "no tr() calls found"
    for lang in LANGUAGES:
        missing = keys - set(strings(lang))
        assert not missing, (lang, sorted(missing))


def test_lookup_formats_and_falls_back_to_the_key() -> None:
    assert t("draft.generate", "zh") == "生成"
    assert t("draft.generate", "en") == "Generate"
    assert t("history.count", "en", n=3) == "3 generation(s)"
    assert t("no.such.key", "en") == "no.such.key"
    assert t("draft.generate", "fr") == "生成"  # unknown language: the default


def test_bilingual_chooses_the_service_message_by_language() -> None:
    assert Bilingual("中文", "English").text("en") == "English"
    assert Bilingual("中文", "English").text("zh") == "中文"
    assert Bilingual("中文", "").text("en") == "中文"
