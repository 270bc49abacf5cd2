"""Whether a message changed: one signature of what a view shows, and one cache per door of what each
of its messages shows now.

A view's signature leaves out what is no reason to edit a message: the state version its buttons
were drawn at (a button drawn for an earlier state of the same hand still counts) and what changes
by itself (the seconds left, `View.still`). Each door (a platform object) keeps one `Shown`: the
door writes what a message shows once it shows it (the Telegram outbox when the edit went out,
Discord when it delivered, the others at once), and the table's screen reads it before it asks for
an edit, so an unchanged message costs nothing anywhere. No other copy of "what is shown" is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Signature = tuple[object, ...]


class _Button(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def token(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def style(self) -> str: ...

    @property
    def act(self) -> object: ...


class _View(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def still(self) -> str | None: ...

    @property
    def buttons(self) -> Sequence[Sequence[_Button]]: ...

    @property
    def choices(self) -> Sequence[_Button]: ...


def signature(view: _View) -> Signature:
    """What a view shows, less the versions its buttons carry and the seconds left."""
    text = view.still if view.still is not None else view.text
    rows = tuple(tuple((b.label, b.style, b.kind, _sans_version(b)) for b in row) for row in view.buttons)
    return (text, rows, tuple((b.label, _sans_version(b)) for b in view.choices))


def _sans_version(b: _Button) -> object:
    return b.act if b.act is not None else b.token  # what a press stands for; a link or a query as it is


class Shown:
    """What each message of one door shows now, by chat and message id (one per platform object).

    Each message has one entry with two readings: its signature (what the host compares before it
    asks for an edit) and, where the door needs it, the exact content it sent (buttons with their
    versions: Telegram refuses an edit to exactly what a message shows). `forget` makes the host draw
    a message again although it looks the same (its buttons' versions then change); the door still
    skips a content it shows already. The newest `capacity` messages are kept: one forgotten is drawn
    once more, nothing worse."""

    def __init__(self, capacity: int = 200_000) -> None:
        self._by: dict[tuple[str, str], tuple[Signature | None, object]] = {}
        self.capacity = capacity

    def get(self, chat_id: str, message_id: str) -> Signature | None:
        """The message's signature; None if it shows nothing known, or was forgotten."""
        entry = self._by.get((chat_id, message_id))
        return None if entry is None else entry[0]

    def exact(self, chat_id: str, message_id: str) -> object:
        """The exact content the door last sent there (None: unknown)."""
        entry = self._by.get((chat_id, message_id))
        return None if entry is None else entry[1]

    def put(self, chat_id: str, message_id: str, sig: Signature, exact: object = None) -> None:
        key = (chat_id, message_id)
        self._by.pop(key, None)
        self._by[key] = (sig, exact)
        if len(self._by) > self.capacity:
            del self._by[next(iter(self._by))]

    def forget(self, chat_id: str, message_id: str) -> None:
        """Have the host draw it again next time, even if it looks the same."""
        entry = self._by.get((chat_id, message_id))
        if entry is not None:
            self._by[(chat_id, message_id)] = (None, entry[1])

    def drop(self, chat_id: str, message_id: str) -> None:
        """The message is gone."""
        self._by.pop((chat_id, message_id), None)

    def clear(self) -> None:
        self._by.clear()
