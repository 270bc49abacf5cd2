"""An accepted action costs one store transaction, the deadlines it ends and sets included."""

from __future__ import annotations

from typing import Any

from engine.actions import Play
from tests.host.conftest import Rig
from tests.host.helpers import act_as_human, open_table


async def to_playing(rig: Rig, uids: list[str]) -> Any:
    table = await open_table(rig, uids, 0)
    for _ in range(2000):
        if table.match.phase == "playing":
            return table
        if not any([await act_as_human(rig, table, uid, "text") for uid in uids]):
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
    raise AssertionError("never reached the playing phase")


async def test_a_typed_play_is_stored_with_the_next_turns_deadline_in_one_transaction(paced: Rig) -> None:
    rig = paced
    uids = ["u1", "u2", "u3", "u4"]
    table = await to_playing(rig, uids)
    store = rig.store
    calls: list[tuple[str, dict[str, Any]]] = []
    append, set_deadline = store.append_action, store.set_deadline

    async def counting_append(*args: Any, **kwargs: Any) -> Any:
        calls.append(("append_action", dict(kwargs.get("deadlines") or {})))
        return await append(*args, **kwargs)

    async def counting_deadline(*args: Any, **kwargs: Any) -> Any:
        calls.append(("set_deadline", {}))
        return await set_deadline(*args, **kwargs)

    store.append_action, store.set_deadline = counting_append, counting_deadline
    try:
        before = dict(table.deadlines)
        assert "turn" in before
        rig.clock.advance(1.0)
        for uid in uids:
            if await act_as_human(rig, table, uid, "text"):
                break
        else:
            raise AssertionError("nobody could play")
    finally:
        store.append_action, store.set_deadline = append, set_deadline
    assert [name for name, _ in calls] == ["append_action"]
    assert calls[0][1] == {"turn": before["turn"] + 1.0}
    assert table.deadlines == {**before, "turn": before["turn"] + 1.0}
    stored = await store.get_match(table.id)
    assert stored is not None and stored.deadlines == table.deadlines


async def test_a_refused_append_writes_none_of_its_deadlines(paced: Rig) -> None:
    rig = paced
    table = await to_playing(rig, ["u1", "u2", "u3", "u4"])
    store = rig.store
    stored = await store.get_match(table.id)
    assert stored is not None
    res = await store.append_action(table.id, 0, stored.actions[0], None, deadlines={"turn": None, "bury": 5.0})
    assert res == "duplicate"
    again = await store.get_match(table.id)
    assert again is not None and again.deadlines == stored.deadlines


async def test_a_typed_play_is_validated_once(paced: Rig, monkeypatch: Any) -> None:
    import engine.hand

    rig = paced
    uids = ["u1", "u2", "u3", "u4"]
    table = await to_playing(rig, uids)
    s = table.match.to_act()[0]
    action = table.match.auto_action(s, rng_seed=1)
    checks = 0
    real = engine.hand.Hand.check_play

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal checks
        checks += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(engine.hand.Hand, "check_play", counting)
    version = table.match.version
    uid = next(u for u in uids if table.seat_of(u) == s)
    assert isinstance(action, Play)
    await send_text(rig, uid, "play " + " ".join(action.cards))
    assert table.match.version == version + 1
    assert checks == 1


async def send_text(rig: Rig, uid: str, text: str) -> None:
    await rig.host.handle(rig.d.text(uid, text))
    await rig.host.settle()
