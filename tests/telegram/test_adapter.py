"""The adapter against the fake server, with a scripted host: parsing, answers, limits, errors."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
import pytest

from adapters.telegram.config import TelegramConfig
from adapters.telegram.render import CallbackAliases
from adapters.telegram.run import TelegramRunner
from bot.intents import codec
from bot.intents.types import Drawn, Intent, LobbyJoin, PlayCards, Unreadable
from bot.platform import Button, Incoming, PlatformError, Unreachable, View, Where
from engine.cards import RANKS
from fakes.players import until
from fakes.telegram_api import BOT_USERNAME, FakeTelegram
from tests.telegram.conftest import GROUP, Choice, ScriptedHost

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

Adapter = tuple[TelegramRunner, ScriptedHost]
G = Where("telegram", str(GROUP))


def private(user_id: int) -> Where:
    return Where("telegram", str(user_id), private=True)


async def test_commands_become_host_events(fake: FakeTelegram, adapter: Adapter) -> None:
    _, host = adapter
    fake.add_user(11, "Ann", language="zh")
    fake.command(11, GROUP, f"/new@{BOT_USERNAME} classic target=3")
    fake.command(11, GROUP, "/join@some_other_bot")  # not for us
    fake.command(11, GROUP, "/Join")
    fake.start_private(11, "m42")
    events = await host.wait_events(3)
    # One chat in order; chats side by side (the private /start may come first).
    new, join = [e for e in events if not e.where.private]
    (start,) = [e for e in events if e.where.private]
    assert (new.kind, new.name, new.args) == ("command", "new", ("classic", "target=3"))
    assert new.where == G and new.user.user_id == "11" and new.user.language == "zh"
    assert (join.name, join.args) == ("join", ())
    assert new.extra == {"admin": "0"} and start.extra == {}  # Ann is no admin of the group
    assert (start.name, start.args, start.where) == ("start", ("m42",), private(11))
    assert len({e.key for e in events}) == 3
    # Editing the old command sends an edited_message update: it must not act again.
    first = next(m for m in fake.chat_messages(GROUP, from_bot=False) if m.text.startswith("/new"))
    fake.edit_text(11, GROUP, first.message_id, "/new chaodipi")
    fake.command(11, GROUP, "/help")
    events = await host.wait_events(4)
    assert [e.name for e in events[3:]] == ["help"]
    assert new.reply is not None
    await new.reply.notice("ok, table opened")
    assert fake.chat_messages(GROUP)[-1].text == "ok, table opened"


async def test_press_is_answered_once_with_the_hosts_notice(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, host = adapter
    fake.add_user(12, "Bo")

    async def refuse(event: Incoming) -> None:
        assert event.reply is not None
        await event.reply.notice("Not your seat", alert=True)
        await event.reply.notice("ignored second notice")

    host.on_event = refuse
    join = codec.pack(Drawn(10, 0), LobbyJoin())
    mid = await runner.platform.send(G, View("Table", ((Button("Join", join),),)))
    _, qid = fake.press(12, GROUP, int(mid), join)
    (event,) = await host.wait_events(1)
    assert (event.kind, event.intent, event.where, event.extra["message_id"]) == (
        "press", Intent(LobbyJoin(), Drawn(10, 0)), G, mid)
    await until(lambda: qid in fake.callback_answers)
    assert fake.callback_answers[qid] == {"text": "Not your seat", "show_alert": True}
    assert len(fake.calls_of("answerCallbackQuery")) == 1

    host.on_event = None
    _, qid2 = fake.press(12, GROUP, int(mid), join)
    await host.wait_events(2)
    await until(lambda: qid2 in fake.callback_answers)
    assert fake.callback_answers[qid2] == {"text": "", "show_alert": False}


async def test_forged_and_unknown_callback_data(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, host = adapter
    fake.add_user(13, "Cy")
    mid = await runner.platform.send(G, View("Table", ((Button("Join", "tok"),),)))
    _, qid = fake.press(13, GROUP, int(mid), "~0123456789abcdef", check=False)  # an alias we never made
    await until(lambda: qid in fake.callback_answers)
    assert fake.callback_answers[qid]["show_alert"] is True
    assert "expired" in fake.callback_answers[qid]["text"]
    _, qid = fake.press(13, GROUP, int(mid), "garbage", check=False)
    (event,) = await host.wait_events(1)
    assert event.intent == Intent(Unreadable("bad_token"))  # the host refuses it; the adapter still answers
    await until(lambda: qid in fake.callback_answers)


async def test_repeated_update_keeps_its_key(fake: FakeTelegram, adapter: Adapter) -> None:
    _, host = adapter
    fake.add_user(14, "Di")
    update_id = fake.command(14, GROUP, "/join")
    await host.wait_events(1)
    fake.redeliver(update_id)
    first, again = await host.wait_events(2)
    assert first.key == again.key == f"telegram:{update_id}"


async def test_unreachable_player(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    fake.add_user(15, "Ed")
    with pytest.raises(Unreachable) as info:
        await runner.platform.send(private(15), View("your hand"))
    assert info.value.user_id == "15"
    assert info.value.how_to_fix == f"https://t.me/{BOT_USERNAME}"
    assert runner.platform.join_link("m1-j") == f"https://t.me/{BOT_USERNAME}?start=m1-j"
    with pytest.raises(ValueError):
        runner.platform.join_link("no spaces allowed")
    fake.start_private(15)
    await until(lambda: fake.users[15].opened)
    assert await runner.platform.send(private(15), View("your hand"))
    fake.block(15)
    with pytest.raises(Unreachable):
        await runner.platform.send(private(15), View("again"))
    with pytest.raises(PlatformError):
        await runner.platform.send(Where("telegram", "-999"), View("no such group"))


async def test_table_edits_are_coalesced_inside_the_group_limit(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    mid = await runner.platform.send(G, View("table v0", ((Button("My hand", "h"),),)))
    for version in range(1, 200):
        await runner.platform.edit(G, mid, View(f"table v{version}", ((Button("My hand", "h"),),)))
    await runner.platform.drain()
    msg = fake.messages[(GROUP, int(mid))]
    assert msg.text == "table v199"
    edits = fake.calls_of("editMessageText")
    assert 1 <= len(edits) <= 3
    assert fake.rejected_429 == 0
    # Editing to what is shown costs nothing.
    before = len(fake.calls)
    await runner.platform.edit(G, mid, View("table v199", ((Button("My hand", "h"),),)))
    await runner.platform.drain()
    assert len(fake.calls) == before


async def test_many_messages_stay_inside_every_limit(fake: FakeTelegram, adapter: Adapter) -> None:
    """25 announcements and 30 table edits at once: no 429, nothing lost, announcements merged."""
    runner, _ = adapter
    mid = await runner.platform.send(G, View("table", ((Button("x", "x"),),)))
    sends = [asyncio.create_task(runner.platform.send(G, View(f"news {i}"))) for i in range(25)]
    for i in range(30):
        await runner.platform.edit(G, mid, View(f"table {i}", ((Button("x", "x"),),)))
    ids = await asyncio.gather(*sends)
    await runner.platform.drain()
    texts = "\n".join(m.text for m in fake.chat_messages(GROUP))
    assert all(f"news {i}" in texts for i in range(25))
    assert len(set(ids)) < 25  # merged while waiting for the flood limit
    assert fake.rejected_429 == 0
    assert fake.messages[(GROUP, int(mid))].text == "table 29"


async def test_retry_after_is_waited_out(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    fake.inject("429", method="sendMessage", retry_after=2)
    mid = await runner.platform.send(G, View("after the flood wait"))
    assert fake.messages[(GROUP, int(mid))].text == "after the flood wait"
    assert runner.platform.outboxes.stats.retry_after == 1
    fake.rejected_429 = 0  # the injected one


async def test_network_trouble_is_retried(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    fake.inject("5xx", method="sendMessage")
    fake.inject("drop", method="sendMessage")
    mid = await runner.platform.send(G, View("got through"))
    assert fake.messages[(GROUP, int(mid))].text == "got through"


async def test_not_modified_after_restart_is_not_an_error(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    mid = await runner.platform.send(G, View("same"))
    runner.platform.shown.clear()  # as after a restart
    await runner.platform.edit(G, mid, View("same"))
    await runner.platform.drain()
    assert fake.calls_of("editMessageText")[-1].status == 400
    assert runner.platform.outboxes.stats.failures == 0


async def test_inline_mode(fake: FakeTelegram, adapter: Adapter) -> None:
    _, host = adapter
    fake.add_user(16, "Fa")
    fake.command(16, GROUP, "/join")
    await host.wait_events(1)
    plays = [codec.pack(Drawn(10, i), PlayCards((f"{RANKS[i % 13]}S",))) for i in range(60)]
    host.choices = [Choice(f"♠{i}", "play it", plays[i]) for i in range(60)]
    qid = fake.inline_query(16, "")
    await until(lambda: qid in fake.inline_answers)
    answer = fake.inline_answers[qid]
    assert answer["cache_time"] == 0 and answer["is_personal"] is True
    assert len(answer["results"]) == 50
    user, where, query = host.inline_asks[-1]
    assert (user.user_id, where, query) == ("16", G, "")
    fake.choose_inline(16, qid, plays[3], GROUP)
    events = await host.wait_events(2)
    chosen = events[-1]
    assert (chosen.kind, chosen.intent, chosen.where) == ("chosen", Intent(PlayCards(("5S",)), Drawn(10, 3)), G)
    # Someone who never acted in a group (joined through the deep link): their private chat.
    fake.add_user(17, "Gu")
    qid = fake.inline_query(17, "")
    await until(lambda: qid in fake.inline_answers)
    assert host.inline_asks[-1][1] == private(17)
    fake.choose_inline(17, qid, plays[4], GROUP)
    events = await host.wait_events(3)
    assert events[-1].where == private(17)


async def test_files_and_buttons(fake: FakeTelegram, adapter: Adapter) -> None:
    runner, _ = adapter
    await runner.platform.send_file(G, "standings.png", b"\x89PNG...", "Standings")
    await runner.platform.send_file(G, "league.csv", b"a,b\n", "Export")
    assert [m.kind for m in fake.chat_messages(GROUP)] == ["photo", "document"]
    long_token = "x" * 100
    row = tuple(Button(str(i), f"t{i}") for i in range(10))
    view = View("grid", (row, (Button("long", long_token), Button("here", "", kind="inline_query"),
                               Button("link", "https://t.me/x?start=a", kind="url"))))
    mid = int(await runner.platform.send(G, view))
    rows = fake.messages[(GROUP, mid)].reply_markup["inline_keyboard"]  # type: ignore[index]
    assert [len(r) for r in rows] == [8, 2, 3]
    alias = rows[2][0]["callback_data"]
    assert alias.startswith("~") and runner.platform.aliases.decode(alias) == long_token
    assert rows[2][1] == {"text": "here", "switch_inline_query_current_chat": ""}
    assert rows[2][2]["url"] == "https://t.me/x?start=a"


def test_aliases_only_for_long_tokens() -> None:
    aliases = CallbackAliases(capacity=2)
    assert aliases.encode("short") == "short"
    tokens = ["a" * 70, "b" * 70, "c" * 70]
    encoded = [aliases.encode(t) for t in tokens]
    assert aliases.decode(encoded[0]) is None  # evicted
    assert aliases.decode(encoded[2]) == tokens[2]


def test_config_from_env() -> None:
    assert TelegramConfig.from_env({}) is None
    cfg = TelegramConfig.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9/"})
    assert cfg is not None and cfg.mode == "polling"
    assert cfg.base_url == "http://127.0.0.1:9/bot"
    hook = TelegramConfig.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_WEBHOOK_URL": "https://h/tg"})
    assert hook is not None and hook.mode == "webhook" and hook.api_base_url == "https://api.telegram.org"


async def test_webhook_mode(fake: FakeTelegram) -> None:
    """With TELEGRAM_WEBHOOK_URL set, Telegram posts updates to us instead of being polled."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = TelegramConfig.from_env({
        "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_BASE_URL": fake.api_root,
        "TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/hook", "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
        "TELEGRAM_WEBHOOK_PORT": str(port), "TELEGRAM_WEBHOOK_SECRET": "s3cret",
    })
    assert config is not None
    host = ScriptedHost()
    runner = TelegramRunner(config, host)
    await runner.start()
    try:
        assert fake.webhook == f"http://127.0.0.1:{port}/hook"
        update = {"update_id": 77, "message": {
            "message_id": 1, "date": 0, "chat": {"id": GROUP, "type": "supergroup", "title": "t"},
            "from": {"id": 5, "is_bot": False, "first_name": "Eve"}, "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}}
        async with aiohttp.ClientSession() as session:
            async with session.post(f"http://127.0.0.1:{port}/hook", json=update,
                                    headers={"X-Telegram-Bot-Api-Secret-Token": "wrong"}) as resp:
                assert resp.status == 403
            async with session.post(f"http://127.0.0.1:{port}/hook", json=update,
                                    headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret"}) as resp:
                assert resp.status == 200
        (event,) = await host.wait_events(1)
        assert (event.name, event.key, event.where) == ("help", "telegram:77", G)
    finally:
        await runner.stop()


async def test_group_admins_are_marked(fake: FakeTelegram, adapter: Adapter) -> None:
    """League seasons and rankings are for group admins: commands say who is one."""
    _, host = adapter
    fake.add_user(21, "Ivy")
    fake.add_user(22, "Jo")
    fake.admins[GROUP] = {21}
    fake.command(21, GROUP, "/season new")
    fake.command(22, GROUP, "/season new")
    ivy, jo = await host.wait_events(2)
    assert ivy.extra == {"admin": "1"} and jo.extra == {"admin": "0"}
    assert len(fake.calls_of("getChatAdministrators")) == 1  # cached
