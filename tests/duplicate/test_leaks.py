"""A team match in two chats with people in both rooms: the closed room learns nothing of a board early."""

from __future__ import annotations

from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat
from tests.host.conftest import FAST, make_rig
from tests.host.helpers import play_out, send
from tests.host.leaks import mentioned, scan, snapshot


async def test_the_closed_room_sees_only_its_own_table_while_the_open_room_plays() -> None:
    rig = await make_rig(FAST)
    try:
        g2 = chat(rig, "g2")
        await send(rig, rig.d.command("u1", "duplicate", "new", "boards=2", "trump=bid"))
        eid = (await BoardStore.of(rig.store).all_open_events())[-1].id
        await send(rig, g2.command("u5", "duplicate", "room", str(eid)))
        await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
        await send(rig, g2.command("u5", "duplicate", "join", "visitors"))
        await send(rig, rig.d.command("u1", "duplicate", "ai"))
        start = len(rig.platform.log)
        def observe() -> object:
            table = rig.host.by_chat.get(("fake", "g2"))
            return snapshot(table.match) if table is not None and table.match is not None else None

        rig.platform.observer = observe
        await send(rig, rig.d.command("u1", "duplicate", "start"))
        open_table, closed = rig.host.by_chat[("fake", "g1")], rig.host.by_chat[("fake", "g2")]
        assert open_table.seed == closed.seed  # the same board in both rooms
        # the open room plays board 1 to its end while the closed room has not moved
        await play_out(rig, open_table, {"u1": "buttons"})
        to_closed = [s for s in rig.platform.log[start:] if s.where.chat_id in ("g2", "u5")]
        assert to_closed, "the closed room was dealt"
        # everything the closed room's chat and its person got shows only what their own table shows them
        assert scan(to_closed, {"u5": closed.seat_of("u5")}) == []
        checked = [s for s in to_closed if s.snapshot is not None and mentioned(s.view)]
        assert any(s.where.chat_id == "u5" for s in checked)  # u5's hand was among what the scan read
        assert open_table.status == "finished" and closed.match is not None and closed.public()["tricks_played"] == 0
        # and the open room's finished board is not announced to them before they have played it
        assert not any("board 1" in s.view.text.lower() and "net" in s.view.text for s in to_closed)
        await play_out(rig, closed, {"u5": "buttons"})
        for _ in range(5):
            await rig.host.settle()
        said = [s.view.text for s in rig.platform.log if s.where.chat_id == "g2"]
        assert any(t.startswith(f"Event {eid}, board 1:") for t in said)
    finally:
        await rig.host.stop()
        await rig.store.close()
