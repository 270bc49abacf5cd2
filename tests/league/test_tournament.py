"""The tournament model against hand-computed examples (document 001: knockout, 大分/小分, forfeits)."""

from __future__ import annotations

import json
import random

import pytest

from bot.league.tournament import (
    BOTH,
    Game,
    Member,
    Tournament,
    TournamentError,
    bracket_order,
    round_robin_rounds,
)


def field(fmt: str, n: int, *, seeded: bool = True) -> Tournament:
    t = Tournament(1, "telegram", "g1", fmt, seeded=seeded)  # type: ignore[arg-type]
    for i in range(1, n + 1):
        t.add_team(f"T{i}", Member(f"u{i}a", f"P{i}a"))
        t.join_team(f"T{i}", Member(f"u{i}b", f"P{i}b"))
    return t


def win(t: Tournament, winner: str, loser_gained: int = 0, *, match_id: list[int] = [100]) -> None:  # noqa: B006
    """The pairing holding `winner` in the current round: a game won by it (the loser gained some levels)."""
    e = t.find(winner)
    assert e is not None
    p = next(p for p in t.pairings if p.ready and e.no in (p.a, p.b))
    side = p.side_of(e.no)
    assert side is not None
    gained = (0, loser_gained) if side == 0 else (loser_gained, 0)
    match_id[0] += 1
    t.record_game(p.key, Game(match_id[0], side, gained))


def names(t: Tournament, nos: tuple[int | None, ...]) -> tuple[str | None, ...]:
    return tuple(None if n is None else t.entrant(n).name for n in nos)


def test_bracket_order_is_the_standard_seeding() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(4) == [1, 4, 2, 3]


def test_eight_team_seeded_knockout_to_a_best_of_three_final() -> None:
    t = field("knockout", 8)
    strength = {i: 100.0 - i for i in range(1, 9)}  # T1 strongest
    t.start(strength)
    first = [names(t, (p.a, p.b)) for p in t.pairings if p.round == 1]
    assert first == [("T1", "T8"), ("T4", "T5"), ("T2", "T7"), ("T3", "T6")]
    assert t.rounds == 3 and [p.best_of for p in t.pairings if p.round == 3] == [3]
    for w in ("T1", "T5", "T7", "T3"):
        win(t, w)
    assert [names(t, (p.a, p.b)) for p in t.pairings if p.round == 2] == [("T1", "T5"), ("T7", "T3")]
    win(t, "T5")
    win(t, "T7")
    final = t.pairings[-1]
    assert names(t, (final.a, final.b)) == ("T5", "T7")
    win(t, "T5")
    assert final.winner is None and t.status == "running"  # one game of three
    win(t, "T7")
    win(t, "T7")
    assert final.game_wins() == (1, 2) and t.status == "finished"
    assert t.champion() is not None and t.champion().name == "T7"  # type: ignore[union-attr]


def test_six_teams_give_the_top_two_seeds_byes() -> None:
    t = field("knockout", 6)
    t.start({i: -i for i in range(1, 7)})
    first = [names(t, (p.a, p.b)) for p in t.pairings if p.round == 1]
    assert first == [("T1", None), ("T4", "T5"), ("T2", None), ("T3", "T6")]
    assert [p.winner for p in t.pairings if p.round == 1 and p.bye] == [1, 2]
    assert t.next_pairing() is not None and names(t, (t.next_pairing().a, t.next_pairing().b)) == ("T4", "T5")  # type: ignore[union-attr]


def test_a_drawn_bracket_is_a_fixed_shuffle_of_the_field() -> None:
    a, b = field("knockout", 8, seeded=False), field("knockout", 8, seeded=False)
    a.start()
    b.start()
    assert [(p.a, p.b) for p in a.pairings] == [(p.a, p.b) for p in b.pairings]  # the tournament's seed
    assert sorted(n for p in a.pairings if p.round == 1 for n in (p.a, p.b)) == list(range(1, 9))


def test_late_team_forfeits_and_a_double_forfeit_gives_a_walkover() -> None:
    t = field("knockout", 4)
    t.start({1: 4, 2: 3, 3: 2, 4: 1})  # T1 v T4, T2 v T3
    p1, p2 = (p for p in t.pairings if p.round == 1)
    t.forfeit(p1.key, 4)
    assert p1.winner == 1 and p1.forfeit == 4
    t.forfeit(p2.key, None)
    assert p2.forfeit == BOTH and p2.winner is None
    final = t.pairings[-1]
    assert (final.a, final.b, final.winner) == (1, None, 1) and t.status == "finished"


def test_round_robin_meets_everyone_once() -> None:
    rounds = round_robin_rounds([1, 2, 3, 4, 5])
    assert len(rounds) == 5
    met = [frozenset(p) for r in rounds for p in r if None not in p]
    assert len(met) == 10 == len(set(met))
    assert all(sum(1 for p in r if None in p) == 1 for r in rounds)  # one sits out each round


def _play_rr(t: Tournament, results: list[tuple[str, str, int]]) -> None:
    """(winner, loser, levels the loser gained) for every pairing of a round robin."""
    for w, lo, g in results:
        a, b = t.find(w), t.find(lo)
        assert a is not None and b is not None
        p = next(p for p in t.pairings if {p.a, p.b} == {a.no, b.no})
        side = p.side_of(a.no)
        assert side is not None
        t.record_game(p.key, Game(len(p.games) + 1000 * p.round + p.slot, side,
                                  (0, g) if side == 0 else (g, 0)))


def test_round_robin_big_and_small_points_by_hand() -> None:
    """001c 六: winner 3 大分 13 小分, loser 1 大分 and a 小分 per level gained.

    T1>T2 (T2 gained 5): T1 3/13, T2 1/5;  T3>T4 (2): T3 3/13, T4 1/2;  T1>T3 (8): T1 6/26, T3 4/21;
    T2>T4 (0): T2 4/18, T4 2/2;  T4>T1 (7): T4 5/15, T1 7/33;  T3>T2 (3): T3 7/34, T2 5/21.
    T3 and T1 both have 7 大分; T3 leads on 小分 (34 to 33).
    """
    t = field("roundrobin", 4)
    t.start()
    _play_rr(t, [("T1", "T2", 5), ("T3", "T4", 2), ("T1", "T3", 8), ("T2", "T4", 0), ("T4", "T1", 7),
                 ("T3", "T2", 3)])
    assert t.status == "finished"
    rows = [(r.entrant.name, r.played, r.won, r.big, r.small) for r in t.table()]
    assert rows == [("T3", 3, 2, 7, 34), ("T1", 3, 2, 7, 33), ("T2", 3, 1, 5, 21), ("T4", 3, 1, 5, 15)]


def test_round_robin_tie_broken_head_to_head() -> None:
    """T1>T2 (3), T3>T1 (3), T2>T3 (3), T1>T4 (0), T3>T4 (0), T4>T2 (3): T1 and T3 both 7/29; T3 beat T1."""
    t = field("roundrobin", 4)
    t.start()
    _play_rr(t, [("T1", "T2", 3), ("T3", "T1", 3), ("T2", "T3", 3), ("T1", "T4", 0), ("T3", "T4", 0),
                 ("T4", "T2", 3)])
    rows = [(r.entrant.name, r.big, r.small) for r in t.table()]
    assert rows == [("T3", 7, 29), ("T1", 7, 29), ("T2", 5, 19), ("T4", 5, 13)]


def test_forfeit_scores_three_and_thirteen_to_nothing() -> None:
    t = field("roundrobin", 3)
    t.start()
    p = next(p for p in t.pairings if p.a is not None and p.b is not None)
    t.forfeit(p.key, p.b)
    assert t.scores(p) == ((3, 13), (0, 0))


@pytest.mark.parametrize("n", [5, 8, 11])
def test_swiss_pairs_by_score_without_rematches(n: int) -> None:
    t = field("swiss", n)
    t.start()
    rng = random.Random(n)
    while t.status == "running":
        p = t.next_pairing()
        assert p is not None
        t.record_game(p.key, Game(len(t.pairings) * 10 + p.slot + 1000 * p.round, rng.choice((0, 1)),
                                  (rng.randrange(10), rng.randrange(10))))
    real = [frozenset((p.a, p.b)) for p in t.pairings if not p.bye]
    assert len(real) == len(set(real))  # nobody met twice
    assert t.rounds == {5: 3, 8: 3, 11: 4}[n]
    byes = [p.a for p in t.pairings if p.bye]
    assert len(byes) == len(set(byes)) == (t.rounds if n % 2 else 0)
    for r in t.table():
        assert r.played + (1 if r.entrant.no in byes else 0) == t.rounds


def test_swiss_second_round_pairs_winners_with_winners() -> None:
    t = field("swiss", 8)
    t.start()
    winners = set()
    for p in [p for p in t.pairings if p.round == 1]:
        t.record_game(p.key, Game(p.slot + 1, 0, (0, 2)))
        winners.add(p.a)
    second = [p for p in t.pairings if p.round == 2]
    assert all((p.a in winners) == (p.b in winners) for p in second)


def test_steps_refused_with_a_reason() -> None:
    t = field("knockout", 2)
    with pytest.raises(TournamentError) as e:
        t.add_team("T1", Member("x", "X"))
    assert e.value.code == "name_taken"
    with pytest.raises(TournamentError) as e:
        t.add_team("New", Member("u1a", "P1a"))
    assert e.value.code == "already_in"
    with pytest.raises(TournamentError) as e:
        t.join_team("T1", Member("zz", "Z"))
    assert e.value.code == "team_full"
    rr = field("roundrobin", 2)
    with pytest.raises(TournamentError) as e:
        rr.start()
    assert e.value.code == "too_few"


def test_a_lone_player_gets_an_ai_partner_and_ai_teams_fill_the_field() -> None:
    t = Tournament(1, "telegram", "g1", "knockout")
    t.add_team("Solo", Member("u1", "Ann"))
    t.add_ai_teams(3, ["AI Tigers"])
    assert [e.name for e in t.entrants] == ["Solo", "AI Tigers", "AI Tigers 3", "AI Tigers 4"]
    t.start()
    assert [m.is_ai for m in t.entrants[0].members] == [False, True]


def test_stored_as_json_and_back() -> None:
    t = field("knockout", 5)
    t.start()
    win(t, "T4")
    back = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert back.to_dict() == t.to_dict()


def test_bracket_and_table_as_text_and_png() -> None:
    import io

    from PIL import Image

    from bot.league.tournament_view import tournament_png, tournament_text

    ko = field("knockout", 6)
    assert "T1 (P1a & P1b)" in tournament_text(ko, "en")  # entries before the start
    assert tournament_png(ko, "en") is None
    ko.start({i: -i for i in range(1, 7)})
    win(ko, "T4")
    text = tournament_text(ko, "en").splitlines()
    assert text[0] == "🏆 Tournament #1 · knockout (seeded) · classic"
    assert "Quarter-finals" in text and "Semi-finals" in text and "Final (best of 3: first to 2)" in text
    assert "  [1] T1 has a bye" in text and "  [4] T4 — [5] T5 · [4] T4 won" in text
    zh = tournament_text(ko, "zh")
    assert "半决赛" in zh and "决赛（3局2胜）" in zh
    png = tournament_png(ko, "zh")
    assert png is not None
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.width >= 3 * 250 and img.height > 4 * 64
    rr = field("roundrobin", 4)
    rr.start()
    _play_rr(rr, [("T1", "T2", 5)])
    lines = tournament_text(rr, "en").splitlines()
    assert lines[1] == "1. T1 — 1 · 1 · 3 · 13" and "Round 1" in lines
    table_png = tournament_png(rr, "en")
    assert table_png is not None and Image.open(io.BytesIO(table_png)).format == "PNG"
