"""The adapter's pure parts: rendering within Discord's limits, coalescing, configuration."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

from adapters.discord.components import CardSelect, HostButton, is_ours, render, split_by_suit, toggled
from adapters.discord.config import DEFAULT_API_BASE, DiscordConfig
from adapters.discord.outbox import Coalescer
from adapters.discord.pings import Pinger
from adapters.discord.private import Recent
from adapters.discord.run import DiscordRunner
from bot.cardtext import card_text
from bot.intents import codec
from bot.intents.types import (
    BurySelection,
    ButtonAct,
    ClearSelection,
    Declare,
    Drawn,
    Page,
    PlaySelection,
    Toggle,
)
from bot.platform import Button, CredentialsRefused, View, Where
from engine.cards import RANKS
from fakes.discord_api import FakeDiscord
from tests.discord.rig import full_registry


def tok(act: ButtonAct, version: int = 3) -> str:
    return codec.pack(Drawn(7, version), act)


def btn(label: str, act: ButtonAct, style: Literal["default", "primary", "selected", "danger"] = "default") -> Button:
    return Button.press(label, Drawn(7, 3), act, style)


def hand_of(n: int, selected: set[int]) -> View:
    toggles = [btn(f"♠{i % 9 + 2}", Toggle(i), style="selected" if i in selected else "default") for i in range(n)]
    rows = [tuple(toggles[i:i + 5]) for i in range(0, n, 5)]
    controls = (btn("Bury", BurySelection(), style="primary"), btn("Clear", ClearSelection()),
                Button("Play here", "", kind="inline_query"))
    return View("Your hand", (*rows, controls))


def test_a_33_card_bury_becomes_two_selects_and_a_row_of_buttons() -> None:
    content, ui = render(hand_of(33, {0, 30}))
    rows = ui.to_components()
    assert content == "Your hand"
    assert len(rows) == 3
    selects = [c for row in rows for c in row["components"] if c["type"] == 3]
    assert [len(s["options"]) for s in selects] == [25, 8]
    assert [s["max_values"] for s in selects] == [25, 8] and all(s["min_values"] == 0 for s in selects)
    chosen = [o["value"] for s in selects for o in s["options"] if o.get("default")]
    assert chosen == [tok(Toggle(0)), tok(Toggle(30))]
    buttons = [c for c in rows[2]["components"]]
    assert [b["label"] for b in buttons] == ["Bury", "Clear"]  # the Telegram inline-query button is dropped
    assert all(is_ours(c["custom_id"]) for row in rows for c in row["components"])
    assert all(len(c["custom_id"]) <= 100 for row in rows for c in row["components"])
    assert isinstance(ui.children[0], CardSelect) and isinstance(ui.children[-1], HostButton)


def test_menus_are_cut_where_the_suit_changes() -> None:
    hand = ["BJ", "2H"] + [f"{r}S" for r in "AKQJ98765432"] + [f"{r}H" for r in "AKQJ9876"] \
        + [f"{r}C" for r in "AKQJ98765"] + ["AD", "KD"]
    groups = ["T", "T"] + ["S"] * 12 + ["H"] * 8 + ["C"] * 9 + ["D"] * 2
    cards = [btn(card_text(c), Toggle(i)) for i, c in enumerate(hand)]
    menus = split_by_suit(cards, groups)
    assert [len(m) for m in menus] == [22, 11]  # trumps, spades and hearts; then clubs and diamonds
    assert menus[1][0].label == "♣A"
    # the suits come from the scene the toggles were drawn on, not from their labels
    unlabelled = [btn("·", Toggle(i)) for i in range(len(hand))]
    assert [len(m) for m in split_by_suit(unlabelled, groups)] == [22, 11]
    long_run = [btn("♠A", Toggle(i)) for i in range(30)]
    assert [len(m) for m in split_by_suit(long_run, ["S"] * 30)] == [25, 5]


def test_menus_follow_the_scenes_groups_not_the_labels() -> None:
    """Level cards of any suit are trumps: the scene says so, a label (♥2, ♠2) cannot."""
    labels = ["大王", "♥2", "♠2"] + [f"♠{r}" for r in "AKQJ98765"] + [f"♥{r}" for r in "AKQJ98765"] \
        + [f"♣{r}" for r in "AKQJ98765"] + ["♦A", "♦K"]
    groups = ["T"] * 3 + ["S"] * 9 + ["H"] * 9 + ["C"] * 9 + ["D"] * 2
    cards = [btn(label, Toggle(i)) for i, label in enumerate(labels)]
    menus = split_by_suit(cards, groups)
    assert [len(m) for m in menus] == [21, 11] and menus[1][0].label == "♣A"  # trumps, ♠ and ♥; then ♣ and ♦
    # 13 trumps, the last a level card that reads as a spade, then 13 spades: the labels see no change
    # where the trumps end, the scene does
    trumps = ["大王", "小王"] + ["♦2", "♣2", "♥2"] * 3 + ["♠2", "♠2"]
    hand = [btn(label, Toggle(i)) for i, label in enumerate(trumps + [f"♠{r}" for r in "AKQJT98765433"])]
    assert [len(m) for m in split_by_suit(hand, ["T"] * 13 + ["S"] * 13)] == [13, 13]
    assert [len(m) for m in split_by_suit(hand)] == [25, 1]


def test_wide_rows_are_split_and_rows_capped_at_five() -> None:
    wide = tuple(btn(str(i), Declare((f"{RANKS[i]}S",))) for i in range(12))
    _, ui = render(View("x" * 2500, (wide,)))
    rows = ui.to_components()
    assert [len(r["components"]) for r in rows] == [5, 5, 2]
    _, ui = render(View("t", tuple((btn(str(i), Page(i)),) for i in range(8))))
    assert len(ui.to_components()) == 5
    long, _ = render(View("x" * 2500))
    assert len(long) == 2000


def test_a_note_goes_under_the_view() -> None:
    content, _ = render(View("Your hand"), note="It is not your turn.")
    assert content == "Your hand\n\n› It is not your turn."


def test_a_select_choice_means_the_options_that_changed() -> None:
    shown = ["a", "b", "c", "d"]
    assert toggled(shown, {"a"}, ["a", "c"]) == ["c"]
    assert toggled(shown, {"a", "b"}, []) == ["a", "b"]
    assert toggled(shown, set(), ["d", "forged"]) == ["d"]


def test_custom_id_shapes() -> None:
    assert is_ours("b:" + tok(PlaySelection()))
    assert is_ours("s:0:" + tok(Toggle(1)))
    assert not is_ours("hello") and not is_ours("b:") and not is_ours("b:" + "x" * 99)


async def test_edits_of_one_message_coalesce_into_the_latest() -> None:
    out = Coalescer()
    delivered: list[str] = []
    gate = asyncio.Event()

    def job(text: str) -> object:
        async def run() -> None:
            await gate.wait()
            delivered.append(text)
        return run

    out.submit("table", job("v0"))  # type: ignore[arg-type]
    await asyncio.sleep(0)  # the first edit is on its way (waiting for Discord)
    for i in range(1, 10):
        out.submit("table", job(f"v{i}"))  # type: ignore[arg-type]
    out.submit("hand", job("h"))  # type: ignore[arg-type]
    gate.set()
    await out.flush()
    assert delivered.count("h") == 1
    table = [d for d in delivered if d.startswith("v")]
    assert table == ["v0", "v9"]  # the first was already on its way; the other eight collapsed
    assert out.coalesced == 8


def test_remembered_messages_are_bounded() -> None:
    recent: Recent[int, str] = Recent(limit=3)
    for i in range(5):
        recent[i] = str(i)
    recent[2] = "again"
    assert list(recent) == [3, 4, 2]


def test_config_from_env() -> None:
    assert DiscordConfig.from_env({}) is None
    c = DiscordConfig.from_env({"DISCORD_BOT_TOKEN": " abc ", "DISCORD_GUILD_IDS": "1, 2",
                                "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"})
    assert c is not None and c.token == "abc" and c.guild_ids == (1, 2)
    assert c.api_base == "http://127.0.0.1:9/api/v10" and c.sync_commands
    d = DiscordConfig.from_env({"DISCORD_BOT_TOKEN": "x", "DISCORD_SYNC_COMMANDS": "0"})
    assert d is not None and d.api_base == DEFAULT_API_BASE and not d.sync_commands


async def test_a_bad_token_fails_to_start_and_stops_cleanly(fake_discord: FakeDiscord) -> None:
    config = DiscordConfig(token="wrong", api_base=fake_discord.api_base, gateway_url=fake_discord.gateway_url)
    runner = DiscordRunner(object(), config, ready_timeout=5, commands=full_registry())
    await runner.platform.edit(Where("discord", "1"), "2", View("queued before login"))
    with pytest.raises(CredentialsRefused, match=r"^discord: Discord refused the token"):
        await runner.start()  # in words for the operator (tractor-host exits with status 2)
    await runner.stop()
    assert fake_discord.identified == 0


class _SlowChannel:
    """A channel whose first send waits until the test lets it through (a mention on its way)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.on_its_way = asyncio.Event()
        self.through = asyncio.Event()

    async def send(self, body: str, **_: object) -> object:
        self.on_its_way.set()
        await self.through.wait()
        self.sent.append(body)
        return type("Sent", (), {"id": len(self.sent)})()

    def get_partial_message(self, message_id: int) -> object:
        async def delete() -> None:
            """The replaced mention goes; nothing to check here."""

        return type("Old", (), {"delete": staticmethod(delete)})()


async def test_a_turn_that_comes_while_a_mention_is_on_its_way_is_announced_next() -> None:
    """The message names the turn it was written for; the turn that came meanwhile gets its own."""
    channel = _SlowChannel()
    client = type("Client", (), {"get_partial_messageable": lambda self, cid: channel})()
    pings = Pinger(client, gap=0.0)  # type: ignore[arg-type]
    pings.turn(1, ("11",), 1, None, "en")
    await channel.on_its_way.wait()
    pings.turn(1, ("12",), 2, None, "en")  # the next turn, before the first mention went out
    channel.through.set()
    await pings.flush()
    assert ["<@11>" in s for s in channel.sent] == [True, False]
    assert "<@12>" in channel.sent[1]


async def test_a_placeholder_left_when_the_bot_stops_is_no_error() -> None:
    """Seen in tests/app/test_startup.py: a slow command's placeholder was removed after the stop had
    closed the HTTP session; aiohttp's RuntimeError ended the task as 'never retrieved'."""
    from adapters.discord.inbound import _delete_placeholder

    class Closed:
        id = 1

        async def delete_original_response(self) -> None:
            raise RuntimeError("Session is closed")

    await _delete_placeholder(Closed())  # type: ignore[arg-type]
