"""A host on SQLite with the web table served on a loopback port, and scripted web clients."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from adapters.web.auth import sign_init_data
from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from bot.scene.build import table_scene
from bot.scene.types import Clock, SeatInfo, Trick
from bot.scene.wire import scene_json
from engine import Match, Rules
from tests.host.conftest import FAST, Rig, make_rig
from tests.host.fakes import RecordingPlatform
from tests.host.leaks import cards_in
from tests.web.client import Client

TOKEN = "123456:TEST-token"


def init_data(uid: str, *, start: str = "", auth_date: int | None = None, token: str = TOKEN) -> str:
    import time
    fields = {"auth_date": str(int(time.time()) if auth_date is None else auth_date),
              "query_id": "AAF", "user": json.dumps({"id": int(uid), "first_name": f"P{uid}", "language_code": "en"})}
    if start:
        fields["start_param"] = start
    return sign_init_data(fields, token)


@dataclass
class WebRig(Rig):
    web: WebTable
    server: TestServer
    session: aiohttp.ClientSession

    def client(self) -> Client:
        return Client(self.session, str(self.server.make_url("/ws")))

    def link(self, match_id: int, uid: str | None) -> str:
        return self.web.signer.sign(self.platform.name, match_id, uid)


async def make_web_rig(platform_name: str = "telegram", settings: Any = FAST, *, turn_notices: bool = False,
                       seed: int = 7) -> WebRig:
    rig = await make_rig(settings, seed=seed, platform=RecordingPlatform(name=platform_name, turn_notices=turn_notices))
    web = WebTable(rig.host, WebConfig(port=0, public_url="https://cards.test", secret=b"k" * 32, telegram_token=TOKEN))
    rig.host.live.links = web
    server = TestServer(web.application())
    await server.start_server()
    return WebRig(rig.host, rig.store, rig.platform, rig.clock, rig.d, web, server, aiohttp.ClientSession())


@pytest.fixture
async def web_rig() -> AsyncIterator[WebRig]:
    r = await make_web_rig()
    yield r
    await r.session.close()
    await r.server.close()
    await r.host.stop()
    await r.store.close()


async def leaks(rig: Rig, match_id: int, clients: dict[int | None, Client] | dict[int | None, list[str]]) -> list[str]:
    """Every state sent that is not the engine's own state at its version, or that shows a card its
    reader may not know (another seat's hand, the kitty to anyone but the seat burying it)."""
    stored = await rig.store.get_match(match_id)
    rules = Rules.from_dict(stored.rules)
    problems: list[str] = []
    cache: dict[int, Match] = {}
    finals = final_tricks(rules, stored.seed, stored.actions)
    for seat, c in clients.items():
        for raw in (c if isinstance(c, list) else c.raw):
            msg = json.loads(raw)
            if msg.get("type") != "state":
                if cards_in(msg):
                    problems.append(f"seat {seat}: cards in {raw[:200]}")
                continue
            v = msg.get("version", 0)
            scene = dict(msg["scene"])
            table = scene.pop("table")
            if table["phase"] is None:  # the lobby: nothing dealt, nothing to show
                if cards_in(msg):
                    problems.append(f"seat {seat}: cards in the lobby")
                continue
            if v not in cache:
                cache[v] = Match.replay(rules, stored.seed, stored.actions[:v])
            m = cache[v]
            pub = m.public_view()
            allowed = cards_in(pub)
            # the frame's table is the scene of the engine's own public view at that version
            infos = [SeatInfo(f["name"], f["is_ai"], f["away"]) if f["taken"] else None for f in table["seats"]]
            clock = table["turn"]["clock"]
            want = scene_json(table_scene(pub, match_id=match_id, status=table["status"], preset=table["preset"],
                                          seats=infos, clock=Clock(clock["kind"], clock["seconds"]) if clock else None,
                                          next_dealer=m.next_dealer(), final_trick=finals.get(int(pub["hand_no"]) - 1)))
            if table != want:
                problems.append(f"seat {seat}: version {v} is not the engine's state there")
            hand = scene.pop("hand", None)
            if seat is None and hand is not None:
                problems.append(f"onlooker got a hand at version {v}")
            if seat is not None and hand is not None:
                view = m.view(seat)
                if hand["cards"] != list(view["hand"]):
                    problems.append(f"seat {seat}: a hand that is not its own at version {v}")
                if hand["kitty"] is not None and hand["kitty"] != list(view.get("kitty") or []):
                    problems.append(f"seat {seat}: a kitty it may not see at version {v}")
                if hand["buried"] is not None and hand["buried"] != list(view.get("buried") or []):
                    problems.append(f"seat {seat}: buried cards it may not see at version {v}")
                # its buttons name only its own cards
                own = set(view["hand"]) | set(view.get("kitty") or [])
                if set(cards_in(hand["choices"])) - own:
                    problems.append(f"seat {seat}: options name cards not its own at version {v}")
            extra = cards_in(scene) - allowed
            if extra:
                problems.append(f"seat {seat}: {sorted(extra.elements())} at version {v}")
    return problems


def final_tricks(rules: Rules, seed: int, actions: list[Any]) -> dict[int, Trick | None]:
    """Each finished hand's last trick, as the engine showed it when the hand ended."""
    m = Match.replay(rules, seed, [])
    out: dict[int, Trick | None] = {}
    for a in actions:
        m.apply(a)
        if m.phase in ("hand_over", "match_over"):
            pub = m.public_view()
            out[int(pub["hand_no"])] = table_scene(pub, match_id=0, status="active", preset="", seats=[]).last_trick
    return out


async def open_table(rig: Rig, humans: list[str], bots: int = 0, *, new: tuple[str, ...] = ()) -> Any:
    """`new` (with `new`'s arguments) by the first person, the others join, AIs fill, start (as
    tests/host does, on this platform)."""
    from tests.host.helpers import send
    await send(rig, rig.d.command(humans[0], "new", *new))
    for uid in humans[1:]:
        await send(rig, rig.d.command(uid, "join"))
    for _ in range(bots):
        await send(rig, rig.d.command(humans[0], "addbot"))
    await send(rig, rig.d.command(humans[0], "start"))
    table = rig.host.by_chat[(rig.platform.name, "g1")]
    assert table.status == "active"
    return table


async def seat_pages(rig: WebRig, match_id: int, people: list[str]) -> dict[int | None, Client]:
    """Each person's page opened on the table as a Telegram Mini App, by seat, once it shows the table."""
    table = rig.host.tables[match_id]
    pages: dict[int | None, Client] = {}
    for uid in people:
        c = rig.client()
        await c.connect({"tg": init_data(uid, start=f"m{match_id}")})
        pages[table.seat_of(uid)] = c
    for c in pages.values():
        await c.until(lambda st: st.get("version", 0) > 0)
    return pages
