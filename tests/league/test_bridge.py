"""The host hook: a finished table becomes a league record (engine summaries as the engine gives them)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.league.bridge import hand_summaries, levels_gained, record, record_from_table
from persistence.league_store import LeagueStore
from persistence.store import SqliteStore


def summary(
    no: int, declarer_team: int, points: int, winner: str, after: list[str], **extra: Any
) -> dict[str, Any]:
    """A hand summary shaped like the engine's `Match.history` entries."""
    return {
        "reason": "played",
        "dealer": declarer_team,
        "declarer_team": declarer_team,
        "defender_points": points,
        "winner": winner,
        "hand_no": no,
        "levels_after": after,
        **extra,
    }


HISTORY = [
    summary(1, 0, 145, "defenders", ["2", "3"]),
    summary(2, 1, 10, "declarers", ["2", "6"]),
    {"reason": "redeal", "dealer": 2, "declarer_team": 0, "hand_no": 3, "levels_after": ["2", "6"]},
    summary(4, 1, 90, "defenders", ["2", "6"]),
    summary(5, 0, 0, "declarers", ["6", "6"]),
    summary(6, 0, 60, "declarers", ["7", "6"]),
]


class FakeMatch:
    """Just enough of the engine's Match for the bridge; `log_only` hides `history` to force a replay."""

    def __init__(self, history: list[dict[str, Any]], *, log_only: bool = False) -> None:
        self._history = history
        if not log_only:
            self.history = history
        self.rules = "classic"
        self.seed = 1
        self.actions = [{"t": "step", "i": i} for i in range(len(history))]
        self.phase = "dealing"
        self._done = 0

    @classmethod
    def new(cls, rules: str, seed: int) -> FakeMatch:
        return cls(HISTORY, log_only=True)

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        self._done = action["i"] + 1
        self.phase = "hand_over"
        return []

    def public_view(self) -> dict[str, Any]:
        return {"hand_no": self._done, "last_result": self._history[self._done - 1] if self._done else None}


class FakeTable:
    def __init__(self, match: FakeMatch) -> None:
        self.match = match
        self.platform_name = "telegram"
        self.chat_id = "g1"
        self.id = 42
        self.meta = {"preset": "classic", "settings": {"format": "timed"}}
        self.seats = [
            {"kind": "human", "user_id": "1", "name": "张三"},
            {"kind": "ai", "name": "Bot"},
            {"kind": "human", "user_id": "3", "name": "李四"},
            {"kind": "human", "user_id": "4", "name": "Dan", "away": True},
        ]


T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 21, 30, tzinfo=UTC)


class TestBridge:
    def test_record_from_table(self) -> None:
        table = FakeTable(FakeMatch(HISTORY))
        r = record_from_table(
            table,
            {"winner_team": 0, "levels": ["7", "6"], "reason": "time_limit"},
            started_at=T0,
            ended_at=T1,
        )
        assert (r.platform, r.chat_id, r.match_id, r.preset, r.match_format) == (
            "telegram",
            "g1",
            42,
            "classic",
            "timed",
        )
        assert [(p.user_id, p.name, p.is_ai) for p in r.seats] == [
            ("1", "张三", False), ("", "Bot", True), ("3", "李四", False), ("4", "Dan", False),
        ]  # fmt: skip
        assert r.levels == ("7", "6") and r.levels_gained == (5, 4)
        assert r.hands_played == 5  # the redeal is not a played hand
        assert [h.declarers_won for h in r.hands] == [False, True, False, True, True]
        assert (r.ending, r.winner_team, r.on_top_team) == ("time_limit", 0, 0)
        assert r.duration.total_seconds() == 90 * 60

    def test_abandoned_and_forfeit(self) -> None:
        table = FakeTable(FakeMatch(HISTORY[:2]))
        gone = record_from_table(table, {"reason": "abandoned"}, started_at=T0, ended_at=T1)
        assert (gone.ending, gone.winner_team, gone.counts) == ("abandoned", None, False)
        result = {"reason": "forfeit", "winner_team": 1, "forfeit_team": 0}
        lost = record_from_table(table, result, started_at=T0, ended_at=T1)
        assert (lost.ending, lost.winner_team, lost.forfeit_team) == ("forfeit", 1, 0)
        assert lost.levels == ("2", "6")

    def test_replays_the_log_when_the_match_keeps_no_history(self) -> None:
        assert hand_summaries(FakeMatch(HISTORY, log_only=True)) == HISTORY

    def test_levels_gained_wraps_past_a(self) -> None:
        hands = [summary(1, 0, 0, "declarers", ["K", "5"]), summary(2, 0, 10, "declarers", ["3", "5"])]
        assert levels_gained(["9", "5"], hands) == (7, 0)

    def test_knock_back_counts_against(self) -> None:
        hands = [summary(1, 0, 0, "declarers", ["J", "2"]), summary(2, 0, 90, "defenders", ["2", "2"])]
        assert levels_gained(["2", "2"], hands) == (0, 0)


@pytest.fixture
async def host_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = await SqliteStore.open(tmp_path / "host.sqlite3")
    yield s
    await s.close()


class TestHook:
    async def test_record_uses_the_stored_times_and_is_idempotent(self, host_store: SqliteStore) -> None:
        table = FakeTable(FakeMatch(HISTORY))
        mid = await host_store.create_match("telegram", "g1", {"name": "classic"}, table.seats, 1, {})
        table.id = mid
        await host_store.finish_match(mid, "finished", {"winner_team": 0})
        result = {"winner_team": 0, "levels": ["7", "6"], "reason": "target"}
        assert await record(host_store, table, result)
        assert not await record(host_store, table, result)
        stored = await LeagueStore.of(host_store).matches("telegram", "g1")
        assert [d["match_id"] for d in stored] == [mid]
        assert stored[0]["seats"][0]["name"] == "张三"
