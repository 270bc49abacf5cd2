"""Issue 17's findings, each through the real client against the strict fake (limits on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cardtext import card_text
from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import BurySelection, ButtonAct, Drawn, LobbyStart, Toggle
from fakes.telegram_api import BOT_USERNAME, Limits
from fakes.telegram_rig import boot, booted, start_fake, stop_fake, until
from tests.telegram.test_capacity import GROUP, PEOPLE, SETTINGS, at_first_lead, seated, to_play, typed

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def _code(data: str) -> type[ButtonAct] | None:
    try:
        return type(codec.parse(data)[1])
    except codec.BadToken:
        return None


async def test_a_press_made_before_a_restart_is_taken_after_it(tmp_path: Path) -> None:
    """Finding 5: the press reaches Telegram while the bot is down (or before it was handled);
    Telegram delivers it to the restarted bot, which takes it instead of calling it out of date."""
    fake = await start_fake()
    db = str(tmp_path / "t.sqlite3")
    rig = await boot(fake, db, settings=SETTINGS)
    try:
        table, seat, uid, hand_mid = await at_first_lead(rig)
        hand = list(table.match.view(seat)["hand"])
        toggles = [d for d in fake.callback_data_on(uid, hand_mid) if _code(d) is Toggle]
        await rig.stop()
        update, query = fake.press(uid, uid, hand_mid, toggles[0])
        rig = await boot(fake, db, settings=SETTINGS)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == card_text(hand[0])
        table = rig.host.by_chat[("telegram", str(GROUP))]
        assert table.screen.selection[seat] == {0}
        # a button from before the cards changed is still refused, after a restart too
        old = next(d for d in fake.callback_data_on(uid, hand_mid) if _code(d) is Toggle)
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
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
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
        toggle = next(d for d in fake.callback_data_on(blocked, new_hand) if _code(d) is Toggle)
        update, query = fake.press(blocked, blocked, new_hand, toggle)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == card_text(table.match.view(s)["hand"][0])
        assert [m.text for m in fake.chat_messages(GROUP) if m.text == cut_off] == told
        assert rig.errors == [] and fake.rejected_429 == 0


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


async def test_an_unreachable_player_is_told_at_join_and_the_start_waits_for_them(tmp_path: Path) -> None:
    """Finding 6: /join says to open the bot first; a refused Start says why (not "✓"), leaves no
    empty hands behind, and the match starts by itself once the player opened the bot."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        fake.add_group(GROUP)
        ann, bo, cy, di = PEOPLE
        for k, uid in enumerate(PEOPLE):
            fake.add_user(uid, f"P{k}", opened=uid != di)
        await rig.command(ann, GROUP, "/new classic")
        table = rig.host.by_chat[("telegram", str(GROUP))]
        lang = table.lang
        for uid in (bo, cy, di):
            await rig.command(uid, GROUP, "/join")
        how = f"https://t.me/{BOT_USERNAME}"
        said = [m.text for m in fake.chat_messages(GROUP)]
        assert tr(lang, "join.ok_open_bot", name="P3", seat=table.seat_of(str(di)) + 1, how=how) in said  # type: ignore[operator]
        assert all(fake.chat_messages(uid) for uid in (bo, cy))  # the others were told privately where cards go
        lobby_mid = int(table.messages["lobby"])
        start = next(d for d in fake.callback_data_on(GROUP, lobby_mid) if _code(d) is LobbyStart)
        update, query = fake.press(ann, GROUP, lobby_mid, start)
        await rig.handled(update)
        refused = tr(lang, "start.unreachable", names="P3", how=how)
        assert fake.callback_answers[query]["text"] == refused[:200]
        assert refused in [m.text for m in fake.chat_messages(GROUP)]
        assert table.status == "lobby"
        assert not any(f"hand{s}" in table.messages for s in range(4))
        assert not [m for uid in (ann, bo, cy) for m in fake.chat_messages(uid) if m.reply_markup]  # no empty hands
        await rig.handled(fake.start_private(di))  # she opens the bot: nobody needs to press Start again
        assert table.status == "active"
        assert all(f"hand{s}" in table.messages for s in range(4))
        assert rig.errors == [] and fake.rejected_429 == 0


async def test_private_answers_come_in_the_persons_language(tmp_path: Path) -> None:
    """Finding 7: an English user who joins a Chinese group's table through the link is answered in English."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        fake.add_group(GROUP)
        fake.add_user(PEOPLE[0], "Ann", opened=True, language="zh")
        fake.add_user(PEOPLE[1], "Bo", language="en")
        await rig.command(PEOPLE[0], GROUP, "/new classic")
        table = rig.host.by_chat[("telegram", str(GROUP))]
        assert table.lang == "zh"
        await rig.handled(fake.start_private(PEOPLE[1], f"join-{table.id}"))
        private = [m.text for m in fake.chat_messages(PEOPLE[1])]
        seat = table.seat_of(str(PEOPLE[1]))
        assert seat is not None and tr("en", "join.ok", name="Bo", seat=seat + 1) in private, private
        await rig.handled(fake.start_private(PEOPLE[1], f"join-{table.id}"))
        assert tr("en", "join.already", seat=seat + 1) in [m.text for m in fake.chat_messages(PEOPLE[1])]
        assert rig.errors == []


async def test_commands_in_the_wrong_place_say_where_they_belong(tmp_path: Path) -> None:
    """Finding 8: /new and /abandon in private, /hand in the group, /lang by a non-admin, and an
    inline query from a stranger or an out-of-turn player each get a line saying why."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        seat = await to_play(rig, table)
        lang = table.lang
        uid, other = PEOPLE[seat], PEOPLE[(seat + 1) % 4]
        fake.admins[GROUP] = {PEOPLE[0]}
        fake.add_user(999, "Zed", opened=True)

        await rig.command(other, other, "/new classic")
        assert fake.chat_messages(other)[-1].text == tr("en", "new.in_group")
        before = len(fake.chat_messages(GROUP))
        await rig.command(other, other, "/abandon")
        assert fake.chat_messages(other)[-1].text == tr("en", "cmd.in_group", command="abandon")
        assert len(fake.chat_messages(GROUP)) == before and table.status == "active"  # no vote

        old_hand = int(table.messages[f"hand{seat}"])
        await rig.command(uid, GROUP, "/hand")
        assert fake.chat_messages(GROUP)[-1].text == tr("en", "hand.sent_private")
        assert int(table.messages[f"hand{seat}"]) != old_hand and fake.messages[(uid, old_hand)].deleted

        await rig.command(other, GROUP, "/lang en")
        assert fake.chat_messages(GROUP)[-1].text == tr("en", "lang.admin_only")  # Telegram said he speaks English
        assert rig.host.chat_lang("telegram", str(GROUP)) == lang

        for who, want in ((999, tr("en", "inline.not_seated")),
                          (other, tr("en", "inline.wait", who=seat_label_of(table, seat)))):
            qid = fake.inline_query(who, "")
            await until(lambda q=qid: q in fake.inline_answers)  # type: ignore[misc]
            answer = fake.inline_answers[qid]
            assert answer["results"] == [] and answer["button"]["text"] == want[:64], answer
        assert rig.errors == [] and fake.rejected_429 == 0


def seat_label_of(table: object, seat: int) -> str:
    from bot.views import seat_label
    return seat_label(seat, table.seats.infos(), "en")  # type: ignore[attr-defined]


async def test_buttons_from_nowhere_and_of_another_phase_are_refused(tmp_path: Path) -> None:
    """Finding 9: a version the table never reached is not "current"; Bury while playing is "not now"."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table, seat, uid, hand_mid = await at_first_lead(rig)
        v = table.match.version
        future = codec.pack(Drawn(table.id, v + 1000), Toggle(0))
        update, query = fake.press(uid, uid, hand_mid, future, check=False)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == tr("en", "err.stale")
        assert table.screen.selection[seat] == set()
        bury = codec.pack(Drawn(table.id, v), BurySelection())
        update, query = fake.press(uid, uid, hand_mid, bury, check=False)
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == tr("en", "refuse.wrong_phase")
        assert table.match.version == v and rig.errors == []


async def test_inline_mode_pages_every_play_trumps_first(tmp_path: Path) -> None:
    """Finding 10: more than 50 plays come page by page (next_offset), none missing, in the hand's
    order (trumps first)."""
    from bot.cardtext import cards_text
    from engine.actions import Play

    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=2)  # a seed where someone void in the led suit must discard two
        await to_play(rig, table)
        m = table.match

        def plays(s: int) -> list[Play]:
            return [a for a in m.legal_actions(s) if isinstance(a, Play)]

        while len(plays(seat := m.to_act()[0])) <= 50:
            await rig.handled(fake.send_text(PEOPLE[seat], PEOPLE[seat], typed(m.auto_action(seat))))
        legal = plays(seat)
        hand = list(m.view(seat)["hand"])
        first = min(legal, key=lambda a: sorted(hand.index(c) for c in a.cards))
        uid = PEOPLE[seat]
        seen: list[dict[str, object]] = []
        qid: str | None = fake.inline_query(uid, "")
        pages = 0
        while qid is not None:
            await until(lambda q=qid: q in fake.inline_answers)  # type: ignore[misc]
            page = fake.inline_answers[qid]["results"]
            assert 0 < len(page) <= 50
            seen += page
            pages += 1
            last, qid = qid, fake.scroll_inline(qid)
        assert pages == -(-len(legal) // 50) and len(seen) == len(legal)
        assert len({r["id"] for r in seen}) == len(seen)
        assert seen[0]["title"] == cards_text(list(first.cards))
        # the last page's play goes through like any other
        version = m.version
        await rig.handled(fake.choose_inline(uid, last, str(seen[-1]["id"]), GROUP))
        assert m.version == version + 1
        assert rig.errors == [] and fake.rejected_429 == 0


async def test_defenders_who_take_over_without_levels_are_not_told_they_go_up_0(tmp_path: Path) -> None:
    """Finding 11: with 80-115 points the defenders take the deal and go up no level; the group's
    hand result says so instead of "升 0 级"."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=4)  # a seed whose first hand ends with the defenders on 95
        await to_play(rig, table)
        m = table.match
        while m.phase == "playing" and m.public_view().get("hand_no") == 1:
            s = m.to_act()[0]
            await rig.handled(fake.send_text(PEOPLE[s], PEOPLE[s], typed(m.auto_action(s))))
        await rig.settle()
        result = m.public_view()["last_result"]
        assert result["winner"] == "defenders" and 80 <= int(result["defender_points"]) < 120
        assert not result["levels"]
        lang = table.lang
        team = tr(lang, f"team.{1 - int(result['declarer_team'])}")
        said = "\n".join(msg.text for msg in fake.chat_messages(GROUP))
        assert tr(lang, "result.defenders_take_over", team=team, n=0) in said
        assert tr(lang, "result.defenders_win", team=team, n=0) not in said
        assert "升 0 级" not in said and "up 0" not in said
        assert rig.errors == [] and fake.rejected_429 == 0
