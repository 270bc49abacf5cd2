"""Values offered as a person types an argument (Discord's autocomplete), by the feature that owns it.

Why here and not in an adapter. What a board id, a tournament's team or a duplicate event may be is
the feature's knowledge (its store, the chat's tournament); an adapter that guessed it would re-derive
it. A feature sets `Arg.suggest` (bot.commands) to a `Suggester`; the host asks it (`Host.suggest`)
with an `Ask`; the platform shows the `Suggestion`s and sends the chosen words back as typed ones,
which go through the registry's checks like any others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.platform import User, Where

#: Suggestions a platform shows at most (Discord: 25 choices).
SHOWN = 25


@dataclass(frozen=True, slots=True)
class Ask:
    """Someone is typing argument `arg` of `command` where a platform offers values as one types:
    `typed` so far, `given` the command's other arguments as they stand (by name), `near` the
    other chats the platform counts with this one (a Discord server's channels; empty elsewhere)."""

    user: User
    where: Where
    command: str
    arg: str
    typed: str
    given: Mapping[str, str]
    lang: str
    near: frozenset[str] = frozenset()

    def here(self, platform: str, chat_id: str) -> bool:
        """This chat, or one the platform counts with it."""
        return platform == self.where.platform and (chat_id == self.where.chat_id or chat_id in self.near)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A value offered as one types: the words it puts in (`value`) and what the person reads."""

    value: str
    label: str


Suggester = Callable[[Ask], Awaitable[Sequence[Suggestion]]]


def complete(typed: str, words: Iterable[str | Suggestion]) -> list[Suggestion]:
    """Free words typed one after another: the last one completed from `words`, the ones before kept
    (a word already given is not offered again)."""
    head, _, last = typed.rpartition(" ")
    kept = head.split()
    out: list[Suggestion] = []
    for w in words:
        s = w if isinstance(w, Suggestion) else Suggestion(w, w)
        if s.value.lower().startswith(last.strip().lower()) and s.value not in kept:
            value = " ".join([*kept, s.value])
            out.append(Suggestion(value, " ".join([*kept, s.label])))
    return out
