"""The web table from any worker, with worker processes as `tractor-host run` runs them and real
signals: two workers, the four seats' pages spread over both, a whole hand played through the
pages (every frame leak-scanned, every seat sees every trick); then the owner gets SIGTERM (its
pages reconnect to a third worker, the others stay open) and play goes on; then the new owner gets
SIGKILL, its lease runs out, a survivor takes the table and play goes on from the same pages.

Real time, because the workers are processes of their own, signalled by the operating system; the
test waits for what the pages show and what the database holds, never for a set time."""

from __future__ import annotations

import json
import signal
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from engine import Match, Rules
from fakes.web_cluster import Page, Room, Seated
from persistence.postgres import PostgresStore
from tests.web.conftest import leaks

#: The workers' lease here (seconds): a SIGKILLed worker's table is taken over after it.
TTL = 2.0


@pytest.fixture
async def room(pg_url: str) -> AsyncIterator[Room]:
    async with aiohttp.ClientSession() as session:
        r = Room(pg_url, session)
        yield r
        await r.close()


async def play(room: Room, t: Seated, pages: dict[int | None, Page], *, plays: int | None = None,
               until_hand: int | None = None) -> int:
    """Actions from the pages until `plays` plays were made or hand `until_hand` began; each
    action must show on every page."""
    made = 0
    for _ in range(800):
        if plays is not None and made >= plays:
            return made
        state = pages[0].states[-1]
        if until_hand is not None and int(state["scene"]["table"]["hand_no"]) >= until_hand:
            return made
        done = await room.act(t, pages)
        assert done is not None, "nobody could act"
        what, _seat, version, _sent = done
        made += what == "play"
        for p in pages.values():
            await p.until(version + 1)
    raise AssertionError("play did not end")


def tricks_of(stored: Any, hand_no: int) -> list[Any]:
    m = Match.new(Rules.from_dict(stored.rules), seed=stored.seed)
    out: list[Any] = []
    for a in stored.actions:
        before = m.public_view().get("tricks_played")
        m.apply(a)
        pub = m.public_view()
        if int(pub["hand_no"]) == hand_no and pub.get("tricks_played") != before and pub.get("last_trick"):
            out.append(json.loads(json.dumps(pub["last_trick"])))
    return out


def seen_tricks(raw: list[str]) -> list[Any]:
    out: list[Any] = []
    for text in raw:
        table = (json.loads(text).get("scene") or {}).get("table") or {}
        # a hand's final trick may show only in its summary, when the next hand began in the same frame
        summary = table.get("summary") or {}
        for trick in (table.get("last_trick"), summary.get("final_trick")):
            last = [[p["seat"], p["cards"]] for p in trick["plays"]] if trick else None  # as the engine lists it
            if last and last not in out:
                out.append(last)
    return out


@pytest.mark.slow(10)
async def test_pages_on_any_worker_through_sigterm_and_sigkill(room: Room) -> None:
    w1 = await room.add_worker("w1", TTL)
    t = await room.open_table(w1, "g1")
    w2 = await room.add_worker("w2", TTL)
    assert await room.owner(t.match_id) == "w1"
    workers = {"w1": w1, "w2": w2}
    pages: dict[int | None, Page] = {s: await room.page(w1 if s in (0, 2) else w2, t, s) for s in range(4)}
    pages[None] = await room.page(w2, t, None)
    for p in pages.values():
        await p.until(1)
    everything: dict[int | None, list[str]] = {s: [] for s in pages}

    # a whole hand through the pages; those on w2 act through w1's inbox and see w1's changes
    assert await play(room, t, pages, until_hand=2) >= 40
    pool = await room.db()
    store = await PostgresStore.open(room.url)
    try:
        stored = await store.get_match(t.match_id)
        assert stored is not None
        tricks = tricks_of(stored, 1)
        assert len(tricks) >= 10
        for s, p in pages.items():
            assert [x for x in tricks if x not in seen_tricks(p.raw)] == [], f"seat {s} missed a trick"

        # SIGTERM to the owner: its pages close and reconnect to w3; w2's pages stay open
        w3 = await room.add_worker("w3", TTL)
        workers["w3"] = w3
        await w1.kill(signal.SIGTERM)
        assert w1.proc is not None and w1.proc.returncode == 0
        for s in (0, 2):
            await pages[s].closed.wait()
            everything[s] += pages[s].raw
            pages[s] = await room.page(w3, t, s)
            await pages[s].until(1)
        kept = {s: pages[s] for s in (1, 3, None)}
        assert await play(room, t, pages, plays=12) == 12
        assert all(pages[s] is kept[s] and not kept[s].closed.is_set() for s in kept)  # no reload

        # SIGKILL to whoever drives it now; the pages on the killed worker reconnect to the survivor
        owner = await room.owner(t.match_id)
        assert owner in ("w2", "w3")
        victim, survivor = workers[owner], workers["w3" if owner == "w2" else "w2"]
        await victim.kill(signal.SIGKILL)
        for s, p in list(pages.items()):
            if p.worker is victim:
                await p.closed.wait()
                everything[s] += p.raw
                pages[s] = await room.page(survivor, t, s)
                await pages[s].until(1)
        assert await play(room, t, pages, plays=8) == 8
        assert await room.owner(t.match_id) == survivor.name
        assert await pool.fetchval("SELECT count(*) FROM leases WHERE worker = $1", victim.name) == 0

        for s, p in pages.items():
            everything[s] += p.raw
        assert await leaks(_Rig(store), t.match_id, everything) == []
    finally:
        for p in pages.values():
            await p.close()
        await store.close()
        for w in room.workers:  # shown when the test fails: what each worker logged
            print(w.name, "\n".join(w.output[-40:]))


class _Rig:
    """What `tests.web.conftest.leaks` reads: the store."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store


