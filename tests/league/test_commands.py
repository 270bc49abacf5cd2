"""league_command and record_match as the host calls them."""

from __future__ import annotations

import csv
import io

from PIL import Image

from bot.league import LeagueReply, league_command, record_match
from bot.platform import User, Where
from persistence.league_store import LeagueStore
from tests.league.sim import SEASON, match

GROUP = Where("telegram", "g1")
ADMIN = User("telegram", "uadmin", "Admin")
ALICE = User("telegram", "uA", "A")


async def cmd(
    store: LeagueStore,
    name: str,
    *args: str,
    lang: str = "en",
    admin: bool = False,
    where: Where = GROUP,
    user: User = ALICE,
) -> LeagueReply:
    return await league_command(store, where, user, name, args, lang, admin)


async def play_season(store: LeagueStore) -> None:
    for r in SEASON:
        assert await record_match(store, r)


class TestStandings:
    async def test_empty_league(self, store: LeagueStore) -> None:
        reply = await cmd(store, "standings")
        assert reply.text == "No finished matches in this league yet." and reply.image_png is None

    async def test_text_and_picture_in_the_chosen_method(self, store: LeagueStore) -> None:
        await play_season(store)
        assert (
            await cmd(store, "ranking", "大分", admin=True)
        ).text == "This league now ranks by 大分/小分 (doc 001)."
        reply = await cmd(store, "standings")
        lines = reply.text.splitlines()
        assert lines[0] == "Standings · season 1 · 大分/小分 (doc 001)"
        assert [line.split(". ")[1].split(" ")[0] for line in lines[2:]] == ["F", "A", "B", "D", "E", "C"]
        assert lines[2] == "1. F (new) — 3 · 2 · 7 · 31"
        assert reply.image_png is not None
        assert Image.open(io.BytesIO(reply.image_png)).format == "PNG"

    async def test_top_n_and_movement_since_last_shown(self, store: LeagueStore) -> None:
        await cmd(store, "ranking", "plain", admin=True)
        for r in SEASON[:1]:
            await record_match(store, r)
        first = await cmd(store, "standings")
        assert [line.split(" (")[0] for line in first.text.splitlines()[2:]] == [
            "1. A",
            "2. B",
            "3. C",
            "4. D",
        ]
        for r in SEASON[1:]:
            await record_match(store, r)
        again = await cmd(store, "standings", "3")
        assert again.text.splitlines()[2:] == [
            "1. B (▲1) — 2 · 2 · 100%",
            "2. F (new) — 3 · 2 · 67%",
            "3. A (▼2) — 3 · 2 · 67%",
        ]
        unchanged = await cmd(store, "standings", "1")
        assert unchanged.text.splitlines()[2] == "1. B (=) — 2 · 2 · 100%"

    async def test_season_and_all_time(self, store: LeagueStore) -> None:
        await cmd(store, "ranking", "plain", admin=True)
        await record_match(store, SEASON[0])
        assert (await cmd(store, "season", "new")).text == "Only a chat admin can do that."
        assert (await cmd(store, "season", "new", admin=True)).text.startswith("Season 2 has begun")
        await record_match(store, SEASON[1])
        season = await cmd(store, "standings")
        assert season.text.splitlines()[0] == "Standings · season 2 · wins"
        assert [line.split(" (")[0] for line in season.text.splitlines()[2:]] == [
            "1. E",
            "2. F",
            "3. A",
            "4. C",
        ]
        alltime = await cmd(store, "standings", "all")
        assert alltime.text.splitlines()[0] == "Standings · all time · wins"
        assert len(alltime.text.splitlines()[2:]) == 6
        info = await cmd(store, "season")
        assert info.text.startswith("Season 2 since ") and info.text.endswith("ranking: wins")

    async def test_another_method_for_one_showing(self, store: LeagueStore) -> None:
        await play_season(store)
        once = await cmd(store, "standings", "场分", "2")
        assert once.text.splitlines()[0] == "Standings · season 1 · 场分 (doc 004)"
        assert once.text.splitlines()[2:] == [
            "1. F (new) — 3 · 2 · 6.5 · 39",
            "2. A (new) — 3 · 2 · 5.5 · 31",
        ]
        assert (await cmd(store, "standings")).text.splitlines()[0].endswith("skill rating (OpenSkill)")

    async def test_new_season_with_a_method(self, store: LeagueStore) -> None:
        assert (await cmd(store, "season", "new", "elo", admin=True)).text.startswith("Unknown ranking 'elo'")
        reply = await cmd(store, "season", "new", "bigsmall", admin=True)
        assert reply.text.splitlines() == [
            "Season 2 has begun. All-time standings keep every season.",
            "This league now ranks by 大分/小分 (doc 001).",
        ]

    async def test_chinese(self, store: LeagueStore) -> None:
        await play_season(store)
        reply = await cmd(store, "standings", lang="zh")
        assert reply.text.splitlines()[0] == "排名 · 第1赛季 · 技术等级分（OpenSkill）"
        assert "暂定" in reply.text
        assert (await cmd(store, "season", "new", lang="zh")).text == "只有群管理员可以这样做。"

    async def test_rating_marks_provisional_players(self, store: LeagueStore) -> None:
        await play_season(store)
        reply = await cmd(store, "standings")
        assert all(line.endswith("?") for line in reply.text.splitlines()[2:-1])

    async def test_unknown_ranking_and_admin_only(self, store: LeagueStore) -> None:
        assert (await cmd(store, "ranking", "elo", admin=True)).text.startswith("Unknown ranking 'elo'")
        assert (await cmd(store, "ranking", "plain")).text == "Only a chat admin can do that."
        assert (await cmd(store, "ranking")).text == "This league ranks by skill rating (OpenSkill)."


class TestStatsHistoryExport:
    async def test_stats_for_self_and_by_name(self, store: LeagueStore) -> None:
        await play_season(store)
        mine = (await cmd(store, "stats")).text.splitlines()
        assert mine[0] == "A"
        assert mine[1] == (
            "This season: 3 matches, 2 wins (67%) · hands won as declarers 1, as defenders 0 · avg defenders' points 30.0"
        )
        assert "大分 7 小分 30 · 场分 5.5 (std 31)" in mine[2]
        assert mine[3] == "  best partner: B (won 1 of 1 together)"
        other = (await cmd(store, "stats", "c")).text
        assert other.startswith("C\n") and "avg defenders' points 65.0" in other
        assert (await cmd(store, "stats", "nobody")).text == "No player called 'nobody' in this league."

    async def test_stats_across_chats_and_in_private(self, store: LeagueStore) -> None:
        await play_season(store)
        await record_match(store, match(10, ("A", "X"), ("Y", "Z"), 0, (12, 2), chat_id="g2"))
        here = (await cmd(store, "stats")).text.splitlines()
        assert [line.split(":")[0] for line in here if not line.startswith(" ")] == [
            "A",
            "This season",
            "All chats",
        ]
        assert here[-3].startswith("All chats: 4 matches, 3 wins (75%)")
        await cmd(store, "season", "new", admin=True)
        await record_match(store, match(11, ("A", "B"), ("C", "D"), 1, (2, 12)))
        scopes = [
            line.split(":")[0] for line in (await cmd(store, "stats")).text.splitlines() if line[0] != " "
        ]
        assert scopes == ["A", "This season", "All time here", "All chats"]
        private = (await cmd(store, "stats", where=Where("telegram", "uA", private=True))).text
        assert private.splitlines()[1].startswith("All chats: 5 matches, 3 wins (60%)")
        assert (await cmd(store, "standings", where=Where("telegram", "uA", private=True))).text.startswith(
            "Leagues belong to group chats"
        )

    async def test_history_lists_recent_matches_with_ids(self, store: LeagueStore) -> None:
        await play_season(store)
        await record_match(store, match(6, ("张三", "ai"), ("ai", "李四"), 1, (3, 12)))
        text = (await cmd(store, "history", "3")).text.splitlines()
        assert text[0] == "Recent matches (replay one with /replay ID)"
        assert text[1].startswith(
            "#6 2026-01-11 · 张三 & AI vs AI & 李四 · 5:A · AI & 李四 won (passed the target)"
        )
        assert text[2].startswith("#5 ") and "abandoned" in text[2]
        assert text[3].endswith("A & F won (the others forfeited) · 0 hands, 60 min")
        zh = (await cmd(store, "history", "1", lang="zh")).text.splitlines()
        assert zh[1].startswith("#6 2026-01-11 · 张三 & 电脑 对 电脑 & 李四")

    async def test_export_csv(self, store: LeagueStore) -> None:
        await play_season(store)
        assert (await cmd(store, "export")).text == "Only a chat admin can do that."  # everyone's matches
        reply = await cmd(store, "export", admin=True)
        assert reply.csv is not None and reply.text == "Matches exported: 5."
        rows = list(csv.DictReader(io.StringIO(reply.csv)))
        assert [r["match_id"] for r in rows] == ["1", "2", "3", "4", "5"]
        m1, m4, m5 = rows[0], rows[3], rows[4]
        assert (m1["seat0_name"], m1["seat1_name"], m1["team0_big"], m1["team0_small"], m1["team1_small"]) == (
            "A", "C", "3", "13", "5",
        )  # fmt: skip
        assert (m1["team0_match_points"], m1["team0_standard"], m1["hands"], m1["season"]) == (
            "3",
            "17",
            "3",
            "1",
        )
        assert (m4["ending"], m4["team1_match_points"], m4["team1_standard"], m4["team0_big"]) == (
            "forfeit", "2.5", "12", "0",
        )  # fmt: skip
        assert m5["winner_team"] == "" and m5["team0_big"] == ""

    async def test_export_defuses_formula_names(self, store: LeagueStore) -> None:
        await record_match(store, match(1, ("=HYPERLINK(1)", "B"), ("@x", "D"), 0, (12, 5)))
        reply = await cmd(store, "export", admin=True)
        assert reply.csv is not None
        row = next(csv.DictReader(io.StringIO(reply.csv)))
        assert (row["seat0_name"], row["seat1_name"], row["seat2_name"]) == ("'=HYPERLINK(1)", "'@x", "B")

    async def test_recording_twice_counts_once(self, store: LeagueStore) -> None:
        assert await record_match(store, SEASON[0])
        assert not await record_match(store, SEASON[0])
        assert (await cmd(store, "export", admin=True)).text == "Matches exported: 1."

    async def test_unknown_command_gives_help(self, store: LeagueStore) -> None:
        assert (await cmd(store, "league")).text.startswith("League commands:")
