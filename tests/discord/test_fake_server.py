"""The fake Discord server speaks enough of the API for the real discord.py client."""

from __future__ import annotations

import asyncio
import threading

import discord
from discord import app_commands

from fakes.discord_api import IDENTIFY_WINDOW_S, FakeDiscord, FakeUser

ALICE = FakeUser(101, "alice")
BOB = FakeUser(102, "bob")
BLOCK_S = 3.5  # how long the careless computation lasts by Discord's clock


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
    def __init__(self, scale: float) -> None:
        super().__init__(intents=discord.Intents.none(), guild_ready_timeout=0.05, chunk_guilds_at_startup=False)
        self.scale = scale  # the fake's: real seconds a Discord second lasts
        self.computing = threading.Event()  # /tractor slow has started its computation
        self.computed = threading.Event()  # ... and may end it
        self.tree = app_commands.CommandTree(self)
        self.log: list[str] = []
        self.errors: list[BaseException] = []
        self.seen: list[discord.Interaction] = []
        self.refused: list[tuple[str, int]] = []  # (command, Discord's error code) of refused answers
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

        @group.command(name="slow", description="Hold the bot's loop, then answer")
        async def slow(interaction: discord.Interaction) -> None:
            # a computation on the loop, as a careless bot might do: it blocks the loop until the
            # test says it is over (by then BLOCK_S have passed on the fake's clock)
            self.computing.set()
            self.computed.wait(30)
            await self._answer(interaction, "slow")

        @group.command(name="quick", description="Answer at once")
        async def quick(interaction: discord.Interaction) -> None:
            await self._answer(interaction, "quick")

        self.tree.add_command(group)

        @self.tree.error
        async def on_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            self.errors.append(error)

    async def _answer(self, interaction: discord.Interaction, name: str) -> None:
        try:
            await interaction.response.send_message(name, ephemeral=True)
        except discord.NotFound as exc:
            self.refused.append((name, exc.code))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.seen.append(interaction)

    async def setup_hook(self) -> None:
        self.add_view(Echo(self.log))
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's 5 s before identifying again, on the fake's clock."""
        if not initial:
            await asyncio.sleep(IDENTIFY_WINDOW_S * self.scale)


async def _start(bot: discord.Client) -> asyncio.Task[None]:
    await bot.login("fake-token")
    task = asyncio.create_task(bot.connect(reconnect=False))
    await asyncio.wait_for(bot.wait_until_ready(), 10)
    return task


async def test_real_client_round_trip(fake_discord: FakeDiscord) -> None:
    bot = EchoBot(fake_discord.scale)
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
        # Discord: the first follow-up after a deferred ("thinking") reply fills that reply
        assert [m.content for m in public] == ["everyone: hi all"]
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
    first = EchoBot(fake_discord.scale)
    task = await _start(first)
    await fake_discord.slash(ALICE, "say", {"text": "board"})
    await fake_discord.settle()
    board = fake_discord.channel_messages()[-1]
    await first.close()
    await task

    second = EchoBot(fake_discord.scale)
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
    bot = EchoBot(fake_discord.scale)
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


async def _strict_bot(fake: FakeDiscord) -> tuple[EchoBot, asyncio.Task[None]]:
    bot = EchoBot(fake.scale)
    return bot, await _start(bot)


async def test_tokens_die_after_15_minutes_with_discords_code(fake_discord: FakeDiscord) -> None:
    bot, task = await _strict_bot(fake_discord)
    seen = bot.seen
    try:
        await fake_discord.slash(ALICE, "say", {"text": "psst", "private": True})
        await fake_discord.settle()
        (interaction,) = seen
        message = await interaction.original_response()  # a live token reads its own response
        fake_discord.advance(14 * 60)
        await interaction.edit_original_response(content="still mine")
        assert message.id in {m.id for m in fake_discord.private_messages(ALICE)}
        fake_discord.advance(61)
        try:
            await interaction.edit_original_response(content="too late")
        except discord.HTTPException as exc:
            assert (exc.status, exc.code) == (401, 50027)
        else:
            raise AssertionError("a 15-minute-old token still edits")
        try:
            await interaction.followup.send("too late", ephemeral=True)
        except discord.HTTPException as exc:
            assert (exc.status, exc.code) == (401, 50027)
        else:
            raise AssertionError("a 15-minute-old token still sends")
    finally:
        await bot.close()
        await task


async def test_a_token_edits_only_its_own_messages_and_limits_are_refused(fake_discord: FakeDiscord) -> None:
    bot, task = await _strict_bot(fake_discord)
    seen = bot.seen
    try:
        await fake_discord.slash(ALICE, "say", {"text": "a", "private": True})
        await fake_discord.slash(BOB, "say", {"text": "b", "private": True})
        await fake_discord.settle()
        alice, bob = seen
        bobs = await bob.original_response()
        try:
            await alice.followup.edit_message(bobs.id, content="hijack")
        except discord.NotFound as exc:
            assert exc.code == 10008
        else:
            raise AssertionError("one interaction's token edited another's message")
        assert "hijack" not in bobs.content and all("hijack" not in m.text() for m in fake_discord.messages.values())
        for bad in ({"content": "x" * 2001}, {"content": "ok", "view": _too_many_rows()}):
            try:
                await alice.followup.send(**bad)  # type: ignore[arg-type]
            except discord.HTTPException as exc:
                assert (exc.status, exc.code) == (400, 50035)
            else:
                raise AssertionError(f"Discord would refuse {list(bad)}")
        assert len(fake_discord.protocol_errors) >= 2  # recorded, so a test that sent them fails
        fake_discord.protocol_errors.clear()
    finally:
        await bot.close()
        await task


def _too_many_rows() -> discord.ui.View:
    view = discord.ui.View()
    for row in range(5):
        for n in range(5):
            view.add_item(discord.ui.Button(label=f"{row}{n}", custom_id=f"b{row}{n}", row=row))
    bad = discord.ui.View()
    bad.to_components = lambda: [*view.to_components(), view.to_components()[0]]  # type: ignore[method-assign]
    return bad


async def test_rate_limits_are_on_with_headers_and_429s(fake_discord: FakeDiscord) -> None:
    bot, task = await _strict_bot(fake_discord)
    try:
        channel = bot.get_partial_messageable(fake_discord.channel_id)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for n in range(7):  # Discord's 5 per 5 s in a channel: the last two wait for the bucket
            await channel.send(f"m{n}")
        assert loop.time() - start >= fake_discord.real(4.0)  # 4 Discord seconds, on the fake's clock
        assert len(fake_discord.channel_messages()) == 7
        assert fake_discord.rate_limited == 0  # discord.py read X-RateLimit-Remaining and waited, no 429
        fake_discord.spend("global")  # the bot's 50 a second are spent
        await channel.send("after the global wait")
        assert fake_discord.global_limited == 1 and fake_discord.channel_messages()[-1].content.startswith("after")
    finally:
        await bot.close()
        await task


async def test_gateway_invalid_session_and_resume(fake_discord: FakeDiscord) -> None:
    bot, task = await _strict_bot(fake_discord)
    try:
        await fake_discord.ask_reconnect()
        assert fake_discord.resumed == 1
        await fake_discord.invalidate_session()
        assert fake_discord.identified == 2
        await asyncio.wait_for(bot.wait_until_ready(), 5)
        await fake_discord.slash(ALICE, "say", {"text": "still here", "private": True})
        assert [m.content for m in fake_discord.private_messages(ALICE)] == ["only you: still here"]
    finally:
        await bot.close()
        await task


async def test_a_bot_that_blocks_its_loop_is_refused(fake_discord: FakeDiscord) -> None:
    """Discord's clock runs on while the bot's loop is blocked. Alice's command holds the loop 3.5 s;
    Bob types his during the block: both answers come more than 3 s after the user acted and Discord
    refuses both (10062). A fake on the bot's loop caught Alice's but not Bob's: his command could only
    be sent, and stamped, once the block was over. The block's 3.5 s pass on the fake's clock
    (`advance`), not in real time: the bot's loop stays blocked until they have."""
    bot, task = await _strict_bot(fake_discord)

    async def during_the_block() -> object:  # on the fake's loop, while the bot's is blocked
        await asyncio.to_thread(bot.computing.wait, 30)
        bob = asyncio.ensure_future(fake_discord.slash(BOB, "quick"))  # by the fake's clock, not the bot's
        await fake_discord.until(lambda: len(fake_discord.interactions) == 2, "Bob's command sent")
        fake_discord.advance(BLOCK_S)
        bot.computed.set()
        return await bob

    try:
        alice = asyncio.ensure_future(fake_discord.slash(ALICE, "slow"))
        bob = fake_discord.after(0.0, during_the_block())
        late = await asyncio.gather(alice, bob)
        await fake_discord.settle()
        assert [i.late for i in late] == [True, True]
        assert sorted(bot.refused) == [("quick", 10062), ("slow", 10062)]
        assert fake_discord.unanswered() == late
        assert fake_discord.private_messages(ALICE) == fake_discord.private_messages(BOB) == []
    finally:
        await bot.close()
        await task
