"""Lobby, timeouts, votes and restarts, all on a fake clock."""

from __future__ import annotations

from bot.i18n import tr
from bot.settings import SETTING_RANGES
from persistence.store import SqliteStore
from tests.host.conftest import PACED, Rig, make_rig
from tests.host.helpers import act_as_human, open_table, restart_mid_hand, send


async def test_lobby_rules(rig: Rig) -> None:
    en = "en"
    assert await send(rig, rig.d.command("u1", "new", "nosuchpreset")) == [tr(en, "new.bad_option",
                                                                                option="nosuchpreset")]
    assert len(await send(rig, rig.d.command("u1", "new", "classic", "target=ZZ"))) == 1
    assert rig.host.by_chat == {}
    assert (await send(rig, rig.d.command("u1", "new", "classic")))[0].startswith("A new match")
    table = rig.host.by_chat[("fake", "g1")]
    assert table.seat_of("u1") is not None
    assert (await send(rig, rig.d.command("u2", "new")))[0] == tr(en, "new.exists", id=table.id)
    assert await send(rig, rig.d.command("u1", "join")) == [tr(en, "join.already", seat=table.seat_of("u1") + 1)]
    assert await send(rig, rig.d.command("u2", "start")) == [tr(en, "start.need_four", n=1)]
    taken = table.seat_of("u1") + 1
    assert await send(rig, rig.d.command("u2", "join", str(taken))) == [tr(en, "join.seat_taken", seat=taken)]
    await send(rig, rig.d.command("u2", "join"))
    assert await send(rig, rig.d.command("u2", "kick", "1")) == [tr(en, "kick.not_allowed")]
    assert await send(rig, rig.d.command("u1", "addbot", "genius")) == [
        tr(en, "addbot.bad_level", level="genius", levels="random, basic, strong, expert")]
    await send(rig, rig.d.command("u1", "addbot"))
    await send(rig, rig.d.command("u3", "join"))
    assert await send(rig, rig.d.command("u4", "join")) == [tr(en, "join.full")]
    s3 = table.seat_of("u3")
    await send(rig, rig.d.command("u1", "kick", str(s3 + 1)))
    assert table.seat_of("u3") is None
    await send(rig, rig.d.command("u2", "leave"))
    assert table.seat_of("u2") is None
    # a person may sit in two chats at once
    other = rig.d.command("u1", "new")
    other = type(other)(**{**other.__dict__, "where": type(other.where)("fake", "g2")})
    await send(rig, other)
    assert rig.host.by_chat[("fake", "g2")].seat_of("u1") is not None
    assert (await rig.store.get_match(table.id)).seats[table.seat_of("u1")]["user_id"] == "u1"


async def test_unreachable_player_blocks_start_until_fixed(rig: Rig) -> None:
    rig.platform.unreachable.add("u2")
    await send(rig, rig.d.command("u1", "new"))
    await send(rig, rig.d.command("u2", "join"))
    for _ in range(2):
        await send(rig, rig.d.command("u1", "addbot"))
    await send(rig, rig.d.command("u1", "start"))
    table = rig.host.by_chat[("fake", "g1")]
    assert table.status == "lobby"
    assert any("Pu2" in t and "privately" in t for t in rig.platform.group_texts())
    rig.platform.unreachable.clear()
    await send(rig, rig.d.command("u1", "start"))
    assert table.status == "active"


async def test_timeouts_then_ai_keeps_the_seat_until_back(paced: Rig) -> None:
    rig = paced
    table = await open_table(rig, ["u1", "u2"], 2, "classic")
    # u2 acts; u1 never does: each of u1's turns times out
    s1 = table.seat_of("u1")
    timeouts = 0
    for _ in range(400):
        if table.seats[s1].get("away"):
            break
        if not await act_as_human(rig, table, "u2", "text"):
            before = table.match.version
            waiting = s1 in table.match.to_act() and table.match.phase in ("burying", "playing")
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
            assert table.match.version > before
            timeouts += waiting
    assert table.seats[s1]["away"] and timeouts == 2
    group = rig.platform.group_texts()
    assert any(tr("en", "timeout.moved", name="Pu1") == t for t in group)
    assert any(tr("en", "timeout.away", name="Pu1", n=2) == t for t in group)
    # while away, the AI moves for u1 at once: u1 is never waited for
    for _ in range(30):
        if not await act_as_human(rig, table, "u2", "text"):
            assert s1 not in table.match.to_act() or table.match.phase not in ("playing", "burying")
            break
    assert await send(rig, rig.d.command("u1", "back")) == []
    assert not table.seats[s1]["away"] and table.seats[s1]["timeouts"] == 0
    assert tr("en", "back.ok", name="Pu1") in rig.platform.group_texts()
    assert (await rig.store.get_match(table.id)).seats[s1]["away"] is False


async def test_pause_resume_abandon_by_vote(paced: Rig) -> None:
    rig = paced
    table = await open_table(rig, ["u1", "u2", "u3"], 1, "classic")
    await send(rig, rig.d.command("u1", "pause"))
    assert table.status == "active"
    assert tr("en", "pause.vote", name="Pu1", n=1, need=2) in rig.platform.group_texts()
    await send(rig, rig.d.command("u1", "pause"))  # voting twice counts once
    assert table.status == "active"
    assert await send(rig, rig.d.command("u9", "pause")) == [tr("en", "err.not_seated")]
    await send(rig, rig.d.command("u2", "pause"))
    assert table.status == "paused" and table.deadlines == {}
    assert (await rig.store.get_match(table.id)).status == "paused"
    version = table.match.version
    rig.clock.advance(3600)
    await rig.host.settle()
    assert table.match.version == version
    assert await send(rig, rig.d.text("u1", "pass")) == [tr("en", "err.paused")]
    await send(rig, rig.d.command("u3", "resume"))
    await send(rig, rig.d.command("u2", "resume"))
    assert table.status == "active" and table.deadlines
    for u in ("u1", "u2"):
        await send(rig, rig.d.command(u, "abandon"))
    assert (await rig.store.get_match(table.id)).status == "abandoned"
    assert ("fake", "g1") not in rig.host.by_chat
    await send(rig, rig.d.command("u1", "new"))  # the chat is free again
    assert ("fake", "g1") in rig.host.by_chat


async def test_restart_mid_hand_goes_on_with_the_same_messages() -> None:
    rig = await make_rig(PACED)
    path = rig.store.path
    # a new host on the same database file: replays, refreshes the same messages, re-arms timers
    await restart_mid_hand(rig, lambda: SqliteStore.open(path, synchronous="OFF"))


async def test_join_through_a_deep_link_in_the_private_chat(rig: Rig) -> None:
    rig.platform.deep_links = True
    await send(rig, rig.d.command("u1", "new"))
    table = rig.host.by_chat[("fake", "g1")]
    lobby = rig.platform.messages[table.messages["lobby"]][1]
    join = lobby.buttons[0][0]
    assert join.kind == "url" and join.token.endswith(f"start=join-{table.id}")
    payload = join.token.split("start=")[1]
    notes = await send(rig, rig.d.command("u2", "start", payload, private=True))
    assert table.seat_of("u2") is not None and notes and "Pu2" in notes[0]
    assert await send(rig, rig.d.command("u3", "start", "join-999", private=True)) == [tr("en", "err.wrong_match")]
    assert table.seat_of("u3") is None
    await send(rig, rig.d.command("u3", "start", private=True))
    assert any("Commands:" in s.view.text for s in rig.platform.log if s.where.chat_id == "u3")
    # the lobby in the group shows the new seat
    assert "Pu2" in rig.platform.messages[table.messages["lobby"]][1].text


async def test_help_rules_and_languages(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "help"))
    assert rig.platform.group_texts()[-1].startswith("Commands:")
    await send(rig, rig.d.command("u1", "lang", "zh"))
    assert rig.platform.group_texts()[-1] == tr("zh", "lang.set")
    await send(rig, rig.d.command("u1", "help"))
    assert rig.platform.group_texts()[-1].startswith("命令")
    await send(rig, rig.d.command("u1", "rules", "chaodipi"))
    assert "炒底" in rig.platform.group_texts()[-1] and "kitty_scheme" not in rig.platform.group_texts()[-1]
    await send(rig, rig.d.command("u1", "rules", "chaodipi", "all"))  # every setting (issue 16.10)
    assert "chao = True" in rig.platform.group_texts()[-1]
    assert await send(rig, rig.d.command("u1", "lang", "klingon")) == [tr("zh", "lang.usage")]
    # the group reads Chinese; u1's private messages follow u1's own choice
    await send(rig, rig.d.command("u1", "lang", "en", private=True))
    table = await open_table(rig, ["u1"], 3, "classic")
    s = table.seat_of("u1")
    hand = rig.platform.messages[table.messages[f"hand{s}"]][1].text
    assert hand.startswith("Your hand")
    assert "80分" in rig.platform.messages[table.messages["table"]][1].text


async def test_match_clock_survives_pause_and_runs_out(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3, "competition")  # 120-minute matches
    at = table.deadlines["time_limit"]
    assert at == rig.clock.now() + 120 * 60
    await send(rig, rig.d.command("u1", "pause"))
    assert table.status == "paused" and "time_limit" not in table.deadlines
    rig.clock.advance(3600)  # an hour of pause does not count
    await rig.host.settle()
    await send(rig, rig.d.command("u1", "resume"))
    assert table.deadlines["time_limit"] == rig.clock.now() + 120 * 60
    rig.clock.advance(120 * 60 + 1)
    await rig.host.settle()
    stored = await rig.store.get_match(table.id)
    assert {"t": "time_up"} in stored.actions
    assert tr("en", "announce.time_up") in rig.platform.group_texts()


async def test_an_unstarted_lobby_expires() -> None:
    from tests.host.conftest import FAST

    rig = await make_rig(FAST.__class__(**{**FAST.to_dict(), "lobby": 600.0}))
    try:
        await send(rig, rig.d.command("u1", "new"))
        table = rig.host.by_chat[("fake", "g1")]
        rig.clock.advance(599)
        await rig.host.settle()
        assert table.status == "lobby"
        rig.clock.advance(2)
        await rig.host.settle()
        assert (await rig.store.get_match(table.id)).status == "abandoned"
        assert ("fake", "g1") not in rig.host.by_chat
        assert rig.platform.group_texts()[-1] == tr("en", "lobby.expired")
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_declare_while_the_cards_arrive_and_kick_during_play() -> None:
    from bot.intents import codec
    from bot.intents.types import Declare, Drawn, Pass
    from tests.host.conftest import PACED
    from tests.host.helpers import find, hand_message

    rig = await make_rig(PACED.__class__(**{**PACED.to_dict(), "deal": 2.0}), seed=21)
    try:
        table = await open_table(rig, ["u1", "u2"], 2, "classic")
        assert table.match.phase == "dealing"
        declared = False
        for _ in range(30):
            if table.match.phase != "dealing":
                break
            for u in ("u1", "u2"):
                s = table.seat_of(u)
                bids = [a for a in table.match.legal_actions(s) if a.t == "declare"]
                if bids and not declared:
                    notes = await send(rig, rig.d.press(u, find(hand_message(rig, table, s), Declare(bids[0].cards))))
                    assert notes == ["✓"]
                    declared = True
            rig.clock.advance(2.0)
            await rig.host.settle()
        assert declared and table.match.public_view()["declaration"] is not None
        assert any(" declares " in t for t in rig.platform.group_texts())
        # the creator removes u2 in the middle of the match: an AI keeps the seat, u2's buttons stop working
        s2 = table.seat_of("u2")
        await send(rig, rig.d.command("u1", "kick", str(s2 + 1)))
        assert table.seats[s2]["kicked"] and table.seats[s2]["away"]
        press = codec.pack(Drawn(table.id, table.match.version), Pass())
        assert await send(rig, rig.d.press("u2", press)) == [tr("en", "err.not_seated")]
        assert await send(rig, rig.d.command("u2", "back")) == [tr("en", "err.not_seated")]
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_timers_given_to_new_become_the_chats_own(rig: Rig) -> None:
    """A group admin's timers do (a member's hold for their table only: tests/host/test_options.py)."""
    admin = {"admin": "1"}
    await send(rig, rig.d.command("u1", "new", "classic", "turn=45", "away_after=3", extra=admin))
    table = rig.host.by_chat[("fake", "g1")]
    assert table.settings.turn == 45 and table.settings.away_after == 3
    await send(rig, rig.d.command("u1", "abandon"))
    await send(rig, rig.d.command("u1", "new", "bury=70", extra=admin))
    table = rig.host.by_chat[("fake", "g1")]
    assert (table.settings.turn, table.settings.away_after, table.settings.bury) == (45, 3, 70)
    assert (await rig.store.get_chat("fake", "g1"))["timers"] == {"turn": "45", "away_after": "3", "bury": "70"}
    await send(rig, rig.d.command("u1", "abandon"))
    assert await send(rig, rig.d.command("u1", "new", "turn=-5", extra=admin)) == [
        tr("en", "arg.out_of_range", what="turn=-5", name="turn", range=SETTING_RANGES["turn"].range_text("en"))]
    assert (await rig.store.get_chat("fake", "g1"))["timers"]["turn"] == "45"
