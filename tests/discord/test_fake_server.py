"""The fake Discord server speaks enough of the API for the real discord.py client."""

from __future__ import annotations

import asyncio

import discord
from discord import app_commands

from fakes.discord_api import FakeDiscord, FakeUser

ALICE = FakeUser(101, "alice")
BOB = FakeUser(102, "bob")


class Echo(discord.ui.View):
    """A persistent view: a button and a select that answer in different ways."""

    def __init__(self, log: list[str]) -> None:
        super().__init__(timeout=None)
        self.log = log

    @discord.ui.button(label="Poke", custom_id="echo:poke")
    async def poke(self, interaction: discord.Interaction, button: discord.ui.Button[Echo]) -> None:
        self.log.append(f"poke by {interaction.user.id}")
        await interaction.response.edit_message(content=f"poked by {interaction.user.name}")

    @discord.ui.select(custom_id="echo:pick", options=[discord.SelectOption(label=x) for x in "abc"], max_values=3)
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Echo]) -> None:
        self.log.append("pick " + ",".join(select.values))
        await interaction.response.send_message("secret " + ",".join(select.values), ephemeral=True)


class EchoBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none(), guild_ready_timeout=0.05, chunk_guilds_at_startup=False)
        self.tree = app_commands.CommandTree(self)
        self.log: list[str] = []
        self.errors: list[BaseException] = []
        group = app_commands.Group(name="tractor", description="Play 80 points")

        @group.command(name="say", description="Say something")
        async def say(interaction: discord.Interaction, text: str, private: bool = False) -> None:
            if private:
                await interaction.response.send_message(f"only you: {text}", ephemeral=True)
                return
            await interaction.response.defer(thinking=True)
            await interaction.followup.send(f"everyone: {text}", view=Echo(self.log))

        @say.autocomplete("text")
        async def complete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=w, value=w) for w in ("hello", "help", "world") if w.startswith(current)]

        @group.command(name="dm", description="Write to me")
        async def dm(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("sent", ephemeral=True)
            await interaction.user.send("a private word")

        self.tree.add_command(group)

        @self.tree.error
        async def on_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            self.errors.append(error)

    async def setup_hook(self) -> None:
        self.add_view(Echo(self.log))
        await self.tree.sync()


async def _start(bot: discord.Client) -> asyncio.Task[None]:
    await bot.login("fake-token")
    task = asyncio.create_task(bot.connect(reconnect=False))
    await asyncio.wait_for(bot.wait_until_ready(), 10)
    return task


async def test_real_client_round_trip(fake_discord: FakeDiscord) -> None:
    bot = EchoBot()
    task = await _start(bot)
    try:
        assert bot.user is not None and bot.user.id == fake_discord.app_id
        assert [c["name"] for c in fake_discord.commands] == ["tractor"]

        choices = await fake_discord.autocomplete(ALICE, "say", "text", "he")
        assert [c["value"] for c in choices] == ["hello", "help"]

        secret = await fake_discord.slash(ALICE, "say", {"text": "psst", "private": True})
        assert secret.ephemeral_reply
        await fake_discord.slash(ALICE, "say", {"text": "hi all"})
        await fake_discord.settle()
        public = fake_discord.channel_messages()
        assert [m.content for m in public] == ["", "everyone: hi all"]  # the thinking message, then the follow-up
        board = public[-1]

        await fake_discord.click(BOB, board, "Poke")
        assert board.content == "poked by bob"
        pick = await fake_discord.choose(BOB, board, "echo:pick", ["a", "c"])
        await fake_discord.settle()
        assert bot.log == ["poke by 102", "pick a,c"]
        assert [m.content for m in fake_discord.private_messages(BOB)] == ["secret a,c"]
        assert [m.content for m in fake_discord.private_messages(ALICE)] == ["only you: psst"]
        assert pick.ephemeral_reply

        await fake_discord.slash(ALICE, "dm")
        await fake_discord.settle()
        assert [m.content for m in fake_discord.private_messages(ALICE) if m.via == "dm"] == ["a private word"]
        assert all("private word" not in m.text() for m in fake_discord.public_messages())
        assert fake_discord.unanswered() == []
        assert fake_discord.protocol_errors == []
        assert bot.errors == []
    finally:
        await bot.close()
        await task


async def test_persistent_view_survives_a_new_client(fake_discord: FakeDiscord) -> None:
    first = EchoBot()
    task = await _start(first)
    await fake_discord.slash(ALICE, "say", {"text": "board"})
    await fake_discord.settle()
    board = fake_discord.channel_messages()[-1]
    await first.close()
    await task

    second = EchoBot()
    task = await _start(second)
    try:
        assert fake_discord.identified == 2
        await fake_discord.click(ALICE, board, "Poke")
        assert second.log == ["poke by 101"]
        assert board.content == "poked by alice"
    finally:
        await second.close()
        await task


async def test_unanswered_interactions_are_flagged(fake_discord: FakeDiscord) -> None:
    bot = EchoBot()
    task = await _start(bot)
    try:
        board_msg = await fake_discord.slash(ALICE, "say", {"text": "x"})
        await fake_discord.settle()
        board = fake_discord.channel_messages()[-1]
        # A custom_id no view knows: discord.py ignores it and Discord would show "interaction failed".
        forged = await fake_discord.press(ALICE, board, "nobody:knows", wait=False)
        await fake_discord.settle()
        assert forged.callback_type is None
        assert fake_discord.unanswered() == [forged]
        assert board_msg.callback_type == 5
    finally:
        await bot.close()
        await task
