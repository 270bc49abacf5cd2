"""Issue 17's findings, each through the real client against the strict fake (limits on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import tokens
from bot.cardtext import card_text
from bot.i18n import tr
from fakes.telegram_api import BOT_USERNAME, Limits
from fakes.telegram_rig import boot, start_fake, stop_fake
from tests.telegram.test_capacity import GROUP, PEOPLE, SETTINGS, seated, to_play, typed

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def _code(data: str) -> str:
    try:
        return tokens.parse(data).code
    except tokens.BadToken:
        return ""


async def test_a_press_made_before_a_restart_is_taken_after_it(tmp_path: Path) -> None:
    """Finding 5: the press reaches Telegram while the bot is down (or before it was handled);
    Telegram delivers it to the restarted bot, which takes it instead of calling it out of date."""
    fake = await start_fake()
    db = str(tmp_path / "t.sqlite3")
    rig = await boot(fake, db, settings=SETTINGS)
    try:
        table = await seated(rig)
        seat = await to_play(rig, table)
        uid = PEOPLE[seat]
        hand_mid = int(table.messages[f"hand{seat}"])
        hand = list(table.match.view(seat)["hand"])
        toggles = [d for d in fake.callback_data_on(uid, hand_mid) if _code(d) == tokens.TOGGLE]
        await rig.stop()
        update, query = fake.press(uid, uid, hand_mid, toggles[0])
        rig = await boot(fake, db, settings=SETTINGS)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == card_text(hand[0])
        table = rig.host.by_chat[("telegram", str(GROUP))]
        assert table.screen.selection[seat] == {0}
        # a button from before the cards changed is still refused, after a restart too
        old = next(d for d in fake.callback_data_on(uid, hand_mid) if _code(d) == tokens.TOGGLE)
        await rig.handled(fake.send_text(uid, uid, typed(table.match.auto_action(seat))))
        await rig.stop()
        update, query = fake.press(uid, uid, hand_mid, old, check=False)
        rig = await boot(fake, db, settings=SETTINGS)
        await rig.handled(update)
        assert "older view" in fake.callback_answers[query]["text"]
        assert rig.errors == [] and fake.rejected_429 == 0
    finally:
        await rig.stop()
        await stop_fake(fake)


async def test_a_player_who_blocked_the_bot_is_named_once_and_gets_a_fresh_hand_on_start(tmp_path: Path) -> None:
    """Finding 4: the group is told (once) that a player cannot be reached; after Restart the
    player gets the current hand as a new message, whose first press is taken."""
    fake = await start_fake()
    rig = await boot(fake, str(tmp_path / "t.sqlite3"), settings=SETTINGS)
    try:
        table = await seated(rig)
        seat = await to_play(rig, table)
        blocked = PEOPLE[(seat + 1) % 4]
        await rig.handled(fake.block(blocked))
        old_hand = int(table.messages[f"hand{(seat + 1) % 4}"])
        # two plays: the blocked player's turn comes, the turn notice cannot go out
        await rig.handled(fake.send_text(PEOPLE[seat], PEOPLE[seat], typed(table.match.auto_action(seat))))
        s = (seat + 1) % 4
        cut_off = tr(table.lang, "err.unreachable", name=f"P{s}", how=f"https://t.me/{BOT_USERNAME}")
        told = [m.text for m in fake.chat_messages(GROUP) if m.text == cut_off]
        assert len(told) == 1, [m.text for m in fake.chat_messages(GROUP)]
        # "Restart" in the private chat: the current hand comes as a new message, the old one is gone
        await rig.handled(fake.start_private(blocked))
        new_hand = int(table.messages[f"hand{s}"])
        assert new_hand != old_hand and fake.messages[(blocked, old_hand)].deleted
        assert f"turn{s}" in table.messages  # and it is told that it is its turn
        toggle = next(d for d in fake.callback_data_on(blocked, new_hand) if _code(d) == tokens.TOGGLE)
        update, query = fake.press(blocked, blocked, new_hand, toggle)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == card_text(table.match.view(s)["hand"][0])
        assert [m.text for m in fake.chat_messages(GROUP) if m.text == cut_off] == told
        assert rig.errors == [] and fake.rejected_429 == 0
    finally:
        await rig.stop()
        await stop_fake(fake)


async def test_a_restart_goes_on_from_the_flood_journal_without_a_429(tmp_path: Path) -> None:
    """Item 2: Telegram keeps counting a group's minute across the bot's restart; so does the bot,
    from the journal it keeps in the store, and the fake (strict) never answers 429."""
    fake = await start_fake(Limits(scale=0.05))  # a Telegram minute is 3 s here
    fake.add_group(GROUP)
    fake.add_user(PEOPLE[0], "P0", opened=True)
    db = str(tmp_path / "t.sqlite3")
    rig = await boot(fake, db)
    try:
        await rig.handled(*[fake.command(PEOPLE[0], GROUP, "/help") for _ in range(19)])
        assert len([c for c in fake.calls_of("sendMessage") if c.ok]) == 19
        await rig.stop()
        rig = await boot(fake, db)
        journal = await rig.host.load_journal("telegram", "flood")
        assert len(journal["groups"][str(GROUP)]) == 19
        await rig.handled(*[fake.command(PEOPLE[0], GROUP, "/help") for _ in range(3)])
        assert len([c for c in fake.calls_of("sendMessage") if c.ok]) == 22
        assert fake.rejected_429 == 0 and rig.errors == []
    finally:
        await rig.stop()
        await stop_fake(fake)
