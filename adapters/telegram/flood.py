"""Flood control: when may the next message go to a chat without a 429.

Telegram counts sends and edits: about one a second per chat (short bursts
allowed), 20 a minute per group, 30 a second overall. The gate keeps a token
bucket per chat, a sliding minute per group and a sliding second overall,
and honours a `retry_after` Telegram still hands back.

A message is counted when it is handed to the client (`take`) and counted
again, in its place, when Telegram's answer comes back (`arrived`): Telegram
counts it on arrival, somewhere between the two, so a burst that takes a few
hundred milliseconds to leave must not let the next burst start a second
after the first request left.

Telegram keeps counting across a restart of the bot, so the gate's counts go
into a journal (`journal`/`restore`, kept in the store by the runner) several
times a second; a restarted bot goes on from it instead of spending a group's
minute twice.

Several workers of one bot each have a gate, and Telegram counts them all: with
`shared` set, a message also needs its place in the budgets every worker shares
(shared_flood.py) before it goes.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.telegram.config import FloodLimits
from adapters.telegram.shared_flood import Place, SharedBudget

_EPSILON = 0.001
_QUEUE_POLL = 0.01  # (Telegram seconds) how soon an edit behind another in line looks again


@dataclass
class _Bucket:
    tokens: float
    at: float


class Stamp:
    """When one message was counted; moved later when its answer comes back."""

    __slots__ = ("at", "chat_id", "place")

    def __init__(self, chat_id: int, at: float, place: Place | None = None) -> None:
        self.chat_id = chat_id
        self.at = at
        self.place = place  # in the workers' shared budgets


@dataclass
class GateStats:
    """How long messages waited at the gate, by the limit that held them (benchmarks, operators):
    "chat" (the chat's one a second), "group" (its minute), "bot" (the bot's second: new messages),
    "bot edits" (the share edits may use of it), "bot lazy" (lazy edits' share), "held" (a retry_after), "shared" (other workers)."""

    waits: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, reason: str, seconds: float) -> None:
        self.waits[reason] = self.waits.get(reason, 0) + 1
        self.seconds[reason] = self.seconds.get(reason, 0.0) + seconds


class FloodGate:
    """Shared by every chat's outbox; all times here are real seconds."""

    def __init__(self, limits: FloodLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._buckets: dict[int, _Bucket] = {}
        self._groups: dict[int, deque[Stamp]] = {}
        self._overall: deque[Stamp] = deque()
        self._held: dict[int, float] = {}
        self.shared: SharedBudget | None = None
        self.stats = GateStats()
        # chats whose edit waits for the bot's second, in the order they began to wait (a dict keeps
        # it: a chat is added when it starts waiting and removed when it goes): waiting for nothing else
        self._queue: dict[int, bool] = {}

    def delay(self, chat_id: int, *, edit: bool = False, lazy: bool = False) -> float:
        """How long to wait before a message to `chat_id` fits every limit (0: now).

        An edit of a group message must also leave room for announcements; an edit must leave room
        in the bot's second for new messages, and a lazy one (`Outgoing.lazy`) for the other edits.
        """
        return self._delay(chat_id, edit, lazy)[0]

    def _delay(self, chat_id: int, edit: bool, lazy: bool = False) -> tuple[float, str]:
        """The wait, and the limit that sets it."""
        lim, now = self.limits, self.clock()
        second = lim.scale
        bucket = self._bucket(chat_id, now)
        waits = [(self._held.get(chat_id, 0.0) - now, "held")]
        if bucket.tokens < 1.0:
            waits.append(((1.0 - bucket.tokens) / lim.chat_per_second * second, "chat"))
        if chat_id < 0:
            window = self._groups.setdefault(chat_id, deque())
            _prune(window, now - 60.0 * second)
            cap = lim.group_edits_per_minute if edit else lim.group_per_minute
            if len(window) >= cap:
                waits.append((_nth_latest(window, cap).at + 60.0 * second - now, "group"))
        _prune(self._overall, now - second)
        cap = lim.global_per_second
        if edit:
            cap = lim.global_group_edits_per_second if chat_id < 0 else lim.global_edits_per_second
            if lazy:
                cap = min(cap, lim.global_lazy_edits_per_second)
        if len(self._overall) >= cap:
            waits.append((_nth_latest(self._overall, cap).at + second - now,
                          "bot" if len(self._overall) >= lim.global_per_second else "bot lazy" if lazy else "bot edits"))
        if edit and not lazy and self._behind(chat_id):
            # edits take the bot's second in the order they began to wait for it: the group's table,
            # whose share is smaller, is not passed for good by a stream of private hands
            nxt = self._overall[0].at + second - now if self._overall else 0.0
            waits.append((max(nxt, _QUEUE_POLL * second), "bot edits"))
        wait, reason = max(waits)
        return (wait + _EPSILON, reason) if wait > 0 else (0.0, reason)

    def _behind(self, chat_id: int) -> bool:
        """Whether an edit of another chat began waiting for the bot's second before this chat's did
        (and waits for nothing else now)."""
        for chat, for_bot in self._queue.items():  # the oldest first: stops at the first that decides
            if chat == chat_id:
                return False
            if for_bot:
                return True
        return False

    def take(self, chat_id: int) -> Stamp:
        """Count one message to `chat_id` as sent now."""
        now = self.clock()
        self._bucket(chat_id, now).tokens -= 1.0
        stamp = Stamp(chat_id, now)
        if chat_id < 0:
            self._groups.setdefault(chat_id, deque()).append(stamp)
        self._overall.append(stamp)
        return stamp

    def arrived(self, stamp: Stamp) -> None:
        """Telegram answered the message counted by `stamp`: count it from now on (it arrived
        at the latest now), so the windows never hold fewer messages than Telegram's."""
        if stamp.place is not None and self.shared is not None:
            self.shared.arrived(stamp.place)
        now = self.clock()
        if now <= stamp.at:
            return
        stamp.at = now
        windows = [self._overall]
        if stamp.chat_id < 0 and stamp.chat_id in self._groups:
            windows.append(self._groups[stamp.chat_id])
        for window in windows:
            try:
                window.remove(stamp)  # still inside the window: move it to its new place, the end
            except ValueError:
                continue
            window.append(stamp)

    def hold(self, chat_id: int, telegram_seconds: float) -> None:
        """Telegram said retry_after: nothing more to this chat until then."""
        until = self.clock() + telegram_seconds * self.limits.scale
        self._held[chat_id] = max(self._held.get(chat_id, 0.0), until)

    async def acquire(self, chat_id: int, *, edit: bool = False,
                      kind: Callable[[], tuple[bool, bool]] | None = None) -> Stamp:
        """Wait until a message to `chat_id` fits (this worker's limits, then every worker's), then
        count it. `kind`, when given, says each time it is asked whether what would go now is an edit
        and a lazy one (what a chat's outbox holds changes while it waits)."""
        try:
            while True:
                if kind is not None:
                    edit, lazy = kind()
                else:
                    lazy = False
                wait, reason = self._delay(chat_id, edit, lazy)
                if wait <= 0:
                    break
                if edit and not lazy and reason in ("bot edits", "bot"):
                    self._queue[chat_id] = True  # a chat already in line keeps its place
                elif chat_id in self._queue:
                    self._queue[chat_id] = False  # held by something else now: not ahead
                self.stats.add(reason, wait)
                await asyncio.sleep(wait)
        finally:
            self._queue.pop(chat_id, None)
        if self.shared is not None:
            asked = self.clock()
            place: Place | None = await self.shared.place(chat_id)
            if (waited := self.clock() - asked) > 0:
                self.stats.add("shared", waited)
        else:
            place = None
        stamp = self.take(chat_id)
        stamp.place = place
        return stamp

    def journal(self, wall: float) -> dict[str, Any]:
        """What Telegram still counts, in wall-clock seconds, for a restarted bot to go on from:
        the messages of each group's last minute, the bot's last second and any retry_after."""
        now, second = self.clock(), self.limits.scale

        def walls(window: deque[Stamp], span: float) -> list[float]:
            return [round(wall - (now - s.at), 3) for s in window if s.at > now - span]

        groups = {str(c): w for c, window in self._groups.items() if (w := walls(window, 60.0 * second))}
        held = {str(c): round(wall + (until - now), 3) for c, until in self._held.items() if until > now}
        return {"groups": groups, "overall": walls(self._overall, second), "held": held}

    def restore(self, journal: dict[str, Any], wall: float) -> None:
        """Count again what the journal says was sent before the restart (and is still counted)."""
        now = self.clock()
        for chat, stamps in dict(journal.get("groups") or {}).items():
            window = self._groups.setdefault(int(chat), deque())
            for at in sorted(float(x) for x in stamps):
                window.append(Stamp(int(chat), now - (wall - at)))
        for at in sorted(float(x) for x in journal.get("overall") or ()):
            self._overall.append(Stamp(0, now - (wall - at)))
        for chat, until in dict(journal.get("held") or {}).items():
            self._held[int(chat)] = max(self._held.get(int(chat), 0.0), now + (float(until) - wall))

    def _bucket(self, chat_id: int, now: float) -> _Bucket:
        lim = self.limits
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            bucket = self._buckets[chat_id] = _Bucket(float(lim.chat_burst), now)
        refill = (now - bucket.at) / lim.scale * lim.chat_per_second
        bucket.tokens = min(float(lim.chat_burst), bucket.tokens + refill)
        bucket.at = now
        return bucket


def _prune(window: deque[Stamp], older_than: float) -> None:
    while window and window[0].at <= older_than:
        window.popleft()


def _nth_latest(window: deque[Stamp], n: int) -> Stamp:
    """The stamp that must leave the window before one more message fits (n = the cap)."""
    return window[len(window) - n]
