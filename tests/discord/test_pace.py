"""Issue 29, item 5: no 429 from Discord, not even in a process's first moments, when discord.py
knows no bucket yet (`adapters.discord.pace`). Through discord.py against the fake, whose channels
allow Discord's 5 writes in 5 s (on the fast clock: the counts are Discord's). About 5 s on a busy
machine: a lobby, a deal and 16 moves over two restarts on SQLite are what make the bursts."""

from __future__ import annotations

from pathlib import Path

from fakes.discord_api import FakeDiscord
from persistence.store import SqliteStore
from tests.discord.rig import NewRig, leaks, open_table, play_until
from tests.discord.test_restart_clicks import _kill_and_boot


async def test_a_table_and_two_restarts_meet_no_rate_limit(fake_discord: FakeDiscord, tmp_path: Path,
                                                         new_rig: NewRig) -> None:
    path = str(tmp_path / "t.sqlite3")
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"))
    await open_table(rig)  # the lobby's edits, the start's announcements: a burst on one channel
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    for _ in range(2):
        await _kill_and_boot(rig, path)  # a new process: its writes to the channel come at once
        played = len(rig.table().match.actions)
        await play_until(rig, lambda n=played: len(rig.table().match.actions) >= n + 8)
    await rig.settled()
    assert fake_discord.rate_limited == 0, fake_discord.limited_buckets
    assert fake_discord.protocol_errors == [] and fake_discord.unanswered() == [] and leaks(fake_discord) == []
    assert rig.runner.client.pace.waited > 0  # the channel's limit was reached, and waited for here
