"""The same situations at every door (issue 28, item 6): the terminal, Telegram, Discord and the web page.

Each scenario acts as Ann (seat 0, with three AIs) the way a person does at that door and reads what
she is shown there: whose turn it is, the trick, her hand, what she is told, the end of the hand.
What she should see comes from the engine alone (`Shadow`), so a door that drifts from the others
fails here.
"""

from __future__ import annotations

from collections.abc import Callable

from engine import Match, Phase
from tests.scenarios.doors import Door, deal_until
from tests.scenarios.shadow import Shadow, refusal

# A deal where Ann (seat 0) is to play second to a trick of pairs and holds cards of another suit.
SEED = 2


def mid_trick(m: Match) -> bool:
    return m.phase == Phase.PLAYING and m.to_act() == [0] and bool(m.public_view().get("trick"))


async def same_table(door: Door, shadow: Shadow) -> None:
    seen, want = await door.look(), shadow.seen()
    assert (seen.turn, seen.trick, seen.hand) == (want.turn, want.trick, want.hand), door.name


async def test_a_restart_mid_trick_shows_the_same_turn_trick_and_hand(door: Door) -> None:
    deal = deal_until(SEED, mid_trick)
    shadow = Shadow(deal)
    await door.open(deal)
    await same_table(door, shadow)
    await door.restart()
    await same_table(door, shadow)
    cards = shadow.legal()
    await door.play(cards)
    shadow.ann_plays(cards)
    await same_table(door, shadow)
    assert (await door.look()).said == ()


def last_trick(m: Match) -> bool:
    return m.phase == Phase.PLAYING and m.to_act() == [0] and len(m.view(0)["hand"]) <= 2


async def refused(door: Door, lang: str) -> None:
    deal = deal_until(SEED, mid_trick, lang)
    shadow = Shadow(deal)
    await door.open(deal)
    cards, text = refusal(shadow, lang)
    version = door.version()
    await door.play(cards)
    assert (await door.look()).said[-1:] == (text,), door.name
    assert door.version() == version
    await same_table(door, shadow)  # nothing moved: still her turn, the same trick, her cards all there


async def hand_ends(door: Door, lang: str) -> None:
    deal = deal_until(SEED, last_trick, lang)
    shadow = Shadow(deal)
    await door.open(deal)
    while shadow.m.phase == Phase.PLAYING:
        cards = shadow.legal()
        await door.play(cards)
        shadow.ann_plays(cards)
    assert (await door.look()).summary == shadow.summary(), door.name
    assert (await door.look()).said == ()


async def test_a_refusal_says_why_and_moves_nothing(door: Door) -> None:
    await refused(door, "en")


async def test_the_end_of_a_hand_shows_points_kitty_levels_and_the_next_dealer(door: Door) -> None:
    await hand_ends(door, "en")


async def test_a_person_in_traditional_chinese(door: Door, another: Callable[[], Door]) -> None:
    """Ann reads zh-Hant (繁體中文): the refusal, the table and the end of the hand in her language."""
    await refused(door, "zh-Hant")
    await hand_ends(another(), "zh-Hant")
