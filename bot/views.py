"""Platform-neutral rendering: engine views in, `View` objects out.

Everything here is a pure function of an engine view (`Match.view(seat)` or
`Match.public_view()`), a little table information (names, who is an AI)
and a language.  Functions that render the group table only ever receive
the public view, so they cannot show a hand even by mistake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot import tokens
from bot.cardtext import card_text, cards_text, suit_text
from bot.i18n import N_, tr
from bot.platform import Button, View

HAND_PAGE_SIZE = 20  # 4 rows of 5: fits Discord's 5x5 with one row of controls
ROW = 5
SEAT_MARK = ("①", "②", "③", "④")


@dataclass(frozen=True)
class InlineChoice:
    """One answer to an inline query: a legal play the asking player may choose from the group."""

    title: str
    description: str
    token: str
    message: str = ""  # what the chosen result posts in the group as the player's message (else the title)


@dataclass(frozen=True)
class SeatInfo:
    """What the table shows about a seat's occupant."""

    name: str
    is_ai: bool = False
    away: bool = False  # a person whose seat an AI keeps until `back`


def team_of(seat: int) -> int:
    """Partners sit opposite: seats 0 & 2 are team 0, 1 & 3 team 1."""
    return seat % 2


def seat_label(seat: int, seats: Sequence[SeatInfo | None], lang: str) -> str:
    """"①Alice" (with an AI or away mark)."""
    info = seats[seat] if seat < len(seats) else None
    if info is None:
        return SEAT_MARK[seat] + tr(lang, "seat.empty")
    mark = ""
    if info.is_ai:
        mark = tr(lang, "seat.ai_mark")
    elif info.away:
        mark = tr(lang, "seat.away_mark")
    return f"{SEAT_MARK[seat]}{info.name}{mark}"


def is_trump(card: str, level: str | None, trump: str | None) -> bool:
    """Jokers, level cards and the trump suit are trumps."""
    if card in ("BJ", "SJ"):
        return True
    if level is not None and card[0] == level:
        return True
    return trump is not None and trump != "NT" and card[1] == trump


def _rank_text(level: str | None) -> str:
    if level is None:
        return "?"
    return "10" if level == "T" else str(level)


def _trump_line(v: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str) -> str:
    trump = v.get("trump")
    decl = v.get("declaration")
    if trump is None:
        shown = tr(lang, "table.trump_undecided")
    elif trump == "NT":
        shown = tr(lang, "table.no_trump")
    else:
        shown = suit_text(trump)
    if decl:
        return tr(lang, "table.trump_declared", trump=shown, who=seat_label(int(decl["seat"]), seats, lang),
                  cards=cards_text(decl.get("cards", [])))
    return tr(lang, "table.trump", trump=shown)


def _trick_text(trick: Sequence[Sequence[Any]], seats: Sequence[SeatInfo | None], lang: str) -> str:
    return " · ".join(f"{seat_label(int(s), seats, lang)} {cards_text(list(c))}" for s, c in trick)


def table_text(pub: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str, *, preset: str,
               time_left: float | None = None, paused: bool = False) -> str:
    """The group table as text, from the public view only."""
    lines = [tr(lang, "table.title", preset=preset, hand=pub.get("hand_no", 1))]
    dealer = pub.get("dealer")
    counts = pub.get("hand_counts") or [None] * 4
    for s in range(4):
        bits = [seat_label(s, seats, lang), tr(lang, f"team.{team_of(s)}")]
        if dealer == s:
            bits.append(tr(lang, "table.dealer"))
        if counts[s] is not None:
            bits.append(tr(lang, "table.cards_left", n=counts[s]))
        lines.append(" ".join(bits))
    levels = pub.get("levels") or ["2", "2"]
    lines.append(tr(lang, "table.levels", a=_rank_text(levels[0]), b=_rank_text(levels[1]),
                    level=_rank_text(pub.get("level"))))
    lines.append(_trump_line(pub, seats, lang))
    phase = str(pub.get("phase", ""))
    lines.append(tr(lang, "table.phase", phase=tr(lang, f"phase.{phase}")))
    if phase in ("playing", "hand_over", "match_over") or pub.get("tricks_played"):
        lines.append(tr(lang, "table.points", points=pub.get("defender_points", 0)))
    trick = pub.get("trick") or []
    if trick:
        lines.append(tr(lang, "table.trick", trick=_trick_text(trick, seats, lang)))
    elif pub.get("last_trick"):
        plays = _last_trick_plays(pub["last_trick"])
        line = tr(lang, "table.last_trick", trick=_trick_text(plays, seats, lang))
        winner = pub.get("last_trick_winner")
        if winner is not None:
            line += " " + tr(lang, "table.trick_won", who=seat_label(int(winner), seats, lang),
                             points=sum(card_points(c) for _, cards in plays for c in cards))
        lines.append(line)
    if paused:
        lines.append(tr(lang, "table.paused"))
    else:
        waiting = _waiting_for(pub)
        if waiting:
            who = ", ".join(seat_label(s, seats, lang) for s in waiting)
            if time_left is not None and time_left < 86_400:
                lines.append(tr(lang, "table.turn_timed", who=who, seconds=max(0, round(time_left))))
            else:
                lines.append(tr(lang, "table.turn", who=who))
    return "\n".join(lines)


def card_points(card: str) -> int:
    """5s count 5, 10s and Ks count 10."""
    return {"5": 5, "T": 10, "K": 10}.get(card[:1], 0) if card not in ("BJ", "SJ") else 0


def _last_trick_plays(last: Any) -> list[Sequence[Any]]:
    """`last_trick` may be the plays list or a dict holding it."""
    if isinstance(last, dict):
        plays = last.get("plays") or last.get("trick") or []
        return list(plays)
    return list(last)


def _waiting_for(pub: dict[str, Any]) -> list[int]:
    if pub.get("phase") == "playing" and pub.get("turn") is not None:
        return [int(pub["turn"])]
    return [int(s) for s in pub.get("to_act") or []]


def table_view(pub: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
               version: int, preset: str, time_left: float | None = None, paused: bool = False) -> View:
    """The group table message with its buttons (my hand; play from the group)."""
    text = table_text(pub, seats, lang, preset=preset, time_left=time_left, paused=paused)
    row = [Button(tr(lang, "btn.my_hand"), tokens.Token(match_id, version, tokens.HAND).pack())]
    if pub.get("phase") == "playing":
        row.append(Button(tr(lang, "btn.play_here"), "", kind="inline_query"))
    return View(text, (tuple(row),))


def _hand_lines(hand: Sequence[str], level: str | None, trump: str | None, lang: str,
                selection: set[int]) -> list[str]:
    """The hand grouped: trumps first, then each suit, with counts."""
    groups: dict[str, list[str]] = {}
    order: list[str] = []
    for i, c in enumerate(hand):
        key = "T" if is_trump(c, level, trump) else c[1]
        if key not in groups:
            groups[key] = []
            order.append(key)
        text = card_text(c)
        groups[key].append(f"[{text}]" if i in selection else text)
    out = []
    for key in order:
        name = tr(lang, "hand.trumps") if key == "T" else suit_text(key)
        out.append(f"{name} ({len(groups[key])}): {' '.join(groups[key])}")
    return out


def hand_text(v: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str, *,
              selection: set[int] | None = None, note: str = "") -> str:
    """A seat's private hand with what it may do now."""
    selection = selection or set()
    seat = int(v["seat"])
    hand = list(v.get("hand") or [])
    kitty = v.get("kitty")
    lines = [tr(lang, "hand.title", seat=seat_label(seat, seats, lang), n=len(hand), hand=v.get("hand_no", 1))]
    lines.append(tr(lang, "hand.level_trump", level=_rank_text(v.get("level")),
                    trump=tr(lang, "table.no_trump") if v.get("trump") == "NT" else
                    (suit_text(v.get("trump")) if v.get("trump") else tr(lang, "table.trump_undecided"))))
    lines.extend(_hand_lines(hand, v.get("level"), v.get("trump"), lang, selection))
    if kitty:
        lines.append(tr(lang, "hand.kitty", cards=cards_text(list(kitty))))
    # Nothing here depends on whose turn it is or on the trick: the group's table shows both, and a
    # hand message is edited only when its own cards, selection or buttons change (an edit is
    # silent in Telegram anyway, and each one counts against the bot's message limits).
    if selection:
        lines.append(tr(lang, "hand.selected", cards=cards_text([hand[i] for i in sorted(selection)
                                                                  if i < len(hand)]), n=len(selection)))
    prompt = _prompt(v, seat, lang)
    if prompt:
        lines.append(prompt)
    if note:
        lines.append(note)
    return "\n".join(lines)


def _prompt(v: dict[str, Any], seat: int, lang: str) -> str:
    phase = v.get("phase")
    to_act = [int(s) for s in v.get("to_act") or []]
    if phase in ("dealing", "declaring"):
        return tr(lang, "hand.prompt_declare")
    if phase == "burying" and seat in to_act:
        return tr(lang, "hand.prompt_bury")
    if phase == "chao" and seat in to_act:
        return tr(lang, "hand.prompt_chao")
    if phase == "playing":
        return tr(lang, "hand.prompt_play")
    return ""


def hand_view(v: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
              version: int, legal: Sequence[dict[str, Any]] = (), selection: set[int] | None = None,
              page: int = 0, page_size: int = HAND_PAGE_SIZE, note: str = "") -> View:
    """The private hand message: text plus the buttons that fit the phase."""
    selection = selection or set()
    seat = int(v["seat"])
    phase = v.get("phase")
    to_act = [int(s) for s in v.get("to_act") or []]
    hand = list(v.get("hand") or [])

    def tok(code: str, arg: str = "") -> str:
        return tokens.Token(match_id, version, code, arg).pack()

    rows: list[tuple[Button, ...]] = []
    if phase in ("dealing", "declaring", "chao"):
        bids = [a for a in legal if a.get("t") in ("declare", "chao")][:10]
        buttons = [Button(tr(lang, N_("btn.declare") if a["t"] == "declare" else N_("btn.chao"),
                             cards=cards_text(a["cards"])),
                          tok(tokens.DECLARE if a["t"] == "declare" else tokens.CHAO, "".join(a["cards"])),
                          style="primary") for a in bids]
        if any(a.get("t") == "pass" for a in legal):
            buttons.append(Button(tr(lang, "btn.pass"), tok(tokens.PASS)))
        rows.extend(tuple(buttons[i:i + ROW]) for i in range(0, len(buttons), ROW))
    elif phase in ("burying", "playing"):
        pages = max(1, -(-len(hand) // page_size))
        page = min(max(page, 0), pages - 1)
        start = page * page_size
        shown = [Button(("✓" if i in selection else "") + card_text(hand[i]), tok(tokens.TOGGLE, tokens.to_b36(i)),
                        style="selected" if i in selection else "default")
                 for i in range(start, min(len(hand), start + page_size))]
        rows.extend(tuple(shown[i:i + ROW]) for i in range(0, len(shown), ROW))
        controls: list[Button] = []
        if pages > 1:
            controls.append(Button("◀", tok(tokens.PAGE, str((page - 1) % pages))))
        if phase == "burying" and seat in to_act:
            controls.append(Button(tr(lang, "btn.bury", n=len(selection)), tok(tokens.BURY),
                                   style="primary" if len(selection) == 8 else "default"))
        elif phase == "playing":
            controls.append(Button(tr(lang, "btn.play"), tok(tokens.PLAY), style="primary"))
        controls.append(Button(tr(lang, "btn.clear"), tok(tokens.CLEAR)))
        if any(a.get("t") == "revolt" for a in legal):
            controls.append(Button(tr(lang, "btn.revolt"), tok(tokens.REVOLT), style="danger"))
        if pages > 1:
            controls.append(Button("▶", tok(tokens.PAGE, str((page + 1) % pages))))
        rows.append(tuple(controls))
    text = hand_text(v, seats, lang, selection=selection, note=note)
    return View(text, tuple(rows))


def hand_elsewhere_view(v: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
                        version: int, page: int = 0) -> View:
    """The private hand of a seat that plays from the group (inline mode), folded away: it names
    no card, so it need not be redrawn after each play; ↻ shows the cards again."""
    text = tr(lang, "hand.elsewhere", seat=seat_label(int(v["seat"]), seats, lang), hand=v.get("hand_no", 1))
    refresh = Button(tr(lang, "btn.refresh"), tokens.Token(match_id, version, tokens.PAGE, str(page)).pack())
    return View(text, ((refresh,),))


def play_choices(v: dict[str, Any], legal: Sequence[dict[str, Any]], lang: str, *, match_id: int,
                 version: int, limit: int = 50, seats: Sequence[SeatInfo | None] = (),
                 group_lang: str | None = None) -> list[InlineChoice]:
    """The seat's legal plays as inline choices (its own cards only; shown to that person alone).

    With `seats`, each choice also says what its message in the group will read once chosen:
    who plays what and, while the trick goes on, who plays next (the group's table message is
    then only redrawn when the trick is complete).
    """
    hand = list(v.get("hand") or [])
    seat = int(v["seat"])
    glang = group_lang or lang
    after = None
    if seats and len(v.get("trick") or []) < 3:  # this play leaves the trick open: the next seat plays
        after = seat_label((seat + 1) % 4, seats, glang)
    out: list[InlineChoice] = []
    for a in legal:
        if a.get("t") != "play":
            continue
        idx = _indices(hand, list(a["cards"]))
        if idx is None or len(idx) > 40:
            continue
        arg = "".join(tokens.to_b36(i) for i in idx)
        message = ""
        if seats:
            who, cards = seat_label(seat, seats, glang), cards_text(a["cards"])
            message = (tr(glang, "inline.posted_next", who=who, cards=cards, next=after) if after
                       else tr(glang, "inline.posted", who=who, cards=cards))
        out.append(InlineChoice(cards_text(a["cards"]), tr(lang, "inline.play", n=len(idx)),
                                tokens.Token(match_id, version, tokens.PLAY_CARDS, arg).pack(), message))
        if len(out) >= limit:
            break
    return out


def _indices(hand: list[str], cards: list[str]) -> list[int] | None:
    """Positions in `hand` of `cards` (a multiset), or None if they are not all there."""
    used: set[int] = set()
    out = []
    for c in cards:
        for i, h in enumerate(hand):
            if h == c and i not in used:
                used.add(i)
                out.append(i)
                break
        else:
            return None
    return out


def lobby_view(seats: Sequence[SeatInfo | None], lang: str, *, match_id: int, preset: str,
               creator: str, options: str = "", join_url: str | None = None) -> View:
    """The lobby message: who sits where, and Join / Leave / Add AI / Start."""
    lines = [tr(lang, "lobby.title", preset=preset, creator=creator)]
    if options:
        lines.append(tr(lang, "lobby.options", options=options))
    for s in range(4):
        lines.append(f"{seat_label(s, seats, lang)} {tr(lang, f'team.{team_of(s)}')}")
    filled = sum(1 for x in seats if x is not None)
    lines.append(tr(lang, "lobby.hint", n=filled))

    def tok(code: str) -> str:
        return tokens.Token(match_id, 0, code).pack()

    join = (Button(tr(lang, "btn.join"), join_url, kind="url", style="primary") if join_url
            else Button(tr(lang, "btn.join"), tok(tokens.JOIN), style="primary"))
    row1 = (join,
            Button(tr(lang, "btn.leave"), tok(tokens.LEAVE)))
    row2 = (Button(tr(lang, "btn.addbot"), tok(tokens.ADDBOT)),
            Button(tr(lang, "btn.start"), tok(tokens.START), style="primary" if filled == 4 else "default"))
    return View("\n".join(lines), (row1, row2))


def hand_result_text(res: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str) -> str:
    """A finished hand: points, kitty shown, multiplier, who goes up, levels after."""
    lines = [tr(lang, "result.hand_title", hand=res.get("hand_no", "?"))]
    reason = str(res.get("reason", "played"))
    if reason != "played":
        lines.append(tr(lang, f"reason.{reason}"))
    if "defender_points" in res:
        lines.append(tr(lang, "result.points", points=res["defender_points"]))
    if res.get("kitty"):
        mult = int(res.get("kitty_multiplier", 0) or 0)
        key = N_("result.kitty_won") if mult > 0 else N_("result.kitty")
        lines.append(tr(lang, key, cards=cards_text(list(res["kitty"])), points=res.get("kitty_points", 0),
                        mult=mult))
    if res.get("penalties"):
        lines.append(tr(lang, "result.penalty", points=res["penalties"]))
    dteam = res.get("declarer_team")
    if res.get("winner") in ("declarers", "defenders") and dteam is not None:
        team = int(dteam) if res["winner"] == "declarers" else 1 - int(dteam)
        key = "result.declarers_win" if res["winner"] == "declarers" else "result.defenders_win"
        lines.append(tr(lang, key, team=tr(lang, f"team.{team}"), n=res.get("levels", 0)))
    if res.get("knocked_to"):
        lines.append(tr(lang, "result.knocked", level=_rank_text(str(res["knocked_to"]))))
    lv = res.get("levels_after")
    if lv:
        lines.append(tr(lang, "result.levels", a=_rank_text(lv[0]), b=_rank_text(lv[1])))
    return "\n".join(lines)


def match_result_text(result: dict[str, Any], seats: Sequence[SeatInfo | None], lang: str) -> str:
    """The end of the match: winners and final levels."""
    team = int(result.get("winner_team", 0))
    members = [seat_label(s, seats, lang) for s in range(4) if team_of(s) == team]
    lines = [tr(lang, "result.match_title"),
             tr(lang, "result.match_winner", team=tr(lang, f"team.{team}"), who=", ".join(members))]
    lv = result.get("levels")
    if lv:
        lines.append(tr(lang, "result.levels", a=_rank_text(lv[0]), b=_rank_text(lv[1])))
    if result.get("reason"):
        lines.append(tr(lang, "result.reason", reason=tr(lang, f"reason.{result['reason']}")))
    return "\n".join(lines)
