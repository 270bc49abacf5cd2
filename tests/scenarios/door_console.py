"""The terminal door: the console's own prompt loop (`adapters.console.app._play`) on plain lines, fed
by a keyboard the scenario types on; what Ann sees is what the screen printed."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from dataclasses import dataclass

from adapters.console.app import YOU, ConsoleSession, _play
from adapters.console.lines import _first
from adapters.console.platform import NAME, ConsolePlatform
from adapters.console.screen import PlainScreen
from app.features import build_host
from bot.cardtext import cards_text
from bot.host import Host
from bot.platform import User
from engine import Match
from fakes.clock import FakeClock
from persistence.memory import MemoryStore
from tests.scenarios.doors import ANN_SEAT, NAMES, SETTINGS, Deal, write_match
from tests.scenarios.seen import Seen, hand_cards, summary_facts, table_facts

TABLE_RULE, HAND_RULE = "=" * 40, "-" * 40


class Keyboard:
    """The person's lines, one at a time, as the prompt asks for them; and what they type while the
    others play (the terminal's reader hands that to the loop after a move)."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str] = asyncio.Queue()
        self.ahead = ""
        self.asking = asyncio.Event()  # set while the prompt waits for a line

    async def read(self, wake: asyncio.Event) -> str | None:
        self.asking.set()
        line = await _first(self.lines.get(), wake)
        if line is not None:
            self.asking.clear()
        return line

    def typed_ahead(self) -> str:
        ahead, self.ahead = self.ahead, ""
        return ahead


@dataclass
class Typed:
    """A line typed while the others were playing (the terminal's choice made for an earlier turn)."""

    line: str


class ConsoleDoor:
    name = "terminal"
    people: tuple[int, ...] = (ANN_SEAT,)  # a terminal seats one person; seat 2 is an AI here
    group_lags: bool = False

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.store = MemoryStore()
        self.lang = "en"
        self.pending: Typed | None = None
        self.loop: asyncio.Task[bool] | None = None
        self.picked: tuple[str, ...] = ()
        self.told: list[str] = []  # the announcements printed

    async def open(self, deal: Deal) -> None:
        self.lang = deal.lang
        await write_match(self.store, NAME, "table-1", {ANN_SEAT: YOU}, deal)
        await self._boot()

    async def _boot(self) -> None:
        screen = PlainScreen(self.out)  # a new process writes on under the old one's lines
        self.platform = ConsolePlatform(screen, YOU)
        self.host: Host = build_host(self.store, clock=FakeClock(), defaults=SETTINGS, use_ai_threads=False)
        self.host.register(self.platform)
        await self.host.start()
        self.platform.skip_past(self.host.message_ids(NAME))
        self.session = ConsoleSession(self.host, self.platform, User(NAME, YOU, NAMES[0], self.lang))
        assert self.session.resume_latest() is not None
        await self.host.settle()
        self.keys = Keyboard()
        # the keyboard stands in for the reader (a pipe or a terminal) the loop reads its lines from
        self.loop = asyncio.create_task(_play(self.session, screen, self.keys, "classic", []))  # type: ignore[arg-type]
        await self._asked()

    async def _asked(self) -> None:
        async with asyncio.timeout(30):  # a guard only: the prompt comes back at once
            while not self.keys.asking.is_set():
                assert self.loop is not None
                if self.loop.done():
                    self.loop.result()
                    return
                await asyncio.wait({self.loop, asyncio.ensure_future(self.keys.asking.wait())},
                                   return_when=asyncio.FIRST_COMPLETED)

    async def type(self, line: str) -> None:
        """A line and Enter; back once the terminal asks for the next."""
        self.keys.asking.clear()
        self.keys.lines.put_nowait(line + "\n")
        await self._asked()

    async def restart(self) -> None:
        self.keys.asking.clear()
        self.keys.lines.put_nowait("")  # end of input: the process saves and goes
        assert self.loop is not None
        await self.loop
        await self.host.stop()
        await self._boot()

    async def play(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        assert seat == ANN_SEAT
        if self.pending is not None:
            self.keys.ahead = self.pending.line  # typed while the others answer this play
        await self.type("play " + cards_text(list(cards)))

    async def pick(self, cards: Sequence[str]) -> None:
        self.picked = tuple(cards)  # a terminal picks nothing: she types her cards with play

    async def confirm(self) -> None:
        await self.play(self.picked)

    async def draw_choice(self, cards: Sequence[str]) -> Typed:
        self.pending = Typed("play " + cards_text(list(cards)))
        return self.pending

    async def send_later(self, later: object) -> None:
        self.pending = None  # the terminal took it out when it came, before this turn was drawn

    async def keep_view(self) -> None:
        return None  # a terminal has no views to press: the screen is drawn anew at every prompt

    async def press_on(self, kept: object) -> None:
        raise AssertionError("nothing to press at a terminal")

    def lines(self) -> list[str]:
        out = []
        for line in self.out.getvalue().splitlines():
            while line.startswith("> "):
                line = line[2:]
            out.append(line)
        return out

    async def look(self, seat: int = ANN_SEAT) -> Seen:
        """The newest table and hand printed, every "!" answer, every "»" announcement."""
        assert seat == ANN_SEAT
        panels: dict[str, list[str]] = {"table": [], "hand": []}
        said: list[str] = []
        told: list[str] = []
        into: list[str] | None = None  # the panel or announcement the next plain lines belong to
        for line in self.lines():
            if line in (TABLE_RULE, HAND_RULE):
                into = panels["table" if line == TABLE_RULE else "hand"]
                into.clear()
            elif line.startswith("! "):
                said.append(line[2:])
                into = None
            elif line.startswith("» "):
                told.append(line[2:])
                into = None
            elif into is not None:
                into.append(line)
            elif line.startswith("  ") and told:
                told.append(line[2:])
        self.told = told
        turn, trick = table_facts(self.lang, "\n".join(panels["table"]))
        hand = hand_cards(self.lang, "\n".join(panels["hand"])) if panels["hand"] else None
        return Seen(turn, trick, hand, tuple(said), summary_facts(self.lang, told))

    async def group(self) -> Seen:
        seen = await self.look()
        return Seen(seen.turn, seen.trick, None, tuple(self.told), seen.summary)

    def match(self) -> Match:
        (table,) = self.host.tables.values()
        return table.game

    async def close(self) -> None:
        if self.loop is not None and not self.loop.done():
            self.keys.lines.put_nowait("")
            await self.loop
        await self.host.stop()
