"""The web page's door: the real web table (aiohttp) on a loopback port, Ann's and Bob's pages scripted
sockets that send what the page sends (a structured act with the version it was drawn from) and keep
every frame; what each sees is the newest state frame their page draws, and the notices it shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp.test_utils import TestServer

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app.features import build_host
from bot.host import Host
from engine import Match
from fakes.clock import FakeClock
from persistence.store import SqliteStore
from tests.host.fakes import RecordingPlatform
from tests.scenarios.doors import ANN_SEAT, BOB_SEAT, SETTINGS, Deal, write_match
from tests.scenarios.seen import Seen, web_summary
from tests.web.client import Client
from tests.web.conftest import TOKEN, init_data

ANN, BOB = "1", "3"
GROUP = "g1"
USERS = {ANN_SEAT: ANN, BOB_SEAT: BOB}


@dataclass
class Drawn:
    """A play picked on the page as it showed one version."""

    cards: tuple[str, ...]
    version: int


class WebDoor:
    name = "web"
    people: tuple[int, ...] = (ANN_SEAT, BOB_SEAT)
    group_lags: bool = False

    def __init__(self, tmp: Path) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.db = str(tmp / "web.sqlite3")
        self.clock = FakeClock()
        self.pages: dict[int, list[Client]] = {s: [] for s in USERS}  # each one's page, again after each restart
        self.onlookers: list[Client] = []  # a page of the group's link, looking on
        self.session: aiohttp.ClientSession | None = None
        self.server: TestServer | None = None
        self.host: Host | None = None
        self.picked: tuple[str, ...] = ()

    async def open(self, deal: Deal) -> None:
        store = await SqliteStore.open(self.db, synchronous="OFF")
        self.match_id = await write_match(store, "telegram", GROUP, USERS, deal)
        await store.close()
        self.session = aiohttp.ClientSession()
        await self._boot()

    async def _boot(self) -> None:
        self.store = await SqliteStore.open(self.db, synchronous="OFF")
        self.host = build_host(self.store, clock=self.clock, defaults=SETTINGS, use_ai_threads=False)
        self.host.register(RecordingPlatform(name="telegram"))
        await self.host.start()
        web = WebTable(self.host, WebConfig(port=0, public_url="https://cards.test", secret=b"k" * 32,
                                            telegram_token=TOKEN))
        self.host.live.links = web
        self.server = TestServer(web.application())
        await self.server.start_server()
        assert self.session is not None
        for seat, user in USERS.items():
            page = Client(self.session, str(self.server.make_url("/ws")))
            await page.connect({"tg": init_data(user, start=f"m{self.match_id}")})
            self.pages[seat].append(page)
        self.onlooker = Client(self.session, str(self.server.make_url("/ws")))
        await self.onlooker.connect({"link": web.signer.sign("telegram", self.match_id, None)})
        self.onlookers.append(self.onlooker)
        await self.drawn()

    @property
    def page(self) -> Client:
        return self.pages[ANN_SEAT][-1]

    async def drawn(self) -> None:
        """Until the page shows the table as it is now."""
        assert self.host is not None
        await self.host.settle()
        now = self.match().version
        for page in (*(pages[-1] for pages in self.pages.values()), self.onlooker):
            await page.until(lambda st: st.get("version", 0) >= now)

    async def restart(self) -> None:
        await self._stop()  # the page loses its socket and connects again to the new process
        await self._boot()

    async def act(self, cards: Sequence[str], version: int | str = "shown", seat: int = ANN_SEAT) -> None:
        page = self.pages[seat][-1]
        key = await page.act("play", list(cards), version=version)
        await page.answer(key)
        await self.drawn()

    async def play(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        await self.act(cards, seat=seat)

    async def pick(self, cards: Sequence[str]) -> None:
        self.picked = tuple(cards)  # the page keeps what is picked itself, and sends it with Play

    async def confirm(self) -> None:
        await self.act(self.picked)

    async def draw_choice(self, cards: Sequence[str]) -> Drawn:
        return Drawn(tuple(cards), int(self.page.state["version"]))

    async def send_later(self, later: object) -> None:
        assert isinstance(later, Drawn)
        await self.act(later.cards, later.version)

    async def keep_view(self) -> int:
        return int(self.page.state["version"])

    async def press_on(self, kept: object) -> None:
        """A card of her hand played from the page as it showed the kept version (a second tab, or a
        page whose newer frames had not arrived): the page draws no buttons of its own state, so its
        press is a play."""
        assert isinstance(kept, int)
        hand = self.page.state["scene"]["hand"]["cards"]
        await self.act(hand[:1], kept)

    async def look(self, seat: int = ANN_SEAT) -> Seen:
        return self.seen(self.pages[seat][-1], self.pages[seat])

    async def group(self) -> Seen:
        return self.seen(self.onlooker, self.onlookers)

    @staticmethod
    def seen(page: Client, pages: list[Client]) -> Seen:
        state: dict[str, Any] = page.state
        scene = state["scene"]
        table = scene["table"]
        turn = tuple(table["turn"]["seats"])
        trick = tuple((int(p["seat"]), tuple(p["cards"])) for p in table["trick"])
        hand = tuple(sorted(scene["hand"]["cards"])) if scene.get("hand") else None
        said = tuple(str(n.get("text") or n.get("code")) for p in pages for n in p.notices() if not n.get("ok"))
        return Seen(turn, trick, hand, said, web_summary(table.get("summary")))

    def match(self) -> Match:
        assert self.host is not None
        (table,) = self.host.tables.values()
        return table.game

    async def _stop(self) -> None:
        for page in [p for pages in self.pages.values() for p in pages] + self.onlookers:
            await page.close()
        if self.server is not None:
            await self.server.close()
            self.server = None
        if self.host is not None:
            await self.host.stop()
            await self.store.close()
            self.host = None

    async def close(self) -> None:
        await self._stop()
        if self.session is not None:
            await self.session.close()
            self.session = None
