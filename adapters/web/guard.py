"""What a hostile socket may not do to the web table: flood it, nest JSON until the parser gives up,
or open sockets without end.

A page sends little: a hello, then one act per tap (play, declare, hint ...). So each socket and
each person (all their sockets together) has a token bucket, and a frame past either is refused and
the socket closed (`WebTable.socket`); the table only ever saw the frames inside the limits. A frame
is read only if its nesting is shallow (an act is two levels deep), so `json.loads` never recurses
far. The limits are figures of `Limits`; docs/web.md gives them and what a flood gets through.
Also here: the checks of an act's fields (each refusal its own code) and the page's
Content-Security-Policy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: A JSON string, escapes included: skipped when the nesting is counted.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class Limits:
    """How much a socket and a person may send (frames a second, and the burst above that)."""

    socket_rate: float = 5.0
    socket_burst: float = 30.0
    person_rate: float = 10.0
    person_burst: float = 60.0
    person_sockets: int = 8  # open at once; the oldest goes when one more opens
    max_depth: int = 4  # nesting of a frame: {"t": "act", "cards": [...]} is 2
    max_act_bytes: int = 2048  # an act of 40 cards is a few hundred bytes


class Bucket:
    """A token bucket on a monotonic clock: `take()` is False once the burst is spent faster than
    the rate refills it."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def full(self) -> bool:
        """Refilled to its burst: nothing to remember about this person any more."""
        return self.tokens + (self.clock() - self.at) * self.rate >= self.burst


def depth(text: str) -> int:
    """How deep a JSON text nests (strings skipped), without parsing it."""
    if text.count("[") + text.count("{") <= 1:
        return text.count("[") + text.count("{")
    deepest = level = 0
    for ch in _STRING.sub("", text):
        if ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


class BadFrame(ValueError):
    """A frame that is not one the page sends: not JSON, nested too deep, or not an object."""


def read_frame(text: str, max_depth: int) -> dict[str, Any]:
    """The frame as a dict, or BadFrame: the nesting is checked before `json.loads` sees it."""
    if depth(text) > max_depth:
        raise BadFrame("nested")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise BadFrame("json") from err
    if not isinstance(data, dict):
        raise BadFrame("not an object")
    return data


def act_refusal(word: str | None, cards: object, version: object, max_cards: int) -> str | None:
    """Why a seat's act is refused before it reaches the table, if it is: its code (`web.refused_<code>`)."""
    if word is None:
        return "bad_act"
    if (not isinstance(cards, list) or len(cards) > max_cards
            or not all(isinstance(c, str) and len(c) <= 3 for c in cards)):
        return "bad_cards"
    if not (version is None or (isinstance(version, int) and not isinstance(version, bool) and version >= 0)):
        return "bad_version"
    return None


def content_security_policy(telegram_script: str, host: str) -> str:
    """The page's Content-Security-Policy: its own script and style files (no inline code, no eval),
    Telegram's script, its socket and nothing else; framed only by Telegram's web apps."""
    origin = "/".join(telegram_script.split("/")[:3]) if telegram_script.startswith("https://") else ""
    return "; ".join([
        "default-src 'none'", f"script-src 'self' {origin}".strip(), "style-src 'self'", "img-src 'self' data:",
        f"connect-src 'self' wss://{host} ws://{host}", "base-uri 'none'", "form-action 'none'",
        "frame-ancestors 'self' https://web.telegram.org https://*.telegram.org",
    ])
