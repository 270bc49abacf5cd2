"""A seat's legal plays as one-press choices, for platforms that show them as a menu (Discord).

Picking cards one by one and then pressing Play costs four clicks for a single card on Discord; a
menu of the legal plays, where choosing one plays it, costs two (open, choose), and a button per
play when there are few costs one. The list is the engine's legal plays (every single, pair and
tractor one may lead, every legal follow), each set of cards once, labelled by its cards, trumps
first, then each suit in the hand's order, larger combinations before smaller; the AI's suggestion
(which may be a throw) comes first, marked ★. Plays the menu cannot hold (more than `LIMIT`, say
a void follow of a long lead) are still made by picking cards.
"""

from __future__ import annotations

from itertools import islice

from bot.cardtext import cards_text
from bot.intents.types import Drawn, PlayCards
from bot.platform import Button
from bot.views import card_indices
from engine import Match
from engine.actions import Play
from engine.cards import is_trump_card
from engine.views import Phase, SeatView

LIMIT = 50  # two select menus of 25
SCAN = 600  # legal plays looked at, at most (a follow can have over a thousand)
STAR = "★ "


def quick_choices(m: Match, s: int, v: SeatView, lang: str, *, match_id: int, version: int) -> tuple[Button, ...]:
    """The legal plays of seat s, when it is the one to play, as PLAY_CARDS buttons; else none."""
    if v.get("phase") != Phase.PLAYING or list(m.to_act()) != [s]:
        return ()
    hand = list(v.get("hand") or [])
    level, trump = v.get("level"), v.get("trump")
    group: dict[str, int] = {}
    for c in hand:
        group.setdefault("T" if is_trump_card(c, level, trump) else c[1], len(group))
    trumps_first = {k: (0 if k == "T" else 1, n) for k, n in group.items()}

    def key(idx: list[int]) -> tuple[int, int, int, int]:
        first = hand[min(idx)]
        g = trumps_first.get("T" if is_trump_card(first, level, trump) else first[1], (2, 0))
        return g[0], g[1], -len(idx), min(idx)

    seen: set[tuple[str, ...]] = set()
    plays: list[list[int]] = []
    suggestion = m.auto_action(s, rng_seed=m.version)
    star: list[int] | None = None
    if isinstance(suggestion, Play):
        star = card_indices(hand, list(suggestion.cards))
        if star is not None:
            seen.add(tuple(sorted(suggestion.cards)))
    for a in islice(m.legal_actions(s), SCAN):
        if not isinstance(a, Play):
            continue
        cards = tuple(sorted(a.cards))
        if cards in seen:
            continue
        seen.add(cards)
        idx = card_indices(hand, list(a.cards))
        if idx is not None and len(idx) <= 40:
            plays.append(idx)
    plays.sort(key=key)
    if star is not None:
        plays.insert(0, star)

    def button(idx: list[int], mark: str = "") -> Button:
        label = mark + cards_text([hand[i] for i in sorted(idx, key=lambda i: i)])
        act = PlayCards(tuple(hand[i] for i in idx))
        return Button.press(label, Drawn(match_id, version), act, style="primary")

    out = [button(idx, STAR if n == 0 and star is not None else "") for n, idx in enumerate(plays[:LIMIT])]
    return tuple(out)
