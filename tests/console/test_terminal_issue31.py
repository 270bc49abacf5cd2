"""Issue 31's findings, each seen through a real terminal: `tractor-host` in a pty of 80×24, its screen
rendered by a terminal emulator (tests/console/pty_screen.py) and read as a person reads it.

Real time, because the program is a process of its own at a real terminal: each test waits for what
the screen shows, with a timeout, never for a set time. Deals and AI pauses are cut short by table
options (deal=0.02 …) so that each test takes a few seconds.
"""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest

from adapters.console.app import YOU
from adapters.console.platform import NAME
from app.console import play_console
from app.store import open_store
from persistence.store import SqliteStore
from tests.console.pty_screen import ENTER, RIGHT, TAB, Terminal
from tests.scenarios.doors import ANN_SEAT, deal_until, write_match
from tests.scenarios.seen import TEXT_TO_CODE

FAST = ["deal=0.01", "ai_declare=0.05", "next=0.05", "ai_budget=0.05"]  # hints think 0.05 s, not 0.3 s
PRESS = re.compile(r"\bpress\b|按回车|按「|按一下|arrive privately", re.I)


def _hand_part(text: str) -> str:
    return text.split("────")[-1]


def _last(text: str) -> str:
    """The screen's last line (the prompt); "" while the screen is being drawn anew."""
    return text.splitlines()[-1] if text else ""


async def _leave_unfinished(db: Path, *, daily: bool = False) -> None:
    """A match (or a daily board) left unfinished at its first prompt, as a person who quit would."""
    store = await open_store(db)
    try:
        await play_console(store, resume=False, inp=io.StringIO("quit\n"), out=io.StringIO(), lang="en",
                           daily=daily, settings=None, full_screen=False)
    finally:
        await store.close()


def _leave(term: Terminal) -> None:
    term.interrupt()
    term.wait("Saved|已保存|已儲存")
    assert term.end() == 130


@pytest.mark.slow
def test_make_run_goes_on_with_your_match_not_with_a_daily_board(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    asyncio.run(_leave_unfinished(db))
    asyncio.run(_leave_unfinished(db, daily=True))  # the newest unfinished table is the board
    term = Terminal(["run", "--db", str(db)])
    try:
        term.wait(r"Going on with your unfinished match #1 ")
        assert "Daily board" not in term.text
        _leave(term)
        term = Terminal(["console", "--daily", "--db", str(db)])  # the board only when asked for
        term.wait(r"Going on with your unfinished match #2 ")
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_a_daily_board_at_the_terminal_is_dealt_with_three_ais_and_says_so(tmp_path: Path) -> None:
    term = Terminal(["run", "--daily", "--db", str(tmp_path / "t.sqlite3")])
    try:
        text = term.wait("with three AI players")
        assert "addbot" not in text and "join" not in text  # nothing to do that the terminal did already
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_several_unfinished_matches_are_picked_from_a_short_numbered_list(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    asyncio.run(_leave_unfinished(db))
    asyncio.run(_leave_unfinished(db))
    term = Terminal(["run", "--db", str(db)])
    try:
        text = term.wait("Which one")
        assert "1. match #2, hand 1" in text and "2. match #1, hand 1" in text
        term.line("7")
        term.wait("Type a number from 1 to 2")
        term.line("2")
        term.wait(r"Going on with your unfinished match #1 ")
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "said"), [("C.UTF-8", r"You sit at (.), partner (.)[^;]* across; play goes (\S+)\."),
                                            ("zh_CN.UTF-8", r"你坐(.)，对家(.)[^；]*；出牌顺序 (\S+)。")])
def test_the_first_screen_says_your_seat_partner_and_the_playing_order(tmp_path: Path, lang: str, said: str) -> None:
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), *FAST], lang=lang)
    try:
        text = term.wait(said)
        seat, partner, order = re.search(said, text).groups()  # type: ignore[union-attr]
        marks = "①②③④"
        you = marks.index(seat)
        assert partner == marks[(you + 2) % 4]
        assert order == "→".join(marks[(you + i) % 4] for i in range(4))
        term.wait("last chance|最后")
        term.line("pass")
        term.wait(lambda t: "⏎" in _hand_part(t) and _last(t) == ">")  # nothing moves while the table waits for you
        term.type("play qu", TAB)  # where a card goes, Tab completes cards only: never `play quit`
        seen: list[str] = []
        term.wait(lambda t: "play qu" in _last(t))
        term.type("\x15", "qu", TAB)  # Ctrl-U; where a command goes, Tab completes commands
        term.wait(lambda t: seen.append(_last(t)) is None and _last(t) == "> quit")
        assert not any("play quit" in line for line in seen), seen
        # and a card of your hand where a card goes
        card = TEXT_TO_CODE[re.findall(r"[♠♥♦♣](?:10|[2-9JQKA])", _hand_part(term.text).split("\n", 2)[2])[0]]
        term.type("\x15", "play " + card.lower(), TAB)
        term.wait(lambda t: f"> play {card}" in t.splitlines())
        term.type("\x15")
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_the_terminal_speaks_chinese_commands_included_and_help_fits_the_screen(tmp_path: Path) -> None:
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), *FAST], lang="zh_CN.UTF-8")
    try:
        term.wait("最后")  # the last chance to declare
        term.line("过")
        text = term.wait(lambda t: "没看懂" in t or "⏎" in _hand_part(t), 30)
        assert "没看懂" not in text
        term.line("帮助")
        text = term.wait("补全牌名")
        assert text.startswith("80分") or text.splitlines()[0].startswith("80")  # the table's top line stays
        assert "lang zh|zht|en" in text and "出 AS AS" in text and "过" in text and "每日牌局" in text
        assert not PRESS.search(text)
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_one_key_plays_the_suggestion_a_whole_hand_through_and_its_end_stays(tmp_path: Path) -> None:
    """Keystrokes a play over a whole hand (docs/terminal.md): every play is ⏎ on the suggestion."""
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), *FAST], env={"TRACTOR_AI_THREADS": "0"})
    try:
        term.wait("last chance")
        term.line("pass")
        plays = 0
        cards = None
        for _ in range(60):
            # typed once the prompt is back: a ⏎ typed while the screen is drawn anew plays nothing
            text = term.wait(lambda t, was=cards: (("⏎ play" in _hand_part(t) or "⏎ bury" in _hand_part(t))
                                                   and _count(t) != was and _last(t) == ">")
                             or "⏎ goes on to the next hand." in t, 30)
            assert not PRESS.search(text), text
            if "Hand 1 is over" in text:
                break
            cards = _count(text)
            term.type(ENTER)
            plays += 1
        else:
            pytest.fail("the hand did not end")
        assert plays >= 10
        keys_a_play = (term.keys - len("pass\r")) / plays
        assert keys_a_play <= 3
        assert "Final trick:" in text and "⏎ goes on to the next hand." in text
        term.wait(lambda t: "hand 2" in _hand_part(t))  # the next deal arrives under the end, which stays
        assert "Hand 1 is over" in term.text and "Final trick:" in term.text
        term.type(ENTER)
        term.wait(lambda t: "Hand 1 is over" not in t and "80 Points · classic · hand 2" in t)
        _leave(term)
    finally:
        term.close()


def _count(text: str) -> str | None:
    m = re.search(r"Your hand, \S+ · (\d+) cards · hand (\d+)", text)
    return m.group(0) if m else None


@pytest.mark.slow
def test_run_takes_the_terminal_tables_options_and_the_tools_say_what_they_take(tmp_path: Path) -> None:
    term = Terminal(["run", "--lang", "zht", "--preset", "competition", "--db", str(tmp_path / "t.sqlite3"), *FAST])
    try:
        term.wait("80分 · competition")
        term.wait("你坐")  # 繁體中文 at a C locale, as asked
        _leave(term)
        term = Terminal(["run", "--preset", "nonsense", "--db", str(tmp_path / "t.sqlite3")])
        term.wait(lambda t: "the presets are chaodipi, classic, competition, duplicate, super" in t.replace("\n", ""))
        assert term.end() == 2
        term = Terminal(["db", "--help"])
        term.wait(r"backup[\s\S]*export[\s\S]*check")
        assert term.end() == 0
        term = Terminal(["simulate", "--help"])
        term.wait(r"--level \{random,basic,strong,expert\}\s+the AI players' level")
        assert term.end() == 0
    finally:
        term.close()


@pytest.mark.slow
def test_while_the_cards_arrive_your_seat_and_your_hand_agree_on_the_count(tmp_path: Path) -> None:
    """Real time (the program's own deal, 2 s). Every screen the program drew is looked at, not only
    those the test happened to read: on a loaded machine a read takes a burst of many screens, and
    the few read were too few to count on."""
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), "deal=0.02", "ai_declare=0.02"], frames=True)
    try:
        term.wait("last chance", 30)
        seen: list[tuple[str, str]] = []
        for text in term.frames:
            hand = re.search(r"Your hand, (\S+) · (\d+) cards", text)
            if hand is not None and "last chance" not in text and _last(text) == ">":  # a whole screen
                seat = re.search(re.escape(hand.group(1)) + r" Team [AB] · (?:dealer · )?(\d+) cards", text)
                if seat is not None:
                    seen.append((seat.group(1), hand.group(2)))
        assert len(seen) >= 5 and any(s != "0" for s, _ in seen), seen
        assert [(s, h) for s, h in seen if s != h] == []
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_the_arrows_walk_over_your_hand_and_space_picks_a_card_to_play(tmp_path: Path) -> None:
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), *FAST], env={"TRACTOR_AI_THREADS": "0"})
    try:
        term.wait("last chance")
        term.line("pass")
        cards = None
        for _ in range(30):
            text = term.wait(lambda t, was=cards: ("⏎ play" in _hand_part(t) or "⏎ bury" in _hand_part(t))
                             and _count(t) != was and _last(t) == ">", 30)
            cards = _count(text)
            single = re.search(r"⏎ play (\S+) — ", _hand_part(text))
            if single is None:
                term.type(ENTER)  # the dealer's bury, or a pair or more: the suggestion, and look again
                continue
            card = single.group(1)
            hand = [w for line in _hand_part(text).splitlines()[2:] if re.match(r"^\S+ \(\d+\): ", line)
                    for w in line.split(": ", 1)[1].split()]
            term.type(*[RIGHT] * (hand.index(card) + 1), " ")
            term.wait(rf"⏎ play {re.escape(card)} · space picks")
            term.wait(rf"\[{re.escape(card)}\]")  # picked, in brackets in your hand
            term.type(ENTER)
            after = term.wait(lambda t, was=cards: _count(t) is not None and _count(t) != was)
            left = re.search(r"Your hand, \S+ · (\d+) cards", after)
            assert left is not None and int(left.group(1)) == int(re.findall(r"\d+", cards or "")[0]) - 1
            break
        else:
            pytest.fail("no single card was suggested")
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
@pytest.mark.slow(4)
def test_the_end_of_the_match_stays_with_its_result_until_you_go_on(tmp_path: Path) -> None:
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), "start_level=3", "target=3", "deal=0.002",
                     "ai_declare=0.01", "next=0.01"],
                    env={"TRACTOR_AI_THREADS": "0"})
    try:
        seen = ""
        for _ in range(400):
            text = term.wait(lambda t, was=seen: t != was and _last(t) == ">" and (
                "last chance" in t or "⏎" in t or "The match is over" in t), 30)
            seen = text
            if "The match is over" in text:
                break
            term.line("pass") if "last chance" in text and "⏎" not in _hand_part(text) else term.type(ENTER)
        else:
            pytest.fail("the match did not end")
        text = term.wait("⏎ leaves the table")
        assert re.search(r"Team [AB] wins: ", text) and "Levels now:" in text
        # the winner's level reads the final one: the line below says they won a hand there
        assert re.search(r"Team [AB] won a hand at 3, the final level", " ".join(text.split()))
        assert term.child.isalive()  # still at the table until the person goes on
        term.type(ENTER)
        assert term.end() == 0
    finally:
        term.close()


@pytest.mark.slow
@pytest.mark.slow(6)
def test_a_line_typed_while_the_cards_arrive_is_kept_whole(tmp_path: Path) -> None:
    """`lang zht` is typed in bits as the screen is drawn anew for the next cards (no bit waits for a
    prompt): none is lost, and the line switches the table to 繁體中文."""
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), "deal=0.3", "ai_declare=5"])
    try:
        cards = _count(term.wait(lambda t: _count(t) is not None))
        for key in ["la", "ng", " z", "ht", ENTER]:
            term.wait(lambda t, was=cards: _count(t) not in (None, was))  # the next cards are being drawn
            cards = _count(term.text)
            term.type(key)
        term.wait("你的手牌")
        _leave(term)
    finally:
        term.close()


async def _a_match_where_your_throw_fails(db: Path) -> None:
    """A classic match at its 51st action: you (seat ①) lead, holding ♠9 and ♠A without a pair, and
    ②Cy holds ♠10, which beats the ♠9."""
    store = await SqliteStore.open(str(db))
    try:
        deal = deal_until(1, lambda m: len(m.actions) == 50)
        await write_match(store, NAME, "table-1", {ANN_SEAT: YOU}, deal)
    finally:
        await store.close()


@pytest.mark.slow
def test_a_failed_throw_says_who_beats_it_and_with_what(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    asyncio.run(_a_match_where_your_throw_fails(db))
    term = Terminal(["run", "--db", str(db)])
    try:
        term.wait(r"Going on with your unfinished match #1 ")
        term.wait(lambda t: "⏎ play" in _hand_part(t) and _last(t) == ">")
        term.line("play 9s as")
        text = term.wait(lambda t: "throw failed" in " ".join(t.split()))
        said = " ".join(text.split())
        assert re.search(r"①Ann's throw failed: ②Cy 🤖 has ♠10, so ①Ann plays ♠9", said), said
        _leave(term)
    finally:
        term.close()


@pytest.mark.slow
def test_the_line_under_the_prompt_speaks_your_language_and_offers_only_what_you_may_do(tmp_path: Path) -> None:
    """The bottom line (prompt_toolkit's toolbar, drawn at a terminal that answers where its cursor is)
    under zh_CN: in Chinese, and during play it offers play, not `declare 2H`."""
    term = Terminal(["run", "--db", str(tmp_path / "t.sqlite3"), *FAST], lang="zh_CN.UTF-8", cpr=True)
    try:
        term.wait("最后")
        term.line("过")
        text = term.wait(lambda t: "⏎" in _hand_part(t) and "退出" in _last(t))
        if "扣底" in _last(text):  # nobody declared and you deal: you bury first (the suggested eight)
            term.type(ENTER)
            text = term.wait(lambda t: "⏎" in _hand_part(t) and "退出" in _last(t) and "扣底" not in _last(t))
        bar = _last(text)
        assert "出 AS AS" in bar and "帮助" in bar, bar
        assert not re.search(r"[A-Za-z]{3,}", bar) and "亮" not in bar, bar  # no English word, no declaring
        _leave(term)
    finally:
        term.close()
