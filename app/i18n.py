"""User-facing UI text, one YAML file per language (app/locales/<lang>.yaml).

`t(key, lang)` looks a dotted key up; a missing string falls back to the key itself
so that it is visible on screen rather than silently blank.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import yamldata
from app.domain import Bilingual, BilingualError, describe

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
LANGUAGES: tuple[str, ...] = ("zh", "en")
DEFAULT_LANG = "zh"


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


@lru_cache(maxsize=len(LANGUAGES))
def strings(lang: str) -> dict[str, str]:
    """All strings of one language as a flat {dotted.key: text} mapping."""
    path = LOCALES_DIR / f"{lang if lang in LANGUAGES else DEFAULT_LANG}.yaml"
    with path.open(encoding="utf-8") as fh:
        return _flatten(yamldata.load(fh) or {})


def t(key: str, lang: str = DEFAULT_LANG, **values: object) -> str:
    """The text for `key` in `lang`, formatted with `values`; the key itself when missing."""
    text = strings(lang).get(key, key)
    if values:
        try:
            return text.format(**values)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def both(key: str, **values: object) -> Bilingual:
    """The text for `key` in both languages, as one Bilingual; a value that is itself bilingual
    (a Bilingual, a BilingualError) is filled in each language from its own half."""

    def filled(lang: str) -> dict[str, object]:
        return {
            k: describe(v).text(lang) if isinstance(v, Bilingual | BilingualError) else v
            for k, v in values.items()
        }

    return Bilingual(t(key, "zh", **filled("zh")), t(key, "en", **filled("en")))


def cli_text(key: str, **values: object) -> str:
    """A command-line string: the CLI prints 简体中文 and English together ("中文 / English")."""
    return str(both(key, **values))


def long_date(day: dt.date, lang: str) -> str:
    """A date as the reader's language writes it: 2021年11月1日, or 1 November 2021."""
    name = t("dates.months", lang).split(",")[day.month - 1]
    return t("dates.long", lang, year=day.year, day=day.day, month_name=name)


def local_moment(moment: dt.datetime, lang: str) -> str:
    """A moment in this machine's time zone: 2026年12月1日 08:00, or 1 Dec 2026, 08:00."""
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    name = t("dates.months", lang).split(",")[moment.month - 1]
    return t(
        "dates.moment",
        lang,
        year=moment.year,
        day=moment.day,
        month_short=name[:3],
        hm=f"{moment:%H:%M}",
    )
