"""Platform-neutral drawing: a scene in, `View`s (text plus buttons) out, for the chats.

The text comes from `bot.scene.text`; here the buttons are laid out for the phase: the group's
*My hand* and *Play from here*, a hand's card toggles, bids, pass, bury, play, clear, 革命 and its
pages, the lobby's join, leave, add AI and start. The group's table is drawn from the public
scene only, so it cannot show a hand even by mistake. Each view carries the scene it was drawn
from, for a door that lays it out itself (the terminal).

The few helpers below that take seat infos and engine views (`seat_label`, `trick_text`,
`last_trick_text`, `hand_result_text`, `match_result_text`) draw the same texts for callers that
have no scene (announcements, replays, hints).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.cardtext import card_text, cards_text
from bot.i18n import N_, tr
from bot.intents import codec
from bot.intents import types as it
from bot.intents.types import Drawn
from bot.platform import Button, View
from bot.scene import text as scene_text
from bot.scene.build import board_score, seat_faces, summary_of
from bot.scene.build import card_indices as card_indices
from bot.scene.types import LeagueLine, Played, Result, Scene, Trick
from bot.scene.types import SeatInfo as SeatInfo
from engine.actions import Play, SeatAction
from engine.cards import card_points
from engine.views import HandSummary, MatchEnd, Phase, PublicView, SeatView, TrickPlay

HAND_PAGE_SIZE = 20  # 4 rows of 5: fits Discord's 5x5 with one row of controls
ROW = 5
MAX_BIDS = 10  # declarations or 炒底 bids a hand shows as buttons
SEAT_MARK = scene_text.SEAT_MARK


@dataclass(frozen=True)
class InlineChoice:
    """One answer to an inline query: a legal play the asking player may choose from the group."""

    title: str
    description: str
    token: str
    message: str = ""  # what the chosen result posts in the group as the player's message (else the title)
    # The person `message` names as playing next, and where (characters of `message`): the post
    # mentions them, so their client tells them it is their turn without a message from the bot.
    mention: Mention | None = None


@dataclass(frozen=True)
class Mention:
    """A person named in a text, so that their client notifies them: `text[start:start + length]`."""

    user_id: str
    name: str
    start: int
    length: int


# ----- texts for callers without a scene -----

def seat_label(seat: int, seats: Sequence[SeatInfo | None], lang: str) -> str:
    """"①Alice" (with an AI or away mark)."""
    return scene_text.seat_label(seat_faces(seats)[seat], lang)


def trick_text(trick: Sequence[TrickPlay], seats: Sequence[SeatInfo | None], lang: str) -> str:
    """"①Ann ♠A · ②Bo ♠3": who played what so far."""
    plays = [Played(int(s), tuple(c)) for s, c in trick]
    return scene_text.plays_text(plays, seat_faces(seats), lang)


def last_trick_text(pub: PublicView, seats: Sequence[SeatInfo | None], lang: str) -> str:
    """The last completed trick: who played what, who won it, its points and whether they count."""
    plays = tuple(Played(int(s), tuple(c)) for s, c in pub.get("last_trick") or ())
    winner = pub.get("last_trick_winner")
    faces = seat_faces(seats)
    if winner is None:
        return scene_text.plays_text(plays, faces, lang)
    done = pub.get("tricks") or []
    if done and tuple(Played(int(s), tuple(c)) for s, c in done[-1]["plays"]) == plays:
        points = int(done[-1]["points"])
    else:
        points = sum(card_points(c) for p in plays for c in p.cards)
    declarers = pub.get("declarers")
    counts = points > 0 and not (declarers is not None and int(winner) in declarers)
    return scene_text.trick_text(Trick(plays, int(winner), points, counts), faces, lang)


_MATCH_ENDS: dict[object, MatchEnd] = {"target": "target", "time_limit": "time_limit", "board": "board"}


def hand_result_text(res: HandSummary, seats: Sequence[SeatInfo | None], lang: str, *,
                     next_dealer: int | None = None, board: bool = False) -> str:
    """A finished hand: points, kitty shown, multiplier, who goes up, levels after (and the next dealer);
    a board's hand: its score in place of the winner and levels."""
    return scene_text.summary_text(summary_of(res, next_dealer=next_dealer, board=board), seat_faces(seats), lang)


def match_result_text(result: Mapping[str, object], seats: Sequence[SeatInfo | None], lang: str, *,
                      board: HandSummary | None = None, board_number: int | None = None,
                      league: LeagueLine | None = None) -> str:
    """The end of the match (an engine `MatchResult`, or one read back from a stored row): winners and
    final levels; a part missing or damaged is told as unknown. `board`: the board's one hand, whose
    end names no winner; `league`: the league's line, when the match counted there."""
    levels = result.get("levels")
    pair = (str(levels[0]), str(levels[1])) if isinstance(levels, list) and len(levels) == 2 else ("?", "?")
    team = result.get("winner_team")
    r = Result(team if isinstance(team, int) else 0, pair, _MATCH_ENDS.get(result.get("reason"), "target"),
               board=None if board is None else board_score(board, board_number), league=league)
    return scene_text.result_text(r, seat_faces(seats), lang)


# ----- views -----



def table_view(scene: Scene, *, countdown: bool = True, web: Button | None = None, history: bool = False) -> View:
    """The group table message with its buttons (my hand; play from the group; the web table).
    `history`: every earlier trick of the hand on a line (`scene.text.table_text`)."""
    sc = scene.table
    text = scene_text.table_text(sc, scene.lang, countdown=countdown, history=history)
    row = [Button.press(tr(scene.lang, "btn.my_hand"), Drawn(sc.match_id, sc.version), it.ShowHand())]
    if sc.phase == Phase.PLAYING:
        row.append(Button(tr(scene.lang, "btn.play_here"), "", kind="inline_query"))
    rows = [tuple(row)]
    if web is not None:
        rows.append((web,))
    return View(text, tuple(rows), scene=scene)


def hand_view(scene: Scene, *, version: int, page: int = 0, page_size: int = HAND_PAGE_SIZE,
              web: Button | None = None) -> View:
    """The private hand message: text plus the buttons that fit the phase (and the web table's).

    `version`: the one its buttons carry (kept while the hand's cards and phase hold, so that
    buttons drawn earlier still count)."""
    hand, sc, lang = scene.hand, scene.table, scene.lang
    assert hand is not None, "a hand view draws a seat's hand"
    can, picked, phase = hand.choices, hand.picked, sc.phase

    drawn = Drawn(sc.match_id, version)

    rows: list[tuple[Button, ...]] = []
    if phase in (Phase.DEALING, Phase.DECLARING, Phase.CHAO):
        bids: list[tuple[it.Declare | it.Chao, str]] = [(it.Declare(tuple(c)), N_("btn.declare")) for c in can.declare]
        bids += [(it.Chao(tuple(c)), N_("btn.chao")) for c in can.chao]
        buttons = [Button.press(tr(lang, key, cards=cards_text(bid.cards)), drawn, bid, style="primary")
                   for bid, key in bids[:MAX_BIDS]]
        if can.can_pass:
            buttons.append(Button.press(tr(lang, "btn.pass"), drawn, it.Pass()))
        rows.extend(tuple(buttons[i:i + ROW]) for i in range(0, len(buttons), ROW))
    elif phase in (Phase.BURYING, Phase.PLAYING):
        cards = hand.cards
        pages = max(1, -(-len(cards) // page_size))
        page = min(max(page, 0), pages - 1)
        start = page * page_size
        shown = [Button.press(("✓" if i in picked else "") + card_text(cards[i]), drawn, it.Toggle(i),
                              style="selected" if i in picked else "default")
                 for i in range(start, min(len(cards), start + page_size))]
        rows.extend(tuple(shown[i:i + ROW]) for i in range(0, len(shown), ROW))
        controls: list[Button] = []
        if pages > 1:
            controls.append(Button.press("◀", drawn, it.Page((page - 1) % pages)))
        if phase == Phase.BURYING and can.bury:
            controls.append(Button.press(tr(lang, "btn.bury", n=len(picked)), drawn, it.BurySelection(),
                                   style="primary" if len(picked) == 8 else "default"))
        elif phase == Phase.PLAYING:
            controls.append(Button.press(tr(lang, "btn.play"), drawn, it.PlaySelection(), style="primary"))
        controls.append(Button.press(tr(lang, "btn.clear"), drawn, it.ClearSelection()))
        if can.revolt:
            controls.append(Button.press(tr(lang, "btn.revolt"), drawn, it.Revolt(), style="danger"))
        if pages > 1:
            controls.append(Button.press("▶", drawn, it.Page((page + 1) % pages)))
        rows.append(tuple(controls))
    if web is not None:
        rows.append((web,))
    return View(scene_text.hand_text(scene), tuple(rows), scene=scene)


def hand_on_web_view(scene: Scene, *, version: int, web: Button | None = None) -> View:
    """The private hand of a seat that plays on the web table, folded away: it names no card, so
    the chat is not edited after each play; ↻ shows the cards here again."""
    sc, lang = scene.table, scene.lang
    seat = scene.viewer if scene.viewer is not None else 0
    text = tr(lang, "hand.on_web", seat=scene_text.seat_label(sc.seats[seat], lang))
    refresh = Button.press(tr(lang, "btn.refresh"), Drawn(sc.match_id, version), it.ShowHand())
    return View(text, ((refresh,) + ((web,) if web is not None else ()),))


def hand_elsewhere_view(scene: Scene, *, version: int, page: int = 0) -> View:
    """The private hand of a seat that plays from the group (inline mode), folded away: it names
    no card, so it need not be redrawn after each play; ↻ shows the cards again."""
    sc, lang = scene.table, scene.lang
    seat = scene.viewer if scene.viewer is not None else 0
    text = tr(lang, "hand.elsewhere", seat=scene_text.seat_label(sc.seats[seat], lang), hand=sc.hand_no or 1)
    refresh = Button.press(tr(lang, "btn.refresh"), Drawn(sc.match_id, version), it.Page(page))
    return View(text, ((refresh,),))


def lobby_view(scene: Scene, *, join_url: str | None = None, started: str | None = None) -> View:
    """The lobby message: who sits where, and Join / Leave / Add AI / Start. `started`: the line it
    ends with once the match began, without its buttons (pressed then, they would only be refused)."""
    sc, lang = scene.table, scene.lang
    lobby = sc.lobby
    lines = [tr(lang, "lobby.title", preset=sc.preset, creator=lobby.creator if lobby else "?")]
    if lobby is not None and lobby.options:
        lines.append(tr(lang, "lobby.options", options=lobby.options))
    for face in sc.seats:
        lines.append(f"{scene_text.seat_label(face, lang)} {scene_text.team_text(face.team, lang)}")
    filled = sum(1 for f in sc.seats if f.taken)
    if started is not None:
        return View("\n".join([*lines, started]), (), scene=scene)
    lines.append(tr(lang, "lobby.hint", n=filled))

    drawn = Drawn(sc.match_id, 0)

    join = (Button(tr(lang, "btn.join"), join_url, kind="url", style="primary") if join_url
            else Button.press(tr(lang, "btn.join"), drawn, it.LobbyJoin(), style="primary"))
    row1 = (join,
            Button.press(tr(lang, "btn.leave"), drawn, it.LobbyLeave()))
    row2 = (Button.press(tr(lang, "btn.addbot"), drawn, it.LobbyAddBot()),
            Button.press(tr(lang, "btn.start"), drawn, it.LobbyStart(), style="primary" if filled == 4 else "default"))
    return View("\n".join(lines), (row1, row2), scene=scene)


def play_choices(v: SeatView, legal: Sequence[SeatAction], lang: str, *, match_id: int,
                 version: int, limit: int = 50, seats: Sequence[SeatInfo | None] = (),
                 group_lang: str | None = None, people: Sequence[str | None] = (),
                 takes: Callable[[Play], int | None] | None = None) -> list[InlineChoice]:
    """The seat's legal plays as inline choices (its own cards only; shown to that person alone).

    With `seats`, each choice also says what its message in the group will read once chosen:
    who plays what and, while the trick goes on, who plays next (the group's table message is
    then only redrawn when the trick is complete), or, for a play that completes it, who takes it
    (`takes`: the engine's answer for that play). With `people` (each seat's user id, None for an
    AI), the person who plays or leads next is mentioned, which tells them it is their turn
    (`names_next`); not the player themselves, nor anyone after the hand's last trick.
    """
    hand = list(v.get("hand") or [])
    seat = int(v["seat"])
    glang = group_lang or lang
    after = None
    nxt = (seat + 1) % 4
    if seats and names_next(v):  # this play leaves the trick open: the next seat plays
        after = seat_label(nxt, seats, glang)
    person = people[nxt] if after and nxt < len(people) else None
    out: list[InlineChoice] = []
    for a in legal:
        if not isinstance(a, Play):
            continue
        idx = card_indices(hand, list(a.cards))
        if idx is None or len(idx) > 40:
            continue
        message, mention = "", None
        if seats:
            who, cards = seat_label(seat, seats, glang), cards_text(list(a.cards))
            taker = takes(a) if takes is not None and not after else None
            named, to = after, person
            if after:
                message = tr(glang, "inline.posted_next", who=who, cards=cards, next=after)
            elif taker is not None:
                named = seat_label(taker, seats, glang)
                message = tr(glang, "inline.posted_takes", who=who, cards=cards, winner=named)
                last = len(a.cards) >= len(hand)  # the hand's last trick: nobody leads after it
                to = people[taker] if taker != seat and not last and taker < len(people) else None
            else:
                message = tr(glang, "inline.posted", who=who, cards=cards)
            at = message.rfind(named) if named and to else -1
            if named and to and at >= 0:
                mention = Mention(to, named, at, len(named))
        out.append(InlineChoice(cards_text(list(a.cards)), tr(lang, "inline.play", n=len(idx)),
                                codec.pack(Drawn(match_id, version), it.PlayCards(a.cards)), message, mention))
        if len(out) >= limit:
            break
    return out


def names_next(v: SeatView | PublicView) -> bool:
    """Whether a play made now leaves the trick open, so that its message in the group names (and
    mentions) who plays next: true before the trick's fourth play (which names who takes it)."""
    return len(v.get("trick") or []) < 3


def rules_summary(rules: Mapping[str, object], lang: str) -> str:
    """A preset in a few lines a player cares about (from `Rules.to_dict`); `rules <preset> all` lists
    every setting."""
    must_play = rules.get("must_play")
    must = ", ".join(scene_text.rank_text(str(r)) for r in (must_play if isinstance(must_play, list) else [])) or "-"
    lines = [tr(lang, "rules.title", preset=rules.get("name", "?")),
             tr(lang, "rules.levels", start=scene_text.rank_text(str(rules.get("start_level", "2"))),
                target=scene_text.rank_text(str(rules.get("target", "A"))), must=must)]
    extras = [tr(lang, f"rules.has_{flag}") for flag in ("chao", "revolution", "knockback") if rules.get(flag)]
    if rules.get("time_limit_minutes"):
        extras.append(tr(lang, "rules.has_time_limit", minutes=rules["time_limit_minutes"]))
    if extras:
        lines.append(" · ".join(extras))
    lines.append(tr(lang, "rules.more", preset=rules.get("name", "classic")))
    return "\n".join(lines)
