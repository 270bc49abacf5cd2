"""Compact, versioned button tokens.

A token names the match, the state version the button was drawn for, an
action code and a short argument, plus a two-character checksum so that
truncated or random strings are recognised as garbage.  Tokens are not
secrets: every press is checked again by the host (who pressed, which seat,
whether the view is current, whether the engine accepts the action), so a
well-formed token for someone else's seat is refused there.

Layout: ``1.<match base36>.<version base36>.<code>.<arg>.<check>``, at most
64 bytes (Telegram's callback_data limit).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

VERSION_TAG = "1"
MAX_BYTES = 64

# Action codes: one letter each.
JOIN = "j"
LEAVE = "l"
START = "s"
ADDBOT = "b"
TOGGLE = "t"  # arg: index of the card in the rendered hand (base36)
CLEAR = "c"
PLAY = "p"  # play the current selection
PLAY_CARDS = "i"  # arg: indices of the cards (inline choice from the group)
DECLARE = "d"  # arg: card codes, e.g. "TS" or "TSTS"
PASS = "x"
BURY = "u"  # bury the current selection
CHAO = "o"  # chao with the current selection
REVOLT = "r"
HAND = "h"  # show me my hand (from the group table)
PAGE = "g"  # arg: page number of a large hand
BACK = "k"  # take the seat back from the AI

CODES = frozenset({JOIN, LEAVE, START, ADDBOT, TOGGLE, CLEAR, PLAY, PLAY_CARDS, DECLARE, PASS, BURY, CHAO,
                   REVOLT, HAND, PAGE, BACK})

_ARG_RE = re.compile(r"^[0-9A-Za-z]{0,40}$")
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadToken(ValueError):
    """A token that is not one of ours (garbage, truncated or tampered)."""


@dataclass(frozen=True)
class Token:
    """One button's meaning: which match, drawn at which version, doing what."""

    match_id: int
    version: int
    code: str
    arg: str = ""

    def pack(self) -> str:
        """The string to put in a button; raises ValueError if it would not fit."""
        if self.code not in CODES:
            raise ValueError(f"unknown token code {self.code!r}")
        if not _ARG_RE.match(self.arg):
            raise ValueError(f"bad token argument {self.arg!r}")
        if self.match_id < 0 or self.version < 0:
            raise ValueError("negative match id or version")
        body = f"{VERSION_TAG}.{to_b36(self.match_id)}.{to_b36(self.version)}.{self.code}.{self.arg}"
        text = f"{body}.{_check(body)}"
        if len(text.encode()) > MAX_BYTES:
            raise ValueError(f"token longer than {MAX_BYTES} bytes: {text!r}")
        return text


def parse(text: object) -> Token:
    """Read a token; raises BadToken for anything that is not a well-formed token of ours."""
    if not isinstance(text, str) or not text or len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise BadToken("not a token")
    parts = text.split(".")
    if len(parts) != 6 or parts[0] != VERSION_TAG:
        raise BadToken("unknown token layout")
    _, mid, ver, code, arg, check = parts
    body = ".".join(parts[:5])
    if check != _check(body):
        raise BadToken("checksum mismatch")
    if code not in CODES or not _ARG_RE.match(arg):
        raise BadToken("unknown action")
    try:
        return Token(from_b36(mid), from_b36(ver), code, arg)
    except ValueError as exc:
        raise BadToken("bad number") from exc


def to_b36(n: int) -> str:
    """A non-negative int in base 36 (lower case)."""
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(_B36[r])
    return "".join(reversed(out))


def from_b36(s: str) -> int:
    """Inverse of to_b36; raises ValueError for anything else."""
    if not s or len(s) > 12 or any(c not in _B36 for c in s):
        raise ValueError(s)
    return int(s, 36)


def _check(body: str) -> str:
    c = zlib.crc32(body.encode()) % (36 * 36)
    return _B36[c // 36] + _B36[c % 36]
