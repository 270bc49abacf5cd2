"""Resume is the default, and a resumed table draws correctly hand after hand."""

from __future__ import annotations

import io
import itertools
import re

from adapters.console.app import locale_lang
from app.console import play_console
from persistence.memory import MemoryStore


def _blocks(text: str, rule: str) -> list[str]:
    """The panels printed under a rule line ("=" * 40 for the table, "-" * 40 for the hand)."""
    return text.split(rule + "\n")[1:]


async def test_a_resumed_table_and_hand_are_drawn_in_the_next_hand_too() -> None:
    store = MemoryStore()
    await play_console(store, inp=io.StringIO("auto\n" * 8), out=io.StringIO(), lang="en",
                      options=["target=5"], seed=3)
    out = io.StringIO()
    await play_console(store, inp=io.StringIO("auto\n" * 120), out=out, lang="en")
    text = out.getvalue()
    assert "Hand 1 is over" in text
    later = text[text.index("Hand 1 is over"):]
    tables = _blocks(later, "=" * 40)
    hands = _blocks(later, "-" * 40)
    assert any(t.startswith("80 Points · classic · hand 2") for t in tables)
    assert any(h.startswith("Your hand") and "hand 2" in h.splitlines()[0] for h in hands)
    assert not any(t.startswith("Your hand") for t in tables) and not any(h.startswith("80 Points") for h in hands)


async def test_resume_is_the_default_and_says_how_to_start_anew() -> None:
    store = MemoryStore()
    await play_console(store, inp=io.StringIO("auto\n" * 10), out=io.StringIO(), lang="en",
                      options=["target=5"], seed=3)
    out = io.StringIO()
    await play_console(store, inp=io.StringIO("quit\n"), out=out, lang="en")
    assert len(store.matches) == 1
    assert re.search(r"Going on with your unfinished match #\d+ \(hand 1\)\.\nTo drop it and start anew, type abandon\.",
                     out.getvalue())


async def test_abandon_starts_a_new_match_and_fresh_does_so_from_the_start() -> None:
    store = MemoryStore()
    await play_console(store, inp=io.StringIO("auto\n" * 10), out=io.StringIO(), lang="en", seed=3)
    out = io.StringIO()
    await play_console(store, inp=io.StringIO("abandon\nquit\n"), out=out, lang="en")
    assert "A new match begins." in out.getvalue()
    statuses = sorted(m.status for m in store.matches.values())
    assert statuses == ["abandoned", "active"]
    await play_console(store, inp=io.StringIO("quit\n"), out=io.StringIO(), lang="en", fresh=True)
    assert sorted(m.status for m in store.matches.values()) == ["abandoned", "abandoned", "active"]


def test_the_language_follows_the_locale() -> None:
    assert locale_lang({"LANG": "C.UTF-8"}) == "en"
    assert locale_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_TW.UTF-8"}) == "en"
    assert locale_lang({}) == "en"


async def test_under_an_english_locale_every_line_is_english(monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    out = io.StringIO()
    await play_console(MemoryStore(), inp=io.StringIO("auto\n" * 5), out=out, seed=1)
    text = out.getvalue()
    assert "80 Points" in text and "Saved. To go on with this match" in text
    assert not re.search(r"[\u4e00-\u9fff]", text.replace("大王", "").replace("小王", "").replace("炒底", ""))


async def test_message_ids_never_repeat_those_an_earlier_process_stored() -> None:
    from adapters.console.platform import ConsolePlatform
    from adapters.console.screen import PlainScreen
    from bot.platform import View, Where

    first = ConsolePlatform(PlainScreen(io.StringIO()), "you")
    stored = [await first.send(Where("console", "t"), View(f"m{i}")) for i in range(50)]
    later = ConsolePlatform(PlainScreen(io.StringIO()), "you")
    later._ids = itertools.count(1)  # as if the clock had gone back
    later.skip_past(stored)
    fresh = [await later.send(Where("console", "t"), View(f"n{i}")) for i in range(50)]
    assert not set(fresh) & set(stored)
    assert min(map(int, fresh)) > max(map(int, stored))
