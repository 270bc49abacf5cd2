"""Every trick is seen: the table carries the last one, and the terminal prints each as it ends."""

from __future__ import annotations

import io
import re
from typing import Any, cast

from app.console import play_console
from bot.scene import text as scene_text
from bot.scene.build import table_scene
from bot.views import SeatInfo, last_trick_text
from engine.views import PublicView
from persistence.memory import MemoryStore

SEATS: list[SeatInfo | None] = [SeatInfo("Ann"), SeatInfo("Bob", is_ai=True), SeatInfo("Cy", is_ai=True), SeatInfo("Di", is_ai=True)]


def _pub(**over: object) -> dict[str, object]:
    pub: dict[str, object] = {
        "hand_no": 1, "phase": "playing", "dealer": 0, "declarers": [0, 2], "levels": ["2", "2"], "level": "2",
        "trump": "S", "declaration": {"seat": 0, "cards": ["2S"]}, "hand_counts": [20, 20, 20, 20],
        "trick": [[2, ["3D"]]], "turn": 3, "last_trick": [[1, ["KH"]], [2, ["5H"]], [3, ["AH"]], [0, ["4H"]]],
        "last_trick_winner": 3, "defender_points": 15, "tricks_played": 5,
        "tricks": [{"plays": [[1, ["KH"]], [2, ["5H"]], [3, ["AH"]], [0, ["4H"]]], "winner": 3, "points": 15}],
    }
    pub.update(over)
    return pub


def table_text(pub: dict[str, Any], seats: list[SeatInfo | None], lang: str, *, preset: str) -> str:
    """The group's table drawn from the scene of an engine-shaped public view."""
    sc = table_scene(cast(PublicView, pub), match_id=1, status="active", preset=preset, seats=seats)
    return scene_text.table_text(sc, lang)


def test_the_table_carries_the_last_trick_while_the_next_is_played() -> None:
    text = table_text(_pub(), SEATS, "en", preset="classic")
    assert "Last trick: ②Bob 🤖 ♥K · ③Cy 🤖 ♥5 · ④Di 🤖 ♥A · ①Ann ♥4 → ④Di 🤖 wins; +15 for the defenders" in text
    assert "Trick: ③Cy 🤖 ♦3" in text
    assert "Defenders' points (Team B): 15" in text


def test_points_the_declarers_win_are_said_not_to_count() -> None:
    pub = _pub(last_trick_winner=2, tricks=[{"plays": _pub()["last_trick"], "winner": 2, "points": 15}])
    line = last_trick_text(cast(PublicView, pub), SEATS, "en")
    assert line.endswith("→ ③Cy 🤖 wins; 15 points not counted")
    assert "+15" not in line
    assert last_trick_text(cast(PublicView, pub), SEATS, "zh").endswith("③Cy 🤖 赢，15分不计")


def test_a_trick_without_points_names_only_the_winner() -> None:
    plays = [[1, ["3H"]], [2, ["4H"]], [3, ["AH"]], [0, ["6H"]]]
    line = last_trick_text(cast(PublicView, _pub(last_trick=plays, tricks=[{"plays": plays, "winner": 3, "points": 0}])),
                           SEATS, "en")
    assert line.endswith("→ ④Di 🤖 wins")


def test_trump_while_dealing_is_the_leading_declaration() -> None:
    text = table_text(_pub(phase="dealing", trump=None, declaration={"seat": 3, "cards": ["2S", "2S"]},
                           last_trick=[], trick=[]), SEATS, "en", preset="classic")
    assert "not yet declared" not in text
    assert "Trump so far: ♠ (④Di 🤖 declared ♠2 ♠2)" in text


def test_one_card_left_is_singular() -> None:
    text = table_text(_pub(hand_counts=[1, 1, 1, 0]), SEATS, "en", preset="classic")
    assert "· 1 card\n" in text and "1 cards" not in text


async def test_the_terminal_prints_every_completed_trick_with_its_winner() -> None:
    store = MemoryStore()
    out = io.StringIO()
    await play_console(store, resume=False, inp=io.StringIO("auto\n" * 60), out=out, lang="en",
                      options=["target=3"], seed=5)
    text = out.getvalue()
    numbers = [int(n) for n in re.findall(r"» Trick (\d+): ", text)]
    first_hand = numbers[:numbers.index(1, 1)] if numbers.count(1) > 1 else numbers
    assert len(first_hand) >= 10
    assert first_hand == list(range(1, len(first_hand) + 1))  # none skipped, the AIs' tricks too
    for line in re.findall(r"» Trick \d+: .*", text)[:10]:
        assert line.count("·") == 3 and " wins" in line  # four plays and the winner
