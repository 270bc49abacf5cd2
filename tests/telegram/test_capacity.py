"""What one play costs in Telegram messages, through the real client against the fake server.

A play should cost about one message call counted against the group's limits
and no more than a couple in private chats (README, "Capacity inside
Telegram's limits"): an accepted typed play is not answered with "✓", the
next player learns it is their turn from a new private notice (deleted once
they acted) rather than from the group's table, which is drawn once a trick,
and a seat that plays from the group (inline mode) has its private hand
redrawn lazily.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from bot.cardtext import card_text, cards_text
from bot.i18n import tr
from bot.settings import TableSettings
from bot.table import Table
from bot.views import seat_label
from engine.actions import Action
from fakes.telegram_rig import Rig, booted, until
from fakes.typed import typed_text

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

SETTINGS = TableSettings(deal=0, declare=0, bury=0, turn=0, next=0, lobby=0, away_after=0)
GROUP = -4001
PEOPLE = [401, 402, 403, 404]
MESSAGE_CALLS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument")


async def seated(rig: Rig, settings: TableSettings = SETTINGS, *, seed: int = 7) -> Table:
    """Four people at one table, written to the store and resumed (dealt at once with the default
    settings: no timers)."""
    fake, store = rig.fake, rig.store
    fake.add_group(GROUP)
    seats = []
    for k, uid in enumerate(PEOPLE):
        fake.add_user(uid, f"P{k}", opened=True)
        seats.append({"kind": "human", "user_id": str(uid), "name": f"P{k}", "lang": "en", "away": False,
                      "timeouts": 0})
    meta = {"preset": "classic", "creator": str(PEOPLE[0]), "creator_name": "P0", "options": "",
            "settings": settings.to_dict()}
    await store.create_match("telegram", str(GROUP), engine.preset("classic").to_dict(), seats, seed, meta,
                             status="active")
    await rig.host.start()
    await rig.settle()
    table = rig.host.by_chat[("telegram", str(GROUP))]
    return table


def typed(action: Action) -> str:
    return typed_text(action.to_json())


async def to_play(rig: Rig, table: Table, *, tricks: int = 0) -> int:
    """Everyone types their action until the playing phase (and `tricks` whole tricks) is reached;
    returns the seat to play."""
    m = table.match
    while True:
        if m.phase == "playing" and m.public_view().get("tricks_played", 0) >= tricks \
                and not m.public_view().get("trick"):
            return int(m.public_view()["turn"])
        seat = next(s for s in m.to_act() if m.auto_action(s) is not None)
        uid = PEOPLE[seat]
        await rig.handled(rig.fake.send_text(uid, uid, typed(m.auto_action(seat))))


async def at_first_lead(rig: Rig) -> tuple[Table, int, int, int]:
    """Four people seated and played to the first lead: (table, seat to play, its user id, its hand message)."""
    table = await seated(rig)
    seat = await to_play(rig, table)
    return table, seat, PEOPLE[seat], int(table.messages[f"hand{seat}"])


def calls_since(rig: Rig, first: int) -> list[Any]:
    return [c for c in rig.fake.calls[first:] if c.method in MESSAGE_CALLS]


async def test_a_typed_play_costs_the_players_own_hand_and_the_next_players_notice(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        seat = await to_play(rig, table)
        nxt = (seat + 1) % 4  # classic plays counter-clockwise: seat + 1 is next
        uid = PEOPLE[seat]
        first = len(fake.calls)
        action = table.match.auto_action(seat)
        await rig.handled(fake.send_text(uid, uid, typed(action)))
        assert table.match.public_view()["turn"] == nxt
        calls = calls_since(rig, first)
        # no "✓" message and no group edit mid-trick: the player's hand shows the play, the next
        # player gets a new private message (their phone rings), and the group's table waits for
        # the end of the trick
        assert sorted((c.method, int(c.params["chat_id"])) for c in calls) == sorted(
            [("editMessageText", uid), ("sendMessage", PEOPLE[nxt])]), calls
        notice = fake.messages[(PEOPLE[nxt], int(table.messages[f"turn{nxt}"]))].text
        assert "Your turn in trick 1" in notice and cards_text(list(action.cards)) in notice
        # the player's own notice is gone now that they played
        deleted = [c for c in fake.calls[first:] if c.method == "deleteMessage"]
        assert [int(c.params["chat_id"]) for c in deleted] == [uid]
        assert f"turn{seat}" not in table.messages
        # a refused typed play is still answered, with the reason
        first = len(fake.calls)
        await rig.handled(fake.send_text(uid, uid, "play " + cards_text(list(action.cards))))
        answers = [c for c in calls_since(rig, first) if c.method == "sendMessage"]
        assert len(answers) == 1 and int(answers[0].params["chat_id"]) == uid
        assert len(str(answers[0].params["text"])) > 2
        assert not rig.errors


async def test_the_hand_says_nothing_that_changes_with_the_turn(tmp_path: Path) -> None:
    """A whole trick typed by four people: each private hand is edited once, after its owner's play."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        await to_play(rig, table)
        first = len(fake.calls)
        for _ in range(4):
            seat = int(table.match.public_view()["turn"])
            await rig.handled(fake.send_text(PEOPLE[seat], PEOPLE[seat], typed(table.match.auto_action(seat))))
        private = [int(c.params["chat_id"]) for c in calls_since(rig, first)
                   if int(c.params["chat_id"]) > 0 and c.method == "editMessageText"]
        assert sorted(private) == sorted(PEOPLE), private
        # the group's table: one edit, at the trick's end
        group = [c.method for c in calls_since(rig, first) if int(c.params["chat_id"]) == GROUP]
        assert group == ["editMessageText"], group
        for uid in PEOPLE:  # and it still shows the prompt to play, which never changes mid-hand
            hand = fake.messages[(uid, int(table.messages[f"hand{PEOPLE.index(uid)}"]))].text
            assert "Play" in hand and "Trick" not in hand


async def play_inline(rig: Rig, table: Table, seat: int) -> None:
    fake, uid = rig.fake, PEOPLE[seat]
    qid = fake.inline_query(uid, "")
    await until(lambda: qid in fake.inline_answers)
    want = cards_text(list(table.match.auto_action(seat).cards))
    result = next(r for r in fake.inline_answers[qid]["results"] if r["title"] == want)
    version = table.match.version
    await rig.handled(fake.choose_inline(uid, qid, result["id"], GROUP))
    assert table.match.version > version


async def others_type_until(rig: Rig, table: Table, seat: int) -> None:
    while int(table.match.public_view()["turn"]) != seat:
        s = int(table.match.public_view()["turn"])
        await rig.handled(rig.fake.send_text(PEOPLE[s], PEOPLE[s], typed(table.match.auto_action(s))))


async def test_a_seat_playing_inline_gets_its_hand_redrawn_lazily(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table, seat, uid, hand_mid = await at_first_lead(rig)
        first = len(fake.calls)
        await play_inline(rig, table, seat)
        # the chosen card is the player's own message in the group, naming (and mentioning) who
        # plays next; the table message waits for the trick's end, and the private hand is folded
        # away once (it names no card, so later plays leave it alone)
        calls = calls_since(rig, first)
        assert [(c.method, int(c.params["chat_id"])) for c in calls] == [("editMessageText", uid)], calls
        folded = fake.messages[(uid, hand_mid)].text
        assert "playing from the group" in folded
        assert not any(card_text(c) in folded for c in table.match.view(seat)["hand"])
        await others_type_until(rig, table, seat)
        first = len(fake.calls)
        await play_inline(rig, table, seat)
        assert calls_since(rig, first) == []
        assert fake.messages[(uid, hand_mid)].text == folded
        # ↻ shows the current hand again, and its buttons name the current cards
        (refresh,) = fake.callback_data_on(uid, hand_mid)
        update, query = fake.press(uid, uid, hand_mid, refresh)
        await rig.handled(update)
        hand = table.match.view(seat)["hand"]
        shown = fake.messages[(uid, hand_mid)].text
        assert f"{len(hand)} cards" in shown and all(card_text(c) in shown for c in hand)
        await others_type_until(rig, table, seat)
        update, query = fake.press(uid, uid, hand_mid, fake.callback_data_on(uid, hand_mid)[0])
        await rig.handled(update)
        assert fake.callback_answers[query]["text"] == card_text(hand[0])
        assert not rig.errors


async def test_an_inline_play_tells_the_next_player_by_a_mention_not_a_notice(tmp_path: Path) -> None:
    """Issue 29, tables per token: a play chosen from the group is posted by the person's own client,
    naming who plays next; that name is a mention (their client rings), so the bot sends no private
    notice (and deletes none). A play that completes the trick names who takes it, the same way; one
    who takes their own trick gets the notice."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table, seat, uid, _ = await at_first_lead(rig)
        nxt = (seat + 1) % 4
        first, mentions = len(fake.calls), len(fake.mentions)
        await play_inline(rig, table, seat)
        posted = [m for m in fake.chat_messages(GROUP, from_bot=False) if m.sender["id"] == uid][-1]
        (entity,) = posted.entities
        label = seat_label(nxt, table.seats.infos(), table.lang)
        start = len(posted.text[:posted.text.rfind(label)].encode("utf-16-le")) // 2
        assert entity["type"] == "text_mention" and entity["user"]["id"] == PEOPLE[nxt]
        assert (entity["offset"], entity["length"]) == (start, len(label.encode("utf-16-le")) // 2)
        assert [(c[1], c[2]) for c in fake.mentions[mentions:]] == [(GROUP, PEOPLE[nxt])]
        private = [(c.method, int(c.params["chat_id"])) for c in fake.calls[first:]
                   if c.method in ("sendMessage", "deleteMessage") and int(c.params["chat_id"]) > 0]
        assert private == [("deleteMessage", uid)]  # only the player's own notice, now that they played
        assert f"turn{nxt}" not in table.messages
        # the next two play inline too; the fourth play completes the trick: its post names who
        # takes it, mentioned unless it is the player themselves, who is then told privately
        for _ in range(2):
            await play_inline(rig, table, int(table.match.public_view()["turn"]))
        last = int(table.match.public_view()["turn"])
        cards = cards_text(list(table.match.auto_action(last).cards))
        first = len(fake.calls)
        await play_inline(rig, table, last)
        winner = int(table.match.public_view()["turn"])
        posted = fake.chat_messages(GROUP, from_bot=False)[-1]
        infos = table.seats.infos()
        assert posted.text == tr(table.lang, "inline.posted_takes", who=seat_label(last, infos, table.lang),
                                 cards=cards, winner=seat_label(winner, infos, table.lang))
        notices = [int(c.params["chat_id"]) for c in fake.calls[first:]
                   if c.method == "sendMessage" and int(c.params["chat_id"]) > 0]
        if winner != last:
            assert [e["user"]["id"] for e in posted.entities] == [PEOPLE[winner]]
            assert notices == [] and f"turn{winner}" not in table.messages
        else:
            assert not posted.entities
            assert notices == [PEOPLE[winner]] and f"turn{winner}" in table.messages
        # a typed play is followed by the notice as before
        first = len(fake.calls)
        await rig.handled(fake.send_text(PEOPLE[winner], PEOPLE[winner], typed(table.match.auto_action(winner))))
        after = int(table.match.public_view()["turn"])
        assert [int(c.params["chat_id"]) for c in fake.calls[first:] if c.method == "sendMessage"] == [PEOPLE[after]]
        assert not rig.errors


async def test_an_old_button_on_a_folded_hand_is_refused_and_the_hand_shown(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table, seat, uid, hand_mid = await at_first_lead(rig)
        old_toggle = fake.callback_data_on(uid, hand_mid)[0]
        await play_inline(rig, table, seat)
        update, query = fake.press(uid, uid, hand_mid, old_toggle, check=False)  # an old keyboard
        await rig.handled(update)
        assert "older view" in fake.callback_answers[query]["text"]
        assert table.screen.selection[seat] == set()
        shown = fake.messages[(uid, hand_mid)].text
        assert all(card_text(c) in shown for c in table.match.view(seat)["hand"])


async def test_an_inline_seats_hand_is_redrawn_when_the_hand_ends(tmp_path: Path) -> None:
    """Lazily redrawn hands catch up at the next phase: the new deal shows the new cards."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        await to_play(rig, table)
        inline = PEOPLE[int(table.match.public_view()["turn"])]
        s_inline = PEOPLE.index(inline)
        while table.match.public_view().get("hand_no", 1) == 1:
            m = table.match
            seat = next(s for s in m.to_act() if m.auto_action(s) is not None)
            uid = PEOPLE[seat]
            if uid == inline and m.phase == "playing":
                await play_inline(rig, table, seat)
            else:
                await rig.handled(fake.send_text(uid, uid, typed(m.auto_action(seat))))
        await rig.settle()
        hand = table.match.view(s_inline).get("hand") or []
        shown = fake.messages[(inline, int(table.messages[f"hand{s_inline}"]))].text
        assert table.match.phase != "playing" or table.match.public_view().get("hand_no") == 2
        assert hand and all(card_text(c) in shown for c in hand), shown
        assert not rig.errors


async def test_inline_plays_show_in_the_group_and_the_table_catches_up_at_the_tricks_end(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig)
        seat = await to_play(rig, table)
        table_mid = int(table.messages["table"])
        before = fake.messages[(GROUP, table_mid)].text
        edits = fake.messages[(GROUP, table_mid)].edits
        played = cards_text(list(table.match.auto_action(seat).cards))
        await play_inline(rig, table, seat)
        posted = [m for m in fake.chat_messages(GROUP, from_bot=False) if m.sender["id"] == PEOPLE[seat]]
        infos = table.seats.infos()
        assert posted and posted[-1].text == tr(table.lang, "inline.posted_next", who=seat_label(seat, infos, table.lang),
                                                cards=played, next=seat_label((seat + 1) % 4, infos, table.lang))
        assert fake.messages[(GROUP, table_mid)].text == before  # the table waits for the trick's end
        # a play typed in private does not redraw it mid-trick either: the next player is told privately
        nxt = int(table.match.public_view()["turn"])
        await rig.handled(fake.send_text(PEOPLE[nxt], PEOPLE[nxt], typed(table.match.auto_action(nxt))))
        assert fake.messages[(GROUP, table_mid)].text == before
        for _ in range(2):
            await play_inline(rig, table, int(table.match.public_view()["turn"]))
        assert not table.match.public_view().get("trick")
        final = fake.messages[(GROUP, table_mid)].text
        assert final != before and "→" in final  # the last trick and its winner
        assert fake.messages[(GROUP, table_mid)].edits == edits + 1
        assert not rig.errors


async def test_a_deal_redraws_each_hand_every_few_cards_not_for_every_card(tmp_path: Path) -> None:
    import bot.table.render
    from fakes.clock import FakeClock

    clock = FakeClock()
    dealt_slowly = TableSettings(deal=0.6, declare=0, bury=0, turn=0, next=0, lobby=0, away_after=0)
    async with booted(str(tmp_path / "t.sqlite3"), clock=clock, settings=dealt_slowly) as rig:
        fake = rig.fake
        table = await seated(rig, dealt_slowly)
        first = len(fake.calls)
        steps = 0
        while table.match.phase == "dealing":
            clock.advance(0.6)
            await rig.settle()
            steps += 1
        assert steps >= 25
        for k, uid in enumerate(PEOPLE):
            edits = [c for c in fake.calls[first:] if c.method == "editMessageText" and int(c.params["chat_id"]) == uid]
            # 25 cards, one by one: a redraw every DEAL_REDRAW_EVERY cards, at the changes of what may
            # be declared, and once the deal is over (not 25)
            assert len(edits) <= 25 // bot.table.render.DEAL_REDRAW_EVERY + 6, len(edits)
            shown = fake.messages[(uid, int(table.messages[f"hand{k}"]))].text
            assert all(card_text(c) in shown for c in table.match.view(k)["hand"])
        assert not rig.errors


@pytest.mark.slow(4)
async def test_the_capacity_run_measures_tables_per_token() -> None:
    """`benchmarks.telegram_capacity` (docs/telegram.md, tables per token) still runs: three tables on
    a fast Telegram clock (a second lasts 0.1 s), half a Telegram minute of play measured, about 3 s
    (a person's pace, 3-6 Telegram seconds a play, cannot run much faster before the bot's own CPU time
    swamps it; booting and resuming the tables take a second or two more). Its figures here are not
    the point (on a loaded machine the bot's CPU time counts ten times); that plays are made and
    Telegram's limits kept is."""
    from benchmarks.telegram_capacity import measure

    out = await measure(3, scale=0.1, seconds=30, warmup=5, seed=3)
    assert out.plays >= 1 and out.counted() > 0, out.text()
    assert out.rejected_429 == 0 and out.errors == 0, out.text()
    assert "turn lag" in out.text() and "a play" in out.text()
