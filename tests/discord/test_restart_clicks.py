"""Issue 29, findings 8 and 9: a restart, or tokens that died, cost nobody a click.

The process is killed (queued edits lost) in the declare window, during the bury and mid-trick;
later every token dies (16 quiet minutes). After each, every hand message is redrawn in place by
the new process without anyone pressing anything, or the next click on it works; nobody is told in
the channel to press My hand, and no hand stays frozen with buttons of an older state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.discord.texts import text
from fakes.discord_api import FakeDiscord, handled
from persistence.store import SqliteStore
from tests.discord.rig import PEOPLE, NewRig, Rig, hand_over, leaks, open_table, play_until, token_of


def _cards_played(rig: Rig) -> int:
    m = rig.table().match
    assert m is not None
    return sum(len(a["cards"]) for a in m.actions_json() if a["t"] == "play")


async def _kill_and_boot(rig: Rig, path: str) -> None:
    # what people did is answered and taken; the hands' edits it led to may still be queued, and die
    await rig.fake.answered()
    await handled()
    await rig.runner.inbound.idle()
    await rig.host.settle()
    await rig.kill()
    await rig.store.close()
    rig.store = await SqliteStore.open(path, synchronous="NORMAL")
    await rig.boot()
    await rig.settled()


def _hands_current(rig: Rig) -> list[str]:
    """Each seated person's hand message shows their hand now, with buttons of the state now."""
    problems = []
    table = rig.table()
    m = table.match
    assert m is not None
    for person in PEOPLE:
        s = table.seat_of(str(person.id))
        assert s is not None
        message = rig.hand_message(person)
        if message is None:
            problems.append(f"{person.name}: no hand message")
            continue
        want = len(m.view(s)["hand"])
        counted = re.search(r"(\d+) ?(?:cards|张)", message.content.split("\n")[0])  # "· 25 cards ·"
        shown = int(counted.group(1)) if counted else -1
        versions = {tok[0].version for b in message.buttons() if (tok := token_of(str(b.get("custom_id", ""))))}
        if shown != want or (versions and max(versions) < table.screen.view_version[s]):
            problems.append(f"{person.name}: shows {shown} cards of {want}, versions {versions}")
    return problems


def _told_to_press(fake: FakeDiscord) -> list[str]:
    words = [text(lang, "press_my_hand") for lang in ("en", "zh", "zh_Hant")]
    return [m.content for m in fake.messages.values() if m.public
            for version in m.history if any(w in version for w in words)]


@pytest.mark.slow(5)
async def test_restarts_and_dead_tokens_cost_no_click(fake_discord: FakeDiscord, tmp_path: Path,
                                                     new_rig: NewRig) -> None:
    fake = fake_discord
    path = str(tmp_path / "tractor.sqlite3")
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"))
    await open_table(rig)
    m = rig.table().match
    assert m is not None and m.phase in ("dealing", "declaring")

    await _kill_and_boot(rig, path)  # in the declare window
    assert _hands_current(rig) == []
    await play_until(rig, lambda: rig.table().match.phase == "burying")  # type: ignore[union-attr]
    await _kill_and_boot(rig, path)  # during the bury
    assert _hands_current(rig) == []
    await play_until(rig, lambda: _cards_played(rig) >= 22)
    await _kill_and_boot(rig, path)  # mid-trick
    assert _hands_current(rig) == []
    await play_until(rig, lambda: _cards_played(rig) >= 50)
    fake.advance(16 * 60)  # every token dies
    await play_until(rig, lambda: hand_over(rig))

    assert (rig.extra, _told_to_press(fake)) == ([], [])
    assert fake.unanswered() == [] and fake.protocol_errors == [] and fake.wordless() == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    await rig.shutdown()
    await rig.store.close()
