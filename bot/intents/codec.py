"""Button data: one codec for every button kind, packed when a button is drawn, parsed once when pressed.

A token names the match, the state version the button was drawn for, the kind of act and its
argument, plus a two-character checksum so that truncated or random strings are recognised as
garbage. Tokens are not secrets: every press is checked again at the table (who pressed, which
seat, whether it was drawn for this turn, whether the engine accepts the action), so a well-formed
token for someone else's seat is refused there.

Layout: ``2.<match base36>.<version base36>.<kind>.<arg>.<check>``, at most 64 bytes (Telegram's
callback_data limit). Cards are one character each (the face number in base 62), so a play of 40
cards fits. Tokens of layout ``1`` (drawn before this codec) still parse where they mean the same,
so that buttons on messages drawn before an upgrade keep working.

No adapter looks inside a token: they hand `parse`'s result to the host.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable

from bot.intents.types import (
    Act,
    Auto,
    BuryCards,
    BurySelection,
    ButtonAct,
    Cards,
    Chao,
    ClearSelection,
    Command,
    Declare,
    Drawn,
    Hint,
    Intent,
    LobbyAddBot,
    LobbyJoin,
    LobbyLeave,
    LobbyStart,
    Page,
    Pass,
    PlayCards,
    PlaySelection,
    Revolt,
    ShowHand,
    TakeSeatBack,
    Toggle,
    Unreadable,
    UnreadableReason,
)
from engine.cards import RANKS, SUITS

LAYOUT = "2"
LEGACY_LAYOUT = "1"
MAX_BYTES = 64
MAX_ARG = 40

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_B62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ARG_RE = re.compile(rf"^[0-9A-Za-z]{{0,{MAX_ARG}}}$")
_CARD_NAMES: tuple[str, ...] = tuple([RANKS[f % 13] + SUITS[f // 13] for f in range(52)] + ["SJ", "BJ"])
_CARD_CHAR = {name: _B62[f] for f, name in enumerate(_CARD_NAMES)}
_CHAR_CARD = {_B62[f]: name for f, name in enumerate(_CARD_NAMES)}


class BadToken(ValueError):
    """A token that is not one of ours (garbage, truncated, tampered, or of a kind we no longer draw)."""


def _no_arg(act: ButtonAct) -> str:
    return ""


def _cards_arg(act: ButtonAct) -> str:
    assert isinstance(act, PlayCards | Declare | Chao)
    return pack_cards(act.cards)


def _index_arg(act: ButtonAct) -> str:
    assert isinstance(act, Toggle | Page)
    return to_b36(act.index if isinstance(act, Toggle) else act.n)


# One letter per kind, and how each kind's argument is read back. Letters are those of layout 1.
_KINDS: dict[type[ButtonAct], tuple[str, Callable[[ButtonAct], str]]] = {
    LobbyJoin: ("j", _no_arg),
    LobbyLeave: ("l", _no_arg),
    LobbyStart: ("s", _no_arg),
    LobbyAddBot: ("b", _no_arg),
    Toggle: ("t", _index_arg),
    ClearSelection: ("c", _no_arg),
    PlaySelection: ("p", _no_arg),
    PlayCards: ("i", _cards_arg),
    Declare: ("d", _cards_arg),
    Pass: ("x", _no_arg),
    BurySelection: ("u", _no_arg),
    Chao: ("o", _cards_arg),
    Revolt: ("r", _no_arg),
    ShowHand: ("h", _no_arg),
    Page: ("g", _index_arg),
    TakeSeatBack: ("k", _no_arg),
}
_NO_ARG: dict[str, ButtonAct] = {
    "j": LobbyJoin(), "l": LobbyLeave(), "s": LobbyStart(), "b": LobbyAddBot(), "c": ClearSelection(),
    "p": PlaySelection(), "x": Pass(), "u": BurySelection(), "r": Revolt(), "h": ShowHand(), "k": TakeSeatBack(),
}


def read(data: str) -> Intent:
    """A button's data as the intent it stands for; data that is no token of ours is `Unreadable`."""
    try:
        drawn, act = parse(data)
    except BadToken:
        return Intent(Unreadable("bad_token"))
    return Intent(act, drawn)


def pack(drawn: Drawn, act: ButtonAct) -> str:
    """The string to put in a button; raises ValueError if it would not fit or names no card."""
    entry = _KINDS.get(type(act))
    if entry is None:
        raise ValueError(f"not a button act: {act!r}")
    letter, arg_of = entry
    arg = arg_of(act)
    if not _ARG_RE.match(arg):
        raise ValueError(f"argument too long for a button: {act!r}")
    if drawn.match_id < 0 or drawn.version < 0:
        raise ValueError("negative match id or version")
    body = f"{LAYOUT}.{to_b36(drawn.match_id)}.{to_b36(drawn.version)}.{letter}.{arg}"
    text = f"{body}.{_check(body)}"
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"token longer than {MAX_BYTES} bytes: {text!r}")
    return text


def parse(text: object) -> tuple[Drawn, ButtonAct]:
    """A button's data read back: what it was drawn for and what it stands for.

    Raises BadToken for anything that is not a well-formed token of ours."""
    if not isinstance(text, str) or not text or len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise BadToken("not a token")
    parts = text.split(".")
    if len(parts) != 6 or parts[0] not in (LAYOUT, LEGACY_LAYOUT):
        raise BadToken("unknown token layout")
    layout, mid, ver, letter, arg, check = parts
    if check != _check(".".join(parts[:5])):
        raise BadToken("checksum mismatch")
    if not _ARG_RE.match(arg):
        raise BadToken("bad argument")
    try:
        drawn = Drawn(from_b36(mid), from_b36(ver))
        return drawn, _act(letter, arg, legacy=layout == LEGACY_LAYOUT)
    except ValueError as exc:
        raise BadToken(str(exc) or "bad argument") from exc


def _act(letter: str, arg: str, *, legacy: bool) -> ButtonAct:
    simple = _NO_ARG.get(letter)
    if simple is not None:
        if arg:
            raise ValueError("unexpected argument")
        return simple
    if letter == "t":
        return Toggle(from_b36(arg))
    if letter == "g":
        return Page(from_b36(arg))
    if letter in ("i", "d", "o"):
        if legacy and letter == "i":
            raise ValueError("layout 1 plays name card positions, not cards")  # drawn for a hand long gone
        cards = _legacy_cards(arg) if legacy else unpack_cards(arg)
        if letter == "i":
            return PlayCards(cards)
        return Declare(cards) if letter == "d" else Chao(cards)
    raise ValueError("unknown kind")


def pack_cards(cards: Cards) -> str:
    """Cards, one character each; ValueError for a name that is no card."""
    try:
        return "".join(_CARD_CHAR[c] for c in cards)
    except KeyError as exc:
        raise ValueError(f"not a card: {exc.args[0]!r}") from None


def unpack_cards(arg: str) -> Cards:
    """Inverse of pack_cards; ValueError for an empty list or a character that is no card."""
    if not arg:
        raise ValueError("no cards")
    try:
        return tuple(_CHAR_CARD[ch] for ch in arg)
    except KeyError:
        raise ValueError("not a card") from None


def _legacy_cards(arg: str) -> Cards:
    cards = tuple(arg[i:i + 2] for i in range(0, len(arg), 2))
    if not cards or any(c not in _CARD_CHAR for c in cards):
        raise ValueError("not a card")
    return cards


def to_b36(n: int) -> str:
    """A non-negative int in base 36 (lower case)."""
    if n < 0:
        raise ValueError("negative")
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
        raise ValueError("bad number")
    return int(s, 36)


def _check(body: str) -> str:
    c = zlib.crc32(body.encode()) % (36 * 36)
    return _B36[c // 36] + _B36[c % 36]


# ----- intents as JSON: forwarded between workers (bot.cluster) -----

_BARE: dict[str, Act] = {type(a).__name__: a for a in (*_NO_ARG.values(), Hint(), Auto())}
_WITH_CARDS: dict[str, type[PlayCards | Declare | Chao | BuryCards]] = {
    t.__name__: t for t in (PlayCards, Declare, Chao, BuryCards)}
_REASONS: tuple[UnreadableReason, ...] = ("bad_token", "garbage", "bad_card", "which_joker", "bad_declaration",
                                          "select_first")


def to_json(intent: Intent) -> dict[str, object]:
    """An intent as plain JSON data; `from_json` reads it back as the same intent."""
    act = intent.act
    out: dict[str, object] = {"t": type(act).__name__}
    if isinstance(act, PlayCards | Declare | Chao | BuryCards):
        out["cards"] = list(act.cards)
    elif isinstance(act, Toggle):
        out["i"] = act.index
    elif isinstance(act, Page):
        out["i"] = act.n
    elif isinstance(act, Command):
        out["name"], out["args"] = act.name, list(act.args)
    elif isinstance(act, Unreadable):
        out["reason"], out["word"] = act.reason, act.word
    if intent.drawn is not None:
        out["drawn"] = [intent.drawn.match_id, intent.drawn.version]
    return out


def from_json(data: object) -> Intent:
    """Inverse of `to_json`; ValueError for anything it did not write."""
    if not isinstance(data, dict):
        raise ValueError("not an intent")
    t = str(data.get("t"))
    with_cards = _WITH_CARDS.get(t)
    act: Act
    if t in _BARE:
        act = _BARE[t]
    elif with_cards is not None:
        act = with_cards(_strs(data.get("cards")))
    elif t in ("Toggle", "Page"):
        i = data.get("i")
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ValueError("bad index")
        act = Toggle(i) if t == "Toggle" else Page(i)
    elif t == "Command":
        act = Command(str(data.get("name", "")), _strs(data.get("args")))
    elif t == "Unreadable":
        reason = next((r for r in _REASONS if r == data.get("reason")), None)
        if reason is None:
            raise ValueError("bad reason")
        act = Unreadable(reason, str(data.get("word", "")))
    else:
        raise ValueError("unknown act")
    drawn = data.get("drawn")
    if drawn is None:
        return Intent(act)
    if (not isinstance(drawn, list) or len(drawn) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in drawn)):
        raise ValueError("bad drawn")
    return Intent(act, Drawn(drawn[0], drawn[1]))


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of words")
    return tuple(value)
