"""Table settings (timeouts, pacing) and the parsing of `new [preset] [option=value ...]`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TableSettings:
        """Known keys only; bad values keep the default."""
        out = cls()
        for f in fields(cls):
            if data and f.name in data:
                try:
                    out = replace(out, **{f.name: type(getattr(out, f.name))(data[f.name])})
                except (TypeError, ValueError):
                    continue
        return out


SETTING_NAMES = frozenset(f.name for f in fields(TableSettings))


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


def settings_with(base: TableSettings, overrides: dict[str, str]) -> TableSettings:
    """Applies `new`'s table options; raises OptionError on a value that does not fit."""
    out = base
    for key, value in overrides.items():
        current = getattr(out, key)
        try:
            v = type(current)(value)
        except (TypeError, ValueError):
            raise OptionError(f"{key}={value}") from None
        if v < 0:
            raise OptionError(f"{key}={value}")
        out = replace(out, **{key: v})
    return out
