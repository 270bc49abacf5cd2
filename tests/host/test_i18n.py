"""The gettext catalogs: plural forms, 繁體中文, every key the code asks for present, .po read when .mo is stale."""

from __future__ import annotations

import io
import os
from dataclasses import replace
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir

from app.console import play_console
from bot import i18n
from bot.i18n import LANGS, PLURALS, forms, locale_lang, normalize_lang, placeholders, tr
from persistence.memory import MemoryStore
from tests.host.conftest import Rig
from tests.host.helpers import send

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"tr": (2,), "N_": None, "P_": (1, 2)}


def _code_keys() -> dict[str, bool]:
    """What `make messages` extracts from the code: key -> whether it is a plural message."""
    out: dict[str, bool] = {}
    for top in ("bot", "adapters"):
        for _, _, msg, _, _ in extract_from_dir(ROOT / top, keywords=KEYWORDS, comment_tags=()):
            key = msg[0] if isinstance(msg, tuple) else msg
            out[key] = out.get(key, False) or isinstance(msg, tuple)
    return out


def test_every_key_the_code_asks_for_is_in_every_catalog_with_its_plurality() -> None:
    keys = _code_keys()
    assert "announce.trick" in keys and "phase.dealing" in keys and "league.help" in keys
    for lang in LANGS:
        texts = forms(lang)
        missing = sorted(k for k in keys if k not in texts)
        assert not missing, (lang, missing)
    for key, plural in keys.items():
        assert (key in PLURALS) == plural, key


def test_every_catalog_key_is_found_in_the_code_so_make_messages_keeps_it() -> None:
    """A key only built at run time (f"refuse.{code}") needs an N_ mark, or `pybabel update` drops it."""
    keys = _code_keys()
    for lang in LANGS:
        unmarked = sorted(k for k in forms(lang) if k not in keys)
        assert not unmarked, (lang, unmarked)


def test_plural_forms_follow_the_count() -> None:
    assert tr("en", "table.cards_left", n=1) == "· 1 card"
    assert tr("en", "table.cards_left", n=0) == "· 0 cards"
    assert tr("en", "table.cards_left", n=25) == "· 25 cards"
    assert tr("en", "result.declarers_win", team="Team A", n=1) == "Team A keeps the deal and goes up 1 level."
    assert tr("en", "result.declarers_win", team="Team A", n=3) == "Team A keeps the deal and goes up 3 levels."
    assert tr("zh", "table.cards_left", n=1) == "· 剩1张"
    assert tr("zh-Hant", "table.cards_left", n=2) == "· 剩2張"
    # a count that is not a number still gets the general form
    assert tr("en", "table.cards_left", n="?") == "· ? cards"


def test_plural_forms_keep_their_placeholders() -> None:
    en = forms("en")
    for key, counter in PLURALS.items():
        assert len(en[key]) == 2, key
        for lang in LANGS:
            for text in forms(lang)[key]:
                assert counter in placeholders(text), (lang, key)
                assert placeholders(text) == placeholders(en[key][-1]), (lang, key)


def test_traditional_chinese_is_chosen_from_the_platform_language() -> None:
    for code in ["zh-hant", "zh-TW", "zh-tw", "zh-hk", "zh-mo", "zh_TW.UTF-8", "zh_HK", "zh-Hant-TW", "zht", "繁體中文"]:
        assert normalize_lang(code) == "zh-Hant", code
    for code in ["zh", "zh-hans", "zh-CN", "zh_CN.UTF-8", "zh-SG", "zh-Hans-HK", "中文"]:
        assert normalize_lang(code) == "zh", code
    assert normalize_lang("en-GB") == "en" and normalize_lang("C.UTF-8") is None and normalize_lang("") is None
    assert locale_lang({"LANG": "zh_TW.UTF-8"}) == "zh-Hant"
    assert locale_lang({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert locale_lang({}) is None


def test_traditional_chinese_texts_use_traditional_characters() -> None:
    hant = forms("zh-Hant")
    assert tr("zh-Hant", "btn.play") == "出牌"
    assert tr("zh-Hant", "hand.trumps") == "主牌"
    assert "拖拉機" in tr("zh-Hant", "refuse.must_follow_tractor")
    assert "對子" in tr("zh-Hant", "refuse.must_follow_pairs")
    assert "底牌" in tr("zh-Hant", "result.kitty", cards="")
    assert tr("zh-Hant", "lang.set") == "語言：繁體中文。"
    simplified_only = set("张级庄闲对机脑选择开战赛场们这来没过让")
    for key, texts in hant.items():
        for text in texts:
            assert not simplified_only & set(text), (key, text)


def test_unknown_key_and_language_fall_back() -> None:
    assert tr("en", "no.such.key") == "no.such.key"
    assert tr(None, "btn.play") == tr("zh", "btn.play")
    assert tr("en", "phase.") == "" and tr("zh-Hant", "reason.played") == ""


def test_a_stale_mo_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .po edited after the last `make` is what the bot reads (compiled in memory)."""
    locale_dir = tmp_path / "en" / "LC_MESSAGES"
    locale_dir.mkdir(parents=True)
    po = i18n.po_path("en").read_text(encoding="utf-8")
    (locale_dir / "tractor.mo").write_bytes(b"not a catalog")
    (locale_dir / "tractor.po").write_text(po.replace('"Play"', '"Play now"'), encoding="utf-8")
    old = os.stat(locale_dir / "tractor.po").st_mtime - 60
    os.utime(locale_dir / "tractor.mo", (old, old))
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    i18n._translations.cache_clear()
    try:
        assert tr("en", "btn.play") == "Play now"
    finally:
        monkeypatch.undo()
        i18n._translations.cache_clear()
    assert tr("en", "btn.play") == "Play"


async def test_lang_zht_and_a_hong_kong_platform_language_read_traditional(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "lang", "zht"))
    assert rig.platform.group_texts()[-1] == tr("zh-Hant", "lang.set") == "語言：繁體中文。"
    await send(rig, rig.d.command("u1", "help"))
    help_zht = rig.host.registry.help("zh-Hant", True, after=tr("zh-Hant", "help.play"))
    assert rig.platform.group_texts()[-1] == help_zht and help_zht.startswith("命令：")
    await send(rig, rig.d.command("u1", "lang", "zh-Hant"))
    assert rig.platform.group_texts()[-1] == tr("zh-Hant", "lang.set")
    # nobody chose a language in private: the platform's zh-HK picks Traditional
    ev = rig.d.command("u5", "help", private=True)
    ev = type(ev)(**{**ev.__dict__, "user": replace(ev.user, language="zh-HK")})
    await send(rig, ev)
    private = [s.view.text for s in rig.platform.log if s.where.chat_id == "u5"]
    assert private and private[-1] == rig.host.registry.help("zh-Hant", False, after=tr("zh-Hant", "help.play"))


async def test_the_terminal_table_reads_its_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_TW.UTF-8")
    out = io.StringIO()
    await play_console(MemoryStore(), resume=False, inp=io.StringIO("table\nquit\n"), out=out, seed=3)
    text = out.getvalue()
    assert tr("zh-Hant", "console.prompt") in text
    assert tr("zh-Hant", "team.0") in text and tr("zh", "team.0") not in text  # 甲隊, not 甲队
