"""Every scenario runs at every door: `door` is each door in turn; `another` opens one more of the same
kind (a scenario that needs two deals). The scenario opens them; they are closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.scenarios.door_console import ConsoleDoor
from tests.scenarios.door_discord import DiscordDoor
from tests.scenarios.door_telegram import TelegramDoor
from tests.scenarios.door_web import WebDoor
from tests.scenarios.doors import Door

DOORS: dict[str, Callable[[Path], Door]] = {
    "terminal": lambda tmp: ConsoleDoor(),
    "telegram": TelegramDoor,
    "discord": DiscordDoor,
    "web": WebDoor,
}


@pytest.fixture(params=sorted(DOORS))
async def another(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Callable[[], Door]]:
    made: list[Door] = []

    def make() -> Door:
        made.append(DOORS[request.param](tmp_path / str(len(made))))
        return made[-1]

    try:
        yield make
    finally:
        for d in reversed(made):
            await d.close()


@pytest.fixture
def door(another: Callable[[], Door]) -> Door:
    return another()
