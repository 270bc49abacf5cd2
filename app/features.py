"""The features this bot runs, and the host built with them: the composition root of `bot/`.

The host routes and keeps the command registry; it imports no feature. Here each feature is built
with the host's narrow context (`Host.context`) and its own store port, then installed. The order
is the order of the hooks: the boards take a board table's end before the league would record it,
the league records a match before a series deals its next game or a tournament moves on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypedDict, Unpack

from bot.clock import Clock
from bot.feature import Feature
from bot.features.boards import Boards
from bot.features.inline import InlinePlay
from bot.features.league import League
from bot.features.opening import Opening
from bot.features.review import Review
from bot.features.settings import ChatSettings
from bot.features.tournaments import Tournaments
from bot.host import Host
from bot.host_context import Engine
from bot.settings import TableSettings
from persistence.board_store import BoardStore
from persistence.league_store import LeagueStore
from persistence.store import Store
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
        Review(ctx, host.store, _board_store(store)),
    ]


class HostOptions(TypedDict, total=False):
    """`Host`'s options (see its constructor)."""

    ai_threads: int
    clock: Clock | Callable[[], float] | None
    defaults: TableSettings | None
    engine: Engine | None
    use_ai_threads: bool
    rng: random.Random | None
    inline_levels: frozenset[str]
    ai_refresh: float
    move_slots: int | None


def build_host(store: Store, **options: Unpack[HostOptions]) -> Host:
    """A host on `store` (options as `Host` takes them) with every feature installed."""
    host = Host(store, **options)
    host.install(*features(host))
    return host
