"""A newcomer's whole match through a real terminal (a pty): `tractor-host run` with no tokens, which is
what `make run` runs, to the match result, with Ctrl-C and a resume in the middle.

Real time, because the bot is a process of its own at a real terminal: the test waits for what the
screen shows (each prompt), never for a set time."""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.console.terminal import at_a_terminal

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "tractor-host"
PROMPT = r"\x1b\[J(?:\x1b\[0m)?>"  # prompt_toolkit's "> " after it cleared the rest of the screen
OVER = "The match is over"


def _spawn(args: list[str], log: list[str]) -> object:
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "LC_ALL",
                                                             "LC_MESSAGES", "TRACTOR_LANG")}
    env.update(LANG="C.UTF-8", TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(str(EXE), args, env=env, dimensions=(24, 80), encoding="utf-8", codec_errors="replace", timeout=60, cwd=ROOT,
                          preexec_fn=at_a_terminal)
    child.logfile_read = _Sink(log)
    # pexpect waits 50 ms before each send by default (for programs that flush typed-ahead input at a
    # prompt); the test sends only after the prompt shows, so each "auto" goes at once
    child.delaybeforesend = None
    return child


class _Sink:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def write(self, text: str) -> None:
        self.log.append(text)

    def flush(self) -> None:
        return


def _expect(child: Any, log: list[str], pattern: Any) -> int:
    """`child.expect(pattern)`; when the program ends instead, a failure that says how it ended (exit
    status or signal) and what it showed last, which pexpect's own error (100 characters) does not."""
    try:
        return int(child.expect(pattern))
    except pexpect.EOF:
        child.close()
        tail = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", "".join(log))[-1500:]
        pytest.fail(f"the program ended (exit status {child.exitstatus}, signal {child.signalstatus}) while"
                    f" the test waited for {pattern!r}; its last output:\n{tail}")


def _statuses(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT status FROM matches ORDER BY id")]


@pytest.mark.slow(9)
def test_a_newcomer_plays_a_whole_match_in_a_terminal_with_a_resume(tmp_path: Path) -> None:
    if not EXE.exists():
        pytest.skip("the tractor-host script is not installed next to this Python")
    db = tmp_path / "pty.sqlite3"
    first: list[str] = []
    child = _spawn(["run", "--db", str(db), "target=3", "deal=0.02", "ai_declare=0.1", "next=0.1", "ai_budget=0.05"],
                   first)  # hints think 0.05 s a turn, not 0.3 s
    child.expect("Your hand")
    for _ in range(3000):  # a few tricks into the first hand (prompts also come back while cards arrive)
        _expect(child, first, PROMPT)
        if "Trick 3:" in "".join(first):
            break
        child.send("auto\r")
    child.sendintr()
    child.expect("Saved. To go on with this match:")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert _statuses(db) == ["active"]
    screen = "".join(first)
    assert re.search(r"\x1b\[[0-9;]*31[0-9;]*m[♥♦]", screen) and re.search(r"\x1b\[[0-9;]*30[0-9;]*m[♠♣]", screen)
    # each trick is logged ("» Trick N: …"); the full screen redraws only the cells that changed, so a
    # given line may reach the terminal in pieces (in about one run in three "Trick 1:" never came whole)
    assert "Last trick:" in screen and re.search(r"» Trick \d+:", screen)

    second: list[str] = []
    child = _spawn(["run", "--db", str(db)], second)
    child.expect("Going on with your unfinished match #1")
    for _ in range(3000):
        if _expect(child, second, [PROMPT, OVER]) == 1:
            break
        child.send("auto\r")
    else:
        pytest.fail("the match did not end")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert _statuses(db) == ["finished"]
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", "".join(second))
    assert "80 Points · classic · hand" in text and "Team" in text and "wins:" in text
    assert not re.search(r"[\u4e00-\u9fff]", text.replace("大王", "").replace("小王", "").replace("炒底", ""))
