"""No secret anywhere an operator or a player can read: a whole session of `tractor-host run` at
DEBUG on each platform, against the fakes, with a database URL that carries a password, then a
wrong token; everything the process wrote (stdout, stderr), what /metrics and /readyz answer, and
every message the bot sent, and what the web table served an onlooker (the page, its socket's
frames, a refusal) are searched for the bot token, the web secret and the password.

These run the real command as a process (real time), and the tracebacks' test a few lines of
Python with logging set up as `main` sets it up: the logging under test is what `main` sets up,
and only a process shows what reaches its stderr. They wait on its lines and on the fakes'
state, never a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest

from app import logs
from fakes.discord_api import FakeDiscord, FakeUser
from fakes.telegram_api import FakeTelegram
from fakes.telegram_rig import until
from tests.app.process import OURS, ROOT, RunProcess, free_port
from tests.persistence.conftest import pg_server, pg_url
from tests.web.client import Client

__all__ = ["pg_server", "pg_url"]

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

TG_TOKEN = "7123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
TG_WRONG = "7123456789:AAEwrongwrongwrongwrongwrongwrongwr"
DC_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GAbCdE.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab"
DC_WRONG = "OTg3NjU0MzIxMDk4NzY1NDMy.GzYxWv.ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zy"
PASSWORD = "pw-Kq8!s3cret"
WEB_SECRET = "web-secret-5b1f9c0e7d2a"
WEBHOOK_SECRET = "hook-secret-0c9d8e7f6a"
GROUP = -100123
PEOPLE = (11, 12, 13, 14)


def with_password(url: str) -> str:
    """The test server's URL with a password in it (the server trusts loopback, so it is never checked)."""
    return url.replace("tractor@", f"tractor:{quote(PASSWORD, safe='')}@", 1)


def leaks(texts: Iterable[str], secrets: Iterable[str]) -> list[str]:
    """Every (secret, where) found: each secret as written and as it looks in a URL."""
    forms = {f for s in secrets for f in (s, quote(s, safe=""), quote(s, safe=":"))}
    return [f"{form!r} in {text[:200]!r}" for text in texts for form in forms if form in text]


async def _get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


def test_the_redactor_hides_known_secrets_and_anything_shaped_like_one() -> None:
    r = logs.Redactor([TG_TOKEN, "short"])
    assert r.scrub(f"POST https://api.telegram.org/bot{TG_TOKEN}/getMe") == "POST https://api.telegram.org/bot***/getMe"
    assert r.scrub("https://api.telegram.org/bot123:abc/getUpdates") == "https://api.telegram.org/bot***/getUpdates"
    assert r.scrub("token 9876543210:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawXY") == "token ***"
    assert r.scrub(f"login with {DC_TOKEN}.") == "login with ***."
    assert r.scrub("postgresql://bot:pa%40ss@db:5432/t failed") == "postgresql://bot:***@db:5432/t failed"
    assert r.scrub("Authorization: Bot abcdefghijklmnop") == "Authorization: Bot ***"
    assert r.scrub("a short word stays") == "a short word stays"  # too short to hide everywhere
    assert logs.secrets_of({"TRACTOR_DATABASE_URL": "postgresql://u:p%40ss@h/d"}, ["--db", "x"]) == ["p%40ss", "p@ss"]


@pytest.mark.slow(14)
async def test_a_telegram_session_at_debug_shows_no_secret(pg_url: str) -> None:
    fake = FakeTelegram(token=TG_TOKEN)
    await fake.start()
    fake.add_group(GROUP)
    for uid in PEOPLE:
        fake.add_user(uid, f"P{uid}", opened=True)
    web = free_port()
    env = {"TELEGRAM_BOT_TOKEN": TG_TOKEN, "TELEGRAM_API_BASE_URL": fake.api_root,
           "TRACTOR_DATABASE_URL": with_password(pg_url), "TRACTOR_WORKER": "w-secret", "TRACTOR_LOG": "DEBUG",
           "TRACTOR_WEB_PORT": str(web), "TRACTOR_WEB_URL": "https://cards.example.org",
           "TRACTOR_WEB_SECRET": WEB_SECRET}
    bot = await RunProcess(env).start()
    wrong: RunProcess | None = None
    try:
        await bot.wait_line(lambda line: "listening (polling)" in line)
        fake.command(PEOPLE[0], GROUP, "/new classic target=5 deal=0.01")  # cards dealt at once: the hand is the point
        for uid in PEOPLE[1:]:
            fake.command(uid, GROUP, "/join")
        await until(lambda: any("4/4" in m.text or "Start" in json.dumps(m.reply_markup or {})
                                for m in fake.chat_messages(GROUP)))
        fake.command(PEOPLE[0], GROUP, "/start")
        fake.command(PEOPLE[1], GROUP, "/frobnicate")  # a refusal in words
        hands: Callable[[], list[str]] = lambda: [  # noqa: E731
            d for m in fake.chat_messages(PEOPLE[0]) for d in fake.callback_data_on(PEOPLE[0], m.message_id)]
        await until(lambda: bool(hands()))
        hand = next(m for m in fake.chat_messages(PEOPLE[0]) if fake.callback_data_on(PEOPLE[0], m.message_id))
        _, query = fake.press(PEOPLE[0], PEOPLE[0], hand.message_id, hands()[0])
        await until(lambda: query in fake.callback_answers)
        pages = await _web_table_session(web, fake.chat_messages(GROUP))
        status, metrics = await _get(web, "/metrics")
        assert status == 200 and "tractor_tables 1.0" in metrics
        ready = await _get(web, "/readyz")
        assert await bot.stop() == 0
        wrong = await RunProcess({**env, "TELEGRAM_BOT_TOKEN": TG_WRONG}).start()
        assert await wrong.exited() == 2
    finally:
        await bot.kill()
        if wrong is not None:
            await wrong.kill()
        await fake.stop()
    assert "Set Bot API URL: " in bot.text and "/bot***" in bot.text  # the lines that carried the token were written
    sent = [m.text for m in fake.messages.values()] + [json.dumps(c.params) for c in fake.calls]
    found = leaks([*bot.lines, *wrong.lines, metrics, ready[1], *sent, *pages],
                  [TG_TOKEN, TG_WRONG, PASSWORD, WEB_SECRET])
    assert not found, found


async def test_a_telegram_webhook_session_at_debug_shows_no_secret(pg_url: str) -> None:
    """Webhook mode: the secret Telegram must send back is a parameter of setWebhook, which the
    Bot API client logs at DEBUG with its parameters. Updates are posted to the webhook as Telegram
    posts them, one with a wrong secret (refused)."""
    fake = FakeTelegram(token=TG_TOKEN)
    await fake.start()
    fake.add_group(GROUP)
    fake.add_user(PEOPLE[0], "P0", opened=True)
    hook, http = free_port(), free_port()
    env = {"TELEGRAM_BOT_TOKEN": TG_TOKEN, "TELEGRAM_API_BASE_URL": fake.api_root,
           "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/tg", "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
           "TELEGRAM_WEBHOOK_PORT": str(hook), "TELEGRAM_WEBHOOK_SECRET": WEBHOOK_SECRET,
           "TRACTOR_DATABASE_URL": with_password(pg_url), "TRACTOR_WORKER": "w-hook", "TRACTOR_LOG": "DEBUG",
           "TRACTOR_HTTP": f"127.0.0.1:{http}"}
    bot = await RunProcess(env).start()
    statuses: list[int] = []
    try:
        await bot.wait_line(lambda line: "listening (webhook)" in line)
        async with aiohttp.ClientSession() as session:
            for i, text in enumerate(("/help", "/frobnicate")):
                fake.command(PEOPLE[0], GROUP, text)
                async with session.post(f"{fake.api_root}/bot{TG_TOKEN}/getUpdates", json={"timeout": 0}) as r:
                    update = (await r.json())["result"][-1]
                for secret in ("wrong-secret", WEBHOOK_SECRET):
                    async with session.post(f"http://127.0.0.1:{hook}/tg", json=update,
                                            headers={"X-Telegram-Bot-Api-Secret-Token": secret}) as r:
                        statuses.append(r.status)
                await until(lambda i=i: len(fake.chat_messages(GROUP)) > i)  # type: ignore[misc]
        status, metrics = await _get(http, "/metrics")
        assert status == 200
        assert await bot.stop() == 0
    finally:
        await bot.kill()
        await fake.stop()
    assert statuses == [403, 200, 403, 200]
    assert "setWebhook" in bot.text and "DEBUG" in bot.text  # the call that carried the secret was logged
    said = [m.text for m in fake.messages.values()]
    found = leaks([*bot.lines, metrics, *said], [TG_TOKEN, PASSWORD, WEBHOOK_SECRET])
    # the webhook's secret goes to Telegram in setWebhook, as it must; nothing else does
    found += leaks([json.dumps(c.params) for c in fake.calls if c.method != "setWebhook"], [WEBHOOK_SECRET])
    found += leaks([json.dumps(c.params) for c in fake.calls], [TG_TOKEN, PASSWORD])
    assert not found, found


async def _web_table_session(port: int, group_messages: Iterable[Any]) -> list[str]:
    """The web table as an onlooker sees it from the group's link: the page, the socket's frames, an
    act it may not make, and a forged link refused. Everything the server answered."""
    link = next(found.group(1) for m in group_messages
                if (found := re.search(r"#k=([A-Za-z0-9_.-]+)", json.dumps(m.reply_markup or {}))))
    texts = [(await _get(port, "/"))[1]]
    async with aiohttp.ClientSession() as session:
        watcher = Client(session, f"http://127.0.0.1:{port}/ws")
        await watcher.connect({"link": link})
        await watcher.until(lambda state: True)
        texts.append(json.dumps(await watcher.answer(await watcher.act("pass"))))  # an onlooker: refused
        await watcher.close()
        forged = Client(session, f"http://127.0.0.1:{port}/ws")
        await forged.connect({"link": link[:-3] + "AAA"})
        assert await forged.ended() is not None
        texts += watcher.raw + forged.raw
    assert any('"refused"' in t for t in forged.raw)
    return texts


@pytest.mark.slow(10)
async def test_a_discord_session_at_debug_shows_no_secret(pg_url: str) -> None:
    fake = FakeDiscord()
    fake.token = DC_TOKEN
    await fake.start()
    people = [FakeUser(500 + i, f"d{i}") for i in range(4)]
    http = free_port()
    env = {"DISCORD_BOT_TOKEN": DC_TOKEN, "DISCORD_API_BASE": fake.api_base, "DISCORD_GATEWAY_URL": fake.gateway_url,
           "TRACTOR_DATABASE_URL": with_password(pg_url), "TRACTOR_WORKER": "w-secret-d", "TRACTOR_LOG": "DEBUG",
           "TRACTOR_HTTP": f"127.0.0.1:{http}", "TRACTOR_WEB_SECRET": WEB_SECRET}
    bot = await RunProcess(env).start()
    wrong: RunProcess | None = None
    try:
        await bot.wait_line(lambda line: "shard 0 of 1 connected" in line or "connected as" in line, 60)
        opened = await fake.slash(people[0], "new", {"preset": "classic"})
        assert opened.callback_type is not None
        for p in people[1:]:
            await fake.slash(p, "join")
        refused = await fake.slash(people[1], "kick", {"seat": 1})  # not the creator: refused in words
        assert refused.callback_type is not None
        status, metrics = await _get(http, "/metrics")
        assert status == 200
        assert await bot.stop() == 0
        wrong = await RunProcess({**env, "DISCORD_BOT_TOKEN": DC_WRONG}).start()
        assert await wrong.exited() == 2
    finally:
        await bot.kill()
        if wrong is not None:
            await wrong.kill()
        await fake.stop()
    assert "DEBUG" in bot.text
    sent = [json.dumps(body) for _, _, body in fake.requests]
    found = leaks([*bot.lines, *wrong.lines, metrics, *sent], [DC_TOKEN, DC_WRONG, PASSWORD, WEB_SECRET])
    assert not found, found


async def test_a_terminal_session_at_debug_shows_no_secret(pg_url: str) -> None:
    """The terminal table (no token set) on a database URL with a password, with the web secret
    and the webhook secret in the environment: ten moves, then quit."""
    env = {"TRACTOR_DATABASE_URL": with_password(pg_url), "TRACTOR_LOG": "DEBUG", "TRACTOR_LANG": "en",
           "TRACTOR_WEB_SECRET": WEB_SECRET, "TELEGRAM_WEBHOOK_SECRET": WEBHOOK_SECRET}
    bot = RunProcess(env, stdin="auto\n" * 10 + "quit\n")
    await bot.start()
    try:
        assert await bot.exited() == 0
    finally:
        await bot.kill()
    assert "80 Points" in bot.text and "DEBUG" in bot.text
    found = leaks(bot.lines, [PASSWORD, WEB_SECRET, WEBHOOK_SECRET])
    assert not found, found


async def test_a_database_that_cannot_be_reached_is_named_without_its_password() -> None:
    port = free_port()  # nothing listens there
    env = {"TELEGRAM_BOT_TOKEN": TG_TOKEN, "TRACTOR_LOG": "DEBUG",
           "TRACTOR_DATABASE_URL": f"postgresql://tractor:{quote(PASSWORD, safe='')}@127.0.0.1:{port}/tractor"}
    bot = await RunProcess(env).start()
    try:
        assert await bot.exited() == 1
    finally:
        await bot.kill()
    assert bot.stderr[-1].startswith(f"tractor-host: cannot open the database postgresql://tractor:***@127.0.0.1:{port}")
    assert "Traceback" not in bot.text
    assert not leaks(bot.lines, [TG_TOKEN, PASSWORD])


TRACEBACKS = f"""
import logging, threading
from app import logs
logs.configure(["--db", "postgresql://u:{quote(PASSWORD, safe='')}@db/t"])
try:
    raise ValueError("POST https://api.telegram.org/bot{TG_TOKEN}/getMe failed")
except ValueError:
    logging.getLogger("lib").exception("a library's fault")
def fails():
    raise OSError("{DC_TOKEN}")
thread = threading.Thread(target=fails)
thread.start()
thread.join()
raise RuntimeError("connect to postgresql://u:{PASSWORD}@db/t refused; Authorization: Bot {DC_TOKEN}")
"""


async def test_tracebacks_are_written_without_the_secrets_in_them() -> None:
    """A logged exception, one raised in a thread (an AI's or a library's) and one that ends the
    process: each traceback is written whole, and the secrets in their messages are not."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", TRACEBACKS, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if not k.startswith(OURS)} | {"TELEGRAM_BOT_TOKEN": TG_TOKEN})
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    text = (out + err).decode()
    assert proc.returncode != 0 and text.count("Traceback (most recent call last)") == 3, text
    assert "ValueError" in text and "OSError" in text and "RuntimeError" in text
    found = leaks([text], [TG_TOKEN, DC_TOKEN, PASSWORD])
    assert not found, found
