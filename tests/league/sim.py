"""Build match records for tests in one line each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.league.records import RANKS, Ending, HandSummary, MatchFormat, MatchRecord, SeatPlayer

T0 = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)
AI = "ai"


def match(
    match_id: int,
    team0: tuple[str, str],
    team1: tuple[str, str],
    winner: int | None,
    gained: tuple[int, int],
    *,
    ending: Ending = "target",
    hands: tuple[tuple[int, int, bool], ...] = (),
    chat_id: str = "g1",
    platform: str = "telegram",
    forfeit_team: int | None = None,
    match_format: MatchFormat = "single",
    minutes: int = 60,
) -> MatchRecord:
    """Team 0 sits in seats 0 and 2, team 1 in seats 1 and 3; a player named "ai" is an AI seat.

    Each player's user id is "u" + their name, so names and ids are easy to tell apart.
    """
    order = (team0[0], team1[0], team0[1], team1[1])
    seats = tuple(
        SeatPlayer(seat, "" if name == AI else f"u{name}", "AI" if name == AI else name, is_ai=name == AI)
        for seat, name in enumerate(order)
    )
    start = T0 + timedelta(days=match_id)
    return MatchRecord(
        platform=platform,
        chat_id=chat_id,
        match_id=match_id,
        seats=seats,
        preset="classic",
        levels=(RANKS[min(12, gained[0])], RANKS[min(12, gained[1])]),
        levels_gained=gained,
        hands=tuple(HandSummary(*h) for h in hands),
        started_at=start,
        ended_at=start + timedelta(minutes=minutes),
        ending=ending,
        winner_team=winner,
        match_format=match_format,
        forfeit_team=forfeit_team,
        on_top_team=winner,
    )


# A season of six players, scored by hand in the tests (see test_season.py).
M1_HANDS = ((0, 40, True), (0, 90, False), (1, 30, True))
SEASON = (
    match(1, ("A", "B"), ("C", "D"), 0, (12, 5), hands=M1_HANDS),
    match(2, ("A", "C"), ("E", "F"), 1, (4, 12)),
    match(3, ("B", "D"), ("E", "F"), 0, (6, 5), ending="time_limit"),
    match(4, ("C", "E"), ("A", "F"), 1, (3, 2), ending="forfeit", forfeit_team=0),
    match(5, ("D", "F"), ("B", "C"), None, (1, 1), ending="abandoned"),
)
