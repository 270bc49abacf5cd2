"""The slash commands as a server admin sees them (issue 29, item 11): built from the host's command
registry, with names and descriptions in zh-CN, zh-TW and en-US, every option described, structured
options with choices or autocomplete; the fake refuses a registration Discord would refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.i18n import tr
from fakes.discord_api import FakeDiscord, command_problems
from persistence.store import SqliteStore
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, NewRig, Rig

LOCALES = {"zh-CN": "zh", "zh-TW": "zh-Hant", "en-US": "en"}


def _sub(fake: FakeDiscord, group: str, name: str) -> dict[str, Any]:
    registered = next(c for c in fake.commands if c["name"] == group)
    return next(o for o in registered["options"] if o["name"] == name)


async def test_every_command_and_option_is_described_in_each_language(rig: Rig) -> None:
    fake = rig.fake
    assert {c["name"] for c in fake.commands} == {"tractor", "league", "tractoradmin"}
    assert fake.protocol_errors == []
    # an admin command shows to those who may manage the server (Discord hides it from the others)
    assert {c["name"]: c["default_member_permissions"] for c in fake.commands} == {
        "tractor": None, "league": None, "tractoradmin": str(1 << 5)}
    assert all(c["dm_permission"] is False for c in fake.commands)
    assert [o["name"] for o in _sub(fake, "tractoradmin", "export")["options"]] == ["what"]
    assert "export" not in {o["name"] for c in fake.commands if c["name"] != "tractoradmin" for o in c["options"]}
    for group in fake.commands:
        assert set(group["description_localizations"]) == set(LOCALES)
        for sub in group["options"]:
            assert set(sub["description_localizations"]) == set(LOCALES), sub["name"]
            for option in sub.get("options", []):
                assert option["description"] != "…" and set(option["description_localizations"]) == set(LOCALES)
    new = _sub(fake, "tractor", "new")
    assert new["name_localizations"] == {"zh-CN": "开局", "zh-TW": "開局", "en-US": "new"}
    assert next(c for c in fake.commands if c["name"] == "tractor")["name_localizations"]["zh-TW"] == "升級"
    assert new["description"] == tr("en", "help.cmd.new")
    assert {k: new["description_localizations"][k] for k in LOCALES} == {
        k: tr(lang, "help.cmd.new") for k, lang in LOCALES.items()}
    join = _sub(fake, "tractor", "join")
    seat = next(o for o in join["options"] if o["name"] == "seat")
    assert (seat["type"], seat["min_value"], seat["max_value"], seat.get("required", False)) == (4, 1, 4, False)
    kick = next(o for o in _sub(fake, "tractor", "kick")["options"] if o["name"] == "seat")
    assert kick["required"]
    replay = _sub(fake, "league", "replay")["options"]
    assert [o["name"] for o in replay] == ["match", "hand"] and replay[0]["required"]
    tournament = next(o for o in _sub(fake, "league", "tournament")["options"] if o["name"] == "action")
    assert tournament.get("autocomplete")  # its sub-commands offered as one types
    ranking = next(o for o in _sub(fake, "league", "ranking")["options"] if o["name"] == "method")
    assert ranking.get("autocomplete")
    stats = next(o for o in _sub(fake, "league", "stats")["options"] if o["name"] == "player")
    assert stats["type"] == 6  # a member picked from the server's list
    rules = next(o for o in _sub(fake, "tractor", "rules")["options"] if o["name"] == "all")
    assert [c["value"] for c in rules["choices"]] == ["all"]


STRUCTURED = ("board", "daily", "duplicate", "standings", "history", "season", "export", "tournament")


async def test_structured_options_offer_their_values(rig: Rig) -> None:
    """Finding 11: the league's and the boards' commands took one free-text `args`."""
    fake = rig.fake
    found = {}
    for group in fake.commands:
        for sub in group["options"]:
            if sub["name"] in STRUCTURED:
                found[sub["name"]] = sub
    assert set(found) == set(STRUCTURED)
    for name, sub in found.items():
        assert sub["options"], name
        for option in sub["options"]:
            typed = option["type"] in (4, 6) or option.get("choices") or option.get("autocomplete")
            assert typed, (name, option)
    assert [c["value"] for c in next(o for o in found["export"]["options"])["choices"]] == ["all"]
    season = {o["name"]: o for o in found["season"]["options"]}
    assert [c["value"] for c in season["what"]["choices"]] == ["new"] and season["method"]["autocomplete"]
    offered = await fake.autocomplete(ALICE, "standings", "what", "p", command="league")
    assert [c["value"] for c in offered] == ["pairs", "plain"]
    for name in ("board", "daily", "duplicate"):
        action = next(o for o in found[name]["options"] if o["name"] == "action")
        assert action["autocomplete"], name


def _values(offered: list[dict[str, Any]]) -> list[str]:
    return [c["value"] for c in offered]


async def test_the_words_after_an_action_offer_what_exists_here(fake_discord: FakeDiscord, tmp_path: Path,
                                                               new_rig: NewRig) -> None:
    """The `more` words of board, daily, duplicate and tournament autocomplete from what exists in the
    channel or its server (free text before): boards by who has played them, the server's open events
    (not another server's), the tournament's teams, and the words each action takes."""
    fake = fake_discord
    near, pairs_here, elsewhere = 9101, 9102, 9501
    fake.channel_guild[near] = fake.channel_guild[pairs_here] = fake.guild_id  # channels of the same server
    fake.add_guild(9500, elsewhere)
    store = await SqliteStore.open(str(tmp_path / "boards.sqlite3"))
    rig = await new_rig(store)

    await fake.slash(ALICE, "board", {"action": "new", "more": "ai"})
    await rig.settled()
    board = rig.table().meta.board
    assert board is not None
    mine = str(board.id)
    assert _values(await fake.autocomplete(BOB, "board", "more", "", {"action": "play"})) == [mine]
    assert mine not in _values(await fake.autocomplete(ALICE, "board", "more", "", {"action": "play"}))
    assert _values(await fake.autocomplete(ALICE, "board", "more", "", {"action": "show"})) == [mine]
    assert _values(await fake.autocomplete(BOB, "board", "more", f"{mine} ", {"action": "play"})) == [f"{mine} ai"]
    assert _values(await fake.autocomplete(BOB, "board", "more", "trump=d", {"action": "new"})) == ["trump=drawn"]
    assert _values(await fake.autocomplete(BOB, "daily", "more", "w", {"action": "standings"})) == ["week"]
    assert _values(await fake.autocomplete(BOB, "daily", "more", "", {"action": "play"})) == ["1", "2", "3", "4", "ai"]

    await fake.slash(CAROL, "duplicate", {"action": "new"}, channel_id=near)
    await fake.slash(DAVE, "duplicate", {"action": "pairs"}, channel_id=pairs_here)
    await fake.slash(DAVE, "duplicate", {"action": "pairs"}, channel_id=elsewhere)
    await rig.settled()
    events = {(e.chat_id, e.kind): e.id for e in await rig.host.features[0].desk.boards.all_open_events()}
    room = await fake.autocomplete(BOB, "duplicate", "more", "", {"action": "room"})
    assert _values(room) == [str(events[str(near), "team"])] and "carol" in room[0]["name"]
    assert _values(await fake.autocomplete(BOB, "duplicate", "more", "", {"action": "table"})) == [
        str(events[str(pairs_here), "pairs"])]  # not the other server's
    assert _values(await fake.autocomplete(BOB, "duplicate", "more", "v", {"action": "join"})) == ["visitors"]

    await fake.slash(ALICE, "tournament", {"action": "new"}, command="league")
    await rig.settled()
    await fake.slash(BOB, "tournament", {"action": "team", "more": "Red Dragons"}, command="league")
    await rig.settled()
    teams = await fake.autocomplete(CAROL, "tournament", "more", "r", {"action": "join"}, command="league")
    assert _values(teams) == ["Red Dragons"] and "bob" in teams[0]["name"]
    assert _values(await fake.autocomplete(CAROL, "tournament", "more", "", {"action": "leave"},
                                           command="league")) == []
    assert fake.protocol_errors == [] and fake.unanswered() == []
    await rig.shutdown()
    await store.close()


async def test_a_choice_offered_as_one_types(rig: Rig) -> None:
    offered = await rig.fake.autocomplete(ALICE, "tournament", "action", "s", command="league")
    assert {c["value"] for c in offered} == {"show", "start"}


async def test_the_fake_refuses_what_discord_refuses(fake_discord: FakeDiscord) -> None:
    good = {"name": "tractor", "description": "d", "options": [
        {"type": 1, "name": "new", "description": "n", "options": [
            {"type": 3, "name": "preset", "description": "p", "required": True},
            {"type": 3, "name": "more", "description": "m"}]}]}
    assert command_problems([good]) == []
    bad: list[dict[str, Any]] = [
        {**good, "name": "Tractor"},
        {**good, "name": "t" * 33},
        {**good, "description": "d" * 101},
        {**good, "description_localizations": {"zh": "x"}},
        {**good, "name_localizations": {"zh-CN": "拖 拉"}},
        {**good, "options": [{**good["options"][0], "options": list(reversed(good["options"][0]["options"]))}]},
        {**good, "options": [{"type": 3, "name": f"o{i}", "description": "x"} for i in range(26)]},
    ]
    for command in bad:
        assert command_problems([command]), command
    url = f"{fake_discord.api_base}/applications/{fake_discord.app_id}/commands"
    async with aiohttp.ClientSession() as http, http.put(
            url, json=[bad[0]], headers={"Authorization": f"Bot {fake_discord.token}"}) as response:
        assert response.status == 400 and (await response.json())["code"] == 50035
    assert fake_discord.commands == []


async def test_admin_commands_only_for_those_who_manage_the_server(fake_discord: FakeDiscord, tmp_path: Path,
                                                                   new_rig: NewRig) -> None:
    """Discord never delivers `/tractoradmin` from a member without Manage Server; an admin's export
    comes as a file."""
    store = await SqliteStore.open(str(tmp_path / "league.sqlite3"))
    rig = await new_rig(store)
    with pytest.raises(LookupError, match="permissions 32"):
        await fake_discord.slash(BOB, "export", command="tractoradmin")
    asked = await fake_discord.slash(ALICE, "export", command="tractoradmin")
    await rig.settled()
    assert asked.callback_type in (4, 5)
    files = [m for m in fake_discord.messages.values() if m.attachments]
    assert [name for m in files for name, _ in m.attachments] == ["export.csv"]
    assert fake_discord.protocol_errors == [] and fake_discord.unanswered() == []
    await rig.shutdown()
    await store.close()
