"""Table settings (timeouts, pacing), the range each may take, and the parsing of `new [preset] [option=value ...]`.

Ranges. A person's `new turn=…` is checked against `SETTING_RANGES`, as a server admin would set
them: long enough that a person can act, short enough that one member cannot stall a group's
table (`next=1e308` once meant hand 2 was never dealt). The host's own defaults (`Host.defaults`,
set by whoever runs the bot) are not held to them. docs/operating.md lists them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace

from bot.commands import Choice, Number, OptionValue, Refusal, Setting
from bot.i18n import N_

AI_LEVELS: tuple[str, ...] = ("random", "basic", "strong", "expert")
DEFAULT_AI_LEVEL = "basic"


@dataclass(frozen=True)
class TableSettings:
    """Seconds for each timer; 0 means "at once" for pacing and "never" for player timeouts."""

    turn: float = 60.0  # a play or a 炒底 answer
    bury: float = 120.0  # the dealer's bury
    declare: float = 10.0  # the declaration window after the last card
    deal: float = 0.6  # between two deal steps of 4 cards (people may declare while cards arrive)
    # While a person is seated, an AI holds a declaration this long (from the deal step it first wanted
    # to, and again after each declaration): a person who sees a level card arrive can show it first.
    ai_declare: float = 2.0
    next: float = 5.0  # between a hand's result and the next deal
    lobby: float = 3600.0  # an unstarted lobby closes after this
    away_after: int = 2  # consecutive timeouts before an AI keeps the seat
    ai_budget: float = 0.5  # seconds an AI may think per move

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> TableSettings:
        """Known keys only; bad values (not a number, NaN, infinite, negative) keep the default."""
        out = cls()
        for f in fields(cls):
            if data and f.name in data:
                raw = data[f.name]
                if not isinstance(raw, int | float | str):
                    continue
                try:
                    value = type(getattr(out, f.name))(raw)
                    usable = math.isfinite(value) and value >= 0
                except (TypeError, ValueError, OverflowError):
                    continue
                if usable:
                    out = replace(out, **{f.name: value})
        return out


SETTING_NAMES = frozenset(f.name for f in fields(TableSettings))

_NEVER = N_("arg.never")
#: What a person may give each timer (seconds unless said). 0 means "never" only where it says so:
#: a turn or a bury with no limit, a seat never handed to an AI; an unstarted lobby always closes.
SETTING_RANGES: dict[str, Number] = {
    "turn": Number(5, 3600, unit="s", zero=_NEVER),
    "bury": Number(10, 3600, unit="s", zero=_NEVER),
    "declare": Number(0, 120, unit="s"),
    "deal": Number(0, 3, unit="s"),
    "ai_declare": Number(0, 10, unit="s"),
    "next": Number(0, 300, unit="s"),
    "lobby": Number(60, 86400, unit="s"),
    "away_after": Number(1, 10, integer=True, zero=_NEVER),
    "ai_budget": Number(0.05, 5, unit="s"),
}
assert set(SETTING_RANGES) == SETTING_NAMES

#: The engine's numeric rules options, as a person may give them (the engine checks the rest).
RULE_RANGES: dict[str, Setting] = {
    "time_limit_minutes": Number(5, 1440, integer=True, unit="min", zero=N_("arg.no_limit")),
    "throw_penalty_points": Number(0, 200, integer=True),
    "revolution_max_points": Number(0, 200, integer=True),
    "format": Choice(("single", "bo3", "timed"), aliases={"best_of_3": "bo3"}),
}
NEW_OPTIONS: dict[str, Setting] = {**SETTING_RANGES, **RULE_RANGES}
# each option's line of help (`help new`), read as f"help.opt.{key}"
OPTION_HELP = (N_("help.opt.turn"), N_("help.opt.bury"), N_("help.opt.declare"), N_("help.opt.deal"),
               N_("help.opt.ai_declare"), N_("help.opt.next"), N_("help.opt.lobby"), N_("help.opt.away_after"),
               N_("help.opt.ai_budget"), N_("help.opt.time_limit_minutes"), N_("help.opt.throw_penalty_points"),
               N_("help.opt.revolution_max_points"), N_("help.opt.format"))
assert {k.removeprefix("help.opt.") for k in OPTION_HELP} == set(NEW_OPTIONS)


class OptionError(ValueError):
    """An option of `new` that is not understood; `.option` names it."""

    def __init__(self, option: str) -> None:
        super().__init__(option)
        self.option = option


def parse_new_args(args: tuple[str, ...], presets: tuple[str, ...]) -> tuple[str, dict[str, str], dict[str, str]]:
    """`new [preset] [key=value ...]` -> (preset, rule overrides, table settings).

    :raises OptionError: a word that is neither a preset nor key=value.
    """
    preset = "classic"
    rules: dict[str, str] = {}
    table: dict[str, str] = {}
    for i, word in enumerate(args):
        if "=" not in word:
            if i == 0 and word.lower() in presets:
                preset = word.lower()
                continue
            raise OptionError(word)
        key, _, value = word.partition("=")
        key = key.strip().lower()
        if not key or not value:
            raise OptionError(word)
        (table if key in SETTING_NAMES else rules)[key] = value.strip()
    return preset, rules, table


def check_options(options: Mapping[str, str], lang: str) -> dict[str, OptionValue]:
    """`new`'s options as typed values: timers and numeric rules within their ranges.

    :raises Refusal: the first option that does not fit, naming its range.
    """
    out: dict[str, OptionValue] = {}
    for key, value in options.items():
        setting = NEW_OPTIONS.get(key)
        out[key] = value if setting is None else setting.check(f"{key}={value}", key, value, lang)
    return out


def rule_overrides(options: Mapping[str, OptionValue]) -> dict[str, str]:
    """The engine's rules options among checked ones, as the engine reads them (0 minutes: no limit)."""
    out: dict[str, str] = {}
    for key, value in options.items():
        if key in SETTING_NAMES or key == "format":
            continue
        out[key] = "none" if key == "time_limit_minutes" and value == 0 else str(value)
    return out


def stored_timers(saved: object, lang: str) -> tuple[dict[str, OptionValue], list[str]]:
    """A chat's remembered timers that still fit their ranges, and a note for each one that does
    not (a value stored before the ranges existed): it is ignored."""
    good: dict[str, OptionValue] = {}
    notes: list[str] = []
    if not isinstance(saved, dict):
        return good, notes
    for key, value in saved.items():
        setting = SETTING_RANGES.get(str(key))
        if setting is None:
            continue
        try:
            good[str(key)] = setting.check(f"{key}={value}", str(key), str(value), lang)
        except Refusal as exc:
            notes.append(exc.text(lang))
    return good, notes


def settings_with(base: TableSettings, overrides: Mapping[str, OptionValue]) -> TableSettings:
    """Applies timers (already checked, or the host's own); raises OptionError on one that is no number."""
    out = base
    for key, value in overrides.items():
        if key not in SETTING_NAMES:
            continue
        current = getattr(out, key)
        try:
            v = type(current)(value)
        except (TypeError, ValueError, OverflowError):
            raise OptionError(f"{key}={value}") from None
        if not math.isfinite(v) or v < 0:
            raise OptionError(f"{key}={value}")
        out = replace(out, **{key: v})
    return out
