"""Hostile clients of the web table: floods from one socket and from one person's many sockets, nested
and oversized JSON, acts the page never sends, the page's security headers, and the links' lifetime.
Each is refused in its own words, and the table plays on as if nothing had happened.

The rate limits run on an injected clock that stands still (the flood is as fast as it can be)
and moves only when a test moves it."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace

import pytest

from adapters.web.auth import LINK_TTL, AuthError
from adapters.web.guard import Limits, depth, read_frame
from adapters.web.server import FLOODED, REFUSED, REPLACED
from bot.i18n import LANGS, tr
from bot.platform import Incoming
from tests.web.client import Client
from tests.web.conftest import WebRig, init_data, open_table

PEOPLE = ["1", "2", "3", "4"]


class Still:
    """A monotonic clock that moves only when told to."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def seat_client(rig: WebRig, match_id: int, uid: str) -> Client:
    c = rig.client()
    await c.connect({"tg": init_data(uid, start=f"m{match_id}")})
    await c.until(lambda s: s.get("version", 0) > 0)
    return c


async def flood(c: Client, frames: int, text: str) -> int:
    """Sends `frames` frames as fast as the socket takes them; how many left before it broke."""
    assert c.ws is not None
    sent = 0
    with contextlib.suppress(ConnectionError, RuntimeError):
        for _ in range(frames):
            if c.ws.closed:
                break
            await c.ws.send_str(text)
            sent += 1
    return sent


async def answered(c: Client, frame: str | bytes) -> None:
    """Sends a frame and waits for the notice it gets."""
    assert c.ws is not None
    before = len(c.notices())
    await (c.ws.send_str(frame) if isinstance(frame, str) else c.ws.send_bytes(frame))
    await c._wait(lambda: c.notices()[before:] or None, 5)


def refused(c: Client) -> list[str]:
    return [m["reason"] for m in c.received if m.get("type") == "refused"]


async def test_a_flood_from_one_socket_is_cut_off_and_the_table_plays_on(web_rig: WebRig) -> None:
    clock = Still()
    web_rig.web.monotonic = clock
    limits = web_rig.web.limits
    table = await open_table(web_rig, PEOPLE, 0)
    others = [await seat_client(web_rig, table.id, uid) for uid in PEOPLE[1:]]
    c = await seat_client(web_rig, table.id, "1")
    version = table.match.version
    handled: list[Incoming] = []
    handle = web_rig.host.handle

    async def counted(event: Incoming) -> None:
        handled.append(event)
        await handle(event)

    web_rig.host.handle = counted  # type: ignore[method-assign]
    act = json.dumps({"t": "act", "a": "play", "cards": ["AS"], "key": "f"})
    await flood(c, 5000, act)
    assert await c.ended() == FLOODED
    assert refused(c) == ["flood"]
    # the hello took one frame of the burst; the acts inside the limit reached the table (and were refused there)
    assert len(handled) == limits.socket_burst - 1
    assert not any(m["ok"] for m in c.notices())
    await web_rig.host.settle()
    assert table.match.version == version and table.status == "active"
    # the others play on, and the person comes back once the burst has refilled
    clock.t += limits.socket_burst / limits.socket_rate + limits.person_burst / limits.person_rate
    again = await seat_client(web_rig, table.id, "1")
    assert again.state["version"] == table.match.version
    m = table.match
    s = m.to_act()[0]
    move = m.auto_action(s, rng_seed=m.version)
    clients = {table.seat_of("1"): again, **{table.seat_of(uid): o for uid, o in zip(PEOPLE[1:], others, strict=True)}}
    key = await clients[s].act(move.t, list(getattr(move, "cards", ())))
    assert (await clients[s].answer(key))["ok"]
    for x in [again, *others]:
        await x.close()


async def test_a_person_floods_through_many_sockets(web_rig: WebRig) -> None:
    """Each socket stays under its own limit; together they pass the person's, and are cut off."""
    web_rig.web.monotonic = Still()
    limits = web_rig.web.limits
    table = await open_table(web_rig, PEOPLE, 0)
    sockets = [await seat_client(web_rig, table.id, "2") for _ in range(4)]
    hint = json.dumps({"t": "act", "a": "bogus", "key": "h"})
    per_socket = int(limits.socket_burst) - 2
    assert len(sockets) + 2 * per_socket == limits.person_burst
    for c in sockets:  # one after the other: each answered in full (or closed) before the next
        await flood(c, per_socket, hint)
        await c._wait(lambda c=c: True if len(c.notices()) >= per_socket else None, 5)
    # 4 hellos and 2 x 28 frames spend the person's 60: the next socket to send is cut off at once
    assert [len(c.notices()) for c in sockets] == [per_socket, per_socket, 0, 0]
    assert [await c.ended() for c in sockets[2:]] == [FLOODED, FLOODED]
    assert all(m["code"] == "bad_act" for c in sockets for m in c.notices())
    # a burst of reconnects by the same person is refused too, and the table is untouched
    late = web_rig.client()
    await late.connect({"tg": init_data("2", start=f"m{table.id}")})
    assert await late.ended() == FLOODED and refused(late) == ["flood"]
    assert table.status == "active"
    for c in sockets:
        await c.close()


async def test_one_socket_too_many_closes_the_oldest(web_rig: WebRig) -> None:
    web_rig.web.limits = Limits(person_sockets=3)
    table = await open_table(web_rig, PEOPLE, 0)
    sockets = [await seat_client(web_rig, table.id, "3") for _ in range(4)]
    assert await sockets[0].ended() == REPLACED and refused(sockets[0]) == ["replaced"]
    assert all(not c.ws.closed for c in sockets[1:] if c.ws is not None)
    for c in sockets[1:]:
        await c.close()


async def test_nested_and_oversized_frames_are_refused_cleanly(web_rig: WebRig) -> None:
    table = await open_table(web_rig, PEOPLE, 0)
    c = await seat_client(web_rig, table.id, "1")
    assert c.ws is not None
    for text in ("[" * 10_000, "{\"t\": \"act\", \"a\": \"play\", \"cards\": " + "[" * 100 + "]" * 100 + "}",
                 "not json", "[1, 2]", json.dumps({"t": "act", "a": "play", "cards": ["AS"] * 400})):
        await answered(c, text)
        assert c.notices()[-1]["code"] == "bad_frame", text[:40]
    await answered(c, b"\x00\x01")
    assert c.notices()[-1]["code"] == "bad_frame" and not c.ws.closed
    # the socket is still the page's: a play from it is answered by the table
    key = await c.act("play", ["XX"])
    assert (await c.answer(key)).get("code") is None
    # past the socket's size limit: closed as WebSocket says (1009, message too big)
    await c.ws.send_str("[" * 20_000)
    assert await c.ended() == 1009
    # a nested hello or replay is refused like any malformed one
    hello = web_rig.client()
    hello.ws = await web_rig.session.ws_connect(hello.url)
    await hello.ws.send_str("{\"t\": \"hello\", \"auth\": " + "[" * 5000 + "]" * 5000 + "}")
    msg = await hello.ws.receive_json()
    assert msg == {"type": "refused", "reason": "malformed"}
    await hello.ws.receive()
    assert hello.ws.close_code == REFUSED
    url = web_rig.server.make_url("/replay")
    async with web_rig.session.post(url, data="[" * 10_000, headers={"Content-Type": "application/json"}) as r:
        assert r.status == 400 and (await r.json()) == {"error": "malformed"}
    async with web_rig.session.post(url, data="[" * 20_000) as r:
        assert r.status == 400
    assert table.status == "active"


def test_nesting_is_counted_without_parsing() -> None:
    assert depth('{"t": "act", "cards": ["AS"]}') == 2
    assert depth('{"auth": {"tg": "a[[[[{{{{"}}') == 2  # brackets in strings do not count
    assert depth('{"a": "\\"[[[["}') == 1
    assert depth("[" * 10_000) == 10_000
    with pytest.raises(ValueError):
        read_frame("[" * 10_000, 4)


async def test_every_refusal_has_its_own_code_and_words(web_rig: WebRig) -> None:
    table = await open_table(web_rig, PEOPLE, 0)
    c = await seat_client(web_rig, table.id, "1")
    onlooker = web_rig.client()
    await onlooker.connect({"link": web_rig.link(table.id, None)})
    await onlooker.until(lambda s: True)
    codes = {}
    for i, (frame, want) in enumerate([({"a": "fly"}, "bad_act"), ({"a": "play", "cards": "AS"}, "bad_cards"),
                        ({"a": "play", "cards": [1, 2]}, "bad_cards"), ({"a": "play", "cards": ["AS"], "v": "x"}, "bad_version"),
                        ({"a": "play", "cards": ["AS"], "v": -1}, "bad_version"), ({"t": "other"}, "bad_frame")]):
        assert c.ws is not None
        key = f"k{i}"
        await c.ws.send_json({"t": "act", **frame, "key": key})
        answer = await c.answer(key)
        assert not answer["ok"] and answer["code"] == want, (frame, answer)
        codes[want] = answer["text"]
    key = await onlooker.act("play", ["AS"])
    answer = await onlooker.answer(key)
    assert answer["code"] == "onlooker"
    codes["onlooker"] = answer["text"]
    assert "not_seated" not in codes
    # each its own words, in every language, none the link refusal's
    for lang in LANGS:
        texts = {code: tr(lang, f"web.refused_{code}") for code in
                 [*codes, "flood", "replaced", "forged", "malformed", "expired", "no_table", "not_seated"]}
        assert all(t and not t.startswith("web.") for t in texts.values()), texts
        assert len(set(texts.values())) == len(texts), texts
    assert codes["onlooker"] == tr("en", "web.refused_onlooker")
    await c.close()
    await onlooker.close()


async def test_the_page_has_a_content_security_policy(web_rig: WebRig) -> None:
    async with web_rig.session.get(web_rig.server.make_url("/")) as r:
        policy = r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
    rules = dict([*part.split(" ", 1), ""][:2] for part in policy.split("; "))
    assert rules["default-src"] == "'none'"
    assert rules["script-src"] == "'self' https://telegram.org"
    assert "unsafe" not in policy and "connect-src" in rules and rules["base-uri"] == "'none'"


async def test_a_link_lasts_twelve_hours_from_signing(web_rig: WebRig) -> None:
    """Not from the start of the hour: a link signed at 10:59 lasts until 22:59."""
    now = [1_800_000_000.0 + 3540]  # 59 minutes into an hour
    web_rig.web.clock = lambda: now[0]
    web_rig.web.config = replace(web_rig.web.config, telegram_token="")
    signed = now[0]
    link = web_rig.web.seat_link("telegram", 5, "1")
    assert link is not None
    token = link[0].split("#k=")[1].replace("%3D", "=")
    assert LINK_TTL == 12 * 3600
    assert web_rig.web.signer.check(token, now=signed + LINK_TTL - 1).match_id == 5
    with pytest.raises(AuthError):
        web_rig.web.signer.check(token, now=signed + LINK_TTL + 1)
    # a button's link is signed anew at most once an hour: the one drawn later still has 11 h or more
    now[0] += 3599
    assert web_rig.web.seat_link("telegram", 5, "1") == link
    now[0] += 2
    later = web_rig.web.seat_link("telegram", 5, "1")
    assert later != link and later is not None
    assert web_rig.web.signer.check(later[0].split("#k=")[1], now=now[0] + LINK_TTL - 1).user_id == "1"
