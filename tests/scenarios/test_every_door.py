"""The same situations at every door (issue 28, item 6): the terminal, Telegram, Discord and the web page.

Each scenario acts as the people at the table the way a person does at that door: Ann (seat 0) and,
where a door seats more than one person, her partner Bob (seat 2); AIs in the other seats. It reads
what every one of them is shown there (whose turn it is, the trick, their own hand, what they alone
are told, the end of the hand) and what the group (the onlookers) sees. What each should see comes
from the engine alone (`Shadow`), so a door that drifts from the others fails here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.cardtext import cards_text
from bot.i18n import tr
from engine import Match, Phase
from tests.scenarios.doors import Deal, Door, deal_until
from tests.scenarios.seen import Play, Seen
from tests.scenarios.shadow import Shadow, plays_at_both, refusal

# A deal where Ann (seat 0) is to play second to a trick of trump pairs and holds cards of other suits.
SEED = 2
# A deal where Ann plays last to a trick led by a pair of clubs and plays two clubs, then plays again
# in the next trick, where two other clubs she could have played to the first are still legal.
EARLIER_SEED = 5


def mid_trick(m: Match) -> bool:
    return m.phase == Phase.PLAYING and m.to_act() == [0] and bool(m.public_view().get("trick"))


def laid(trick: Sequence[Play]) -> tuple[Play, ...]:
    """The trick by seat, each play's cards in one order (a person's cards go down in the order the
    door picked them, which differs from door to door; which cards they are may not)."""
    return tuple((seat, tuple(sorted(cards))) for seat, cards in trick)


def sees_table(door: Door, seen: Seen, want: Seen, seat: int | None) -> None:
    """`seen` (the person in `seat`, None: the group) shows whose turn it is and the trick as `want`
    has them. At a door whose group's table is drawn once a trick (Telegram: 20 messages a minute a
    group), someone not waited for may see this trick as it was last drawn, never an older trick; the
    person waited for is told exactly (their turn notice)."""
    told = seat is not None and seat in want.turn
    if door.group_lags and not told and len(seen.trick) < len(want.trick):
        assert laid(seen.trick) == laid(want.trick)[:len(seen.trick)], (door.name, seat)
        return
    assert (seen.turn, laid(seen.trick)) == (want.turn, laid(want.trick)), (door.name, seat)


async def same_table(door: Door, shadow: Shadow) -> None:
    """Every person sees the turn, the trick and their own hand as the engine has them; the group the
    turn and the trick."""
    for seat in door.people:
        seen, want = await door.look(seat), shadow.seen(seat)
        assert seen.hand == want.hand, (door.name, seat)
        sees_table(door, seen, want, seat)
    sees_table(door, await door.group(), shadow.seen(), None)


async def others_play(door: Door, shadow: Shadow) -> None:
    """The people other than Ann play (through the door) until the table waits for Ann again or the
    hand is over; the AIs play on their own."""
    while (seat := shadow.next_person()) not in (None, 0):
        cards = shadow.move_of(seat)
        await door.play(cards, seat)
        shadow.play(seat, cards)


async def ann_plays(door: Door, shadow: Shadow, cards: Sequence[str]) -> None:
    await door.play(cards)
    shadow.play(0, cards)
    await others_play(door, shadow)


async def told_nothing(door: Door) -> None:
    """Nobody was told anything of their own (no refusal, no out-of-date)."""
    for seat in door.people:
        assert (await door.look(seat)).said == (), (door.name, seat)


def opened(deal: Deal, door: Door) -> Shadow:
    return Shadow(deal, door.people)


async def test_a_restart_mid_trick_shows_the_same_turn_trick_and_hand(door: Door) -> None:
    """The bot restarts while Ann, to play in the middle of a trick, has picked her cards: she sees
    the same turn, trick and hand after it, and Play plays what she picked."""
    deal = deal_until(SEED, mid_trick)
    await door.open(deal)
    shadow = opened(deal, door)
    await same_table(door, shadow)
    cards = shadow.legal()
    await door.pick(cards)
    await door.restart()
    await same_table(door, shadow)
    await door.confirm()
    shadow.play(0, cards)
    await others_play(door, shadow)
    await same_table(door, shadow)
    await told_nothing(door)


def last_trick(m: Match) -> bool:
    return m.phase == Phase.PLAYING and m.to_act() == [0] and len(m.view(0)["hand"]) <= 2


async def refused(door: Door, lang: str) -> Shadow:
    deal = deal_until(SEED, mid_trick, lang)
    await door.open(deal)
    shadow = opened(deal, door)
    cards, text = refusal(shadow, lang)
    version = door.match().version
    await door.play(cards)
    assert (await door.look()).said[-1:] == (text,), door.name
    assert not [line for line in (await door.group()).said if text in line], door.name  # told to her alone
    for seat in door.people[1:]:
        assert (await door.look(seat)).said == (), (door.name, seat)
    assert door.match().version == version
    await same_table(door, shadow)  # nothing moved: still her turn, the same trick, her cards all there
    return shadow


async def hand_ends(door: Door, lang: str) -> None:
    deal = deal_until(SEED, last_trick, lang)
    await door.open(deal)
    shadow = opened(deal, door)
    while shadow.m.phase == Phase.PLAYING:
        await ann_plays(door, shadow, shadow.legal())
    for seat in door.people:
        assert (await door.look(seat)).summary == shadow.summary(), (door.name, seat)
    assert (await door.group()).summary == shadow.summary(), door.name
    await told_nothing(door)
    # the next hand, dealt at once, as the bot moved it on (the kitty to bury, the AIs' declarations)
    await same_table(door, Shadow.of(door.match(), door.people))


def out_of_date(door: Door, lang: str, cards: Sequence[str]) -> str:
    """What a door says to a choice made for an earlier turn. The terminal has no choices drawn for a
    turn: what it refuses is a line typed while the others played, which it names."""
    if door.name == "terminal":
        return tr(lang, "console.typed_ahead", line=f"play {cards_text(list(cards))}")
    return tr(lang, "err.old_turn")


async def test_a_choice_made_for_an_earlier_turn_is_refused_and_never_played_later(door: Door) -> None:
    """Ann picks a play for this turn that reaches the bot only after her next turn came (a second
    inline result of one answer, an option of an older hand's menu, an older page's act, a line typed
    ahead): it is refused as out of date, nothing moves, and her next play is the one she makes then."""
    deal = deal_until(EARLIER_SEED, mid_trick)
    await door.open(deal)
    shadow = opened(deal, door)
    first = shadow.legal()
    later = plays_at_both(shadow, first)
    kept = await door.draw_choice(later)
    await ann_plays(door, shadow, first)
    version = door.match().version
    await door.send_later(kept)
    assert (await door.look()).said[-1:] == (out_of_date(door, "en", later),), door.name
    for seat in door.people[1:]:
        assert (await door.look(seat)).said == (), (door.name, seat)
    assert door.match().version == version
    await same_table(door, shadow)
    await ann_plays(door, shadow, shadow.legal())
    await same_table(door, shadow)


async def test_a_press_on_an_older_view_moves_nothing_and_shows_the_current_one(door: Door) -> None:
    """Ann presses a button of her hand as it was before her last play: nothing moves, she is told
    the view was old, and she sees the table and her hand as they are now. (The web page draws no
    button of its own state: its press is a play from an older page, refused as for an earlier turn.
    The terminal draws anew at every prompt: it has no older view to press.)"""
    deal = deal_until(SEED, mid_trick)
    await door.open(deal)
    shadow = opened(deal, door)
    kept = await door.keep_view()
    await ann_plays(door, shadow, shadow.legal())
    version = door.match().version
    if kept is None:
        assert door.name == "terminal"
        return
    await door.press_on(kept)
    key = "err.old_turn" if door.name == "web" else "err.stale"
    assert (await door.look()).said[-1:] == (tr("en", key),), door.name
    for seat in door.people[1:]:
        assert (await door.look(seat)).said == (), (door.name, seat)
    assert door.match().version == version
    await same_table(door, shadow)


async def test_a_refusal_says_why_and_moves_nothing(door: Door) -> None:
    await refused(door, "en")


async def test_the_end_of_a_hand_shows_points_kitty_levels_and_the_next_dealer(door: Door) -> None:
    await hand_ends(door, "en")


async def test_a_person_in_traditional_chinese(door: Door, another: Callable[[], Door]) -> None:
    """Ann reads zh-Hant (繁體中文): the refusal, the table (after a restart too) and the end of the
    hand in her language."""
    shadow = await refused(door, "zh-Hant")
    await door.restart()
    await same_table(door, shadow)
    await hand_ends(another(), "zh-Hant")
