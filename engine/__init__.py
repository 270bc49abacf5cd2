"""A pure rules engine for 80分 (升级, Tractor): no I/O, no asyncio, deterministic."""

from .actions import (
    Action,
    ActionJSON,
    Bury,
    Chao,
    Close,
    Deal,
    Declare,
    Next,
    Pass,
    Play,
    Revolt,
    TimeUp,
    action_from_json,
    as_action,
)
from .cards import card_points, card_str, cards_str, is_trump_card, level_steps, parse_card, parse_cards
from .errors import IllegalAction, IllegalCode
from .hand import team_of
from .leading import trick_leader
from .match import BuryChoice, Checked, Event, Match
from .rules import PRESETS, Rules, RulesError, preset
from .text import parse_typed_card, parse_typed_rank, rank_display
from .views import HandSummary, MatchResult, Phase, PublicView, SeatView, to_json

__all__ = [
    "PRESETS",
    "Action",
    "ActionJSON",
    "Bury",
    "BuryChoice",
    "Chao",
    "Checked",
    "Close",
    "Deal",
    "Declare",
    "Event",
    "HandSummary",
    "IllegalAction",
    "IllegalCode",
    "Match",
    "MatchResult",
    "Next",
    "Pass",
    "Phase",
    "Play",
    "PublicView",
    "Revolt",
    "Rules",
    "RulesError",
    "SeatView",
    "TimeUp",
    "action_from_json",
    "as_action",
    "card_points",
    "card_str",
    "cards_str",
    "is_trump_card",
    "level_steps",
    "parse_card",
    "parse_cards",
    "parse_typed_card",
    "parse_typed_rank",
    "preset",
    "rank_display",
    "team_of",
    "to_json",
    "trick_leader",
]
