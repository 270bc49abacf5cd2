"""Tournaments and duplicate events whose next match should have opened while their worker was down.

With one process, a restart's whole start moves them on (`Host.start`). With several workers
nobody starts whole: a worker that dies after a tournament's match (or an event's board) ended
but before it opened the next leaves the tournament waiting, with no table for any worker to take.

So a worker that ends a table keeps its lease until it has moved the tournament or event on
(`Host.moving_on`), and a chat with no open match and no live lease on any of its matches has
nobody moving it on: its owner died in between (its life lock, or its lease, is gone). Every few
beats one worker at a time (a transaction lock in the database) looks for such chats among the
running tournaments and events, and does what a restart does for them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)


class Watch(Protocol):
    """What this needs of the workers' shared state (persistence.postgres_cluster.ClusterLink)."""

    def sole(self, what: str) -> contextlib.AbstractAsyncContextManager[bool]: ...

    async def unattended(self, chats: Collection[tuple[str, str]]) -> set[tuple[str, str]]: ...


async def move_on(host: Host, link: Watch) -> list[str]:
    """Moves on what nobody moves on; what it moved ("tournament 3", "event 5"), [] when another worker looks now."""
    async with link.sole("move-on") as mine:
        if not mine:
            return []
        chats = await host.waiting_chats()
        idle = (await link.unattended(chats)) - set(host.by_chat) if chats else set()
        if not idle:
            return []
        moved = await host.move_features_on(idle)
        if moved:
            log.warning("moved on %s: the worker moving them on died", ", ".join(moved))
        return moved
