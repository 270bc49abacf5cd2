"""A play is bound to the turn it was drawn for, through the real discord.py client and the strict fake:
a play offered on a hand message drawn for an earlier turn is refused as out of date, in that message,
and is never played at the later turn."""

from __future__ import annotations

from collections import Counter

from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import PlayCards
from fakes.discord_api import FakeMessage
from tests.discord.rig import PEOPLE, Rig, play_until
from tests.discord.test_refusals import fresh_hand, playing, version


def offered_plays(message: FakeMessage) -> list[tuple[str, str | None, PlayCards]]:
    """The whole plays a hand message offers: (its custom id, the option's value for a menu, the play)."""
    out: list[tuple[str, str | None, PlayCards]] = []
    for b in message.buttons():
        custom_id = str(b.get("custom_id", ""))
        if custom_id.startswith("b:"):
            act = codec.parse(custom_id[2:])[1]
            if isinstance(act, PlayCards):
                out.append((custom_id, None, act))
    for select in message.selects():
        for option in select["options"]:
            try:
                act = codec.parse(option["value"])[1]
            except codec.BadToken:
                continue
            if isinstance(act, PlayCards):
                out.append((str(select["custom_id"]), str(option["value"]), act))
    return out


async def test_a_play_offered_for_an_earlier_turn_is_refused_at_the_next(rig: Rig) -> None:
    fake = rig.fake
    await playing(rig)
    await play_until(rig, lambda: any(rig.table().seat_of(str(p.id)) in rig.table().match.to_act()
                                      for p in PEOPLE) and not rig.table().match.public_view().get("trick"))
    table = rig.table()
    m = table.match
    assert m is not None
    mover = next(p for p in PEOPLE if table.seat_of(str(p.id)) in m.to_act())
    seat = table.seat_of(str(mover.id))
    assert seat is not None
    older = await fresh_hand(rig, mover)  # drawn for this lead, with its plays
    fake.advance(15 * 60 + 1)  # older's token dies: it cannot be removed, and stays as it is
    await fresh_hand(rig, mover)
    auto = m.auto_action(seat, rng_seed=m.version)
    assert auto is not None
    played = Counter(auto.to_json()["cards"])
    stale = next(p for p in offered_plays(older) if not Counter(p[2].cards) & played)
    first = m.version
    assert await rig.act(mover)  # they play something else, on the newer message
    assert m.version > first
    await play_until(rig, lambda: seat in m.to_act() and m.phase == "playing")
    assert not Counter(stale[2].cards) - Counter(m.view(seat)["hand"])  # still held: it could be played
    v = version(rig)
    custom_id, value, _ = stale
    if value is None:
        await fake.press(mover, older, custom_id)
    else:
        await fake.choose(mover, older, custom_id, [value])
    await rig.idle()
    assert version(rig) == v  # nothing played: the choice was made for an earlier turn
    assert any(tr(lang, "err.old_turn") in older.content for lang in ("en", "zh"))
    assert fake.unanswered() == [] and fake.protocol_errors == []
