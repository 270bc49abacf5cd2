"""An update is confirmed to Telegram only once it is stored (issue 32 item 3): the database fails
under a press or a command, the update is neither answered with an error nor lost, Telegram
gets it again (long polling: not confirmed; webhook: a 503), and it is served once, answered once.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from adapters.telegram.config import TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import Drawn, PlayCards
from fakes.telegram_api import FakeTelegram
from fakes.telegram_rig import Rig, booted, until
from persistence.errors import StoreDown
from persistence.store import SqliteStore
from tests.telegram.test_capacity import PEOPLE, SETTINGS, seated, to_play

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def failing(call: Callable[..., Awaitable[Any]], times: int) -> Callable[..., Awaitable[Any]]:
    """`call`, raising StoreDown its first `times` calls (the database restarting)."""
    left = [times]

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        if left[0] > 0:
            left[0] -= 1
            raise StoreDown("the database is restarting")
        return await call(*args, **kwargs)

    return flaky


def _answers(rig: Rig, query: str) -> list[Any]:
    return [c for c in rig.fake.calls if c.method == "answerCallbackQuery"
            and str(c.params.get("callback_query_id")) == query]


async def test_a_press_the_store_could_not_take_is_polled_again_and_answered_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        rig.runner.intake.retry_first = 0.01
        table = await seated(rig)
        seat = await to_play(rig, table)
        uid, fake = PEOPLE[seat], rig.fake
        action = table.match.auto_action(seat)
        version = table.match.version
        token = codec.pack(Drawn(table.id, version), PlayCards(tuple(action.cards)))
        hand_mid = int(table.messages[f"hand{seat}"])
        data = rig.runner.platform.aliases.encode(token)
        monkeypatch.setattr(rig.store, "append_action", failing(rig.store.append_action, 2))
        update, query = fake.press(uid, uid, hand_mid, data, check=False)
        await until(lambda: query in fake.callback_answers, 20)
        await rig.settle()
        assert rig.runner.intake.stats.failed == 2  # not confirmed twice, served a third time
        assert [a.params.get("text") for a in _answers(rig, query)] == ["✓"]  # once, as applied
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.actions[version]["cards"] == list(action.cards)
        assert sum(1 for a in stored.actions[version:] if a.get("seat") == seat) == 1
        assert update not in [u["update_id"] for u in fake._updates]  # confirmed at last
        assert not rig.errors


async def test_a_command_the_store_could_not_take_opens_one_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        rig.runner.intake.retry_first = 0.01
        fake = rig.fake
        fake.add_group(-4100)
        fake.add_user(PEOPLE[0], "P0", opened=True)
        monkeypatch.setattr(rig.store, "seen_key", failing(rig.store.seen_key, 3))
        fake.command(PEOPLE[0], -4100, "/new classic")
        await until(lambda: ("telegram", "-4100") in rig.host.by_chat, 20)
        await rig.settle()
        assert rig.runner.intake.stats.failed == 3
        assert len(await rig.store.list_matches("telegram", "-4100")) == 1
        wrong = tr("en", "err.internal")
        assert not [m for c in (PEOPLE[0], -4100) for m in fake.chat_messages(c) if wrong in m.text]
        assert not rig.errors


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_the_webhook_answers_503_until_the_update_is_stored(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeTelegram()
    await fake.start()
    fake.add_group(-4200)
    fake.add_user(PEOPLE[0], "P0", opened=True)
    store = await SqliteStore.open(tmp_path / "w.sqlite3", synchronous="OFF")
    host = build_host(store, defaults=SETTINGS, use_ai_threads=False)
    port = _free_port()
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, mode="webhook",
                            webhook_url="https://bot.example/tg", webhook_listen="127.0.0.1", webhook_port=port,
                            webhook_secret="hook-secret")
    runner = TelegramRunner(config, host)
    host.register(runner.platform)
    try:
        await runner.connect()
        await host.start()
        await runner.listen()
        monkeypatch.setattr(store, "seen_key", failing(store.seen_key, 1))
        fake.command(PEOPLE[0], -4200, "/new classic")
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{fake.api_root}/bot{fake.token}/getUpdates", json={"timeout": 0}) as r:
                (update,) = (await r.json())["result"]
            url = f"http://127.0.0.1:{port}/tg"
            statuses = []
            for secret in ("wrong", "hook-secret", "hook-secret"):  # as Telegram redelivers
                async with session.post(url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}) as r:
                    statuses.append(r.status)
            assert statuses == [403, 503, 200]
            await runner.stop_taking()  # a worker draining takes nothing new
            async with session.post(url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "hook-secret"}) as r:
                assert r.status == 503
        assert len(await store.list_matches("telegram", "-4200")) == 1
    finally:
        await runner.stop()
        await host.stop()
        await store.close()
        await fake.stop()
