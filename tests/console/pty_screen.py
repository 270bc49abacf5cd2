"""The real `tractor-host` at a real terminal (a pty), read the way a person reads it.

pexpect runs the program in a pty of 80×24 (or any size); pyte, a terminal emulator, turns what it
writes into the screen a person would see. A test waits for words to appear on that screen, with a
timeout, never for a set time: each read blocks until the program writes something.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.console.terminal import at_a_terminal

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "tractor-host"
#: Keys as a terminal sends them.
ENTER = "\r"
TAB = "\t"
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"


def _shown(screen: pyte.Screen) -> str:
    return "\n".join(line.rstrip() for line in screen.display).rstrip()


class FrameScreen(pyte.Screen):  # type: ignore[misc]
    """A screen that keeps each whole screen the program drew, as it clears it for the next one:
    what a person saw, however seldom the test itself gets to read the terminal on a loaded machine."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.frames: list[str] = []

    def erase_in_display(self, how: int = 0, *args: object, **kwargs: object) -> None:
        if how == 2:  # the whole screen: the program draws the next one
            self.frames.append(_shown(self))
        super().erase_in_display(how, *args, **kwargs)


class Terminal:
    """One `tractor-host` process at a terminal of `cols`×`rows`, with the screen it shows."""

    def __init__(self, args: list[str], *, lang: str = "C.UTF-8", rows: int = 24, cols: int = 80,
                 env: dict[str, str] | None = None, cpr: bool = False, frames: bool = False) -> None:
        """`cpr`: answer the program's cursor position requests, as a real terminal does; prompt_toolkit
        draws the line under the prompt (its bottom toolbar) only then. Off, it is told not to ask.
        `frames`: keep every screen drawn before the next (`frames`), at a cost of CPU a screen."""
        if not EXE.exists():
            pytest.skip("the tractor-host script is not installed next to this Python")
        clean = {k: v for k, v in os.environ.items()
                 if k not in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "LC_ALL", "LC_MESSAGES", "LANGUAGE",
                              "TRACTOR_LANG", "MAKELEVEL")}
        clean.update(LANG=lang, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="0" if cpr else "1", **(env or {}))
        self.screen = FrameScreen(cols, rows) if frames else pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.keys = 0  # keystrokes sent (a key, an arrow, Enter: one each)
        self._text: str | None = None  # the screen's text, read again only after new output
        self.child = pexpect.spawn(str(EXE), args, env=clean, dimensions=(rows, cols), cwd=ROOT,
                                   preexec_fn=at_a_terminal)
        self.child.delaybeforesend = None
        if cpr:
            self.screen.write_process_input = self.child.send  # type: ignore[method-assign]

    @property
    def text(self) -> str:
        """The screen as a person reads it: its lines, trailing blanks cut."""
        if self._text is None:
            self._text = _shown(self.screen)
        return self._text

    @property
    def frames(self) -> list[str]:
        """Each whole screen drawn so far (with `frames=True`), the one showing now not among them."""
        return list(getattr(self.screen, "frames", []))

    def _pump(self, deadline: float) -> bool:
        """Reads what the program wrote (waiting at most until `deadline`), and what follows it at once,
        so the screen is read again once a burst rather than once a write; False at its exit."""
        timeout = max(0.0, deadline - time.monotonic())
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=timeout)
            except pexpect.TIMEOUT:
                return True
            except pexpect.EOF:
                return False
            self.stream.feed(data)
            self._text = None
            if time.monotonic() >= deadline:
                return True
            timeout = 0

    def wait(self, what: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        """Waits until the screen shows `what` (a regular expression, or a test of the text); the text.

        The timeout only catches a hang: on a loaded machine the program's deal and its AIs take
        several times as long as on a quiet one, and 8 s was too short at a load of 20.
        """
        test = what if callable(what) else (lambda text: re.search(what, text) is not None)
        deadline = time.monotonic() + timeout
        while True:
            if test(self.text):
                return self.text
            if time.monotonic() >= deadline or not self._pump(deadline):
                if test(self.text):
                    return self.text
                raise AssertionError(f"the screen never showed {what!r}; it shows:\n{self.text}")

    def type(self, *keys: str) -> None:
        """Sends keys as typed; a word counts a key a character, an arrow or Enter one."""
        for k in keys:
            self.keys += 1 if k.startswith("\x1b") else len(k)
            self.child.send(k)

    def line(self, text: str) -> None:
        self.type(text, ENTER)

    def interrupt(self) -> None:
        self.child.sendintr()

    def end(self, timeout: float = 30.0) -> int:
        """Waits for the program to exit (reading the screen meanwhile); its exit code."""
        deadline = time.monotonic() + timeout
        while self._pump(deadline):
            if time.monotonic() >= deadline:
                self.close()
                raise AssertionError(f"the program did not exit; the screen shows:\n{self.text}")
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0))

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
