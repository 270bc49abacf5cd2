"""What each seat's hand buttons were drawn for, kept in the store so it outlives the process.

A press carries the state version its buttons were drawn at, and its card indices point into the
cards shown then. A hand whose cards and phase have not changed is not drawn with a new version, so
its older buttons keep counting. If that knowledge lived only in memory, a restart would make every
hand message drawn before it "out of date" although nothing in it changed, and the first press
after it would be thrown away (Discord's and Telegram's finding: a click lost to a restart). So the
version, the phase and the cards of each seat's drawn hand, and the cards the person has picked so
far, are written to the store (one row a seat) before the message goes out, and read back when the
table is resumed: a restarted table refuses exactly the buttons it refused before, and no more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

META_KEY = "drawn"

#: A drawn hand as the store keeps it (one seat's row): version, phase, cards, picked indices.
StoredHand = dict[str, int | str | list[str] | list[int]]


@dataclass
class DrawnHand:
    """One seat's hand as its buttons were drawn: at which version, in which phase, which cards."""

    version: int
    phase: str
    cards: tuple[str, ...]
    picked: set[int] = field(default_factory=set)  # indices into `cards` the person has selected

    def to_json(self) -> StoredHand:
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
    """The four seats' drawn hands and the selections made on them, one stored row a seat.

    A tap changes one seat's picks and writes that seat's row only (`Store.set_picks`), never the
    match's meta. Matches stored before keep theirs in the meta's `drawn`; it is read for a seat
    that has no row of its own yet."""

    def __init__(self, picks: Mapping[int, object] | None = None, meta: Mapping[str, object] | None = None) -> None:
        self.hands: dict[int, DrawnHand] = {}
        # Each seat's picked cards; the same set objects as the drawn hands' `picked` once drawn.
        self.selection: dict[int, set[int]] = {s: set() for s in range(4)}
        legacy = (meta or {}).get(META_KEY)
        stored: dict[int, object] = {}
        if isinstance(legacy, dict):
            stored.update({int(k): v for k, v in legacy.items() if k in ("0", "1", "2", "3")})
        stored.update({s: v for s, v in (picks or {}).items() if s in range(4)})
        for s, raw in stored.items():
            hand = DrawnHand.from_json(raw)
            if hand is not None:
                self.hands[s] = hand
                self.selection[s] = hand.picked
        self._saved = {s: self._as_json(s) for s in range(4)}

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

    def same(self, s: int, phase: str, cards: tuple[str, ...]) -> bool:
        """Whether seat s's hand was last drawn in this phase with these very cards."""
        hand = self.hands.get(s)
        return hand is not None and hand.phase == phase and hand.cards == cards

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

    def changed(self) -> list[tuple[int, StoredHand | None]]:
        """The seats whose drawn hand or picks changed since last asked, with what to store for each
        (None: nothing drawn); the caller writes each seat's row."""
        out: list[tuple[int, StoredHand | None]] = []
        for s in range(4):
            now = self._as_json(s)
            if now != self._saved[s]:
                self._saved[s] = now
                out.append((s, now))
        return out

    def _as_json(self, s: int) -> StoredHand | None:
        hand = self.hands.get(s)
        if hand is None:
            return None
        hand.picked = self.selection[s]
        return hand.to_json()
