"""Who gets their hand by direct message (`/tractor dm on`), kept in the host's journal.

The choice must outlive the process, and with several workers on one database it must reach the
worker that drives the person's table, which need not be the one that received the command. So
the journal, not this process, is the truth: a change is written as "add (or drop) this person"
applied to what the journal holds at that moment (`Host.update_journal`, one step of the store),
so two workers writing at once both land; and a worker reads the journal again before a hand goes
out when its copy is older than `FRESH_S`, or at once when the person has just pressed "My hand"
(a human's pace, and the moment a stale copy would show). A host without a journal (unit tests)
keeps the choices in memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

JOURNAL = "dm"  # the host's journal entry: {"users": ["<user id>", ...]}
FRESH_S = 5.0  # a copy of the journal this old is read again before a hand goes out


class Journal(Protocol):
    """What of the host this needs (bot.host.Host)."""

    async def load_journal(self, platform: str, name: str) -> dict[str, Any]: ...

    async def update_journal(self, platform: str, name: str,
                             change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]: ...


def users_in(journal: dict[str, Any]) -> set[int]:
    """The user ids a journal names (anything malformed is skipped: it was written by hand)."""
    users = journal.get("users", [])
    return {int(u) for u in users if str(u).isdigit()} if isinstance(users, list) else set()


def _with(user_id: int, on: bool) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The change of one person's choice, to apply to the journal as it is when written."""
    def change(journal: dict[str, Any]) -> dict[str, Any]:
        users = users_in(journal)
        if on:
            users.add(user_id)
        else:
            users.discard(user_id)
        return {**journal, "users": sorted(str(u) for u in users)}
    return change


class DmChoices:
    """This worker's copy of the DM choices, read again from the journal when it may be stale."""

    def __init__(self, journal: Journal | None = None, platform: str = "discord", *,
                 clock: Callable[[], float] = time.monotonic, fresh_s: float = FRESH_S) -> None:
        self.journal = journal
        self.platform = platform
        self.clock = clock
        self.fresh_s = fresh_s
        self.users: set[int] = set()
        self._read_at: float | None = None  # when the copy was last read (None: never)
        self._lock = asyncio.Lock()  # one read or write at a time: an older copy never lands last

    async def load(self) -> None:
        """Reads the journal now (at login: the choices made before a restart)."""
        if self.journal is None:
            return
        async with self._lock:
            try:
                found = await self.journal.load_journal(self.platform, JOURNAL)
            except Exception:  # the store is failing: keep the copy, try again after `fresh_s`
                log.warning("discord: DM choices not read", exc_info=True)
                found = None
            self._read_at = self.clock()
            if found is not None:
                self.users = users_in(found)

    async def wants_dm(self, user_id: int, *, now: bool = False) -> bool:
        """Whether this person's hand goes by DM; `now`: read the journal first, however fresh."""
        if self.journal is not None and (now or self._read_at is None
                                         or self.clock() - self._read_at >= self.fresh_s):
            await self.load()
        return user_id in self.users

    async def choose(self, user_id: int, on: bool) -> None:
        """Records one person's choice here and in the journal, leaving everyone else's as written."""
        if on:
            self.users.add(user_id)
        else:
            self.users.discard(user_id)
        if self.journal is None:
            return
        async with self._lock:
            try:
                written = await self.journal.update_journal(self.platform, JOURNAL, _with(user_id, on))
            except Exception:  # the store is closing or failing: the choice stays in this copy
                log.warning("discord: DM choice of %s not written", user_id, exc_info=True)
                return
            self.users = users_in(written)
            self._read_at = self.clock()
