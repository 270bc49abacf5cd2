"""A pure rules engine for 80分 (升级, Tractor): no I/O, no asyncio, deterministic."""

from .cards import card_str, cards_str, parse_card, parse_cards
from .errors import IllegalAction
from .match import Match
from .rules import PRESETS, Rules, RulesError, preset

__all__ = [
    "PRESETS",
    "IllegalAction",
    "Match",
    "Rules",
    "RulesError",
    "card_str",
    "cards_str",
    "parse_card",
    "parse_cards",
    "preset",
]
