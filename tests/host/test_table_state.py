"""A table's typed state (bot/table/state.py, bot/table/seats.py) and its one event (bot/table/commit.py).

Rows stored by earlier versions keep loading: the meta row and the seats are read into their types
and written back with the keys they always had, so an old row and a new one read the same."""

from __future__ import annotations

from app.features import build_host
from bot.settings import TableSettings
from bot.table.commit import Committed, Ended, TableEvent
from bot.table.seats import Seat, SeatKind, Seats
from bot.table.state import BoardRef, Series, TableMeta, TournamentGame
from persistence.store import SqliteStore
from tests.host.conftest import PACED, make_rig
from tests.host.helpers import open_table, play_out

#: A meta row as the versions before the typed state wrote it (keys of every kind, the legacy
#: `drawn` picks and a key the store itself writes).
OLD_META: dict[str, object] = {
    "preset": "classic", "creator": "u1", "creator_name": "Ann", "options": "target=3",
    "settings": TableSettings(turn=30.0).to_dict(), "format": "best_of_3",
    "series": {"wins": [1, 0], "game": 2, "previous": 7},
    "tournament": {"id": 4, "pairing": "r1s2", "game": 1}, "reserved": {"0": "u1", "2": "u3"},
    "board": {"id": 9, "number": 3, "set": "daily", "key": "2026-12-05", "event": None, "room": "open"},
    "quiet": ["u2"], "votes": {"pause": [0], "forfeit1": [1, 3]}, "notes": {"2": "timeout.you"},
    "unreachable": [3], "announced_hand": 2, "table_hand": 3, "start_wanted": True, "time_limit_left": 61.5,
    "drawn": {"0": {"v": 3, "phase": "playing", "cards": ["AS"], "picked": [0]}},
    "status_before_broken": "active",
}
#: Seats as they were stored: a person (with and without a language), an AI, an empty seat.
OLD_SEATS: list[dict[str, object]] = [
    {"kind": "human", "user_id": "u1", "name": "Ann", "lang": "zh", "away": False, "timeouts": 0},
    {"kind": "ai", "name": "AI-2", "level": "strong"},
    {"kind": "human", "user_id": "u3", "name": "Cy", "away": True, "timeouts": 2, "kicked": True},
    {"kind": "empty"},
]


def test_an_old_meta_row_loads_typed_and_is_written_back_as_it_was() -> None:
    meta = TableMeta.from_json(OLD_META)
    assert meta.settings == TableSettings(turn=30.0) and meta.format == "best_of_3"
    assert meta.series == Series((1, 0), 2, 7) and meta.tournament == TournamentGame(4, "r1s2", 1)
    assert meta.board == BoardRef(9, 3, "daily", "2026-12-05", None, "open")
    assert meta.reserved == {0: "u1", 2: "u3"} and meta.notes == {2: "timeout.you"}
    assert meta.votes == {"pause": [0], "forfeit1": [1, 3]} and meta.quiet == ["u2"] and meta.unreachable == [3]
    assert (meta.announced_hand, meta.table_hand, meta.start_wanted, meta.time_limit_left) == (2, 3, True, 61.5)
    assert meta.extra == {"drawn": OLD_META["drawn"], "status_before_broken": "active"}
    assert meta.to_json() == OLD_META
    assert TableMeta.from_json(meta.to_json()) == meta


def test_a_damaged_or_empty_meta_row_loads_with_defaults() -> None:
    assert TableMeta.from_json(None) == TableMeta.from_json({}) == TableMeta()
    bad = TableMeta.from_json({"settings": "x", "series": [1], "board": {"id": "nine"}, "reserved": {"x": "u1"},
                               "votes": {"pause": "0"}, "notes": {"0": 5}, "announced_hand": "2", "quiet": "u2",
                               "time_limit_left": True})
    assert bad == TableMeta(votes={})
    fresh = TableMeta(preset="classic", creator="u1", creator_name="Ann", options="", format="single")
    assert TableMeta.from_json(fresh.to_json()) == fresh


def test_old_seats_load_as_values_and_are_written_back_with_their_keys() -> None:
    seats = Seats.of(OLD_SEATS)
    assert seats[0] == Seat(SeatKind.HUMAN, "Ann", "u1", "zh") and seats[1] == Seat.ai("AI-2", "strong")
    assert seats[2].away and seats[2].kicked and seats[2].timeouts == 2 and seats[3].empty
    assert seats.seat_of("u1") == 0 and seats.seat_of("u3") is None  # kicked out
    assert seats.humans() == [0, 2] and seats.free() == [3] and seats.ai_driven(1) and seats.ai_driven(2)
    assert seats.lang(0, "en") == "zh" and seats.lang(2, "en") == "en"
    written = seats.to_json()
    assert written[1:] == [OLD_SEATS[1], {**OLD_SEATS[2], "lang": None}, OLD_SEATS[3]]
    assert written[0] == OLD_SEATS[0]
    assert Seats.of(written) == seats
    assert Seats.of(OLD_SEATS[:1]) == [seats[0], Seat(), Seat(), Seat()]  # a short list: the rest are empty


async def test_a_match_stored_with_an_old_meta_row_resumes_typed() -> None:
    """An old row in the store (its meta and seats as earlier versions wrote them) resumes: the
    table reads it typed, and its next write keeps what it did not know."""
    rig = await make_rig(PACED)
    try:
        table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
        old = {**table.meta.to_json(), "quiet": ["u2"], "notes": {"1": "timeout.you"}, "legacy_key": [1, "x"],
               "votes": {"pause": [0]}}
        await rig.store.update_match(table.id, meta=old)
        path = rig.store.path
        await rig.host.stop()
        await rig.store.close()
        store = await SqliteStore.open(path, synchronous="OFF")
        host = build_host(store, clock=rig.clock, defaults=PACED, use_ai_threads=False)
        host.register(rig.platform)
        rig.host, rig.store = host, store
        await host.start()
        await host.settle()
        again = host.tables[table.id]
        assert again.meta.quiet == ["u2"] and again.meta.votes == {"pause": [0]}
        assert again.meta.extra["legacy_key"] == [1, "x"] and again.meta.preset == "classic"
        assert [s.kind for s in again.seats] == [s.kind for s in table.seats]
        await again.save_meta()
        stored = await store.get_match(table.id)
        assert stored is not None and stored.meta["legacy_key"] == [1, "x"] and stored.meta["quiet"] == ["u2"]
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_every_commit_is_published_once_in_order_and_the_end_once() -> None:
    """The table's one subscription point hears each committed action (its version, who took it, the
    public view after it) in the order of the match's log, and the end of the match once."""
    rig = await make_rig(PACED)
    try:
        table = await open_table(rig, ["u1"], 3, "classic", "target=3")
        heard: list[TableEvent] = []

        async def hear(event: TableEvent) -> None:
            heard.append(event)

        table.events.subscribe(hear)
        start = table.match.version
        await play_out(rig, table, {"u1": "text"})
        commits = [e for e in heard if isinstance(e, Committed)]
        ends = [e for e in heard if isinstance(e, Ended)]
        assert [c.version for c in commits] == list(range(start + 1, table.match.version + 1))
        assert [c.action for c in commits] == list(table.match.actions[start:])
        assert all(c.match_id == table.id and c.public.get("phase") is not None for c in commits)
        bys = {c.by for c in commits}
        assert "person" in bys and "ai" in bys
        assert all(c.seat == table.seat_of("u1") for c in commits if c.by == "person")
        assert len(ends) == 1 and ends[0].played and ends[0].status == "finished" and heard[-1] is ends[0]
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_what_hears_a_commit_changes_nothing_at_the_table() -> None:
    """Issue 28, item 3: the screen, the web hub, the announcer and the host's features hear each
    committed action and the end; none of them reaches back into the table. Over a whole match, the
    table's match, seats, status, meta and deadlines are the same once an event was heard as before."""
    rig = await make_rig(PACED)
    try:
        table = await open_table(rig, ["u1"], 3, "classic", "target=3")
        publish = table.events.publish
        heard: list[TableEvent] = []

        def state() -> object:
            m = table.match
            return (m.version if m is not None else None, list(m.actions) if m is not None else None,
                    table.seats.to_json(), table.status, table.meta.to_json(), dict(table.deadlines))

        async def watched(event: TableEvent) -> None:
            before = state()
            await publish(event)
            assert state() == before, event
            heard.append(event)

        table.events.publish = watched  # type: ignore[method-assign]
        await play_out(rig, table, {"u1": "text"})
        assert any(isinstance(e, Committed) for e in heard) and isinstance(heard[-1], Ended)
    finally:
        await rig.host.stop()
        await rig.store.close()
