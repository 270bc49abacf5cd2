"""A scene in words: the group's table, a seat's hand, the end of a hand and of the match.

Every text is drawn from a scene and nothing else, in the reader's language, with cards as the
chats show them (`♠A`, `bot.cardtext`). The chats send these texts as they are; the terminal lays
out the same lines (and words a few of them its own way, `words`); the web page draws the same
scene with its own layout and the same catalogs.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.cardtext import card_text, cards_text, suit_text
from bot.i18n import N_, tr
from bot.scene.types import (
    BoardScore,
    LeagueLine,
    Played,
    Result,
    Scene,
    SeatFace,
    Summary,
    TableScene,
    Trick,
    Trump,
    Won,
)
from engine.views import Phase

SEAT_MARK = ("①", "②", "③", "④")
#: Deadlines longer than this are no deadline worth showing (a terminal's "no limit").
NO_LIMIT = 86_400


def seat_label(face: SeatFace, lang: str) -> str:
    """"①Alice" (with an AI or away mark); "③(empty)" for an empty seat."""
    if not face.taken:
        return SEAT_MARK[face.seat] + tr(lang, "seat.empty")
    mark = tr(lang, "seat.ai_mark") if face.is_ai else tr(lang, "seat.away_mark") if face.away else ""
    return f"{SEAT_MARK[face.seat]}{face.name}{mark}"


def rank_text(level: str | None) -> str:
    if level is None:
        return "?"
    return "10" if level == "T" else str(level)


def team_text(team: int, lang: str) -> str:
    return tr(lang, N_("team.0") if team == 0 else N_("team.1"))


def trump_text(trump: Trump, lang: str) -> str:
    """The trump alone: "♠", "no trump", "not yet declared"."""
    if trump.suit is None:
        return tr(lang, "table.trump_undecided")
    return tr(lang, "table.no_trump") if trump.suit == "NT" else suit_text(trump.suit)


def trump_line(sc: TableScene, lang: str) -> str:
    trump = sc.trump
    decl = trump.declared
    if decl is not None:
        who = seat_label(sc.seats[decl.seat], lang)
        if not trump.final:
            # while the cards arrive the declaration leads but is not final: say so, not "not yet declared"
            lead = tr(lang, "table.no_trump") if decl.suit == "NT" else suit_text(decl.suit)
            return tr(lang, "table.trump_so_far", trump=lead, who=who, cards=cards_text(decl.cards))
        return tr(lang, "table.trump_declared", trump=trump_text(trump, lang), who=who, cards=cards_text(decl.cards))
    return tr(lang, "table.trump", trump=trump_text(trump, lang))


def plays_text(plays: Sequence[Played], seats: Sequence[SeatFace], lang: str) -> str:
    """"①Ann ♠A · ②Bo ♠3": who played what so far."""
    return " · ".join(f"{seat_label(seats[p.seat], lang)} {cards_text(p.cards)}" for p in plays)


def trick_text(trick: Trick, seats: Sequence[SeatFace], lang: str) -> str:
    """A completed trick: who played what, who won it, its points and whether they count.

    Points count only when the defenders win the trick; the declarers winning keeps them off the
    defenders' total, and the line says so."""
    who = seat_label(seats[trick.winner], lang)
    if trick.points <= 0:
        won = tr(lang, "table.trick_won", who=who)
    elif not trick.counts:
        won = tr(lang, "table.trick_won_kept", who=who, points=trick.points)
    else:
        won = tr(lang, "table.trick_won_counts", who=who, points=trick.points)
    return f"{plays_text(trick.plays, seats, lang)} {won}"


def waiting_line(sc: TableScene, lang: str, *, countdown: bool = True) -> str:
    """"Waiting for ②Bob · 21s left"; "" when the table waits for nobody."""
    if sc.paused:
        return tr(lang, "table.paused")
    if not sc.turn.seats:
        return ""
    who = ", ".join(seat_label(sc.seats[s], lang) for s in sc.turn.seats)
    clock = sc.turn.clock
    if countdown and clock is not None and clock.seconds < NO_LIMIT:
        return tr(lang, "table.turn_timed", who=who, seconds=max(0, round(clock.seconds)))
    return tr(lang, "table.turn", who=who)


def table_text(sc: TableScene, lang: str, *, countdown: bool = True, history: bool = False) -> str:
    """The group's table. `countdown`: write the seconds left (not where the platform counts down).
    `history`: a line with every earlier trick of the hand, its winner and the points it gave the
    defenders, for a table message that is not drawn after every trick (a newer edit replaces one
    the group never saw, and the tricks it showed would be lost)."""
    lines = [tr(lang, "table.title", preset=sc.preset, hand=sc.hand_no or 1)]
    for face in sc.seats:
        bits = [seat_label(face, lang), team_text(face.team, lang)]
        if face.dealer:
            bits.append(tr(lang, "table.dealer"))
        if face.cards is not None:
            bits.append(tr(lang, "table.cards_left", n=face.cards))
        lines.append(" ".join(bits))
    if sc.board:
        lines.append(tr(lang, "table.board_level", level=rank_text(sc.level)))
    else:
        lines.append(tr(lang, "table.levels", a=rank_text(sc.levels[0]), b=rank_text(sc.levels[1]),
                        level=rank_text(sc.level)))
    lines.append(trump_line(sc, lang))
    phase = sc.phase or ""
    said = N_("phase.board_over") if sc.board and phase == Phase.MATCH_OVER else f"phase.{phase}"
    lines.append(tr(lang, "table.phase", phase=tr(lang, said)))
    if phase in (Phase.PLAYING, Phase.HAND_OVER, Phase.MATCH_OVER) or sc.tricks_played:
        if sc.defenders is not None:
            lines.append(tr(lang, "table.points_team", team=team_text(sc.defenders, lang), points=sc.defender_points))
        else:
            lines.append(tr(lang, "table.points", points=sc.defender_points))
    if history and len(sc.won) > 1:
        lines.append(tr(lang, "table.tricks", tricks=tricks_line(sc.won[:-1])))
    if sc.last_trick is not None:  # always on the table: a trick someone else won is seen too
        lines.append(tr(lang, "table.last_trick", trick=trick_text(sc.last_trick, sc.seats, lang)))
    if sc.trick:
        lines.append(tr(lang, "table.trick", trick=plays_text(sc.trick, sc.seats, lang)))
        if len(sc.trick) > 1 and sc.winning is not None:  # alone on the table, the lead wins: nothing to say
            lines.append(tr(lang, "table.winning", who=seat_label(sc.seats[sc.winning], lang)))
    waiting = waiting_line(sc, lang, countdown=countdown)
    if waiting:
        lines.append(waiting)
    return "\n".join(lines)


def tricks_line(tricks: Sequence[Won]) -> str:
    """"1③ · 2①+10 · 3②": each trick's number, its winner, and the points it gave the defenders."""
    return " · ".join(f"{n}{SEAT_MARK[t.winner]}" + (f"+{t.points}" if t.counts else "")
                      for n, t in enumerate(tricks, 1))


def hand_groups(scene: Scene) -> list[tuple[str, list[int]]]:
    """The hand's cards by group, trumps first, then each suit as the hand orders them: (key, indices)."""
    hand = scene.hand
    if hand is None:
        return []
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(hand.suits):
        groups.setdefault(key, []).append(i)
    return sorted(groups.items(), key=lambda kv: kv[0] != "T")


def hand_lines(scene: Scene, lang: str) -> list[str]:
    """"Trumps (5): 大王 [♠A] …", then a line per suit; picked cards in brackets."""
    hand = scene.hand
    if hand is None:
        return []
    out = []
    for key, idx in hand_groups(scene):
        name = tr(lang, "hand.trumps") if key == "T" else suit_text(key)
        shown = [f"[{card_text(hand.cards[i])}]" if i in hand.picked else card_text(hand.cards[i]) for i in idx]
        out.append(f"{name} ({len(idx)}): {' '.join(shown)}")
    return out


def hand_trump(sc: TableScene, lang: str) -> str:
    """The trump on a hand's second line: decided, "♠ so far" while dealing, or not yet."""
    trump = sc.trump
    if trump.final or trump.declared is None:
        return trump_text(trump, lang)
    lead = tr(lang, "table.no_trump") if trump.declared.suit == "NT" else suit_text(trump.declared.suit)
    return tr(lang, "hand.trump_so_far", trump=lead)


def prompt_key(scene: Scene) -> str | None:
    """What the seat is asked to do now, as a word: declare, bury, chao, play (None: nothing)."""
    hand, phase = scene.hand, scene.table.phase
    if hand is None:
        return None
    if phase in (Phase.DEALING, Phase.DECLARING):
        return "declare"
    if phase == Phase.BURYING and hand.choices.bury:
        return "bury"
    if phase == Phase.CHAO and (hand.choices.can_pass or hand.choices.chao):
        return "chao"
    if phase == Phase.PLAYING:
        return "play"
    return None


#: The chats' prompts (buttons to press); the terminal has its own (words to type).
CHAT_PROMPTS = {"declare": N_("hand.prompt_declare"), "bury": N_("hand.prompt_bury"), "chao": N_("hand.prompt_chao"),
                "play": N_("hand.prompt_play")}


def hand_text(scene: Scene, *, prompts: dict[str, str] = CHAT_PROMPTS) -> str:
    """A seat's private hand: its cards by group, the kitty while it buries, what is picked, what to do.

    Nothing here depends on whose turn it is or on the trick: the group's table shows both, and a
    hand message is edited only when its own cards, selection or buttons change (each edit counts
    against the bot's message limits)."""
    hand, sc, lang = scene.hand, scene.table, scene.lang
    assert hand is not None, "a hand scene draws a seat's hand"
    lines = [tr(lang, "hand.title", seat=seat_label(sc.seats[hand.seat], lang), n=len(hand.cards), hand=sc.hand_no or 1),
             tr(lang, "hand.level_trump", level=rank_text(sc.level), trump=hand_trump(sc, lang))]
    lines.extend(hand_lines(scene, lang))
    if hand.kitty:
        lines.append(tr(lang, "hand.kitty", cards=cards_text(hand.kitty)))
    if hand.picked:
        picked = [hand.cards[i] for i in sorted(hand.picked)]
        lines.append(tr(lang, "hand.selected", cards=cards_text(picked), n=len(picked)))
    key = prompt_key(scene)
    if key is not None and key in prompts:
        lines.append(tr(lang, prompts[key]))
    if scene.refusal:
        lines.append(tr(lang, scene.refusal))
    return "\n".join(lines)


def summary_lines(s: Summary, seats: Sequence[SeatFace], lang: str) -> list[str]:
    """A finished hand: the defenders' points, the kitty and its multiplier, who goes up, the levels
    after, who deals next."""
    lines = [tr(lang, "result.hand_title", hand=s.hand_no or "?")]
    if s.reason != "played":
        lines.append(tr(lang, f"reason.{s.reason}"))
    lines.append(tr(lang, "result.points", points=s.defender_points))
    if s.kitty:
        key = N_("result.kitty_won") if s.kitty_multiplier > 0 else N_("result.kitty")
        lines.append(tr(lang, key, cards=cards_text(s.kitty), points=s.kitty_points, mult=s.kitty_multiplier))
    if s.penalties:
        lines.append(tr(lang, "result.penalty", points=s.penalties))
    if s.winner is not None and s.side is not None:
        if not s.levels_up:  # a side that only wins the deal does not "go up 0"
            key = N_("result.declarers_hold") if s.side == "declarers" else N_("result.defenders_take_over")
        else:
            key = N_("result.declarers_win") if s.side == "declarers" else N_("result.defenders_win")
        lines.append(tr(lang, key, team=team_text(s.winner, lang), n=s.levels_up))
    if s.knocked_to:
        lines.append(tr(lang, "result.knocked", level=rank_text(s.knocked_to)))
    if s.levels_after:
        lines.append(tr(lang, "result.levels", a=rank_text(s.levels_after[0]), b=rank_text(s.levels_after[1])))
    if s.next_dealer is not None and s.next_dealer < len(seats):
        lines.append(tr(lang, "result.next_dealer", who=seat_label(seats[s.next_dealer], lang)))
    return lines


def summary_text(s: Summary, seats: Sequence[SeatFace], lang: str) -> str:
    return "\n".join(summary_lines(s, seats, lang))


def side_text(team: int, seats: Sequence[SeatFace], lang: str) -> str:
    """A team as the table shows it: "Team A (①Ann, ③Bo)"."""
    members = ", ".join(seat_label(f, lang) for f in seats if f.team == team)
    return tr(lang, "result.side", team=team_text(team, lang), who=members)


def board_score_text(b: BoardScore, seats: Sequence[SeatFace], lang: str) -> str:
    """A board's hand: who declared and what the declarers score (002's 光头 rule included)."""
    return tr(lang, "result.board_score", side=side_text(b.declarers, seats, lang), score=f"{b.score:+d}")


def result_text(r: Result, seats: Sequence[SeatFace], lang: str) -> str:
    """The end of the match: the winners and the final levels."""
    return "\n".join(result_lines(r, seats, lang, series=False))


def result_lines(r: Result, seats: Sequence[SeatFace], lang: str, *, series: bool = True) -> list[str]:
    """The end of the match as the group is told it: a board's score (a board has no winner at its
    own table), else the winners, the final levels and why, then (`series`) a best of three's count,
    which the chats say in a message of their own as the next game opens."""
    b = r.board
    if b is not None:
        return [tr(lang, "board.table_done", n=b.number if b.number is not None else "?",
                   side=side_text(b.declarers, seats, lang), points=b.points, score=f"{b.score:+d}")]
    if r.winner is None:  # abandoned by vote: where it stood, nobody won
        st = r.stopped
        lines = [tr(lang, "result.abandoned", hand=st.hand_no if st is not None else "?"),
                 tr(lang, "result.levels", a=rank_text(r.levels[0]), b=rank_text(r.levels[1]))]
        if st is not None and st.defenders is not None:
            lines.append(tr(lang, "table.points_team", team=team_text(st.defenders, lang), points=st.points))
        return lines
    if r.reason == "forfeit":  # as the group was told it, with the levels as they stood
        return [tr(lang, "result.match_title"),
                tr(lang, "forfeit.done", team=team_text(1 - r.winner, lang), winner=team_text(r.winner, lang)),
                tr(lang, "result.levels", a=rank_text(r.levels[0]), b=rank_text(r.levels[1]))]
    members = [seat_label(f, lang) for f in seats if f.team == r.winner]
    lines = [tr(lang, "result.match_title"),
             tr(lang, "result.match_winner", team=team_text(r.winner, lang), who=", ".join(members)),
             tr(lang, "result.levels", a=rank_text(r.levels[0]), b=rank_text(r.levels[1]))]
    if r.reason == "target":  # the winner's level reads the final one: say they won it there
        lines.append(tr(lang, "result.final_level", team=team_text(r.winner, lang),
                        level=rank_text(r.levels[r.winner])))
    else:
        lines.append(tr(lang, "result.reason", reason=tr(lang, f"reason.{r.reason}")))
    x = r.series
    if series and x is not None:
        names = {f"team{t}": team_text(t, lang) for t in (0, 1)}
        lines.append(tr(lang, "series.over", team=team_text(r.winner, lang), w0=x.wins[0], w1=x.wins[1]) if x.over
                     else tr(lang, "series.next", game=sum(x.wins) + 1, w0=x.wins[0], w1=x.wins[1], **names))
    if r.league is not None:
        lines.append(league_text(r.league, lang))
    return lines


def league_text(line: LeagueLine, lang: str) -> str:
    """The league's line at a match's end: "League, season 2: Ann 1st (3–1) · Bo 2nd (2–2)"."""
    places = " · ".join(tr(lang, "result.league_place", name=p.name, place=p.place, wins=p.wins, losses=p.losses)
                        for p in line.places)
    return tr(lang, "result.league", season=line.season, places=places)
