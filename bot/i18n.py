"""Message catalogs: every text a person reads, in 简体中文 and English.

Catalogs are JSON files in `bot/locales/` (one flat key -> text map per
language, `str.format` placeholders).  A missing key falls back to English,
then to the key itself, so a gap shows up as a readable key, never a crash.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from importlib import resources
from typing import Any

LANGS: tuple[str, ...] = ("zh", "en")
DEFAULT_LANG = "zh"


@cache
def catalog(lang: str) -> dict[str, str]:
    """The catalog of one language (loaded once)."""
    text = resources.files("bot").joinpath("locales", f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"catalog {lang} is not an object")
    return {str(k): str(v) for k, v in data.items()}


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def tr(lang: str | None, key: str, **params: Any) -> str:
    """The text for `key` in `lang`, with params filled in; unknown params stay visible."""
    lang = lang if lang in LANGS else DEFAULT_LANG
    text = catalog(lang).get(key)
    if text is None:
        text = catalog("en").get(key, key)
    return string.Formatter().vformat(text, (), _Lenient(params))


def placeholders(text: str) -> set[str]:
    """The placeholder names used in a catalog text (for catalog tests)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def normalize_lang(code: str | None) -> str | None:
    """Maps a platform or user language code ("zh-hans", "en-US", "中文") to one of LANGS, or None."""
    if not code:
        return None
    c = code.strip().lower()
    if c.startswith("zh") or c in {"中文", "chinese", "cn", "简体", "简体中文"}:
        return "zh"
    if c.startswith("en") or c in {"english", "英文", "英语"}:
        return "en"
    return None


_PLAIN_WORD = re.compile(r"^[a-z0-9_]{1,20}$")


def unknown_command_text(lang: str | None, name: str) -> str:
    """"Unknown command" naming it only when it is a plain word: arbitrary input is never echoed back."""
    if _PLAIN_WORD.match(name):
        return tr(lang, "err.unknown_command", name=name)
    return tr(lang, "err.unknown_command_plain")
