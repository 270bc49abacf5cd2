"""A door as the scenarios drive it: the people of a table of a known deal, and AIs in the other seats.

Ann (seat 0) sits at every door; where a door seats more than one person (the chats, the web page)
her partner Bob (seat 2) is a person too and plays through the door as she does; at the terminal,
which seats one person, seat 2 is an AI. Every door puts the same match in its store (the same seed
and the same actions so far, as a bot restarted mid-match finds it), boots the real host behind its
real adapter against its fake, and then lets the scenario act as each person the way a person does
at that door and read back what each one sees (`Seen`). The AIs make the engine's quick move on the
loop (no worker threads), and Bob the same move an AI would make in his seat, so a deal plays the
same at every door.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import engine
from bot.settings import TableSettings
from engine import Match
from tests.scenarios.seen import Seen

# No timers: the table waits for Ann, as long as she takes; nothing moves unless someone acts.
SETTINGS = TableSettings(deal=0, declare=0, bury=0, turn=0, next=0, lobby=0, away_after=0)
NAMES = ("Ann", "Cy", "Bob", "Di")  # by seat: Bob sits across from Ann, her partner
PRESET = "classic"


@dataclass(frozen=True)
class Deal:
    """A match so far: its seed, its actions, and the language Ann (and her group) read."""

    seed: int
    actions: tuple[dict[str, Any], ...]
    lang: str = "en"

    def match(self) -> Match:
        return Match.replay(engine.preset(PRESET), self.seed, self.actions)


def deal_until(seed: int, stop: Callable[[Match], bool], lang: str = "en") -> Deal:
    """The match of `seed` played by the engine's quick moves until `stop` holds."""
    m = Match.new(engine.preset(PRESET), seed)
    for _ in range(2000):
        if stop(m):
            return Deal(seed, tuple(a.to_json() for a in m.actions), lang)
        acting = m.to_act()
        m.apply(m.auto_action(acting[0], rng_seed=m.version) if acting else m.system_action())  # type: ignore[arg-type]
    raise AssertionError("the deal never came to that")


ANN_SEAT, BOB_SEAT = 0, 2


def seats(people: dict[int, str], lang: str) -> list[dict[str, Any]]:
    """People in the seats of `people` (seat -> their user id), AIs in the others."""
    return [{"kind": "human", "user_id": people[s], "name": NAMES[s], "lang": lang, "away": False, "timeouts": 0}
            if s in people else {"kind": "ai", "name": NAMES[s], "level": "random"} for s in range(4)]


async def write_match(store: Any, platform: str, chat_id: str, people: dict[int, str], deal: Deal) -> int:
    """The match as the store keeps it, ready for a host to resume; `people`: seat -> user id."""
    await store.set_chat(platform, chat_id, {"lang": deal.lang})
    ann = people[ANN_SEAT]
    meta = {"preset": PRESET, "creator": ann, "creator_name": NAMES[0], "options": "", "settings": SETTINGS.to_dict()}
    mid = int(await store.create_match(platform, chat_id, engine.preset(PRESET).to_dict(), seats(people, deal.lang),
                                       deal.seed, meta, status="active"))
    for i, action in enumerate(deal.actions):
        await store.append_action(mid, i, action, None)
    return mid


class Later(Protocol):
    """A choice drawn at one turn and sent at another (what the door kept of it)."""


class Door(Protocol):
    """One front door, driven as its people use it: Ann (seat 0) and, where it seats more than one
    person, Bob (seat 2). A method without `seat` acts or looks as Ann."""

    name: str
    people: tuple[int, ...]  # the seats people sit in at this door (the others are AIs)
    group_lags: bool  # the group's table is drawn once a trick; who is waited for is told privately

    async def open(self, deal: Deal) -> None:
        """The match in the door's store, the bot booted on it, Ann looking at it."""

    async def restart(self) -> None:
        """The bot process stops and a new one starts on the same store and the same platform."""

    async def play(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        """The person in `seat` plays `cards` the way a person does at this door; returns once answered."""

    async def pick(self, cards: Sequence[str]) -> None:
        """Ann picks `cards` without playing them yet (where the door keeps picks: the chats' hands)."""

    async def confirm(self) -> None:
        """Ann plays what she picked."""

    async def draw_choice(self, cards: Sequence[str]) -> Later:
        """Ann picks `cards` from what the door shows now, but the choice reaches the bot only later."""

    async def send_later(self, later: Later) -> None:
        """The choice drawn earlier reaches the bot now."""

    async def keep_view(self) -> Later | None:
        """What Ann's client shows now, kept to press on later (None: the door draws no view to press)."""

    async def press_on(self, kept: Later) -> None:
        """Ann presses a card on the view kept earlier, which her client still showed."""

    async def look(self, seat: int = ANN_SEAT) -> Seen:
        """What the person in `seat` sees now (where a hand shows only when asked for, they ask for it);
        `said`: what they alone were told."""

    async def group(self) -> Seen:
        """What the others see: the group's table and everything said in public (the web page: an
        onlooker's page; the terminal: its one screen, whose announcements are public)."""

    def match(self) -> Match:
        """The match as the door's bot holds it: never what Ann sees, only what she should (the engine
        moved on by what the bot committed), and to say that nothing was played."""

    async def close(self) -> None: ...
