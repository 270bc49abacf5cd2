"""The web table's socket against a real host: who may connect, what each seat is sent, plays and
refusals through the host's one path, reconnects, and the chat kept quiet while people play on the web."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

import bot.review
from adapters.web.auth import AuthError, LinkSigner, check_init_data
from adapters.web.guard import Limits
from bot.scene.text import result_lines
from bot.scene.types import Result, Stopped
from tests.host.helpers import send
from tests.web.client import Client
from tests.web.conftest import TOKEN, WebRig, init_data, leaks, open_table, seat_pages

PEOPLE = ["1", "2", "3", "4"]


async def seated(rig: WebRig) -> tuple[int, dict[int | None, Client]]:
    table = await open_table(rig, PEOPLE, 0)
    clients = await seat_pages(rig, table.id, PEOPLE)
    onlooker = rig.client()
    await onlooker.connect({"link": rig.link(table.id, None)})
    await onlooker.until(lambda s: s.get("version", 0) > 0)
    clients[None] = onlooker
    return table.id, clients


async def play_hand(rig: WebRig, match_id: int, clients: dict[int | None, Client], hands: int = 1) -> int:
    """Each seat acts from its page when asked, with the engine's quick move; returns the plays made."""
    table = rig.host.tables[match_id]
    plays = 0
    for _ in range(400):
        m = table.match
        if table.status != "active" or int(m.public_view()["hand_no"]) > hands:
            return plays
        to_act = m.to_act()
        if not to_act:
            rig.clock.advance(min(table.deadlines.values(), default=rig.clock.now()) - rig.clock.now() + 0.01)
            await rig.host.settle()
            continue
        s = to_act[0]
        act = m.auto_action(s, rng_seed=m.version)
        assert act is not None
        version = m.version
        c = clients[s]
        await c.until(lambda st, v=version: st["version"] >= v)
        key = await c.act(act.t, list(getattr(act, "cards", ())))
        answer = await c.answer(key)
        assert answer["ok"], answer
        plays += act.t == "play"
        await rig.host.settle()
        for c2 in clients.values():  # every screen shows the play
            await c2.until(lambda st, v=version: st["version"] > v)
    raise AssertionError("hand did not end")


async def test_each_seat_sees_its_own_hand_and_the_chat_stays_quiet(web_rig: WebRig,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    for s in range(4):
        assert clients[s].state["seat"] == s
        assert clients[s].state["scene"]["hand"]["cards"] == list(table.match.view(s)["hand"])
    assert clients[None].state["scene"]["hand"] is None and clients[None].state["seat"] is None
    before = len(web_rig.platform.log)
    plays = await play_hand(web_rig, match_id, clients)
    assert plays >= 40 and table.match.public_view()["hand_no"] == 2
    chat = [e for e in web_rig.platform.log[before:] if e.op in ("send", "edit")]
    # on the web the chat is told what matters (announcements, the table at a new phase), not each
    # play; the private hands, folded away once, are never edited
    assert [e.view.text for e in chat if e.where.private] == []
    assert len(chat) <= 6, [e.view.text[:60] for e in chat]
    assert await leaks(web_rig, match_id, clients) == []
    for c in clients.values():
        await c.close()
    # the finished hand, trick by trick, for anyone holding a link of the chat
    url = web_rig.server.make_url("/replay")
    async with web_rig.session.post(url, json={"auth": {"link": web_rig.link(match_id, None)}, "hand": 1}) as r:
        body = await r.json()
    assert r.status == 200 and body["hands"] == [1] and body["hand"] == 1
    assert sum(len(t["plays"]) for t in body["tricks"]) == plays
    assert len(body["result"]["kitty"]) == 8  # shown at the end, as the group was told
    async with web_rig.session.post(url, json={"auth": {"link": "forged.x"}, "hand": 1}) as r:
        assert r.status == 403
    # the seat's own review (复盘) of that hand, for a person who held a seat; never for an onlooker
    monkeypatch.setattr(bot.review, "BUDGET_S", 0.01)  # a few playouts a decision: the judging is tested in tests/ai
    review = web_rig.server.make_url("/review")
    s = table.seat_of(PEOPLE[0])
    ask = {"auth": {"link": web_rig.link(match_id, PEOPLE[0])}, "hand": 1, "lang": "en"}
    async with web_rig.session.post(review, json=ask) as r:
        got = await r.json()
    assert r.status == 200 and got["seat"] == s and got["hand"] == 1, got
    assert got["text"].startswith("Review of hand 1") and "review." not in got["text"]
    assert all(f["trick"] is None or 1 <= f["trick"] <= len(body["tricks"]) for f in got["flagged"])
    async with web_rig.session.post(review, json={**ask, "auth": {"link": web_rig.link(match_id, None)}}) as r:
        assert r.status == 403


async def test_refusal_in_words_and_nothing_changes(web_rig: WebRig) -> None:
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    await play_hand(web_rig, match_id, clients, hands=0)  # nothing: hand 1 is running
    while table.match.phase != "playing":
        m = table.match
        s = m.to_act()[0]
        act = m.auto_action(s, rng_seed=m.version)
        key = await clients[s].act(act.t, list(getattr(act, "cards", ())))
        assert (await clients[s].answer(key))["ok"]
        await web_rig.host.settle()
    m = table.match
    turn = m.public_view()["turn"]
    other = (turn + 1) % 4
    version = m.version
    key = await clients[other].act("play", [m.view(other)["hand"][0]])
    answer = await clients[other].answer(key)
    assert not answer["ok"] and "turn" in answer["text"].lower(), answer
    key = await clients[turn].act("play", ["XX"])
    answer = await clients[turn].answer(key)
    assert not answer["ok"] and answer["text"], answer
    assert table.match.version == version
    # an onlooker cannot act
    key = await clients[None].act("play", [m.view(turn)["hand"][0]])
    assert not (await clients[None].answer(key))["ok"]
    assert await leaks(web_rig, match_id, clients) == []


async def test_reconnect_catches_up(web_rig: WebRig) -> None:
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    await clients[2].close()
    del clients[2]
    m = table.match
    while table.match.phase != "playing" or table.match.public_view()["turn"] == 2:
        m = table.match
        s = m.to_act()[0]
        if s == 2:
            break
        act = m.auto_action(s, rng_seed=m.version)
        key = await clients[s].act(act.t, list(getattr(act, "cards", ())))
        assert (await clients[s].answer(key))["ok"]
        await web_rig.host.settle()
    again = web_rig.client()
    await again.connect({"tg": init_data(str(table.seats[2].user_id), start=f"m{match_id}")})
    clients[2] = again
    st = await again.until(lambda s: True)
    assert st["version"] == table.match.version and st["scene"]["hand"]["cards"] == list(table.match.view(2)["hand"])
    assert await leaks(web_rig, match_id, clients) == []


@pytest.mark.slow(6)
async def test_forged_and_expired_credentials_are_refused(web_rig: WebRig) -> None:
    table = await open_table(web_rig, PEOPLE, 0)
    bad = [
        {"tg": init_data("1", start=f"m{table.id}", token="999:other-bot")},
        {"tg": init_data("1", start=f"m{table.id}", auth_date=int(time.time()) - 3 * 86400)},
        {"tg": init_data("1", start=f"m{table.id}").replace("P1", "P2")},
        {"link": web_rig.link(table.id, "1")[:-3] + "AAA"},
        {"link": LinkSigner(b"k" * 32, ttl=-10).sign("telegram", table.id, "1")},
        {"link": "garbage"},
        {},
    ]
    reasons = []
    for auth in bad:
        c = web_rig.client()
        await c.connect(auth, match=table.id)
        assert await c.ended() == 4401, auth
        assert not c.states, auth
        reasons.extend(m["reason"] for m in c.received if m.get("type") == "refused")
    assert {"forged", "expired", "malformed"} <= set(reasons)


def test_init_data_is_checked_as_telegram_signs_it() -> None:
    now = int(time.time())
    person = check_init_data(init_data("42", start="m7", auth_date=now), TOKEN, now=now)
    assert (person.platform, person.user_id, person.match_id) == ("telegram", "42", 7)
    for data, reason in [(init_data("42", auth_date=now - 90_000), "expired"),
                         (init_data("42", token="1:x"), "forged"), ("a=1&&", "malformed")]:
        try:
            check_init_data(data, TOKEN, now=now)
        except AuthError as err:
            assert err.reason == reason
        else:
            raise AssertionError(data)


async def test_a_link_for_a_seat_of_one_person_only(web_rig: WebRig) -> None:
    table = await open_table(web_rig, PEOPLE, 0)
    c = web_rig.client()
    await c.connect({"link": web_rig.link(table.id, "3")})
    st = await c.until(lambda s: s["scene"]["hand"] is not None)
    assert st["seat"] == table.seat_of("3")
    c2 = web_rig.client()  # a link for someone not seated: the public view
    await c2.connect({"link": web_rig.link(table.id, "99")})
    st2 = await c2.until(lambda s: True)
    assert st2["seat"] is None and st2["scene"]["hand"] is None
    await send(web_rig, web_rig.d.command("1", "table"))
    await c.close()
    await c2.close()


async def test_onlookers_need_the_groups_link(web_rig: WebRig) -> None:
    """A table id alone can be guessed: a Mini App opened by someone not seated shows the table only
    with the proof the group's link carries."""
    table = await open_table(web_rig, PEOPLE, 0)
    proof = web_rig.web.signer.table_proof("telegram", table.id)
    guess = web_rig.client()
    await guess.connect({"tg": init_data("77", start=f"m{table.id}")})
    assert await guess.ended() == 4401 and guess.received[-1]["reason"] == "not_seated"
    wrong = web_rig.client()
    await wrong.connect({"tg": init_data("77", start=f"m{table.id}_{proof[:-2]}xx")})
    assert await wrong.ended() == 4401
    looking = web_rig.client()
    await looking.connect({"tg": init_data("77", start=f"m{table.id}_{proof}")})
    st = await looking.until(lambda s: True)
    assert st["seat"] is None and st["scene"]["hand"] is None
    seated_uid = str(table.seats[1].user_id)
    mine = web_rig.client()  # a person seated needs no proof: the private chat's Mini App button
    await mine.connect({"tg": init_data(seated_uid)}, match=table.id)
    assert (await mine.until(lambda s: s["scene"]["hand"] is not None))["seat"] == 1
    web_rig.web.config = replace(web_rig.web.config, miniapp="testbot/table")
    assert web_rig.web.table_link("telegram", table.id) == (f"https://t.me/testbot/table?startapp=m{table.id}_{proof}",
                                                             "url")
    await looking.close()
    await mine.close()


async def test_a_buttons_link_changes_once_an_hour_not_at_every_redraw(web_rig: WebRig) -> None:
    """A link on a message's button that changed at each redraw would cost an edit per play."""
    now = [1_800_000_000.0]
    web_rig.web.clock = lambda: now[0]
    web_rig.web.config = replace(web_rig.web.config, telegram_token="")  # links, not Mini App buttons
    first = web_rig.web.seat_link("telegram", 5, "1")
    now[0] += 600
    assert web_rig.web.seat_link("telegram", 5, "1") == first
    assert web_rig.web.table_link("telegram", 5) == web_rig.web.table_link("telegram", 5)
    now[0] += 3600
    assert web_rig.web.seat_link("telegram", 5, "1") != first


@pytest.mark.slow(6)
async def test_a_match_forfeited_ends_on_every_page_with_its_result(web_rig: WebRig) -> None:
    """A team concedes (both its people say `forfeit`): the table closes, and every open page is
    sent the match's end, the forfeit and the levels as they stood, as the group is told it."""
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    levels = list(table.match.public_view()["levels"])
    team = table.seat_of("1") % 2
    for uid in PEOPLE:
        s = table.seat_of(uid)
        if s is not None and s % 2 == team:
            await send(web_rig, web_rig.d.command(uid, "forfeit"))
    await web_rig.host.settle()
    for c in clients.values():
        st = await c.until(lambda s: s.get("status") == "finished")
        assert st["scene"]["table"]["result"] == {"winner": 1 - team, "levels": levels, "reason": "forfeit",
                                                  "series": None, "board": None, "stopped": None,
                                                  "league": None}


async def test_a_match_abandoned_by_vote_ends_on_every_page_with_where_it_stood(web_rig: WebRig) -> None:
    """Three of the four vote `abandon` mid-hand: every open page is sent the match's end, abandoned
    by vote, nobody winning, with the levels and the defenders' points as they stood (before, the
    page kept a dead table)."""
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    pub = table.match.public_view()
    levels, hand_no = list(pub["levels"]), int(pub["hand_no"])
    for uid in PEOPLE[:3]:
        await send(web_rig, web_rig.d.command(uid, "abandon"))
    await web_rig.host.settle()
    for c in clients.values():
        st = await c.until(lambda s: s.get("status") == "abandoned")
        t = st["scene"]["table"]
        defenders = None if t["declarers"] is None else 1 - t["declarers"]
        assert t["result"] == {"winner": None, "levels": levels, "reason": "abandoned", "series": None, "board": None,
                               "stopped": {"hand_no": hand_no, "defenders": defenders, "points": t["defender_points"]},
                               "league": None}
    assert result_lines(Result(None, ("2", "2"), "abandoned", stopped=Stopped(1, 1, 35)), (), "en") == [
        "The players voted to abandon the match, in hand 1.", "Levels now: Team A 2 · Team B 2",
        "Defenders' points (Team B): 35"]


async def test_a_page_follows_a_best_of_three_to_its_next_game(web_rig: WebRig) -> None:
    """Game 1 of a best of three ends (a team concedes it) and game 2 is dealt: a page that says
    hello to game 1 again is told where the series went, with a link of that table, and that link
    opens game 2 at the person's seat (a seat by Mini App, an onlooker by the group's link);
    someone neither seated nor holding the group's link is refused as before."""
    first = await open_table(web_rig, PEOPLE, 0, new=("format=bo3",))
    team = first.seat_of("1") % 2
    for uid in PEOPLE:
        s = first.seat_of(uid)
        if s is not None and s % 2 == team:
            await send(web_rig, web_rig.d.command(uid, "forfeit"))
    await web_rig.host.settle()
    second = web_rig.host.by_chat[(web_rig.platform.name, "g1")]
    assert second.id != first.id and second.meta.series is not None and second.meta.series.previous == first.id
    for auth, seat in (({"tg": init_data("2", start=f"m{first.id}")}, first.seat_of("2")),
                       ({"link": web_rig.link(first.id, None)}, None)):
        old = web_rig.client()
        await old.connect(auth, first.id)
        assert await old.ended() == 4302
        moved = old.received[-1]
        assert moved["type"] == "moved" and moved["match"] == second.id
        new = web_rig.client()
        await new.connect({"link": moved["link"]}, second.id)
        st = await new.until(lambda s: s.get("type") == "state")
        assert st["match"] == second.id and st["seat"] == seat
    stranger = web_rig.client()
    await stranger.connect({"tg": init_data("99")}, first.id)
    assert await stranger.ended() == 4401
    assert stranger.received[-1] == {"type": "refused", "reason": "no_table"}


async def test_a_match_counted_in_the_league_ends_on_every_page_with_its_line(web_rig: WebRig) -> None:
    """Four people play a short match from their pages to its end: the chat's league counts it as it
    ends, and every page's finished scene carries the league's line (the season, where the winners
    stand now), the same the group is told. (A whole match is more acts than a socket's burst, which
    is tested on its own: its limits are raised here.)"""
    web_rig.web.limits = Limits(socket_burst=10_000, person_burst=10_000)
    table = await open_table(web_rig, PEOPLE, 0, new=("target=3",))
    clients = await seat_pages(web_rig, table.id, PEOPLE)
    for _ in range(20):
        if table.status != "active":
            break
        await play_hand(web_rig, table.id, clients, hands=int(table.match.public_view()["hand_no"]))
    assert table.status == "finished"
    winners = [uid for uid in PEOPLE if table.seat_of(uid) % 2 == table.match.result["winner_team"]]
    for c in clients.values():
        st = await c.until(lambda s: s.get("status") == "finished")
        league = st["scene"]["table"]["result"]["league"]
        assert league["season"] == 1
        assert sorted(p["name"] for p in league["places"]) == sorted(table.seats[table.seat_of(u)].name
                                                                     for u in winners)
        assert all(p["place"] in (1, 2) and (p["wins"], p["losses"]) == (1, 0) for p in league["places"])
    line = result_lines(table.screen.scenes.public().result, table.screen.scenes.public().seats, "en")[-1]
    assert line.startswith("League, season 1: ") and any(line in t for t in web_rig.platform.group_texts())
