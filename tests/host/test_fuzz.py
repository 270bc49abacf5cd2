"""Hostile input through the host: hundreds of random events, nothing breaks, nothing leaks, the log stays true."""

from __future__ import annotations

import logging
import random

import pytest

import engine
from bot.intents import codec
from bot.intents.types import (
    BurySelection,
    ButtonAct,
    Chao,
    ClearSelection,
    Declare,
    Drawn,
    LobbyAddBot,
    LobbyJoin,
    LobbyLeave,
    LobbyStart,
    Page,
    Pass,
    PlayCards,
    PlaySelection,
    Revolt,
    ShowHand,
    TakeSeatBack,
    Toggle,
)
from tests.host.conftest import Rig
from tests.host.helpers import act_as_human, open_table
from tests.host.leaks import scan, snapshot

WORDS = ["play", "bury", "declare", "pass", "chao", "revolt", "auto", "hint", "back", "pause", "resume", "join",
         "leave", "start", "kick", "addbot", "new", "lang", "rules", "help", "abandon", "AS", "10h", "大王", "ZZ",
         "", "💥", "x" * 300, "/start", "join-1", "-1", "999999999999"]


CARDS = [r + u for r in "23456789TJQKA" for u in "SHDC"] + ["SJ", "BJ"]


def random_act(rng: random.Random) -> ButtonAct:
    """Any kind of button, with a random argument of its kind."""
    cards = tuple(rng.choice(CARDS) for _ in range(rng.randint(1, 6)))
    return rng.choice([
        LobbyJoin(), LobbyLeave(), LobbyStart(), LobbyAddBot(), Toggle(rng.randint(0, 40)), ClearSelection(),
        PlaySelection(), PlayCards(cards), Declare(cards[:2]), Chao(cards[:2]), Pass(), BurySelection(), Revolt(),
        ShowHand(), Page(rng.randint(0, 3)), TakeSeatBack()])


def random_token(rng: random.Random, match_id: int, version: int) -> str:
    kind = rng.random()
    mid = match_id if rng.random() < 0.8 else rng.randint(0, 10**6)
    if kind < 0.4:  # well-formed, maybe for this match, maybe not, random version and argument
        return codec.pack(Drawn(mid, max(0, version + rng.randint(-5, 2))), random_act(rng))
    if kind < 0.55:  # a good checksum over a random kind and argument
        arg = "".join(rng.choice("0123456789abcdefghijklmnopqrstuvwxyzASHDC") for _ in range(rng.randint(0, 12)))
        body = f"{rng.choice('12')}.{codec.to_b36(mid)}.{codec.to_b36(version)}.{rng.choice('jlsbtcpidxurhgkqz')}.{arg}"
        return f"{body}.{codec._check(body)}"
    if kind < 0.8:  # a real token, cut or altered
        good = codec.pack(Drawn(match_id, version), PlaySelection())
        i = rng.randrange(len(good))
        return good[:i] + rng.choice(["", "x", ".", "0"]) + good[i + 1:]
    return "".join(chr(rng.randint(32, 0x3000)) for _ in range(rng.randint(0, 80)))


async def test_random_hostile_events(rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
    rig.platform.observer = lambda: snapshot(table.match)
    rng = random.Random(99)
    users = ["u1", "u2", "u3", "u9"]
    steps = 0
    for step in range(600):
        if table.status in ("finished", "abandoned"):
            break
        steps += 1
        uid = rng.choice(users)
        roll = rng.random()
        if roll < 0.45:
            ev = rig.d.event("press", uid, token=random_token(rng, table.id, table.match.version),
                             private=rng.random() < 0.7)
        elif roll < 0.6:
            ev = rig.d.event("chosen", uid, token=random_token(rng, table.id, table.match.version))
        elif roll < 0.8:
            ev = rig.d.text(uid, " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6))),
                            private=rng.random() < 0.5)
        else:
            ev = rig.d.command(uid, rng.choice(WORDS).lstrip("/") or "x",
                               *[rng.choice(WORDS) for _ in range(rng.randint(0, 3))])
        await rig.host.handle(ev)
        await rig.host.settle()
        if ev.kind in ("press", "chosen"):
            assert len(ev.reply.texts) == 1, (ev.intent, ev.reply.texts)
        if step % 5 == 0:  # the seated people also play properly now and then, so the match moves on
            for u in ("u1", "u2"):
                if table.status == "paused":
                    await rig.host.handle(rig.d.command(u, "resume"))
                    await rig.host.settle()
                await act_as_human(rig, table, u, "text")
    assert steps > 100, steps
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], errors[0].getMessage()
    stored = await rig.store.get_match(table.id)
    if table.match is not None:  # what is stored replays to exactly what the table holds
        replayed = engine.Match.replay(engine.Rules.from_dict(table.rules), table.seed, stored.actions)
        assert replayed.public_view() == table.match.public_view()
    assert scan(rig.platform.log, {"u1": table.seat_of("u1") or 0, "u2": table.seat_of("u2") or 0}) == []
