"""Message catalogs: every text a person reads, in 简体中文, 繁體中文 and English.

The catalogs are gettext files managed with Babel, `bot/locales/<locale>/LC_MESSAGES/tractor.po`.
Message ids are symbolic keys ("announce.trick") and the English catalog holds the English texts,
so a call site stays `tr(lang, "announce.trick", who=..., points=...)` and wording changes touch
only the .po files.  `make messages` extracts the keys from the code (`tr(lang, "key")` plus the
`N_`/`P_` marks below, for keys built at run time and for plurals) and updates every .po;
`make` compiles them to .mo.  A .mo that is missing or older than its .po (a fresh checkout, a
catalog just edited) is compiled in memory instead, so the texts read are always the .po's.

A missing text falls back to English, then to the key itself: a gap reads as a key, never a crash.
Texts keep `str.format` placeholders; an unknown placeholder stays visible rather than failing.
"""

from __future__ import annotations

import gettext
import io
import re
import string
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGS: tuple[str, ...] = ("zh", "zh-Hant", "en")
DEFAULT_LANG = "zh"
DOMAIN = "tractor"
LOCALES_DIR = Path(__file__).parent / "locales"
_LOCALE_DIR = {"zh": "zh", "zh-Hant": "zh_Hant", "en": "en"}


def N_(key: str) -> str:
    """Marks a key the code builds at run time (f"phase.{phase}") so `make messages` keeps it."""
    return key


def P_(key: str, count: str) -> tuple[str, str]:
    """Marks a plural message and the placeholder that counts ("{n}"): its msgid_plural in the .po."""
    return key, count.strip("{}")


# Plural messages: key -> the parameter whose value picks the form ("1 card", "2 cards").
PLURALS: dict[str, str] = dict([
    P_("table.cards_left", "{n}"),
    P_("hand.title", "{n}"),
    P_("inline.play", "{n}"),
    P_("result.kitty_won", "{points}"),
    P_("result.declarers_win", "{n}"),
    P_("result.defenders_win", "{n}"),
    P_("timeout.away", "{n}"),
    P_("league.provisional_note", "{n}"),
    P_("daily.compared", "{others}"),
    P_("dup.pairs_board", "{others}"),
    P_("review.head", "{count}"),
    P_("review.summary", "{count}"),
])

# Keys whose text is empty in every language: gettext reads an empty translation as "untranslated".
BLANK: frozenset[str] = frozenset({N_("phase."), N_("reason.played")})

# Keys built at run time (team.{0,1}, phase.{phase}, reason.{why}, word.{action}, {vote}.vote, refuse.{code}),
# kept as data (a hand's notes) or not yet used by the code.
RUNTIME_KEYS: tuple[str, ...] = (
    N_("timeout.you"), N_("announce.resumed"), N_("console.you"), N_("err.private_only"), N_("new.bad_format"),
    N_("result.winner"), N_("result.next_dealer"), N_("sim.summary"),
    N_("team.0"), N_("team.1"),
    N_("phase.dealing"), N_("phase.declaring"), N_("phase.burying"), N_("phase.chao"), N_("phase.playing"),
    N_("phase.hand_over"), N_("phase.match_over"),
    N_("reason.target"), N_("reason.abandoned"), N_("reason.revolution"), N_("reason.redeal"),
    N_("reason.time_limit"), N_("reason.lobby_expired"),
    N_("word.play"), N_("word.declare"), N_("word.bury"), N_("word.pass"), N_("word.chao"), N_("word.revolt"),
    N_("pause.vote"), N_("resume.vote"), N_("abandon.vote"),
    N_("refuse.wrong_phase"), N_("refuse.not_your_turn"), N_("refuse.not_in_hand"), N_("refuse.wrong_count"),
    N_("refuse.mixed_suits"), N_("refuse.must_follow_suit"), N_("refuse.must_follow_pairs"),
    N_("refuse.must_follow_tractor"), N_("refuse.not_level_card"), N_("refuse.cannot_override"),
    N_("refuse.no_declaration_yet"), N_("refuse.bury_count"), N_("refuse.cannot_revolt"), N_("refuse.bad_card"),
    N_("refuse.bad_action"),
    N_("rules.has_chao"), N_("rules.has_revolution"), N_("rules.has_knockback"),
    N_("hint.why_lead_master"), N_("hint.why_lead_top"), N_("hint.why_lead_safe"), N_("hint.why_lead_low"), N_("hint.why_takes"),
    N_("hint.why_partner_winning"), N_("hint.why_cannot_beat"), N_("hint.why_declare"), N_("hint.why_pass"), N_("hint.why_bury"),
    N_("hint.why_other"),
)


def po_path(lang: str) -> Path:
    """The .po file of one language."""
    return LOCALES_DIR / _LOCALE_DIR[lang] / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def _translations(lang: str) -> gettext.NullTranslations:
    po = po_path(lang)
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        data = mo.read_bytes()
    else:
        buf = io.BytesIO()
        with po.open("rb") as f:
            write_mo(buf, read_po(f, locale=_LOCALE_DIR[lang], domain=DOMAIN))
        data = buf.getvalue()
    trans: gettext.NullTranslations = gettext.GNUTranslations(io.BytesIO(data))
    if lang != "en":
        trans.add_fallback(_translations("en"))
    return trans


@cache
def forms(lang: str) -> dict[str, tuple[str, ...]]:
    """Every translated text of one language, as read from its .po: key -> its plural forms (one if none)."""
    with po_path(lang).open("rb") as f:
        cat = read_po(f, locale=_LOCALE_DIR[lang], domain=DOMAIN)
    out: dict[str, tuple[str, ...]] = {}
    for m in cat:
        key = m.id[0] if isinstance(m.id, tuple | list) else m.id
        texts = tuple(m.string) if isinstance(m.string, tuple | list) else (m.string,)
        if key and not m.fuzzy and (all(texts) or key in BLANK):
            out[str(key)] = tuple(str(t) for t in texts)
    return out


@cache
def catalog(lang: str) -> dict[str, str]:
    """The texts of one language, key -> text (a plural message gives its most general form)."""
    return {key: texts[-1] for key, texts in forms(lang).items()}


class _Lenient(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _count(value: object) -> int:
    if not isinstance(value, int | float | str):
        return 2  # not a number: the general form
    try:
        return int(value)
    except (TypeError, ValueError):
        return 2  # not a number: the general form


def tr(lang: str | None, key: str, **params: object) -> str:
    """The text for `key` in `lang`, with params filled in; unknown params stay visible."""
    if key in BLANK:
        return ""
    trans = _translations(lang if lang in LANGS else DEFAULT_LANG)
    counter = PLURALS.get(key)
    text = trans.ngettext(key, key, _count(params.get(counter))) if counter else trans.gettext(key)
    return text.format_map(_Lenient(params))


def placeholders(text: str) -> set[str]:
    """The placeholder names used in a catalog text (for catalog tests)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


_HANT_REGIONS = {"hant", "tw", "hk", "mo"}
_ZH_WORDS = {"中文", "chinese", "cn", "简体", "简体中文", "zhs", "zh-hans"}
_HANT_WORDS = {"繁體", "繁体", "繁體中文", "繁体中文", "zht", "traditional"}


def normalize_lang(code: str | None) -> str | None:
    """Maps a platform, locale or typed language ("zh-hans", "zh-TW", "zh_HK.UTF-8", "en-US", "中文") to one of LANGS.

    Traditional characters go to people in Taiwan, Hong Kong and Macau (Telegram's "zh-hant", "zh-tw",
    "zh-hk"; Discord's "zh-TW"; a terminal's zh_TW.UTF-8) unless the code says Simplified ("zh-Hans-HK").
    """
    if not code:
        return None
    c = re.split(r"[.@]", code.strip().lower(), maxsplit=1)[0].replace("_", "-")
    if c in _HANT_WORDS:
        return "zh-Hant"
    if c in _ZH_WORDS:
        return "zh"
    parts = c.split("-")
    if parts[0] == "zh":
        return "zh-Hant" if "hans" not in parts and _HANT_REGIONS & set(parts[1:]) else "zh"
    if parts[0] == "en" or c in {"english", "英文", "英语", "英語"}:
        return "en"
    return None


def locale_lang(environ: Mapping[str, str]) -> str | None:
    """The language of a terminal's POSIX locale (LC_ALL, then LC_MESSAGES, then LANG), or None."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            return normalize_lang(value)
    return None


_PLAIN_WORD = re.compile(r"^[a-z0-9_]{1,20}$")


def unknown_command_text(lang: str | None, name: str) -> str:
    """"Unknown command" naming it only when it is a plain word: arbitrary input is never echoed back."""
    if _PLAIN_WORD.match(name):
        return tr(lang, "err.unknown_command", name=name)
    return tr(lang, "err.unknown_command_plain")
