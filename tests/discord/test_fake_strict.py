"""Issue 29, finding 12: the fake refuses what Discord refuses, on by default, each through discord.py.

Command registration (names, lengths, locale keys, required after optional, 25 options), the
permissions a command is stored with, commands Discord never delivers (DMs under `dm_permission:
false`, guilds the bot is not in), embed limits, a callback that does not fit its interaction,
autocomplete choices out of bounds, empty messages (50006), ephemeral messages gone after a client
reload (10008), and the invalid-request limit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from fakes.discord_api import FakeDiscord, running_fake
from fakes.discord_rules import INVALID_LIMIT
from tests.discord.rig import FAST
from tests.discord.test_fake_server import ALICE, EchoBot, _start

APP = 4242


@pytest.fixture
async def bot(fake_discord: FakeDiscord) -> AsyncIterator[EchoBot]:
    client = EchoBot(fake_discord.scale)
    task = await _start(client)
    try:
        yield client
    finally:
        await client.close()
        await task


async def _refused(call: Any) -> tuple[int, int]:
    try:
        await call
    except discord.HTTPException as exc:
        return exc.status, exc.code
    raise AssertionError("Discord would refuse this")


def _command(**changes: Any) -> dict[str, Any]:
    return {"name": "tractor", "description": "Play", "type": 1, **changes}


async def test_command_registration_is_checked_and_permissions_stored(bot: EchoBot, fake_discord: FakeDiscord) -> None:
    http = bot.http
    sub = {"name": "new", "description": "Open", "type": 1}
    bad = [
        _command(name="Tractor"),  # upper case
        _command(name="x" * 33),
        _command(name="tractor game"),
        _command(description="d" * 101),
        _command(description=""),
        _command(name_localizations={"zh": "升级"}),  # Discord's key is zh-CN
        _command(description_localizations={"en-US": "e" * 101}),
        _command(options=[{**sub, "options": [{"name": "a", "description": "A", "type": 3},
                                              {"name": "b", "description": "B", "type": 3, "required": True}]}]),
        _command(options=[{"name": f"s{n}", "description": "S", "type": 1} for n in range(26)]),
        _command(default_member_permissions="manage_guild"),  # a bit set: digits
    ]
    kept = list(fake_discord.commands)
    for payload in bad:
        assert await _refused(http.bulk_upsert_global_commands(APP, [payload])) == (400, 50035), payload
        assert fake_discord.commands == kept  # nothing stored
    fake_discord.protocol_errors.clear()

    good = [_command(default_member_permissions="32", dm_permission=False, options=[sub]),
            _command(name="open", description="Anyone"), _command(name="admin", default_member_permissions=8)]
    stored = await http.bulk_upsert_global_commands(APP, good)
    assert [(c["default_member_permissions"], c["dm_permission"]) for c in stored] == [
        ("32", False), (None, True), ("8", True)]


async def test_commands_are_not_delivered_where_discord_offers_none(bot: EchoBot, fake_discord: FakeDiscord) -> None:
    await bot.http.bulk_upsert_global_commands(APP, [_command(dm_permission=False, options=[
        {"name": "say", "description": "Say", "type": 1}])])
    dm = 777_001
    fake_discord.dm_channels[dm] = ALICE.id
    with pytest.raises(LookupError, match="dm_permission"):
        await fake_discord.slash(ALICE, "say", channel_id=dm)
    fake_discord.add_guild(9001, 9101)
    fake_discord.guild_ids.discard(9001)  # the bot was removed from that guild
    with pytest.raises(LookupError, match="not in it"):
        await fake_discord.slash(ALICE, "say", channel_id=9101)
    # the fuzz still sends them, as a hostile gateway would, by saying so
    forged = await fake_discord.interact(ALICE, 2, fake_discord.raw_command("say"), channel_id=dm, guild_id=0,
                                         forged=True, wait=False)
    assert forged.id in fake_discord.interactions


async def test_embed_limits_and_empty_messages(bot: EchoBot, fake_discord: FakeDiscord) -> None:
    channel = bot.get_partial_messageable(fake_discord.channel_id)
    too_long = [discord.Embed(title="t" * 257), discord.Embed(description="d" * 4097),
                discord.Embed(description="d").set_footer(text="f" * 2049)]
    many_fields = discord.Embed(title="x")
    for n in range(26):
        many_fields.add_field(name=f"f{n}", value="v")
    big = [discord.Embed(description="d" * 3000), discord.Embed(description="d" * 3001)]  # over 6,000 in all
    for some in [[e] for e in too_long] + [[many_fields], big]:
        assert await _refused(channel.send(embeds=some)) == (400, 50035)
    eleven = {"embeds": [{"title": "e"}] * 11}  # discord.py refuses these itself: sent as they are
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=fake_discord.channel_id)
    assert await _refused(bot.http.request(route, json=eleven)) == (400, 50035)
    fine = await channel.send(embed=discord.Embed(title="ok", description="d" * 4096))
    assert fake_discord.messages[fine.id].embeds[0]["title"] == "ok"
    assert await _refused(bot.http.request(route, json={"content": ""})) == (400, 50006)
    assert await _refused(fine.edit(content="", embeds=[])) == (400, 50006)  # an edit that leaves nothing
    assert len(fake_discord.protocol_errors) == 8
    fake_discord.protocol_errors.clear()


async def test_callbacks_must_fit_the_interaction(bot: EchoBot, fake_discord: FakeDiscord) -> None:
    http = bot.http

    async def answer(interaction: Any, kind: int, data: dict[str, Any] | None = None) -> tuple[int, int]:
        route = discord.http.Route("POST", "/interactions/{iid}/{token}/callback",
                                   iid=interaction.id, token=interaction.token)
        try:
            await http.request(route, json={"type": kind, "data": data or {}})
        except discord.HTTPException as exc:
            return exc.status, exc.code
        return 200, 0

    # commands the bot has no handler for: the answers are the test's, as a buggy bot's would be
    fresh = [await fake_discord.interact(ALICE, 2, {"name": "nothing", "type": 1}, wait=False) for _ in range(3)]
    assert await answer(fresh[0], 7, {"content": "update what?"}) == (400, 50035)  # an update of a command
    assert await answer(fresh[1], 8, {"choices": []}) == (400, 50035)  # choices for a command
    assert await answer(fresh[2], 4, {}) == (400, 50006)  # nothing to show
    long_choice = [{"name": "n" * 101, "value": "v"}]
    late = [await fake_discord.interact(ALICE, 4, {"name": "nothing", "type": 1}, wait=False) for _ in range(3)]
    assert await answer(late[0], 4, {"content": "a message for an autocomplete"}) == (400, 50035)
    assert await answer(late[1], 8, {"choices": long_choice}) == (400, 50035)
    assert await answer(late[2], 8, {"choices": [{"name": "n", "value": "v" * 101}]}) == (400, 50035)
    assert all(i.callback_type is None for i in fresh + late)  # refused: still unanswered
    assert len(fake_discord.protocol_errors) == 6
    fake_discord.protocol_errors.clear()


async def test_ephemeral_messages_are_gone_after_a_client_reload(bot: EchoBot, fake_discord: FakeDiscord) -> None:
    await fake_discord.slash(ALICE, "say", {"text": "psst", "private": True})
    await fake_discord.settle()
    interaction = bot.seen[-1]
    (mine,) = fake_discord.private_messages(ALICE)
    assert fake_discord.reload(ALICE) == [mine]
    assert fake_discord.private_messages(ALICE) == []
    assert await _refused(interaction.edit_original_response(content="still there?")) == (404, 10008)
    with pytest.raises(LookupError, match="cannot see"):
        await fake_discord.press(ALICE, mine, "echo:poke")


async def test_the_invalid_request_limit_shuts_a_careless_bot_out() -> None:
    assert INVALID_LIMIT == (10_000, 600.0)  # Discord's: 10,000 answers of 401, 403 or 429 in 10 minutes
    async with running_fake(scale=FAST) as fake:
        assert fake.invalid.limit == 10_000 and fake.invalid.window == 600.0  # on by default
    async with running_fake(scale=FAST) as fake:
        fake.invalid.limit = 5  # the same rule, reached in a few requests
        client = EchoBot(fake.scale)
        task = await _start(client)
        try:
            await fake.slash(ALICE, "say", {"text": "psst", "private": True})
            await fake.settle()
            interaction = client.seen[-1]
            fake.advance(16 * 60)  # its token is dead: every use of it is a 401
            for _ in range(5):
                assert await _refused(interaction.edit_original_response(content="x")) == (401, 50027)
            status, _ = await _refused(client.get_partial_messageable(fake.channel_id).send("hello"))
            assert status == 429 and fake.invalid.bans == 1  # Cloudflare's answer, to everything
            assert any("invalid-request limit" in e for e in fake.protocol_errors)
            fake.protocol_errors.clear()
        finally:
            await client.close()
            await task

