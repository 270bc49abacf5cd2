"""A typed play at the terminal goes through the one text parser the chats use, is bound to the turn
it was typed at, and gets a clear answer when it cannot be read."""

from __future__ import annotations

import io
import random

from adapters.console.app import CONSOLE_SETTINGS, YOU, ConsoleSession, console_screen
from adapters.console.platform import NAME, ConsolePlatform
from app.features import build_host
from bot.cardtext import card_text
from bot.i18n import tr
from bot.platform import User
from engine.actions import Play
from persistence.memory import MemoryStore


async def test_a_typed_play_at_the_terminal() -> None:
    out = io.StringIO()
    platform = ConsolePlatform(console_screen(io.StringIO(), out, False), YOU)
    host = build_host(MemoryStore(), defaults=CONSOLE_SETTINGS, rng=random.Random(5))
    host.register(platform)
    await host.start()
    try:
        session = ConsoleSession(host, platform, User(NAME, YOU, "You", "en"))
        assert await session.open_new("classic", ["target=3"])
        table = host.by_chat[(NAME, session.chat_id)]
        s = table.seat_of(YOU)
        assert s is not None
        for _ in range(200):  # to a trick the person leads
            m = table.match
            if m.phase == "playing" and m.to_act() == [s] and not m.public_view().get("trick"):
                break
            await session.say("pass" if m.phase in ("dealing", "declaring") else "auto")
        m = table.match
        card = list(m.view(s)["hand"])[-1]
        version = m.version
        await session.say(f"出 {card_text(card)}")  # as printed on the screen, with the Chinese word
        assert m.actions[version] == Play(s, (card,))
        said = len(out.getvalue())
        await session.say("play ZZ")
        assert tr("en", "err.bad_card", word="ZZ") in out.getvalue()[said:]
        said = len(out.getvalue())
        await session.say(f"play {card_text(card)}")  # no longer held: named, nothing played
        assert tr("en", "err.not_in_hand", cards=card_text(card)) in out.getvalue()[said:]
        await session.say("/table")  # a command, through the same parser
        assert table.match.actions[version] == Play(s, (card,))
    finally:
        await host.stop()
