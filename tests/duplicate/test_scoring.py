"""002's conversion table and scoring rules against examples computed by hand from the document."""

from __future__ import annotations

import pytest

from bot.duplicate.scoring import (
    CONVERSION,
    board_swing,
    declarers_score,
    match_points,
    matchpoints,
    pair_score,
    percentages,
    team_net,
)

# 附 分数换算表, read off the document band by band: every net in steps of 5 and its match points.
TABLE_002 = {
    0: 0, 5: 1, 10: 1, 15: 2, 20: 2, 25: 3, 30: 3, 35: 3, 40: 4, 45: 4, 50: 4,
    55: 5, 60: 5, 65: 5, 70: 5, 75: 6, 80: 6, 85: 6, 90: 6, 95: 7, 100: 7, 105: 7, 110: 7, 115: 7,
    120: 8, 125: 8, 130: 8, 135: 8, 140: 8, 145: 9, 150: 9, 155: 9, 160: 9, 165: 9, 170: 9, 175: 9,
    180: 10, 200: 10, 250: 10, 400: 10,
}


@pytest.mark.parametrize(("net", "mp"), sorted(TABLE_002.items()))
def test_conversion_table_exactly_as_002(net: int, mp: int) -> None:
    assert match_points(net) == mp
    assert match_points(-net) == mp  # the sign only says who gets them


def test_bands_are_the_printed_lower_bounds_and_no_more() -> None:
    assert [low for low, _ in CONVERSION] == [5, 15, 25, 40, 55, 75, 95, 120, 145, 180]
    assert [mp for _, mp in CONVERSION] == list(range(1, 11))
    assert match_points(12) == 1 and match_points(4) == 0  # off-grid nets take the lower band


def test_guangtou_credits_the_dealer_200() -> None:
    assert declarers_score(0) == 200
    assert declarers_score(-10) == 200  # penalties below nothing are still nothing taken
    assert declarers_score(5) == -5 and declarers_score(120) == -120


def test_team_board_examples_by_hand() -> None:
    # Board 1, North deals (team 0). Open room: home (N-S) declares, visitors defend and take 40.
    # Closed room: visitors (N-S) declare, home defends and takes 85. Home's net: 85 - 40 = 45 -> 4 MP.
    s = board_swing(0, open_points=40, closed_points=85)
    assert (s.net, s.home, s.visitors) == (45, 4, 0)
    # Board 2, West deals (team 1). Open: visitors (E-W) declare, home defends with 30.
    # Closed: home (E-W) declares, visitors defend with 110. Net for home: 30 - 110 = -80 -> visitors 6.
    s = board_swing(1, open_points=30, closed_points=110)
    assert (s.net, s.home, s.visitors) == (-80, 0, 6)
    # Board 3, South deals: home declares in the open room and holds the defenders to 光头 (0);
    # in the closed room home defends and takes 20. Home: +200 (光头) + 20 = 220 -> 10 MP.
    s = board_swing(0, open_points=0, closed_points=20)
    assert (s.net, s.home, s.visitors) == (220, 10, 0)
    # Both rooms 光头: the dealers cancel out.
    assert board_swing(0, 0, 0).net == 0 and board_swing(1, 0, 0).home == 0
    # Same result in both rooms: no swing.
    s = board_swing(1, 60, 60)
    assert (s.net, s.home, s.visitors) == (0, 0, 0)
    assert team_net(1, 95, 10) == 85  # E-W deal: home defends open (95), visitors defend closed (10)


def test_a_four_board_match_running_score_by_hand() -> None:
    boards = [(0, 40, 85), (1, 30, 110), (0, 0, 20), (1, 95, 10)]
    home = visitors = 0
    for dealer_team, o, c in boards:
        s = board_swing(dealer_team, o, c)
        home += s.home
        visitors += s.visitors
    # 4 + 0 + 10 + 6 (net 85 -> 6) for home; 6 for the visitors
    assert (home, visitors) == (20, 6)


def test_pairs_score_actual_points_guangtou_zero() -> None:
    assert pair_score(85, defending=True) == 85 and pair_score(85, defending=False) == -85
    assert pair_score(0, defending=True) == 0 and pair_score(0, defending=False) == 0
    assert pair_score(-10, defending=True) == 0


def test_matchpoints_against_the_field_as_in_bridge() -> None:
    # Four N-S pairs defended the same board and took 40, 85, 40, 120.
    assert matchpoints([40, 85, 40, 120]) == [1.0, 4.0, 1.0, 6.0]
    assert percentages([40, 85, 40, 120]) == pytest.approx([100 / 6, 400 / 6, 100 / 6, 100.0])
    # Their E-W opponents scored the negatives: the order turns over.
    assert matchpoints([-40, -85, -40, -120]) == [5.0, 2.0, 5.0, 0.0]
    assert percentages([70]) == [50.0] and percentages([]) == []
