"""The board commands on every platform: the terminal plays a daily board, Discord and Telegram offer them."""

from __future__ import annotations

import io
from pathlib import Path

from adapters.discord.commands import groups
from adapters.telegram.menu import menu
from app.console import play_console
from app.features import build_host
from bot.duplicate.commands import COMMANDS
from persistence.board_store import BoardStore
from persistence.memory import MemoryStore
from persistence.store import SqliteStore


async def test_the_terminal_plays_todays_board_with_three_ais(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.sqlite3", synchronous="OFF")
    try:
        out = io.StringIO()
        code = await play_console(store, inp=io.StringIO("auto\n" * 200), out=out, lang="en", daily=True, seed=4)
        text = out.getvalue()
        assert code == 0
        assert "Daily board 1 against the field: no other table has played it yet" in text
        [board] = [b for b in await BoardStore.of(store).set_boards("daily", _today()) if b.number == 1]
        [play] = await BoardStore.of(store).plays([board.id])
        assert play.status == "done" and [s["kind"] for s in play.seats] == ["human", "ai", "ai", "ai"]
        # the next run goes on to board 2
        out = io.StringIO()
        await play_console(store, inp=io.StringIO("auto\n" * 200), out=out, lang="en", daily=True, seed=4)
        assert "Daily board 2" in out.getvalue()
    finally:
        await store.close()


async def test_a_store_without_sql_says_so() -> None:
    out = io.StringIO()
    await play_console(MemoryStore(), inp=io.StringIO("daily\nquit\n"), out=out, lang="en", seed=1)
    assert "Boards need the bot's database" in out.getvalue()


def test_discord_and_telegram_offer_the_commands() -> None:
    registry = build_host(MemoryStore()).registry
    tractor = next(g for g in groups(registry) if g.name == "tractor")
    names = {c.name for c in tractor.commands}
    assert names >= set(COMMANDS) and len(names) <= 25  # Discord's limit of subcommands in a group
    assert {c.command for c in menu(registry, "en", "group")} >= set(COMMANDS)


def _today() -> str:
    from datetime import UTC, datetime
    return datetime.now(UTC).date().isoformat()
