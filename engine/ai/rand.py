"""The ``random`` level: uniform among the legal choices, the baseline the others are measured against."""

from __future__ import annotations

import random

from ..actions import SeatAction
from ..cards import NUM_FACES, card_str, cards_str
from .options import action, can_pass, declare_options, play_options
from .seen import Seen


def decide(seen: Seen, rng: random.Random) -> SeatAction:
    ph = seen.phase
    choices: list[SeatAction] = []
    if ph in ("dealing", "declaring", "chao"):
        t = "chao" if ph == "chao" else "declare"
        for d in declare_options(seen, chao=ph == "chao"):
            choices.append(action(t, seen.seat, [card_str(d.face)] * d.count))
        if can_pass(seen) or not choices:
            choices.append(action("pass", seen.seat))
        return rng.choice(choices)
    if ph == "burying":
        cards = [f for f in range(NUM_FACES) for _ in range(seen.hand[f])]
        return action("bury", seen.seat, cards_str(rng.sample(cards, 8)))
    choices = [action("play", seen.seat, cards_str(p)) for p in play_options(seen)]
    if seen.view.get("can_revolt"):
        choices.append(action("revolt", seen.seat))
    return rng.choice(choices)
