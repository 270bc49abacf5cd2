"""Every choice is bound to the turn it was made for (issue 29, finding 1), through the real client
against the fake Telegram: a second inline result chosen from one answer, or a second line typed
in a row, is refused as out of date with a short reason, and nothing is played."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from bot.cardtext import card_text
from bot.i18n import tr
from bot.table import Table
from bot.views import seat_label
from fakes.telegram_rig import Rig, booted, until
from tests.telegram.test_capacity import GROUP, PEOPLE, SETTINGS, seated, to_play, typed

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

# A deal whose first lead falls to a seat holding 大王: played first, it wins the trick for sure.
SEED = 2
# With Ann at seat 0 and three AIs: a deal where she leads trick 7 holding 大王.
AI_SEED = 1
ANN = PEOPLE[0]


def told(rig: Rig, uid: int, key: str) -> int:
    """How often the bot has told this person `key` privately (its messages there come and go)."""
    return sum(m.text == tr("en", key) for m in rig.fake.chat_messages(uid))


async def test_a_second_inline_result_of_one_answer_is_not_played_at_the_next_trick(tmp_path: Path) -> None:
    """Ann chooses 大王 and then ♦3 from one inline answer. 大王 is played and wins the trick; ♦3,
    chosen for that trick, is refused as out of date instead of becoming her lead of the next."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=SEED)
        seat = await to_play(rig, table)
        uid, m = PEOPLE[seat], table.match
        assert "BJ" in m.view(seat)["hand"]
        qid = fake.inline_query(uid, "")
        await until(lambda: qid in fake.inline_answers)
        results = fake.inline_answers[qid]["results"]
        big = next(r for r in results if r["title"] == card_text("BJ"))
        low = next(r for r in reversed(results) if " " not in r["title"] and r["title"] != card_text("BJ"))
        version = m.version
        await rig.handled(fake.choose_inline(uid, qid, big["id"], GROUP))
        assert m.version == version + 1 and m.actions[version].to_json()["cards"] == ["BJ"]
        while int(m.public_view()["turn"]) != seat:  # the others follow; 大王 takes the trick
            s = int(m.public_view()["turn"])
            await rig.handled(fake.send_text(PEOPLE[s], PEOPLE[s], typed(m.auto_action(s))))
        assert m.public_view()["tricks_played"] == 1 and not m.public_view().get("trick")
        lead = m.version
        await rig.handled(fake.choose_inline(uid, qid, low["id"], GROUP))
        assert m.version == lead and int(m.public_view()["turn"]) == seat  # nothing played: still her lead
        assert told(rig, uid, "err.old_turn") == 1
        assert rig.errors == [] and fake.rejected_429 == 0


async def ann_and_three_ais(rig: Rig) -> Table:
    """Ann and three AIs (on the loop: they answer at once), played until Ann leads holding 大王."""
    fake = rig.fake
    fake.add_group(GROUP)
    fake.add_user(ANN, "Ann", opened=True)
    seats = [{"kind": "human", "user_id": str(ANN), "name": "Ann", "lang": "en", "away": False, "timeouts": 0}]
    seats += [{"kind": "ai", "name": f"Bot{i}", "level": "random"} for i in range(3)]
    meta = {"preset": "classic", "creator": str(ANN), "creator_name": "Ann", "options": "",
            "settings": SETTINGS.to_dict()}
    await rig.store.create_match("telegram", str(GROUP), engine.preset("classic").to_dict(), seats, AI_SEED, meta,
                                 status="active")
    await rig.host.start()
    await rig.settle()
    table = rig.host.by_chat[("telegram", str(GROUP))]
    m = table.match
    while not (m.phase == "playing" and m.to_act() == [0] and not m.public_view().get("trick")
               and "BJ" in m.view(0)["hand"]):
        assert 0 in m.to_act() and m.public_view()["tricks_played"] < 6
        await rig.handled(fake.send_text(ANN, ANN, typed(m.auto_action(0))))
    return table


async def test_the_second_of_two_results_is_not_played_after_the_ais_end_the_trick(tmp_path: Path) -> None:
    """The finding as it happened: Ann chooses 大王 and ♦3 from one answer, both reach the bot at
    once, the three AIs follow 大王 at once and Ann leads the next trick: ♦3 is not that lead."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await ann_and_three_ais(rig)
        m = table.match
        qid = fake.inline_query(ANN, "")
        await until(lambda: qid in fake.inline_answers)
        results = fake.inline_answers[qid]["results"]
        big = next(r for r in results if r["title"] == card_text("BJ"))
        low = next(r for r in reversed(results) if " " not in r["title"] and r["title"] != card_text("BJ"))
        version = m.version
        await rig.handled(fake.choose_inline(ANN, qid, big["id"], GROUP), fake.choose_inline(ANN, qid, low["id"], GROUP))
        assert [a.to_json() for a in m.actions[version:] if getattr(a, "seat", None) == 0] == [
            {"t": "play", "seat": 0, "cards": ["BJ"]}]
        assert m.to_act() == [0] and not m.public_view().get("trick")  # 大王 took it: her lead, not yet made
        assert told(rig, ANN, "err.old_turn") == 1
        assert rig.errors == []


async def test_two_results_chosen_at_once_play_the_first_only(tmp_path: Path) -> None:
    """Both choices reach the bot before it has played the first: the second is out of date."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=SEED)
        seat = await to_play(rig, table)
        uid, m = PEOPLE[seat], table.match
        qid = fake.inline_query(uid, "")
        await until(lambda: qid in fake.inline_answers)
        first, second = fake.inline_answers[qid]["results"][:2]
        version = m.version
        await rig.handled(fake.choose_inline(uid, qid, first["id"], GROUP),
                          fake.choose_inline(uid, qid, second["id"], GROUP))
        assert m.version == version + 1
        assert told(rig, uid, "err.old_turn") == 1
        assert rig.errors == []


async def test_a_play_typed_twice_in_a_row_is_played_once(tmp_path: Path) -> None:
    """A typed line is bound to the turn it reaches the bot in: a second play typed right after the
    first is refused with a reason (it is not her turn any more), and is not played at her next turn."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=SEED)
        seat = await to_play(rig, table)
        uid, m = PEOPLE[seat], table.match
        hand = list(m.view(seat)["hand"])
        version = m.version
        await rig.handled(fake.send_text(uid, uid, "play BJ"), fake.send_text(uid, uid, f"play {hand[-1]}"))
        assert m.version == version + 1 and m.actions[version].to_json()["cards"] == ["BJ"]
        assert told(rig, uid, "err.old_turn") + told(rig, uid, "refuse.not_your_turn") == 1
        while int(m.public_view()["turn"]) != seat:  # the others follow; 大王 takes the trick
            s = int(m.public_view()["turn"])
            await rig.handled(fake.send_text(PEOPLE[s], PEOPLE[s], typed(m.auto_action(s))))
        assert m.version == version + 4 and hand[-1] in m.view(seat)["hand"]  # her lead waits for her
        assert rig.errors == []


async def test_a_refused_choice_is_corrected_in_the_group_where_it_was_posted(tmp_path: Path) -> None:
    """Finding 2: Ann's client posts "Ann: ♦3" in the group when she chooses it. The bot refuses it (it
    was chosen for the turn she just played), so the group is told it was not played and its table is
    drawn at once, mid-trick, showing 大王 on the table and who plays now; the reason goes to Ann alone."""
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS) as rig:
        fake = rig.fake
        table = await seated(rig, seed=SEED)
        seat = await to_play(rig, table)
        uid, m = PEOPLE[seat], table.match
        qid = fake.inline_query(uid, "")
        await until(lambda: qid in fake.inline_answers)
        results = fake.inline_answers[qid]["results"]
        big = next(r for r in results if r["title"] == card_text("BJ"))
        low = next(r for r in reversed(results) if " " not in r["title"] and r["title"] != card_text("BJ"))
        await rig.handled(fake.choose_inline(uid, qid, big["id"], GROUP))
        table_mid = int(table.messages["table"])
        edits = fake.messages[(GROUP, table_mid)].edits
        await rig.handled(fake.choose_inline(uid, qid, low["id"], GROUP))
        assert told(rig, uid, "err.old_turn") == 1
        lang = table.lang
        who = seat_label(seat, table.seats.infos(), lang)
        group = [msg.text for msg in fake.chat_messages(GROUP)]
        assert tr(lang, "inline.not_played", who=who, cards=low["title"]) in group, group
        shown = fake.messages[(GROUP, table_mid)]
        assert shown.edits == edits + 1 and card_text("BJ") in shown.text
        nxt = seat_label((seat + 1) % 4, table.seats.infos(), lang)
        assert nxt in shown.text.rsplit("\n", 1)[-1]  # whose turn it is now
        assert m.public_view()["turn"] == (seat + 1) % 4
        assert rig.errors == [] and fake.rejected_429 == 0
