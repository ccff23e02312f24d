"""User-facing UI text, one YAML file per language (app/locales/<lang>.yaml).

`t(key, lang)` looks a dotted key up; a missing string falls back to the key itself
so that it is visible on screen rather than silently blank.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

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
        return _flatten(yaml.safe_load(fh) or {})


def t(key: str, lang: str = DEFAULT_LANG, **values: object) -> str:
    """The text for `key` in `lang`, formatted with `values`; the key itself when missing."""
    text = strings(lang).get(key, key)
    if values:
        try:
            return text.format(**values)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def pick(lang: str, zh: str, en: str) -> str:
    """Choose between a service's paired message_zh / message_en by UI language."""
    return en if lang == "en" and en else zh
