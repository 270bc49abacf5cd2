"""A daily board at a real terminal, played to its end (issue 31 finding 6, issue 33 item 4).

A board is one hand compared with other tables. Its end used to say "🏆 The match is over · Team B
wins · Levels now…", and its comparison "N-S -80, E-W 80 — N-S 50% against 1 table so far": sides
the screen names nowhere else, and a count that was the person's own table. The end now names the
sides as the table does (Team A, ①③), says who declared and what they score, and says that no other
table has played the board yet. Real time, as every pty test (tests/console/pty_screen.py): the
program is a process of its own; each step waits for the screen, and the deals and AI pauses are cut
short by table options, so the hand takes a few seconds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.console.pty_screen import Terminal

FAST = ["deal=0.002", "ai_declare=0.01", "next=0.01", "ai_budget=0.05"]  # hints think 0.05 s, not 0.3 s
MATCH_WORDS = ("🏆", "The match is over", "wins:", "Levels now", "takes over", "holds the deal", "goes up", "N-S",
               "E-W", "table so far", "tables so far", "比赛结束", "获胜", "现在级别", "上台", "守庄", "南北", "东西")


def _last(text: str) -> str:
    return text.splitlines()[-1] if text else ""


def _play_out(term: Terminal, done: str) -> tuple[str, str]:
    """Lets the host's suggestion play each of the person's moves (`auto`) until the screen shows `done`:
    the first screen, and the last."""
    seen = first = ""
    for _ in range(200):
        text = term.wait(lambda t, was=seen: (t != was and _last(t) == ">") or done in t, 20)
        if done in text:
            return first, term.wait(lambda t: done in t and _last(t) == ">", 20)
        seen, first = text, first or text
        term.line("auto")
    pytest.fail("the board did not end")


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "done", "first"), [
    ("C.UTF-8", "against the field", r"Daily board 1 against the field: no other table has played it yet, so"
                                      r" Team A and Team B stand at 50% each until one does\."),
    ("zh_CN.UTF-8", "与全场相比", r"每日第 1 副与全场相比：还没有别的牌桌打过这副牌，甲队和乙队暂各计 50%，等别的牌桌打过再比。"),
])
def test_a_daily_board_ends_with_its_score_and_the_field_in_the_tables_own_words(
        tmp_path: Path, lang: str, done: str, first: str) -> None:
    term = Terminal(["run", "--daily", "--db", str(tmp_path / "t.sqlite3"), *FAST], lang=lang, rows=60, cols=100,
                    env={"TRACTOR_AI_THREADS": "0"})
    try:
        start, text = _play_out(term, done)
        flat = " ".join(text.split())
        # the sides as the table names them: the teams of the table's header, with their seats
        team_a, team_b = ("Team A", "Team B") if lang == "C.UTF-8" else ("甲队", "乙队")
        assert team_a in start.split("────")[0] and team_b in start.split("────")[0]
        side = re.search(rf"({team_a}|{team_b}) ?[（(](①[^,，]+)[,，] (③[^)）]+)[)）]|"
                         rf"({team_a}|{team_b}) ?[（(](②[^,，]+)[,，] (④[^)）]+)[)）]", flat)
        assert side is not None, flat
        points = int(re.search(r"(?:Defenders' points|闲家得分)[:：] ?(\d+)", flat).group(1))  # type: ignore[union-attr]
        score = 200 if points == 0 else -points
        assert f"{score:+d}" in flat
        assert re.search(first, flat), flat
        assert not any(w in flat for w in MATCH_WORDS), [w for w in MATCH_WORDS if w in flat]
        assert "⏎" in text  # the end stays on screen until the person goes on
    finally:
        term.close()
