"""Issue 16's wording findings, each held by a test of the catalogs or of what a person reads."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

from rich.cells import cell_len

from app.console import play_console
from bot.i18n import LANGS, catalog, tr
from bot.views import SeatInfo, hand_result_text, rules_summary
from persistence.memory import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
SEATS = [SeatInfo("Ann"), SeatInfo("Bob", is_ai=True), SeatInfo("Cy", is_ai=True), SeatInfo("Di", is_ai=True)]


def test_what_the_terminal_prints_fits_80_columns() -> None:
    for lang in LANGS:
        cat = catalog(lang)
        for key in ("console.prompt", "console.help", "console.bar", "console.bar_wait", "console.bar_declare",
                    "console.bar_chao", "console.bar_bury", "console.bar_play", "console.seat", "console.pick_ask",
                    "console.resuming", "hand.prompt_play",
                    "hand.prompt_declare", "hand.prompt_bury", "hand.prompt_chao", "err.which_joker"):
            for line in cat[key].splitlines():
                assert cell_len(line) <= 78, (lang, key, line)


def test_help_says_how_to_type_cards_and_jokers_and_names_hint_and_auto() -> None:
    for lang in LANGS:
        text = tr(lang, "console.help")
        # the terminal's own words in its person's language (issue 31), every language named for lang
        words = {"en": ("play AS AS", "hint", "auto", "declare 2H", "pass"),
                 "zh": ("出 AS AS", "提示", "托管", "亮 2H", "过"),
                 "zh-Hant": ("出 AS AS", "提示", "託管", "亮 2H", "過")}[lang]
        for word in (*words, "sj", "bj", "lang zh|zht|en", "--daily"):
            assert word in text, (lang, word)
        assert len(text.splitlines()) <= 12  # with the table's top lines, within 24 rows
        assert "press" not in text.lower() and "按「" not in text and "按回车" not in text  # no buttons here
        chat = tr(lang, "help.play")
        assert "sj" in chat and "bj" in chat and "hint" in chat and "auto" in chat


def test_rules_are_a_few_lines_a_player_reads() -> None:
    import engine

    text = rules_summary(engine.preset("classic").to_dict(), "en")
    assert len(text.splitlines()) <= 5
    assert "kitty_scheme" not in text and "flat2" not in text
    assert "From level 2 up to 10" in text and "rules classic all" in text


def test_a_side_that_wins_no_level_does_not_go_up_0() -> None:
    res = {"hand_no": 2, "winner": "defenders", "declarer_team": 0, "levels": 0, "defender_points": 80}
    text = hand_result_text(res, SEATS, "en")
    assert "goes up 0" not in text and "Team B takes over the deal." in text
    res = dict(res, winner="declarers", defender_points=70)
    assert "Team A keeps the deal." in hand_result_text(res, SEATS, "en")


async def test_mixed_cards_are_not_a_declaration_and_joker_asks_which() -> None:
    out = io.StringIO()
    await play_console(MemoryStore(), inp=io.StringIO("declare h3 c3\nplay joker\nquit\n"), out=out, lang="en", seed=5)
    text = out.getvalue()
    assert "! Not a valid declaration: declare one level card or a pair of the same card" in text
    assert "does not beat" not in text
    assert "! Which joker? Type sj for the small one, bj for the big one" in text


async def test_hint_names_a_move_and_says_why_in_one_line() -> None:
    out = io.StringIO()
    # the strongest AI level searches for each hint: 0.05 s, the table's ai_budget, instead of 0.3 s
    await play_console(MemoryStore(), inp=io.StringIO("pass\n" + "hint\nauto\n" * 12 + "quit\n"), out=out, lang="en", seed=5,
                       options=["ai_budget=0.05"])
    reasons = [tr("en", k) for k in catalog("en") if k.startswith("hint.why_")]
    hints = [line.split("! ", 1)[1] for line in out.getvalue().splitlines() if "! Suggestion: " in line]
    assert len(hints) >= 10
    for line in hints:
        action, _, why = line.removeprefix("Suggestion: ").partition(" — ")
        assert action and why, line
        assert any(why.split("{")[0][:12] in r or r.split("{")[0][:12] in why for r in reasons), line


def test_the_license_is_an_spdx_string_setuptools_reads_without_warning() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["license"] == "MIT"
    [req] = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert int(req.replace(" ", "").split(">=")[1].split(".")[0].split(",")[0]) >= 77  # SPDX strings: 77 and up
