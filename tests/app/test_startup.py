"""Start-up failures in words: a refused token is one line naming the platform and what to do, exit
status 2 (a supervisor should not restart it); a platform that cannot be reached is a one-line
warning and another attempt later, while the other platform and the terminal table serve; no
warning about features the bot does not use (voice).

The process tests run `tractor-host run` for real (real time: what is judged is what its stderr
shows and its exit status); they wait on its lines and the fakes' state. The retry's wait is the
command's own first backoff (about a second).
"""

from __future__ import annotations

import socket
from pathlib import Path

import discord
import pytest
from telegram.error import NetworkError, TimedOut

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from adapters.telegram.config import TelegramConfig
from adapters.telegram.run import TelegramRunner
from bot.platform import PlatformDown
from fakes.discord_api import FakeDiscord, FakeUser
from fakes.telegram_api import FakeTelegram
from fakes.telegram_rig import until
from tests.app.process import RunProcess, free_port
from tests.discord.rig import full_registry

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -100777


def only_line(proc: RunProcess) -> str:
    assert len(proc.lines) == 1, proc.text
    return proc.lines[0]


async def test_a_wrong_telegram_token_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    fake = FakeTelegram()
    await fake.start()
    bot = await RunProcess({"TELEGRAM_BOT_TOKEN": "123456:NOT-THE-TOKEN", "TELEGRAM_API_BASE_URL": fake.api_root,
                            "TRACTOR_DB": str(tmp_path / "t.sqlite3")}).start()
    try:
        assert await bot.exited() == 2
    finally:
        await bot.kill()
        await fake.stop()
    line = only_line(bot)
    assert line.startswith("tractor-host: telegram: ") and "TELEGRAM_BOT_TOKEN" in line and "@BotFather" in line
    assert "NOT-THE-TOKEN" not in line


async def test_a_wrong_discord_token_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        bot = await RunProcess({"DISCORD_BOT_TOKEN": "not-the-token", "DISCORD_API_BASE": fake.api_base,
                                "DISCORD_GATEWAY_URL": fake.gateway_url,
                                "TRACTOR_DB": str(tmp_path / "d.sqlite3")}).start()
        try:
            assert await bot.exited() == 2
        finally:
            await bot.kill()
    line = only_line(bot)
    assert line.startswith("tractor-host: discord: ") and "DISCORD_BOT_TOKEN" in line and "Reset Token" in line


@pytest.mark.slow(5)
async def test_telegram_out_of_reach_is_retried_while_discord_and_the_terminal_serve(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there: connection refused, as with no network
    async with FakeDiscord() as fake:
        bot = await RunProcess({"TELEGRAM_BOT_TOKEN": "123456:TEST-TOKEN",
                                "TELEGRAM_API_BASE_URL": f"http://127.0.0.1:{closed}",
                                "DISCORD_BOT_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                                "DISCORD_GATEWAY_URL": fake.gateway_url, "DISCORD_EDIT_INTERVAL": "0",
                                "TRACTOR_LOG": "INFO", "TRACTOR_DB": str(tmp_path / "both.sqlite3")}).start()
        # the terminal table on the same database, at the same time
        console = RunProcess({"TRACTOR_LANG": "en"}, ["console", "--db", str(tmp_path / "both.sqlite3")],
                             stdin="auto\nquit\n")
        try:
            await bot.wait_line(lambda line: "discord: connected as" in line)
            await console.start()
            await bot.wait_line(lambda line: "trying again in 2 s" in line)  # the first retry failed too
            help_ = await fake.slash(FakeUser(600, "d"), "help")  # Discord serves meanwhile
            assert help_.callback_type is not None and not help_.late
            assert await console.exited() == 0  # and the terminal table played
            assert "80 Points" in console.text and "Saved." in console.text
            assert await bot.stop() == 0
        finally:
            await bot.kill()
            await console.kill()
    warned = [line for line in bot.lines if not line.startswith("INFO:")]
    assert warned, "no warning at all"
    for line in warned:  # a warning a line, each naming the platform and the cause, no traceback
        assert line.startswith("WARNING:app.run:telegram: cannot reach the API (") and "trying again in" in line, bot.text
    assert "Traceback" not in bot.text and "PyNaCl" not in bot.text and "voice" not in bot.text


async def test_discord_out_of_reach_is_retried_while_telegram_serves(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there: connection refused, as with no network
    fake = FakeTelegram()
    await fake.start()
    fake.add_group(GROUP)
    fake.add_user(23, "P23", opened=True)
    bot = await RunProcess({"DISCORD_BOT_TOKEN": "discord-test-token",
                            "DISCORD_API_BASE": f"http://127.0.0.1:{closed}/api/v10",
                            "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{closed}/",
                            "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_BASE_URL": fake.api_root,
                            "TRACTOR_DB": str(tmp_path / "both.sqlite3")}).start()
    try:
        await bot.wait_line(lambda line: "trying again in 2 s" in line)  # the first retry failed too
        fake.command(23, GROUP, "/help")  # Telegram serves meanwhile
        await until(lambda: bool(fake.chat_messages(GROUP)))
        assert await bot.stop() == 0
    finally:
        await bot.kill()
        await fake.stop()
    assert bot.lines, "no warning at all"
    for line in bot.lines:  # a warning a line, each naming the platform and the cause, no traceback
        assert line.startswith("WARNING:app.run:discord: cannot reach ") and "trying again in" in line, bot.text
    assert "Traceback" not in bot.text and "PyNaCl" not in bot.text and "discord-test-token" not in bot.text


async def test_telegram_reached_at_the_second_attempt_serves(tmp_path: Path) -> None:
    fake = FakeTelegram()
    await fake.start()
    fake.inject("drop", method="getMe")  # the first attempt's connection is cut
    fake.add_group(GROUP)
    fake.add_user(21, "P21", opened=True)
    bot = await RunProcess({"TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_BASE_URL": fake.api_root,
                            "TRACTOR_DB": str(tmp_path / "t.sqlite3")}).start()
    try:
        await bot.wait_line(lambda line: "telegram: cannot reach the API" in line)
        fake.command(21, GROUP, "/help")
        await until(lambda: bool(fake.chat_messages(GROUP)))
        assert await bot.stop() == 0
    finally:
        await bot.kill()
        await fake.stop()
    assert len(bot.lines) == 1 and "trying again in 1 s" in bot.lines[0], bot.text


async def test_a_token_revoked_while_polling_ends_the_process_with_status_2(tmp_path: Path) -> None:
    fake = FakeTelegram()
    await fake.start()
    bot = await RunProcess({"TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_BASE_URL": fake.api_root,
                            "TRACTOR_LOG": "INFO", "TRACTOR_DB": str(tmp_path / "t.sqlite3")}).start()
    try:
        await bot.wait_line(lambda line: "listening (polling)" in line)
        fake.token = "123456:REVOKED"  # @BotFather's /revoke: the old token is refused from now on
        fake.add_group(GROUP)
        fake.add_user(22, "P22")
        fake.command(22, GROUP, "/help")  # wakes the long poll
        assert await bot.exited() == 2
    finally:
        await bot.kill()
        await fake.stop()
    assert bot.stderr[-1].startswith("tractor-host: telegram: the Bot API refused the token"), bot.text
    assert "Traceback" not in bot.text


@pytest.mark.parametrize("failure", [
    NetworkError("aiohttp.ClientConnectorDNSError: Cannot connect to host api.telegram.org:443 ssl:default"
                 " [Name or service not known]"),  # DNS
    TimedOut("Timed out"),
    NetworkError("Bad Gateway"),
])
async def test_every_kind_of_unreachable_is_worth_another_attempt(failure: Exception) -> None:
    runner = TelegramRunner(TelegramConfig(token="123456:TEST-TOKEN"), host=None)  # type: ignore[arg-type]

    async def initialize() -> None:
        raise failure

    runner.app.initialize = initialize  # type: ignore[method-assign]
    with pytest.raises(PlatformDown) as raised:
        await runner.connect()
    assert str(raised.value).startswith("telegram: cannot reach the API (") and raised.value.__cause__ is None


class _Gateway502:
    """What discord.py is given with a 502 from Discord's edge: a status and a reason."""

    status = 502
    reason = "Bad Gateway"


@pytest.mark.parametrize("failure", [
    socket.gaierror(-2, "Name or service not known"),  # DNS
    TimeoutError(),
    ConnectionRefusedError(111, "Connection refused"),  # no network, no route
    discord.DiscordServerError(_Gateway502(), "upstream"),  # type: ignore[arg-type]
])
async def test_discord_unreachable_in_every_way_is_worth_another_attempt(failure: Exception) -> None:
    config = DiscordConfig(token="discord-test-token", api_base="http://127.0.0.1:9/api/v10",
                           gateway_url="ws://127.0.0.1:9/")
    runner = DiscordRunner(object(), config, commands=full_registry())

    async def login(token: str) -> None:
        raise failure

    runner.client.login = login  # type: ignore[method-assign]
    try:
        with pytest.raises(PlatformDown) as raised:
            await runner.login()
    finally:
        await runner.stop()
    assert str(raised.value).startswith("discord: cannot reach the API (") and raised.value.__cause__ is None
    assert "discord-test-token" not in str(raised.value)
