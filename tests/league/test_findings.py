"""The league's surface as the issue-19 season found it: each finding with the behaviour a player expects."""

from __future__ import annotations

import csv
import io

from PIL import Image

from bot.league import league_command, record_match
from bot.league.pairs import pair_standings
from bot.league.standings import standings
from bot.league.tables import standings_table
from bot.platform import User, Where
from persistence.league_store import LeagueStore
from tests.league.sim import SEASON, match

GROUP = Where("telegram", "g1")
ADMIN = User("telegram", "uadmin", "Admin")


async def cmd(store: LeagueStore, name: str, *args: str, lang: str = "en", admin: bool = False) -> str:
    return (await league_command(store, GROUP, ADMIN, name, args, lang, admin)).text


async def test_a_new_season_points_to_the_all_time_table(store: LeagueStore) -> None:
    for r in SEASON:
        await record_match(store, r)
    await cmd(store, "season", "new", admin=True)
    assert await cmd(store, "standings") == "No finished matches this season (2) yet. For all seasons: standings all"
    assert "第 2 赛季还没有完成的对局" in await cmd(store, "standings", lang="zh")
    assert (await cmd(store, "standings", "all")).startswith("Standings · all time")


async def test_a_mistyped_method_is_refused_not_replaced(store: LeagueStore) -> None:
    for r in SEASON:
        await record_match(store, r)
    text = await cmd(store, "standings", "bigsmal")
    assert text.startswith("I don't know 'bigsmal'")
    assert "大分" not in text and "Standings" not in text
    assert (await cmd(store, "standings", "5", "bigsmall")).startswith("Standings · season 1 · 大分")


async def test_the_csv_file_starts_with_a_bom(store: LeagueStore) -> None:
    await record_match(store, match(1, ("张三", "李四"), ("王五", "赵六"), 0, (5, 2)))
    reply = await league_command(store, GROUP, ADMIN, "export", (), "zh", True)
    data = reply.csv_bytes
    assert data is not None and data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[0]["seat0_name"] == "张三"


def test_match_points_line_up_with_one_decimal() -> None:
    records = [
        match(1, ("A", "B"), ("C", "D"), 0, (5, 2)),   # 3 : 0
        match(2, ("A", "C"), ("B", "D"), 1, (3, 4)),   # 1 : 2
        match(3, ("A", "D"), ("B", "C"), 0, (6, 4)),   # 2.5 : 0.5
    ]
    table = standings_table(standings(records, "matchpoints"), "matchpoints", {}, "en", title="t")
    points = [row[5] for row in table.rows]
    assert all(len(p.split(".")[1]) == 1 for p in points), points
    assert sorted(points, reverse=True)[0] == "6.5"  # A: 3 + 1 + 2.5


def test_pair_table_hand_computed() -> None:
    """A&B win twice as partners (5:2 -> 3 场分, 3:2 -> 2); C&D lose both (0 and 1); A&C play once."""
    records = [
        match(1, ("A", "B"), ("C", "D"), 0, (5, 2)),
        match(2, ("B", "A"), ("D", "C"), 0, (3, 2)),
        match(3, ("A", "C"), ("B", "ai"), 0, (4, 2)),
    ]
    rows = pair_standings(records, "matchpoints")
    assert [(p.name, p.matches, p.wins, p.points, p.standard) for p in rows] == [
        ("A & B", 2, 2, 5.0, 24),
        ("A & C", 1, 1, 2.5, 12),
        ("C & D", 2, 0, 1.0, 16),
    ]
    big = pair_standings(records, "bigsmall")
    assert [(p.name, p.big, p.small) for p in big] == [("A & B", 6, 26), ("A & C", 3, 13), ("C & D", 2, 4)]


async def test_standings_pairs_command(store: LeagueStore) -> None:
    await record_match(store, match(1, ("A", "B"), ("C", "D"), 0, (5, 2)))
    reply = await league_command(store, GROUP, ADMIN, "standings", ("pairs", "matchpoints"), "en", False)
    lines = reply.text.splitlines()
    assert lines[0] == "Season 1 pairs · 场分 (doc 004)"
    assert lines[2] == "1. A & B — 1 · 1 · 3.0 · 13"
    assert reply.image_png is not None and Image.open(io.BytesIO(reply.image_png)).format == "PNG"
