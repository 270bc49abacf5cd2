"""10,000 hostile interactions through the real discord.py client against the strict fake.

Forged and truncated custom_ids, other people's components, replayed and expired interactions,
over-long options and select values, commands in DMs and in guilds the bot is not in. Afterwards:
nothing crashed, the match is exactly as it was, nobody saw a card they could not know, and every
interaction that could be answered was answered within Discord's 3 seconds.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from fakes.discord_api import FakeInteraction, FakeMessage, FakeUser
from tests.discord.rig import PEOPLE, Rig, leaks, open_table, play_until

EVE = FakeUser(299, "eve")
MALLORY = FakeUser(298, "mallory", locale="zh-TW")
N = 10_000
BATCH = 40
COMMANDS = ("start", "abandon", "pause", "leave", "join", "hand", "table", "back", "help")


def _garble(rng: random.Random, real: str) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return real[: rng.randrange(1, max(2, len(real)))]  # truncated
    if kind == 1:
        i = rng.randrange(len(real))
        return real[:i] + rng.choice("0123456789abcdefxyz.:") + real[i + 1:]  # tampered
    if kind == 2:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789.:_-") for _ in range(rng.randrange(1, 100)))
    if kind == 3:
        return "b:1." + ".".join(str(rng.randrange(10**6)) for _ in range(4)) + ".zz"
    if kind == 4:
        return real + "x" * rng.randrange(1, 40)
    return "s:0:" + real[2:]  # a button's token dressed as a select


@pytest.mark.slow(50)
async def test_ten_thousand_hostile_interactions_change_nothing(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    table = rig.table()
    m = table.match
    assert m is not None
    before = (m.version, [a.to_json() for a in m.actions], list(table.seats), table.status)
    rng = random.Random(18)
    hands: list[tuple[FakeUser, FakeMessage]] = []
    for person in PEOPLE:
        hand = rig.hand_message(person)
        if hand is None:
            await fake.click(person, rig.table_message(), "My hand")
            await rig.idle()
            hand = rig.hand_message(person)
        assert hand is not None
        hands.append((person, hand))
    board = rig.table_message()
    real_ids = [str(c["custom_id"]) for _, h in hands for c in h.buttons() + h.selects()]
    real_ids += [str(b["custom_id"]) for b in board.buttons()]
    dm_channel = 424242
    fake.dm_channels[dm_channel] = EVE.id
    sent: list[FakeInteraction] = []
    expired: set[int] = set()

    async def one(n: int) -> None:
        kind = n % 8
        age = 10.0 if rng.random() < 0.03 else 0.0  # arrives too late to be answered
        who = rng.choice((EVE, MALLORY, *PEOPLE))
        if kind == 0:  # a forged or truncated custom_id on the table message
            i = await fake.interact(who, 3, {"custom_id": _garble(rng, rng.choice(real_ids)), "component_type": 2},
                                    message=board, wait=False, age=age)
        elif kind == 1:  # someone else's hand: a button on it, pressed by another
            owner, hand = rng.choice(hands)
            other = rng.choice([p for p in (EVE, MALLORY, *PEOPLE) if p is not owner])
            buttons = hand.buttons() or board.buttons()
            i = await fake.interact(other, 3, {"custom_id": rng.choice(buttons)["custom_id"], "component_type": 2},
                                    message=hand, wait=False, age=age, forged=True)
        elif kind == 2:  # someone else's select, with values never offered, too many, too long
            owner, hand = rng.choice(hands)
            selects = hand.selects()
            if not selects:
                return
            values = [_garble(rng, "b:1.1.1.t.0.zz") * rng.randrange(1, 4) for _ in range(rng.randrange(0, 60))]
            other = rng.choice([p for p in (EVE, MALLORY, *PEOPLE) if p is not owner])
            i = await fake.interact(other, 3, {"custom_id": rng.choice(selects)["custom_id"], "component_type": 3,
                                               "values": values}, message=hand, wait=False, age=age, forged=True)
        elif kind == 3 and sent:  # a replay of an earlier one
            await fake.replay(rng.choice(sent))
            return
        elif kind == 4:  # a command from a DM
            data = fake.raw_command(rng.choice(COMMANDS))
            i = await fake.interact(rng.choice((EVE, *PEOPLE)), 2, data, channel_id=dm_channel, guild_id=0,
                                    wait=False, age=age, forged=True)
        elif kind == 5:  # a command in a guild the bot is not in
            data = fake.raw_command(rng.choice(COMMANDS))
            i = await fake.interact(rng.choice((EVE, *PEOPLE)), 2, data, channel_id=555000 + rng.randrange(3),
                                    guild_id=777, wait=False, age=age, forged=True)
        elif kind == 6:  # over-long options
            options = {"preset": "x" * rng.randrange(100, 7000), "options": "target=" + "A" * rng.randrange(5000)}
            i = await fake.interact(rng.choice((EVE, MALLORY)), 2, fake.raw_command("new", options),
                                    channel_id=fake.channel_id + 7, wait=False, age=age)
        else:  # a stranger's commands at the table: votes and kicks that must not count
            sub = rng.choice(("start", "abandon", "pause", "kick", "back", "leave"))
            data = fake.raw_command(sub, {"seat": rng.randrange(1, 5)} if sub == "kick" else None)
            i = await fake.interact(rng.choice((EVE, MALLORY)), 2, data, wait=False, age=age)
        sent.append(i)
        if age:
            expired.add(i.id)

    loop = asyncio.get_running_loop()
    started = loop.time()
    for start in range(0, N, BATCH):
        for n in range(start, start + BATCH):
            await one(n)
        pending = [i for i in sent[-BATCH:] if i.id not in expired]
        await asyncio.wait_for(asyncio.gather(*(i.answered.wait() for i in pending)), 30)
    await rig.settled()
    elapsed = loop.time() - started

    m = table.match
    assert list(rig.host.tables.values()) == [table], [(t.chat_id, t.status, t.meta.preset) for t in rig.host.tables.values()]
    assert (m.version, [a.to_json() for a in m.actions], list(table.seats), table.status) == before
    assert len(sent) >= N * 7 // 8
    late = [i for i in sent if i.id not in expired and (i.callback_type is None or i.late)]
    assert late == [], [(i.type, i.data.get("options"), i.channel_id, i.callback_type, i.late) for i in late]
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    for stranger in (EVE, MALLORY):  # they were told no, and shown no card
        for message in fake.private_messages(stranger):
            assert not message.selects()
    assert elapsed < 600  # a bound on the harness, not a speed check: figures are in docs/discord.md
