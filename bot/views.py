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
from bot.scene.types import SeatInfo as SeatInfo
from engine.actions import Chao, Declare, Pass, Play, Revolt, SeatAction
from engine.cards import card_points, is_trump_card
from engine.hand import team_of
from engine.views import Phase, PublicView, SeatView, TrickPlay

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


def _rank_text(level: str | None) -> str:
    if level is None:
        return "?"
    return "10" if level == "T" else str(level)


def _trump_line(v: PublicView, seats: Sequence[SeatInfo | None], lang: str) -> str:
    trump = v.get("trump")
    decl = v.get("declaration")
    if trump is None and decl:
        # while the cards arrive the declaration leads but is not final: say so, not "not yet declared"
        cards = list(decl.get("cards", []))
        lead = tr(lang, "table.no_trump") if cards and cards[0] in ("BJ", "SJ") else suit_text(cards[0][1]) \
            if cards else "?"
        return tr(lang, "table.trump_so_far", trump=lead, who=seat_label(int(decl["seat"]), seats, lang),
                  cards=cards_text(cards))
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


def trick_text(trick: Sequence[TrickPlay], seats: Sequence[SeatInfo | None], lang: str) -> str:
    """"①Ann ♠A · ②Bo ♠3": who played what so far."""
    return " · ".join(f"{seat_label(int(s), seats, lang)} {cards_text(list(c))}" for s, c in trick)


def table_text(pub: PublicView, seats: Sequence[SeatInfo | None], lang: str, *, preset: str,
               time_left: float | None = None, paused: bool = False) -> str:
    """The group table as text, from the public view only."""
    lines = [tr(lang, "table.title", preset=preset, hand=pub.get("hand_no", 1))]
    dealer = pub.get("dealer")
    counts: Sequence[int | None] = pub.get("hand_counts") or [None] * 4
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
    if phase in (Phase.PLAYING, Phase.HAND_OVER, Phase.MATCH_OVER) or pub.get("tricks_played"):
        if dealer is not None:
            lines.append(tr(lang, "table.points_team", team=tr(lang, f"team.{1 - team_of(int(dealer))}"),
                            points=pub.get("defender_points", 0)))
        else:
            lines.append(tr(lang, "table.points", points=pub.get("defender_points", 0)))
    if pub.get("last_trick"):  # always on the table: a trick someone else won is seen too
        lines.append(tr(lang, "table.last_trick", trick=last_trick_text(pub, seats, lang)))
    trick = pub.get("trick") or []
    if trick:
        lines.append(tr(lang, "table.trick", trick=trick_text(trick, seats, lang)))
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


def last_trick_text(pub: PublicView, seats: Sequence[SeatInfo | None], lang: str) -> str:
    """The last completed trick: who played what, who won it, its points and whether they count.

    Points count only when the defenders (the side without the dealer) win the trick; the
    declarers winning keeps them off the defenders' total, and the line says so.
    """
    plays = list(pub.get("last_trick") or [])
    text = trick_text(plays, seats, lang)
    winner = pub.get("last_trick_winner")
    if winner is None:
        return text
    points = sum(card_points(c) for _, cards in plays for c in cards)
    done = pub.get("tricks") or []
    if done and [list(p) for p in done[-1]["plays"]] == [list(p) for p in plays]:
        points = int(done[-1]["points"])
    who = seat_label(int(winner), seats, lang)
    declarers = pub.get("declarers")
    if points <= 0:
        won = tr(lang, "table.trick_won", who=who)
    elif declarers is not None and int(winner) in declarers:
        won = tr(lang, "table.trick_won_kept", who=who, points=points)
    else:
        won = tr(lang, "table.trick_won_counts", who=who, points=points)
    return f"{text} {won}"


def _waiting_for(pub: PublicView) -> list[int]:
    turn = pub.get("turn")
    if pub.get("phase") == Phase.PLAYING and turn is not None:
        return [turn]
    return [int(s) for s in pub.get("to_act") or []]


def table_view(pub: PublicView, seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
               version: int, preset: str, time_left: float | None = None, paused: bool = False,
               web: Button | None = None) -> View:
    """The group table message with its buttons (my hand; play from the group; the web table)."""
    text = table_text(pub, seats, lang, preset=preset, time_left=time_left, paused=paused)
    row = [Button(tr(lang, "btn.my_hand"), tokens.Token(match_id, version, tokens.HAND).pack())]
    if pub.get("phase") == Phase.PLAYING:
        row.append(Button(tr(lang, "btn.play_here"), "", kind="inline_query"))
    rows = [tuple(row)]
    if web is not None:
        rows.append((web,))
    return View(text, tuple(rows))


def _hand_lines(hand: Sequence[str], level: str | None, trump: str | None, lang: str,
                selection: set[int]) -> list[str]:
    """The hand grouped: trumps first, then each suit, with counts."""
    groups: dict[str, list[str]] = {}
    order: list[str] = []
    for i, c in enumerate(hand):
        key = "T" if is_trump_card(c, level, trump) else c[1]
        if key not in groups:
            groups[key] = []
            order.append(key)
        text = card_text(c)
        groups[key].append(f"[{text}]" if i in selection else text)
    out = []
    for key in sorted(order, key=lambda k: k != "T"):  # trumps first, then the suits as they come
        name = tr(lang, "hand.trumps") if key == "T" else suit_text(key)
        out.append(f"{name} ({len(groups[key])}): {' '.join(groups[key])}")
    return out


def hand_text(v: SeatView, seats: Sequence[SeatInfo | None], lang: str, *,
              selection: set[int] | None = None, note: str = "") -> str:
    """A seat's private hand with what it may do now."""
    selection = selection or set()
    seat = int(v["seat"])
    hand = list(v.get("hand") or [])
    kitty = v.get("kitty")
    lines = [tr(lang, "hand.title", seat=seat_label(seat, seats, lang),
                n=len(hand), hand=v.get("hand_no", 1))]
    lines.append(tr(lang, "hand.level_trump", level=_rank_text(v.get("level")), trump=_hand_trump(v, lang)))
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


def _hand_trump(v: SeatView, lang: str) -> str:
    trump = v.get("trump")
    if trump == "NT":
        return tr(lang, "table.no_trump")
    if trump:
        return suit_text(trump)
    decl = v.get("declaration")
    cards = list(decl["cards"]) if decl else []
    if cards:  # declared while dealing: leads, may still be overcalled
        lead = tr(lang, "table.no_trump") if cards[0] in ("BJ", "SJ") else suit_text(cards[0][1])
        return tr(lang, "hand.trump_so_far", trump=lead)
    return tr(lang, "table.trump_undecided")


def _prompt(v: SeatView, seat: int, lang: str) -> str:
    phase = v.get("phase")
    to_act = [int(s) for s in v.get("to_act") or []]
    if phase in (Phase.DEALING, Phase.DECLARING):
        return tr(lang, "hand.prompt_declare")
    if phase == Phase.BURYING and seat in to_act:
        return tr(lang, "hand.prompt_bury")
    if phase == Phase.CHAO and seat in to_act:
        return tr(lang, "hand.prompt_chao")
    if phase == Phase.PLAYING:
        return tr(lang, "hand.prompt_play")
    return ""


def hand_view(v: SeatView, seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
              version: int, legal: Sequence[SeatAction] = (), selection: set[int] | None = None,
              page: int = 0, page_size: int = HAND_PAGE_SIZE, note: str = "", web: Button | None = None) -> View:
    """The private hand message: text plus the buttons that fit the phase (and the web table's)."""
    selection = selection or set()
    seat = int(v["seat"])
    phase = v.get("phase")
    to_act = [int(s) for s in v.get("to_act") or []]
    hand = list(v.get("hand") or [])

    def tok(code: str, arg: str = "") -> str:
        return tokens.Token(match_id, version, code, arg).pack()

    rows: list[tuple[Button, ...]] = []
    if phase in (Phase.DEALING, Phase.DECLARING, Phase.CHAO):
        bids = [a for a in legal if isinstance(a, Declare | Chao)][:10]
        buttons = [Button(tr(lang, N_("btn.declare") if a.t == "declare" else N_("btn.chao"),
                             cards=cards_text(list(a.cards))),
                          tok(tokens.DECLARE if a.t == "declare" else tokens.CHAO, "".join(a.cards)),
                          style="primary") for a in bids]
        if any(isinstance(a, Pass) for a in legal):
            buttons.append(Button(tr(lang, "btn.pass"), tok(tokens.PASS)))
        rows.extend(tuple(buttons[i:i + ROW]) for i in range(0, len(buttons), ROW))
    elif phase in (Phase.BURYING, Phase.PLAYING):
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
        if phase == Phase.BURYING and seat in to_act:
            controls.append(Button(tr(lang, "btn.bury", n=len(selection)), tok(tokens.BURY),
                                   style="primary" if len(selection) == 8 else "default"))
        elif phase == Phase.PLAYING:
            controls.append(Button(tr(lang, "btn.play"), tok(tokens.PLAY), style="primary"))
        controls.append(Button(tr(lang, "btn.clear"), tok(tokens.CLEAR)))
        if any(isinstance(a, Revolt) for a in legal):
            controls.append(Button(tr(lang, "btn.revolt"), tok(tokens.REVOLT), style="danger"))
        if pages > 1:
            controls.append(Button("▶", tok(tokens.PAGE, str((page + 1) % pages))))
        rows.append(tuple(controls))
    if web is not None:
        rows.append((web,))
    text = hand_text(v, seats, lang, selection=selection, note=note)
    return View(text, tuple(rows))


def hand_on_web_view(v: SeatView, seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
                     version: int, web: Button | None = None) -> View:
    """The private hand of a seat that plays on the web table, folded away: it names no card, so
    the chat is not edited after each play; ↻ shows the cards here again."""
    text = tr(lang, "hand.on_web", seat=seat_label(int(v["seat"]), seats, lang))
    refresh = Button(tr(lang, "btn.refresh"), tokens.Token(match_id, version, tokens.HAND).pack())
    return View(text, ((refresh,) + ((web,) if web is not None else ()),))


def hand_elsewhere_view(v: SeatView, seats: Sequence[SeatInfo | None], lang: str, *, match_id: int,
                        version: int, page: int = 0) -> View:
    """The private hand of a seat that plays from the group (inline mode), folded away: it names
    no card, so it need not be redrawn after each play; ↻ shows the cards again."""
    text = tr(lang, "hand.elsewhere", seat=seat_label(int(v["seat"]), seats, lang), hand=v.get("hand_no", 1))
    refresh = Button(tr(lang, "btn.refresh"), tokens.Token(match_id, version, tokens.PAGE, str(page)).pack())
    return View(text, ((refresh,),))


def play_choices(v: SeatView, legal: Sequence[SeatAction], lang: str, *, match_id: int,
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
        if not isinstance(a, Play):
            continue
        idx = card_indices(hand, list(a.cards))
        if idx is None or len(idx) > 40:
            continue
        arg = "".join(tokens.to_b36(i) for i in idx)
        message = ""
        if seats:
            who, cards = seat_label(seat, seats, glang), cards_text(list(a.cards))
            message = (tr(glang, "inline.posted_next", who=who, cards=cards, next=after) if after
                       else tr(glang, "inline.posted", who=who, cards=cards))
        out.append(InlineChoice(cards_text(list(a.cards)), tr(lang, "inline.play", n=len(idx)),
                                tokens.Token(match_id, version, tokens.PLAY_CARDS, arg).pack(), message))
        if len(out) >= limit:
            break
    return out


def card_indices(hand: list[str], cards: list[str]) -> list[int] | None:
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
        if not res.get("levels"):  # a side that only wins the deal does not "go up 0"
            key = N_("result.declarers_hold") if res["winner"] == "declarers" else N_("result.defenders_take_over")
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


def rules_summary(rules: dict[str, Any], lang: str) -> str:
    """A preset in a few lines a player cares about; `rules <preset> all` lists every setting."""
    must = ", ".join(_rank_text(str(r)) for r in rules.get("must_play") or []) or "-"
    lines = [tr(lang, "rules.title", preset=rules.get("name", "?")),
             tr(lang, "rules.levels", start=_rank_text(str(rules.get("start_level", "2"))),
                target=_rank_text(str(rules.get("target", "A"))), must=must)]
    extras = [tr(lang, f"rules.has_{flag}") for flag in ("chao", "revolution", "knockback") if rules.get(flag)]
    if rules.get("time_limit_minutes"):
        extras.append(tr(lang, "rules.has_time_limit", minutes=rules["time_limit_minutes"]))
    if extras:
        lines.append(" · ".join(extras))
    lines.append(tr(lang, "rules.more", preset=rules.get("name", "classic")))
    return "\n".join(lines)
