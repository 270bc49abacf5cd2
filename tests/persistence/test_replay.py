"""Resume = replay; a damaged log sets aside only its own match."""

from __future__ import annotations

from typing import Any

from persistence import BROKEN, SqliteStore, StoredMatch
from persistence.replay import replay_all, replay_one, resume_all
from tests.persistence import standin

RULES = {"seats": 4}


async def _match_with_log(store: SqliteStore, chat: str, seed: int, n: int) -> int:
    match_id = await store.create_match("telegram", chat, RULES, [], seed, {})
    for seq, action in enumerate(standin.play(seed, n)):
        await store.append_action(match_id, seq, action, f"{chat}:{seq}")
    return match_id


async def _damage(store: SqliteStore, sql: str, *params: Any) -> None:
    async with store.transaction() as conn:
        await conn.execute(sql, params)


async def test_every_match_is_rebuilt_from_its_log(store: SqliteStore) -> None:
    ids = [await _match_with_log(store, f"-{i}", seed=i, n=10 + i) for i in range(4)]
    report = replay_all(await store.load_unfinished(), standin.rebuild)
    assert report.broken == []
    assert sorted(report.states) == ids
    for i, match_id in enumerate(ids):
        stored, state = report.states[match_id]
        assert state.version == stored.version == 10 + i
        assert state.actions == standin.play(i, 10 + i)


async def test_each_kind_of_damage_sets_aside_only_its_own_match(store: SqliteStore) -> None:
    good_before = await _match_with_log(store, "-1", 1, 12)
    bad_json = await _match_with_log(store, "-2", 2, 12)
    gap = await _match_with_log(store, "-3", 3, 12)
    truncated = await _match_with_log(store, "-4", 4, 12)
    refused = await _match_with_log(store, "-5", 5, 12)
    not_object = await _match_with_log(store, "-6", 6, 12)
    good_after = await _match_with_log(store, "-7", 7, 12)

    await _damage(store, 'UPDATE actions SET action = \'{"t": "dr\' WHERE match_id = ? AND seq = 5', bad_json)
    await _damage(store, "DELETE FROM actions WHERE match_id = ? AND seq = 4", gap)
    await _damage(store, "DELETE FROM actions WHERE match_id = ? AND seq = 11", truncated)
    await _damage(
        store, 'UPDATE actions SET action = \'{"t":"draw","seat":0}\' WHERE match_id = ? AND seq = 7', refused
    )
    await _damage(store, "UPDATE actions SET action = '[1, 2]' WHERE match_id = ? AND seq = 0", not_object)

    report = await resume_all(store, standin.rebuild)

    assert sorted(report.states) == [good_before, good_after]
    reasons = {b.match_id: b.reason for b in report.broken}
    assert reasons[bad_json].startswith(f"match {bad_json}: action seq 5 is not valid JSON")
    assert reasons[gap] == f"match {gap}: action log has a gap: seq 4 is missing (next is 5)"
    assert reasons[truncated] == (
        f"match {truncated}: action log is truncated: 11 actions stored, the match records version 12"
    )
    assert reasons[refused].startswith(
        f'match {refused}: action seq 7 {{"t": "draw", "seat": 0}} refused by the engine'
    )
    assert "not_your_turn" in reasons[refused]
    assert reasons[not_object] == f"match {not_object}: action seq 0 is a JSON list, not an object"

    # Set aside for good: status "broken", the reason kept, left out of the next resume.
    assert [m.id for m in await store.load_unfinished()] == [good_before, good_after]
    for match_id, reason in reasons.items():
        stored = await store.get_match(match_id)
        assert stored is not None and stored.status == BROKEN and stored.meta["broken"] == reason


async def test_unreadable_match_columns_are_reported_not_raised(store: SqliteStore) -> None:
    good = await _match_with_log(store, "-1", 1, 3)
    bad = await _match_with_log(store, "-2", 2, 3)
    async with store.transaction() as conn:
        await conn.execute("PRAGMA ignore_check_constraints = ON")
        await conn.execute("UPDATE matches SET rules = '{oops', seats = '7' WHERE id = ?", (bad,))
        await conn.execute("PRAGMA ignore_check_constraints = OFF")
    loaded = await store.load_unfinished(include_broken=True)
    assert [m.id for m in loaded] == [good, bad]
    assert loaded[1].error is not None
    assert "rules is not valid JSON" in loaded[1].error and "seats should be a JSON list" in loaded[1].error
    report = replay_all(loaded, standin.rebuild)
    assert list(report.states) == [good] and [b.match_id for b in report.broken] == [bad]


def test_rules_the_engine_refuses_are_named_as_such() -> None:
    stored = StoredMatch(1, "t", "c", {"seats": "many"}, [], 0, standin.play(0, 3), {}, "active", version=3)
    report = replay_all([stored], standin.rebuild)
    assert report.states == {}
    assert report.broken[0].reason.startswith("match 1: the engine refused its log: ValueError")


def test_replay_does_not_hand_the_stored_log_to_the_engine_to_keep() -> None:
    actions = standin.play(3, 4)
    stored = StoredMatch(1, "t", "c", RULES, [], 3, actions, {}, "active", version=4)
    state = replay_one(stored, standin.rebuild)
    state.apply(state.next_action())
    assert len(stored.actions) == 4


async def test_a_plain_load_never_hands_out_a_damaged_log(store: SqliteStore) -> None:
    """A caller that replays `actions` without looking at `error` must not resume a truncated match."""
    good = await _match_with_log(store, "-1", 1, 6)
    gap = await _match_with_log(store, "-2", 2, 6)
    await _damage(store, "DELETE FROM actions WHERE match_id = ? AND seq = 2", gap)
    assert [m.id for m in await store.load_unfinished()] == [good]
    stored = await store.get_match(gap)
    assert stored is not None and stored.status == BROKEN
    assert stored.meta["broken"] == f"match {gap}: action log has a gap: seq 2 is missing (next is 3)"
    # Set aside once: a resume does not report it again, the others resume.
    report = await resume_all(store, standin.rebuild)
    assert list(report.states) == [good] and report.broken == []


async def test_tricky_action_text_loads_exactly(store: SqliteStore) -> None:
    match_id = await store.create_match("telegram", "-1", RULES, [], 0, {})
    actions = [{"t": "note", "text": s} for s in ["a,b", "[x]", "},{", '"q"', "大王, 小王", "\n"]] * 3
    for seq, action in enumerate(actions):
        await store.append_action(match_id, seq, action, None)
    (stored,) = await store.load_unfinished()
    assert stored.actions == actions and stored.error is None


async def test_a_row_holding_two_objects_cannot_pass_for_two_actions(store: SqliteStore) -> None:
    """The log is read as one JSON array; a row smuggling in a second object must still be caught."""
    match_id = await _match_with_log(store, "-1", 1, 4)
    await _damage(
        store,
        'UPDATE actions SET action = \'{"t":"draw","seat":2},{"t":"draw","seat":3}\''
        " WHERE match_id = ? AND seq = 2",
        match_id,
    )
    (stored,) = await store.load_unfinished(include_broken=True)
    assert stored.error is not None and stored.error.startswith(
        f"match {match_id}: action seq 2 is not valid JSON"
    )


async def test_a_log_that_lost_every_row_is_truncated(store: SqliteStore) -> None:
    match_id = await _match_with_log(store, "-1", 1, 3)
    await _damage(store, "DELETE FROM actions WHERE match_id = ?", match_id)
    (stored,) = await store.load_unfinished(include_broken=True)
    assert (
        stored.error
        == f"match {match_id}: action log is truncated: 0 actions stored, the match records version 3"
    )
