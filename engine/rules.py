"""Rules as data: one frozen configuration, five presets from the documents.

Every field can be overridden on its own (``preset("classic", target="5")``).
docs/rules.md says which document and section each preset value comes from.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import RANKS, parse_rank

LevelTable = Literal["classic", "competition", "chaodipi", "super"]
KittyScheme = Literal["flat2", "power2", "pairs4", "pair4"]
ThrowPenalty = Literal["none", "per_card_thrown", "per_card_failed", "per_throw"]
PairVsPair = Literal["none", "jokers", "any", "ladder"]
NoDeclaration = Literal["flip_kitty_level", "forced_dealer", "flip_kitty_largest", "third_kitty_card"]
TimeLimitMode = Literal["higher_level", "both_to_ace"]

RANK_FIELDS = ("start_level", "target")


@dataclass(frozen=True)
class Rules:
    name: str = "classic"
    # -- the match --
    start_level: int = 0  # both sides start at 2
    target: int | None = 8  # pass this level to win; None: levels wrap, no end
    must_play: tuple[int, ...] = (0, 8)  # 必打: a side stops here until it wins a hand as dealer
    level_table: LevelTable = "classic"
    kitty_scheme: KittyScheme = "flat2"
    throw_penalty: ThrowPenalty = "none"
    throw_penalty_points: int = 10
    knockback: bool = False  # 003: dug with J while playing J -> 2; A -> J (single) or 2 (pair)
    dealer_on_hold: Literal["same", "partner"] = "same"
    dealer_on_loss: Literal["next"] = "next"
    time_limit_minutes: int | None = None
    time_limit_mode: TimeLimitMode = "higher_level"
    # -- tractors --
    bridge_level_gap: bool = True
    joker_pair_chain: bool = True  # 大王对 + 小王对
    small_joker_level_chain: bool = True  # 小王对 + 主级对
    level_offlevel_chain: bool = True  # 主级对 + 副级对
    offlevel_ace_chain: bool = True  # 副级对 + 主花A对
    nt_joker_level_chain: bool = True  # no trump: 小王对 + 级牌对
    wrap_ace_two: bool = False  # AA22
    hollow_pairs: bool = False  # 5533 off-suit
    # -- declaring trump --
    declare_single: bool = True
    self_reinforce: bool = True
    partner_override: bool = True  # 自反
    opponent_override: bool = True  # 反主
    self_override: bool = False
    joker_override: bool = False  # a joker pair overrides and makes no trump
    first_hand_joker_override: bool = True  # 003: "常主不可以反主" while the first hand's dealer is open
    pair_vs_pair: PairVsPair = "none"
    first_hand_dealer: Literal["first", "last"] = "first"
    no_declaration: NoDeclaration = "flip_kitty_level"
    chao: bool = False  # 炒底 after the bury, in hands after the first
    # -- revolution (革命 / 炸分) --
    revolution: bool = True
    revolution_max_points: int = 15
    # -- a board (document 002): "<dealer>/<level>/<trump or bid>", see engine/boards.py; "" for a match --
    board: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        # Every seat view carries the rules, so this runs for each view drawn: worked out once per
        # (frozen) Rules, then copied (dataclasses.asdict was a tenth of the bot's time under load).
        cached: dict[str, Any] | None = self.__dict__.get("_as_dict")
        if cached is None:
            cached = dataclasses.asdict(self)
            cached["start_level"] = RANKS[self.start_level]
            cached["target"] = None if self.target is None else RANKS[self.target]
            cached["must_play"] = [RANKS[r] for r in self.must_play]
            cached.pop("extra")
            if not self.board:
                cached.pop("board")  # a match's rules read as they did before boards existed
            object.__setattr__(self, "_as_dict", cached)
        return {**cached, "must_play": list(cached["must_play"])}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        base = PRESETS.get(str(data.get("name", "classic")), PRESETS["classic"])
        return with_overrides(base, {k: v for k, v in data.items() if k != "extra"})


class RulesError(ValueError):
    """An unknown preset or an option value that does not fit."""


def _coerce(name: str, value: Any, current: Any) -> Any:
    if name in RANK_FIELDS:
        if value is None or value in ("none", "None"):
            return None
        return value if isinstance(value, int) else parse_rank(str(value))
    if name == "must_play":
        if isinstance(value, str):
            value = [v for v in value.replace("+", ",").split(",") if v]
        return tuple(sorted(v if isinstance(v, int) else parse_rank(str(v)) for v in value))
    if isinstance(current, bool):
        if isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise RulesError(f"{name} takes yes or no, not {value!r}")
        return bool(value)
    if isinstance(current, int) or (name == "time_limit_minutes"):
        if value is None or value in ("none", "None"):
            return None
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise RulesError(f"{name} takes a number, not {value!r}") from exc
    return value


_CHOICES: dict[str, tuple[str, ...]] = {
    "level_table": ("classic", "competition", "chaodipi", "super"),
    "kitty_scheme": ("flat2", "power2", "pairs4", "pair4"),
    "throw_penalty": ("none", "per_card_thrown", "per_card_failed", "per_throw"),
    "pair_vs_pair": ("none", "jokers", "any", "ladder"),
    "first_hand_dealer": ("first", "last"),
    "no_declaration": ("flip_kitty_level", "forced_dealer", "flip_kitty_largest", "third_kitty_card"),
    "dealer_on_hold": ("same", "partner"),
    "dealer_on_loss": ("next",),
    "time_limit_mode": ("higher_level", "both_to_ace"),
}


def with_overrides(base: Rules, overrides: dict[str, Any]) -> Rules:
    names = {f.name: f for f in dataclasses.fields(Rules)}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in names or key == "extra":
            raise RulesError(f"unknown rules option {key!r}")
        v = _coerce(key, value, getattr(base, key))
        if key in _CHOICES and v not in _CHOICES[key]:
            raise RulesError(f"{key} must be one of {', '.join(_CHOICES[key])}")
        changes[key] = v
    return dataclasses.replace(base, **changes)


CLASSIC = Rules()

COMPETITION = Rules(
    name="competition",
    target=12,
    must_play=(0, 12),
    level_table="competition",
    kitty_scheme="power2",
    throw_penalty="per_card_thrown",
    no_declaration="forced_dealer",
    time_limit_minutes=120,
    time_limit_mode="both_to_ace",
)

CHAODIPI = Rules(
    name="chaodipi",
    target=12,
    must_play=(0, 9, 12),
    level_table="chaodipi",
    kitty_scheme="pairs4",
    throw_penalty="per_card_thrown",
    knockback=True,
    joker_override=True,
    first_hand_joker_override=False,
    pair_vs_pair="any",
    first_hand_dealer="last",
    no_declaration="flip_kitty_largest",
    chao=True,
)

SUPER = Rules(
    name="super",
    target=None,
    must_play=(),
    level_table="super",
    kitty_scheme="pairs4",
    dealer_on_hold="partner",
    joker_override=True,
    pair_vs_pair="ladder",
    first_hand_dealer="last",
    no_declaration="third_kitty_card",
    chao=True,
)

#: Document 002 (合肥 80分 competition rules), the rules boards and duplicate events are played under:
#: its kitty (第四条 3), its tractors (第三条 2), its penalty of 10 a card shown and taken back (第六条 1),
#: and no 革命 or 炒底, which 002 does not know. 002 scores a board against other tables, not by
#: levels, so a match of this preset climbs classic's levels. docs/rules.md gives each point's source.
DUPLICATE = Rules(
    name="duplicate",
    kitty_scheme="pair4",
    small_joker_level_chain=False,  # "小王不能与主将 … 配成姐妹对"
    level_offlevel_chain=False,  # "主将不能与副主将"
    offlevel_ace_chain=False,  # "副主将不能与其它将牌配成姐妹对"
    nt_joker_level_chain=False,  # no trump: the level cards are 副主将 (and 小王 never pairs with them)
    throw_penalty="per_card_failed",
    revolution=False,
    chao=False,
)

PRESETS: dict[str, Rules] = {r.name: r for r in (CLASSIC, COMPETITION, CHAODIPI, SUPER, DUPLICATE)}


def preset(name: str = "classic", **overrides: Any) -> Rules:
    try:
        base = PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}") from None
    return with_overrides(base, overrides) if overrides else base
