"""Every interaction gets its answer in time, whatever the host does: slow words, or none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from bot.platform import Incoming
from fakes.discord_api import FakeDiscord
from tests.discord.rig import ALICE, full_registry


class ScriptedHost:
    """Answers commands as told: "rules" speaks once the test releases it (after the adapter's budget:
    the adapter has deferred by then), "help" at once, anything else never."""

    def __init__(self) -> None:
        self.registry = full_registry()
        self.events: list[Incoming] = []
        self.later: list[asyncio.Task[None]] = []
        self.release = asyncio.Event()

    async def handle(self, event: Incoming) -> None:
        self.events.append(event)
        if event.name == "rules" and event.reply is not None:
            self.later.append(asyncio.create_task(self._later(event)))
        elif event.name == "help" and event.reply is not None:
            await event.reply.notice("at once")

    async def settle(self) -> None:
        """Like the real host's: returns once everything it was asked is done (cancelling it stops nothing)."""
        if self.later:
            await asyncio.wait(self.later)

    async def _later(self, event: Incoming) -> None:
        await self.release.wait()
        assert event.reply is not None
        await event.reply.notice("late words")


@pytest.fixture
async def scripted(fake_discord: FakeDiscord) -> AsyncIterator[tuple[ScriptedHost, DiscordRunner]]:
    host = ScriptedHost()
    config = DiscordConfig(token=fake_discord.token, api_base=fake_discord.api_base,
                           gateway_url=fake_discord.gateway_url, edit_interval=0.0,
                           scale=fake_discord.scale)
    runner = DiscordRunner(host, config, ready_timeout=10)
    await runner.start()
    try:
        yield host, runner
    finally:
        host.release.set()
        await asyncio.gather(*host.later)
        await runner.stop()


async def test_slow_words_fill_the_deferred_reply(scripted: tuple[ScriptedHost, DiscordRunner],
                                                  fake_discord: FakeDiscord) -> None:
    host, runner = scripted
    runner.inbound.budget = 0.05  # the adapter's budget, short: the host keeps quiet for longer
    slow = await fake_discord.slash(ALICE, "rules", {"preset": "classic"})
    assert slow.callback_type == 5 and slow.ephemeral_reply  # deferred in time, "thinking"
    host.release.set()  # the host's words come now, after the deferral
    await asyncio.gather(*host.later)
    await fake_discord.settle()
    assert fake_discord.messages[slow.original_id or 0].content == "late words"
    assert host.events[0].args == ("classic",) and host.events[0].key == str(slow.id)


async def test_quick_words_are_the_reply_and_silence_leaves_nothing(
        scripted: tuple[ScriptedHost, DiscordRunner], fake_discord: FakeDiscord) -> None:
    quick = await fake_discord.slash(ALICE, "help")
    assert quick.callback_type == 4 and quick.callback_data["content"] == "at once"
    quiet = await fake_discord.slash(ALICE, "leave")
    await fake_discord.settle()
    assert quiet.callback_type == 5
    assert fake_discord.messages[quiet.original_id or 0].deleted  # closed without a word
    assert fake_discord.unanswered() == [] and fake_discord.protocol_errors == []


async def test_league_and_tournament_words_come_through_the_league_group(
        scripted: tuple[ScriptedHost, DiscordRunner], fake_discord: FakeDiscord) -> None:
    """`/tractor` has the table's commands; `/league` the league's and tournaments (25 a group at most)."""
    host, _ = scripted
    await fake_discord.slash(ALICE, "tournament", {"action": "new", "more": "knockout drawn"}, command="league")
    await fake_discord.slash(ALICE, "replay", {"match": 12, "hand": 3}, command="league")
    await fake_discord.slash(ALICE, "standings", {"what": "pairs"}, command="league")
    await fake_discord.slash(ALICE, "forfeit")
    await fake_discord.settle()
    got = [(e.name, e.args) for e in host.events]
    assert got == [("tournament", ("new", "knockout", "drawn")), ("replay", ("12", "3")),
                   ("standings", ("pairs",)), ("forfeit", ())]
