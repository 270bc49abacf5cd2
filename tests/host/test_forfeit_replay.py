"""Through the host: a team concedes (scored as 004's forfeit in the league), and `replay` retells a stored match."""

from __future__ import annotations

import re

from tests.host.conftest import Rig
from tests.host.helpers import open_table, play_out, send


async def test_a_team_concedes_and_the_league_scores_a_forfeit(rig: Rig) -> None:
    table = await open_table(rig, ["u1", "u2", "u3"], 1, "classic", "target=5")
    s1, s3 = table.seat_of("u1"), table.seat_of("u3")
    assert s1 is not None and s3 is not None
    team = s1 % 2
    partner = next(u for u in ("u2", "u3") if (table.seat_of(u) or 0) % 2 == team)
    notes = await send(rig, rig.d.command("u1", "forfeit"))
    assert table.status == "active", notes  # one partner is not enough
    assert any("partner must say forfeit" in t for t in rig.platform.group_texts())
    await send(rig, rig.d.command(partner, "forfeit"))
    stored = await rig.store.get_match(table.id)
    assert stored.status == "finished"
    assert stored.result["reason"] == "forfeit" and stored.result["forfeit_team"] == team
    assert any("forfeits" in t for t in rig.platform.group_texts())
    await send(rig, rig.d.command("u1", "standings", "matchpoints"))
    board = rig.platform.group_texts()[-1] if "Standings" in rig.platform.group_texts()[-1] else \
        rig.platform.group_texts()[-2]
    winners = [u for u in ("u1", "u2", "u3") if (table.seat_of(u) or 0) % 2 != team]
    lines = board.splitlines()
    # the side that stayed: 2.5 场分 and 12 standard points; the forfeiting side 0 and 0
    assert any(f"P{w}" in line and "2.5 · 12" in line for w in winners for line in lines), board
    assert any("Pu1" in line and "0.0 · 0" in line for line in lines), board


async def test_a_stranger_cannot_concede(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3, "classic")
    notes = await send(rig, rig.d.command("u9", "forfeit"))
    assert table.status == "active" and notes


async def test_history_points_to_a_working_replay(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3, "classic", "target=3")
    mid = table.id
    notes = await send(rig, rig.d.command("u1", "replay", str(mid)))
    assert "still being played" in " ".join(notes + rig.platform.group_texts()[-1:])
    await play_out(rig, table, {"u1": "buttons"})
    await send(rig, rig.d.command("u1", "history"))
    assert "replay" in rig.platform.group_texts()[-1]
    await send(rig, rig.d.command("u1", "replay", str(mid)))
    text = rig.platform.group_texts()[-1]
    lines = text.splitlines()
    assert lines[0] == f"Replay of match #{mid} (classic)"
    assert lines[2].startswith("Hand 1: ") and "trump" in lines[2]
    assert f"replay {mid} HAND" in lines[-1]
    await send(rig, rig.d.command("u1", "replay", str(mid), "1"))
    hand = rig.platform.group_texts()[-1].splitlines()
    assert hand[0] == f"Match #{mid}, hand 1, trick by trick"
    tricks = [line for line in hand if re.match(r"\d+\. ", line)]
    assert len(tricks) >= 12  # 100 cards less an 8-card kitty: 23 tricks at most, 12 even in a throw-heavy hand
    assert "Hand 1 is over" in "\n".join(hand)
    await send(rig, rig.d.command("u1", "replay", "999"))
    assert rig.platform.group_texts()[-1] == "No match 999 in this chat."
