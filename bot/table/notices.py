"""Private turn notices: a new message in a person's own chat when the table waits for them,
deleted once they acted.

Why a new message and not an edit: an edit does not make a phone ring, and where the platform
says `turn_notices` (Telegram) the group's table is drawn only once a trick, to stay inside the
group's 20 messages a minute, so the table cannot be what tells the next player in time. A
private chat has its own budget (about one message a second), so the notice goes at once.
A person playing on the web table is told there instead: no notice while a page of their seat is
shown, nor for `bot.live.WEB_GRACE` seconds after the last one closed or was hidden.

Nor after a play chosen from the group's inline list: the person's own client posted it ("①Ann: ♠A
→ ②Bo to play", or "→ ③Cy takes the trick" for a trick's last play) with a mention of whoever plays
next, whose client rings for it at once, without a message the bot must send (and later delete)
inside Telegram's 30 a second. A play made any other way, or a trick taken by the one who completed
it, is followed by the notice.

Why the notices are kept by the screen's redraw (`Screen.render`) and do not subscribe to `Committed`
themselves: whom the table waits for, and whether they can be told here, changes without a commit
too (a web page of the seat shown or hidden, a pause, a kick, a restart with a notice still stored,
a person who can be reached again), so a commit subscriber would still need the redraw: two paths
for one message. The redraw also decides the group's table from it: on Telegram the table is left
as it is in the middle of a trick only because the person waited for was told privately, and is
drawn when they could not be (`unnoticed`). And a notice that cannot go out marks the seat in the
table's meta (`unreachable`, so the group is told once, restarts included), which no subscriber may
write. The redraw runs as soon as the actor's queue is empty, right after the commit that made the
person waited for, so a notice is not later for it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from bot.i18n import tr
from bot.platform import PlatformError, Unreachable
from bot.platform import View as PlatformView
from bot.views import trick_text
from engine.views import Phase

if TYPE_CHECKING:
    from bot.table.context import TableCore

log = logging.getLogger(__name__)

# Phases in which one person is asked to act on their own (declaring is everyone at once, and the
# private hand's buttons show it as the cards arrive).
NOTICE_PHASES = frozenset({Phase.PLAYING, Phase.BURYING})


class NoticeScreen(Protocol):
    """What the notices need of the table's screen: the messages it keeps, and who can be reached."""

    messages: dict[str, str]

    async def unreachable(self, s: int, exc: Unreachable) -> None: ...

    def on_web(self, s: int) -> bool: ...

    def reachable(self, s: int) -> None: ...


def slot(s: int) -> str:
    return f"turn{s}"


class TurnNotices:
    """Which seats were told it is their turn, and for which turn (kept with the table's messages,
    so a restart deletes a stale notice instead of leaving it behind)."""

    def __init__(self, table: TableCore, screen: NoticeScreen) -> None:
        self.table = table
        self.screen = screen
        self.turn_of: dict[int, tuple[object, ...]] = {}  # seat -> the turn its notice is for
        # seat -> the turn whose notice could not go out (the platform is failing): not tried again
        # for that turn, so a table drawn again and again during an outage does not wait on it each time
        self.failed: dict[int, tuple[object, ...]] = {}
        # The version the last play chosen from the group's inline list was made at (set by the actor
        # as it takes that choice): its post mentioned who plays next, if it was the last move.
        self.posted_at: int | None = None
        self.posted_by: int | None = None  # and the seat that chose it
        self.in_group: dict[int, tuple[object, ...]] = {}  # seat -> the turn a post's mention told them of

    def _turn_key(self) -> tuple[object, ...]:
        pub = self.table.public()
        return (pub.get("hand_no"), pub.get("phase"), pub.get("tricks_played"), len(pub.get("trick") or ()))

    def waiting(self) -> set[int]:
        """The people the table waits for now, who should have a notice."""
        t = self.table
        if t.status != "active" or t.match is None or t.closed:
            return set()
        m = t.game
        if m.phase not in NOTICE_PHASES:
            return set()
        # a person playing on the web table is told there (one channel at a time)
        return {s for s in m.to_act() if not t.seats.ai_driven(s) and not t.seats[s].kicked
                and not self.screen.on_web(s)}

    def unnoticed(self) -> bool:
        """Whether someone the table waits for could not be told privately (blocked the bot, never
        opened it, or the platform failed): the group's table then shows it is their turn."""
        key = self._turn_key()
        unreachable = self.table.meta.unreachable
        return any(self.failed.get(s) == key or s in unreachable for s in self.waiting())

    async def update(self) -> None:
        """Delete the notices of people who acted; send one to each person now waited for."""
        t = self.table
        if not t.platform.turn_notices:
            return
        want = self.waiting()
        key = self._turn_key()
        messages = self.screen.messages
        stale: list[tuple[int, str]] = []
        for s in range(4):
            mid = messages.get(slot(s))
            if mid is None:
                continue
            known = self.turn_of.get(s)
            if s in want and (known is None or known == key):
                self.turn_of[s] = key  # after a restart: the stored notice is this turn's
                continue
            messages.pop(slot(s), None)
            self.turn_of.pop(s, None)
            stale.append((s, mid))
        for s in list(self.in_group):
            if s not in want or self.in_group[s] != key:
                del self.in_group[s]
        for s in sorted(want):
            if slot(s) in messages or self.failed.get(s) == key or self.in_group.get(s) == key:
                continue
            if self._mentioned(want):
                self.in_group[s] = key
                continue
            await self._send(s, key)
        for s, mid in stale:  # after the new notices: the person now waited for is told first
            await self._delete(s, mid)

    def _mentioned(self, want: set[int]) -> bool:
        """Whether the inline play just applied told the one person waited for now, by the mention in
        its post (`views.play_choices`): it was the only move since, the hand is still being played,
        and that person is not the one who posted it (who plays next in the trick, or who took it)."""
        m = self.table.game
        pub = self.table.public()
        return (self.posted_at is not None and m.version == self.posted_at + 1 and len(want) == 1
                and pub.get("phase") == Phase.PLAYING and self.posted_by not in want)

    async def _send(self, s: int, key: tuple[object, ...]) -> None:
        t = self.table
        try:
            mid = await t.platform.send(t.private_where(s), PlatformView(self.text(s)))
        except Unreachable as exc:
            self.failed[s] = key  # tried again once they can be reached (Screen.reachable)
            await self.screen.unreachable(s, exc)
            return
        except PlatformError:
            log.warning("table %s: turn notice for seat %s not delivered", t.id, s)
            self.failed[s] = key
            return
        self.failed.pop(s, None)
        self.screen.reachable(s)
        self.screen.messages[slot(s)] = mid
        self.turn_of[s] = key
        await t.host.store.set_message(t.id, slot(s), mid)

    async def _delete(self, s: int, mid: str) -> None:
        t = self.table
        if slot(s) not in self.screen.messages:  # (else the slot holds a newer notice already)
            await t.host.store.set_message(t.id, slot(s), None)
        try:
            await t.platform.delete(t.private_where(s), mid)
        except PlatformError:
            log.info("table %s: old turn notice %s of seat %s stays", t.id, mid, s)

    def text(self, s: int) -> str:
        t = self.table
        pub = t.public()
        lang = t.seat_lang(s)
        if pub.get("phase") == Phase.BURYING:
            return tr(lang, "notice.bury")
        trick = pub.get("trick") or []
        n = int(pub.get("tricks_played") or 0) + 1
        if not trick:
            return tr(lang, "notice.lead", n=n)
        return tr(lang, "notice.follow", n=n, trick=trick_text(trick, t.seats.infos(), lang))
