"""The features this bot runs, and the host built with them: the composition root of `bot/`.

The host routes and keeps the command registry; it imports no feature. Here each feature is built
with the host's narrow context (`Host.context`) and its own store port, then installed. The order
is the order of the hooks: the boards take a board table's end before the league would record it,
the league records a match before a series deals its next game or a tournament moves on.
"""

from __future__ import annotations

from typing import Any

from bot.feature import Feature
from bot.features.boards import Boards
from bot.features.inline import InlinePlay
from bot.features.league import League
from bot.features.opening import Opening
from bot.features.settings import ChatSettings
from bot.features.tournaments import Tournaments
from bot.host import Host
from persistence.board_store import BoardStore
from persistence.league_store import LeagueStore
from persistence.tournament_store import TournamentStore


def _league_store(store: object) -> LeagueStore | None:
    try:
        return LeagueStore.of(store)
    except TypeError:  # a store without SQL (the in-memory one): no league
        return None


def _board_store(store: object) -> BoardStore | None:
    try:
        return BoardStore.of(store)
    except TypeError:
        return None


def features(host: Host) -> list[Feature]:
    """Every feature, in the order the host calls their hooks."""
    ctx = host.context()
    store: object = host.store
    league = _league_store(store)
    return [
        Boards(ctx, _board_store(store), store),
        League(ctx, store if league is not None else None),
        Opening(ctx),
        Tournaments(ctx, TournamentStore.maybe(store), league),
        ChatSettings(ctx),
        InlinePlay(ctx),
    ]


def build_host(store: Any, **options: Any) -> Host:
    """A host on `store` (options as `Host` takes them) with every feature installed."""
    host = Host(store, **options)
    host.install(*features(host))
    return host
