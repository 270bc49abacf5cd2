"""The table as the modules that act on it see it (`moves`, `lobby`, `forfeit`, `ticks`, `announce`,
`hints`): `TableCore` with its screen, its AI seats and the actor's own steps.

A protocol that `bot.table.actor.Table` meets, so that these modules name no actor and the actor
imports them without a circle.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from bot.table.context import TableCore

if TYPE_CHECKING:
    from bot.platform import Incoming
    from bot.scene.types import Scene
    from bot.table.ai_moves import AiSeats
    from bot.table.commit import Publisher
    from bot.table.render import Screen


class TableOps(TableCore, Protocol):
    """A table with its screen, AI seats and the steps its actor takes (commands, endings)."""

    screen: Screen
    ai: AiSeats
    events: Publisher
    applied_keys: OrderedDict[str, None]

    async def on_command(self, ev: Incoming, name: str, args: tuple[str, ...]) -> None: ...

    async def finish(self) -> None: ...

    async def close(self, status: str, result: dict[str, Any]) -> None: ...

    def live_scene(self, seat: int | None) -> Scene: ...
