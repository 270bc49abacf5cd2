"""Issue 29's Telegram findings (besides the choices bound to their turn, in test_intents.py), each
through the real client against the strict fake (limits on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import tr
from bot.settings import SETTING_RANGES
from bot.views import seat_label
from fakes.telegram_rig import booted
from tests.telegram.test_capacity import GROUP, PEOPLE, SETTINGS, seated, to_play, typed

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

OWN_GROUP = -4291
ANN, BO = 4291, 4292


async def test_new_with_an_option_out_of_range_is_answered_naming_the_range(tmp_path: Path) -> None:
    """Finding 4: `/new classic turn=nan` got no answer at all (a ValueError storing the meta);
    `next=1e308`, `lobby=99999999999` and `turn=0.0001` were taken. Each is refused in the group,
    naming the range, and no table is opened."""
    async with booted(str(tmp_path / "t.sqlite3")) as rig:
        fake = rig.fake
        fake.add_group(OWN_GROUP)
        fake.add_user(ANN, "Ann", opened=True, language="en")
        for option, says in (("turn=nan", "arg.not_number"), ("next=1e308", "arg.out_of_range"),
                             ("lobby=99999999999", "arg.out_of_range"), ("turn=0.0001", "arg.out_of_range")):
            before = len(fake.chat_messages(OWN_GROUP))
            await rig.command(ANN, OWN_GROUP, f"/new classic {option}")
            answers = [m.text for m in fake.chat_messages(OWN_GROUP)[before:]]
            name = option.partition("=")[0]
            assert answers == [tr("en", says, what=option, name=name,  # Ann's language
                                  range=SETTING_RANGES[name].range_text("en"))], answers
            assert ("telegram", str(OWN_GROUP)) not in rig.host.by_chat
        assert rig.errors == [] and fake.rejected_429 == 0


async def test_a_player_the_bot_cannot_reach_sees_their_turn_in_the_group_mid_trick(tmp_path: Path) -> None:
    """Finding 5: a player who blocked the bot got no turn notice (403) and the group's table was drawn
    only once a trick, so mid-trick they found their turn 3-9 s later, by opening inline mode. Now the
    table is drawn as their turn comes, while the play before it is handled (not timed here: at the
    rig's scale, 2 Telegram seconds are 20 ms of a shared machine's time)."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        seat = await to_play(rig, table)
        s = (seat + 1) % 4
        await rig.handled(fake.block(PEOPLE[s]))
        table_mid = int(table.messages["table"])
        edits = fake.messages[(GROUP, table_mid)].edits
        update = fake.send_text(PEOPLE[seat], PEOPLE[seat], typed(table.match.auto_action(seat)))
        await rig.handled(update)
        assert table.match.to_act() == [s] and table.match.public_view().get("trick")  # mid-trick, their turn
        shown = fake.messages[(GROUP, table_mid)]
        assert shown.edits == edits + 1
        lang = table.lang
        assert seat_label(s, table.seats.infos(), lang) in shown.text.rsplit("\n", 1)[-1]  # whose turn it is
        assert tr(lang, "btn.play_here") in [b["text"] for b in fake.buttons_on(GROUP, table_mid)]
        # the next play, by someone the bot reaches, leaves the table as it is until the trick ends
        await rig.handled(fake.send_text(PEOPLE[s], PEOPLE[s], "/start"))
        nxt = (s + 1) % 4
        await rig.handled(fake.send_text(PEOPLE[s], PEOPLE[s], typed(table.match.auto_action(s))))
        assert table.match.to_act() == [nxt] and f"turn{nxt}" in table.messages
        assert fake.messages[(GROUP, table_mid)].edits == edits + 1
        assert rig.errors == [] and fake.rejected_429 == 0
