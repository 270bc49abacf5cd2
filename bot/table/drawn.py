"""What each seat's hand buttons were drawn for, kept in the match's meta so it outlives the process.

A press carries the state version its buttons were drawn at, and its card indices point into the
cards shown then. A hand whose cards and phase have not changed is not drawn with a new version, so
its older buttons keep counting. If that knowledge lived only in memory, a restart would make every
hand message drawn before it "out of date" although nothing in it changed, and the first press
after it would be thrown away (Discord's and Telegram's finding: a click lost to a restart). So the
version, the phase and the cards of each seat's drawn hand, and the cards the person has picked so
far, are written to the match's meta (`drawn`) before the message goes out, and read back when the
table is resumed: a restarted table refuses exactly the buttons it refused before, and no more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

META_KEY = "drawn"


@dataclass
class DrawnHand:
    """One seat's hand as its buttons were drawn: at which version, in which phase, which cards."""

    version: int
    phase: str
    cards: tuple[str, ...]
    picked: set[int] = field(default_factory=set)  # indices into `cards` the person has selected

    def to_json(self) -> dict[str, Any]:
        return {"v": self.version, "phase": self.phase, "cards": list(self.cards), "picked": sorted(self.picked)}

    @classmethod
    def from_json(cls, raw: object) -> DrawnHand | None:
        """None for anything that is not a drawn hand we wrote (old or damaged meta is ignored)."""
        if not isinstance(raw, dict):
            return None
        version, phase, cards = raw.get("v"), raw.get("phase"), raw.get("cards")
        if not (isinstance(version, int) and version >= 0 and isinstance(phase, str) and isinstance(cards, list)
                and all(isinstance(c, str) for c in cards)):
            return None
        picked = raw.get("picked")
        chosen = {i for i in picked if isinstance(i, int) and 0 <= i < len(cards)} if isinstance(picked, list) else set()
        return cls(version, phase, tuple(cards), chosen)


class DrawnHands:
    """The four seats' drawn hands, and the selections made on them, mirrored into `meta`."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta
        self.hands: dict[int, DrawnHand] = {}
        # Each seat's picked cards; the same set objects as the drawn hands' `picked` once drawn.
        self.selection: dict[int, set[int]] = {s: set() for s in range(4)}
        stored = meta.get(META_KEY)
        if isinstance(stored, dict):
            for key, raw in stored.items():
                hand = DrawnHand.from_json(raw)
                if hand is not None and key in ("0", "1", "2", "3"):
                    self.hands[int(key)] = hand
                    self.selection[int(key)] = hand.picked
        self._saved = self._as_json()

    def version(self, s: int) -> int:
        """The oldest version whose buttons still index into seat s's drawn hand (0: none drawn)."""
        hand = self.hands.get(s)
        return hand.version if hand is not None else 0

    def version_for(self, s: int, phase: str, cards: tuple[str, ...], now: int) -> int:
        """The version to draw seat s's hand with: the one its buttons already carry while its phase
        and cards are unchanged, else the match's version now."""
        hand = self.hands.get(s)
        if hand is not None and hand.phase == phase and hand.cards == cards:
            return hand.version
        return now

    def draw(self, s: int, version: int, phase: str, cards: tuple[str, ...]) -> None:
        """Seat s's buttons are (about to be) drawn at `version` for these cards."""
        hand = self.hands.get(s)
        if hand is not None and (hand.version, hand.phase, hand.cards) == (version, phase, cards):
            return
        picked = self.selection[s]
        if hand is not None and hand.cards != cards:
            picked.intersection_update(range(len(cards)))
        self.hands[s] = DrawnHand(version, phase, cards, picked)

    def cards(self, s: int) -> tuple[str, ...] | None:
        """The cards seat s's buttons index into, None when no hand was drawn for it."""
        hand = self.hands.get(s)
        return hand.cards if hand is not None else None

    def store_in_meta(self) -> bool:
        """Writes the drawn hands into the meta; True when that changed it (the caller saves it)."""
        now = self._as_json()
        if now == self._saved:
            return False
        self.meta[META_KEY] = now
        self._saved = now
        return True

    def _as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for s, hand in sorted(self.hands.items()):
            hand.picked = self.selection[s]
            out[str(s)] = hand.to_json()
        return out
