"""The flood gate's arithmetic, on a clock the test moves by hand."""

from __future__ import annotations

import asyncio

from adapters.telegram.config import FloodLimits
from adapters.telegram.flood import FloodGate

GROUP, OTHER_GROUP, PERSON = -100, -200, 42


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def gate(**limits: float) -> tuple[FloodGate, Clock]:
    clock = Clock()
    return FloodGate(FloodLimits(**limits), clock), clock  # type: ignore[arg-type]


def send_all(g: FloodGate, chat: int, n: int, *, edit: bool = False) -> int:
    """How many of n messages may go now."""
    sent = 0
    for _ in range(n):
        if g.delay(chat, edit=edit) > 0:
            break
        g.take(chat)
        sent += 1
    return sent


def test_a_chat_gets_a_short_burst_then_one_a_second() -> None:
    g, clock = gate()
    assert send_all(g, PERSON, 5) == 2
    assert 0.99 < g.delay(PERSON) <= 1.01
    clock.now += 1.0
    assert send_all(g, PERSON, 5) == 1
    assert send_all(g, OTHER_GROUP, 5) == 2  # another chat has its own bucket


def test_a_group_gets_nineteen_a_minute_and_edits_leave_room() -> None:
    g, clock = gate(chat_burst=100, chat_per_second=100.0)
    assert send_all(g, GROUP, 30, edit=True) == 14
    assert send_all(g, GROUP, 30) == 5  # announcements still fit
    assert g.delay(GROUP) > 59.0
    clock.now += 60.0
    assert send_all(g, GROUP, 30) == 19


def test_thirty_a_second_overall_and_retry_after() -> None:
    g, clock = gate(global_per_second=25)
    total = sum(send_all(g, -1000 - i, 3) for i in range(20))
    assert total == 25
    clock.now += 1.0
    g.hold(PERSON, 7)
    assert 6.9 < g.delay(PERSON) <= 7.01


def test_the_clock_scale_shrinks_every_window() -> None:
    g, clock = gate(scale=0.01, chat_burst=100, chat_per_second=100.0)
    assert send_all(g, GROUP, 30) == 19
    assert 0.59 < g.delay(GROUP) <= 0.61
    clock.now += 0.6
    assert send_all(g, GROUP, 1) == 1


def test_a_message_counts_from_when_its_answer_came_back() -> None:
    """Telegram counts a message when it arrives, which may be well after it left: a burst
    answered half a second late keeps its place in the window until half a second later."""
    g, clock = gate(global_per_second=25)
    stamps = [g.take(-1000 - i) for i in range(25)]
    assert g.delay(PERSON) > 0
    clock.now = 0.5
    for s in stamps:
        g.arrived(s)  # the burst's answers came back over half a second
    clock.now = 1.0  # counting from the hand-over, 25 more would fit now and overlap the first burst
    assert 0.49 < g.delay(PERSON) <= 0.51
    clock.now = 1.5
    assert g.delay(PERSON) == 0
    assert send_all(g, PERSON, 1) == 1


def test_a_group_window_also_counts_from_the_answer() -> None:
    g, clock = gate(chat_burst=100, chat_per_second=100.0)
    stamps = [g.take(GROUP) for _ in range(19)]
    clock.now = 2.0
    for s in stamps:
        g.arrived(s)
    clock.now = 60.5
    assert 1.49 < g.delay(GROUP) <= 1.51  # the first one now leaves the minute at 62 s


def test_group_edits_leave_room_in_the_second_for_sends_and_private_hands() -> None:
    """Under pressure a table edit waits (and coalesces with the next) while a player's own hand
    and announcements still go out."""
    g, _ = gate(global_per_second=25, global_edits_per_second=20, global_group_edits_per_second=18)
    edits = sum(send_all(g, -1000 - i, 1, edit=True) for i in range(30))
    assert edits == 18
    assert g.delay(-2000, edit=True) > 0
    assert send_all(g, PERSON, 2, edit=True) == 2  # private hand edits
    assert g.delay(PERSON + 1, edit=True) > 0
    assert send_all(g, -2000, 2) == 2  # announcements in a group
    assert sum(send_all(g, PERSON + k, 1) for k in range(1, 5)) == 3  # turn notices
    assert g.delay(-3000) > 0  # and then the second is full for everyone


def test_new_messages_keep_a_share_of_the_second_that_edits_cannot_take() -> None:
    """Issue 29, tables per token: hand edits of many players fill the bot's second, and the next
    player's turn notice (a new message, which cannot coalesce) still goes out at once."""
    g, _ = gate(global_per_second=25, global_edits_per_second=20)
    edits = sum(send_all(g, 5000 + i, 2, edit=True) for i in range(40))
    assert edits == 20
    assert sum(send_all(g, 9000 + i, 1) for i in range(10)) == 5  # notices to five people


async def test_edits_take_the_bots_second_in_the_order_they_began_to_wait() -> None:
    """Issue 29, tables per token: the group's table may use less of the bot's second than a private
    hand (18 of 25, against 20), so while hands kept the second past 18, a table's edit waited for
    good: at 100 tables the groups' tables were not redrawn in the 90 s measured. Edits now take
    the second in the order they began to wait for it. The waiters sleep for real (a Telegram second
    is 10 ms here) on the clock the test moves: one message leaves the second at each step."""
    g, clock = gate(scale=0.01)
    second = 0.01
    for k in range(20):  # the second full for edits, one message a step apart
        clock.now = k * second / 100
        g.take(PERSON + 100 + k)
    order: list[int] = []

    async def edit(chat: int) -> None:
        await g.acquire(chat, edit=True)
        order.append(chat)

    table = asyncio.create_task(edit(GROUP))
    await asyncio.sleep(0.005)
    hands = [asyncio.create_task(edit(PERSON + k)) for k in range(3)]
    await asyncio.sleep(0.005)
    for k in range(4):  # the oldest messages leave the second one by one
        clock.now = second + k * second / 100 + second / 200
        await asyncio.sleep(0.03)
    await asyncio.wait_for(table, 5)
    assert order[0] == GROUP, order  # before: a hand took the first place freed, and every one after
    clock.now += 2 * second
    await asyncio.wait_for(asyncio.gather(*hands), 5)
