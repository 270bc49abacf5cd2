"""Reading what the person types: a pipe line by line, or a terminal with line editing, history and
completion of card names (prompt_toolkit).

Either reader's `read` returns a line, "" at the end of input, or None when the table changed while
waiting (the screen is drawn again and the reader asked again, keeping what was half typed).
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import threading
from collections.abc import Callable, Iterable
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

WAKE = "\x00wake"  # what a prompt that was interrupted by a change of the table returns
INTERRUPT = "\x00interrupt"  # Ctrl-C at the prompt: `read` raises KeyboardInterrupt in the loop's own task
KEY = "\x00key:"  # an arrow or space on an empty line, read as "\x00key:left" (right, pick)
BLIND_ENTER = "\x00blind-enter"  # an Enter on an empty line, typed while no prompt was shown


class PipeLines:
    """Lines from a stream, read in a daemon thread: a blocked read never holds up Ctrl-C or exit."""

    def __init__(self, inp: TextIO) -> None:
        loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[str] = asyncio.Queue()

        def pump() -> None:
            while True:
                try:
                    line = inp.readline()
                except (OSError, ValueError):
                    line = ""
                try:
                    loop.call_soon_threadsafe(self.queue.put_nowait, line)
                except RuntimeError:  # the loop is closed: nobody reads any more
                    return
                if not line:
                    return

        threading.Thread(target=pump, name="console-input", daemon=True).start()

    async def read(self, wake: asyncio.Event) -> str | None:
        if not self.queue.empty():
            return self.queue.get_nowait()
        return await _first(self.queue.get(), wake)

    def typed_ahead(self) -> str:
        return ""  # a script's lines are all meant to be played in turn


class CardCompleter(Completer):
    """Completes the first word with a command and every later word with a card of your hand
    (`cards`; without it, either from `words`): `play q<Tab>` never becomes `play quit`."""

    def __init__(self, words: Callable[[], Iterable[str]], cards: Callable[[], Iterable[str]] | None = None) -> None:
        self.words = words
        self.cards = cards

    def get_completions(self, document: Document, complete_event: object) -> Iterable[Completion]:
        word = document.get_word_before_cursor(WORD=True)
        if not word:
            return
        first = not document.text_before_cursor[:-len(word)].strip()
        source = self.words if first or self.cards is None else self.cards
        seen: set[str] = set()
        for w in source():
            if w.lower().startswith(word.lower()) and w not in seen:
                seen.add(w)
                yield Completion(w, start_position=-len(word))


class TerminalLines:
    """A prompt with line editing, history and completion; a redraw of the table does not lose a half-typed line."""

    def __init__(self, words: Callable[[], Iterable[str]], toolbar: Callable[[], str], fd: int | None = None,
                 cards: Callable[[], Iterable[str]] | None = None) -> None:
        keys = KeyBindings()

        empty = Condition(lambda: not self.session.default_buffer.text)

        def _key(name: str) -> Callable[[KeyPressEvent], None]:
            def leave(event: KeyPressEvent) -> None:
                if event.app.is_running and not event.app.is_done:
                    event.app.exit(result=KEY + name)
            return leave

        # on an empty line the arrows walk over your hand and space picks a card (screen.Picking)
        keys.add("left", filter=empty)(_key("left"))
        keys.add("right", filter=empty)(_key("right"))
        keys.add("space", filter=empty)(_key("pick"))

        # a Ctrl-C typed while a prompt reads is this key (the terminal is raw); one typed while no
        # prompt reads (the table drawn anew) is a signal, left to asyncio.run: see `read`. A prompt
        # already leaving handles no key: it keeps it for the next one, and `_pending` finds it there.
        @keys.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            if event.app.is_running and not event.app.is_done:
                event.app.exit(result=INTERRUPT)  # not an exception thrown out of prompt_toolkit's task

        self.session: PromptSession[str] = PromptSession(history=InMemoryHistory(), key_bindings=keys,
                                                         completer=CardCompleter(words, cards),
                                                         complete_while_typing=False)
        self.toolbar = toolbar
        self.partial = ""
        self.fd = fd
        self.woke = False  # the last read left its prompt because the table changed

    async def read(self, wake: asyncio.Event) -> str | None:
        if self.woke:
            self.woke = False
            line = self._typed_while_redrawn()
            if line is not None:
                return line
        # A Ctrl-C signal cancels this task (asyncio.run's handler). prompt_toolkit's own handler is
        # off: it is removed as each prompt ends, and a signal that came just before was dropped with it.
        # The prompt is shielded: cancelled while leaving, it may finish anyway and the cancel be lost.
        prompt = asyncio.ensure_future(self.session.prompt_async("> ", default=self.partial,
                                                                 bottom_toolbar=self.toolbar,
                                                                 handle_sigint=False))
        waker = asyncio.ensure_future(wake.wait())
        try:
            done, _ = await asyncio.wait({prompt, waker}, return_when=asyncio.FIRST_COMPLETED)
            # the line may have been accepted meanwhile (an Enter handled in the same turn of the loop):
            # a second exit() raises "Return value already set", which ended the program under load
            if prompt not in done and self.session.app.is_running and not self.session.app.is_done:
                self.session.app.exit(result=WAKE)
            try:
                line = await asyncio.shield(prompt)
            except EOFError:
                return ""
        except asyncio.CancelledError:
            await self._leave(prompt)
            raise
        finally:
            waker.cancel()
        if line == INTERRUPT:
            raise KeyboardInterrupt
        if line == WAKE:
            # taken once the prompt is gone: a key it still handled on its way out is in the line
            self.partial = self.session.default_buffer.text
            self.woke = True
            return None
        if line.startswith(KEY):
            self.partial = ""
            return line
        self.partial = ""
        return line + "\n"

    async def _leave(self, prompt: asyncio.Future[str]) -> None:
        """Ends the prompt (Ctrl-C came as a signal) and waits until it has given the terminal back,
        so what is written next ("Saved") is not written to a raw terminal."""
        app = self.session.app
        if app.is_running:
            if not app.is_done:
                app.exit(result=INTERRUPT)
        elif not prompt.done():
            prompt.cancel()  # not started yet, or past giving the terminal back
        await asyncio.wait({prompt})
        if not prompt.cancelled():
            prompt.exception()  # retrieved: whatever it ended with, Ctrl-C is what goes on

    def _typed_while_redrawn(self) -> str | None:
        """The keys typed while the screen was drawn anew (no prompt was reading): their characters
        go on the half-typed line, and an Enter after them sends it. An Enter on an empty line comes
        back as `BLIND_ENTER`: it may make way for a hand's end on the screen, but never plays the
        suggestion, which the person has not seen yet. Arrows and other keys meant for the screen
        before are dropped. The line to send (or `BLIND_ENTER`), else None."""
        line, sent = self.partial, None
        for ch in _keys_text(self._pending()):
            if ch in "\r\n":
                if sent is None:
                    sent = line + "\n" if line.strip() else BLIND_ENTER
                line = ""  # what follows is the next half-typed line
            elif ch in "\x7f\b":
                line = line[:-1]
            elif ch.isprintable():
                line += ch
        self.partial = line
        return sent

    def typed_ahead(self) -> str:
        """What was typed while nobody asked (the others were playing): taken out, so it is not played blind."""
        return _keys_text(self._pending()).strip()

    def _pending(self) -> bytes:
        """The keys typed and not acted on, taken out, in the order typed: first those the last prompt
        read as it was leaving (prompt_toolkit keeps them for the next prompt), then those waiting at
        the terminal. Both, or a line typed across the two (`过`, then Enter) loses its Enter.
        A Ctrl-C among them still interrupts."""
        got = "".join(key.data for key in get_typeahead(self.session.input)).encode()
        if self.fd is not None:
            try:
                while select.select([self.fd], [], [], 0)[0]:
                    chunk = os.read(self.fd, 4096)
                    if not chunk:
                        break
                    got += chunk
            except OSError:
                pass
        if b"\x03" in got:  # a Ctrl-C that came while the terminal was not cooked is still a Ctrl-C
            raise KeyboardInterrupt
        return got


ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?")


def _keys_text(got: bytes) -> str:
    """Keys as typed, without the escape sequences of arrows and function keys."""
    return ESCAPE.sub("", got.decode("utf-8", "replace"))


async def _first(get: object, wake: asyncio.Event) -> str | None:
    task = asyncio.ensure_future(get)  # type: ignore[call-overload]
    waker = asyncio.ensure_future(wake.wait())
    done, _ = await asyncio.wait({task, waker}, return_when=asyncio.FIRST_COMPLETED)
    waker.cancel()
    if task in done:
        return str(task.result())
    task.cancel()
    return None
