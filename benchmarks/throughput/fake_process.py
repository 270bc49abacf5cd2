"""The fake Bot API server in a child process pinned to its own cores, driven over a pipe.

So the bot's figures are the bot's own cost: the fake's CPU is spent elsewhere
and reported apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from typing import Any

from benchmarks.throughput.common import add_people, choose_result
from bot.intents import codec
from fakes.telegram_api import FakeTelegram, Limits


def _fake_child(conn: Any, cores: set[int] | None, limits_scale: float | None = None, events: Any = None) -> None:
    """The fake Bot API server in its own process, answering the parent over a pipe. Limits are
    off unless `limits_scale` (Telegram's limits on that clock); `events` carries
    (update key, number of results) to the parent when the bot answers an inline query a person
    asked through a "push" command."""
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(_fake_serve(conn, limits_scale, events))


def _shown_version(call: Any) -> int:
    """The version in the tokens of a table message's buttons (-1 when it has none)."""
    markup = call.params.get("reply_markup")
    if not isinstance(markup, dict):
        return -1
    for row in markup.get("inline_keyboard", []):
        for b in row:
            data = b.get("callback_data")
            if isinstance(data, str):
                try:
                    return codec.parse(data)[0].version
                except codec.BadToken:
                    continue
    return -1


async def _fake_serve(conn: Any, limits_scale: float | None = None, events: Any = None) -> None:
    fake = FakeTelegram(limits=Limits(scale=limits_scale) if limits_scale is not None else None)
    await fake.start()
    loop = asyncio.get_running_loop()
    conn.send((fake.token, fake.api_root))
    cpu0 = time.process_time()
    query_of: dict[int, str] = {}  # the parent's key of an inline query -> its query id here
    key_of: dict[str, int] = {}
    answer = fake._api_answerInlineQuery

    async def answer_and_tell(params: dict[str, Any]) -> Any:
        res = await answer(params)
        key = key_of.pop(str(params.get("inline_query_id", "")), None)
        if key is not None and events is not None:
            events.send((key, len(params.get("results") or [])))
        return res

    fake._api_answerInlineQuery = answer_and_tell  # type: ignore[method-assign]
    while True:
        cmd, arg = await loop.run_in_executor(None, conn.recv)
        if cmd == "push":  # the people's updates; no answer
            for op in arg:
                if op[0] == "text":
                    fake.send_text(*op[2:])
                elif op[0] == "iq":
                    qid = fake.inline_query(op[2], "")
                    query_of[op[1]], key_of[qid] = qid, op[1]
                elif op[0] == "choose":
                    _, _, uid, key, want, group = op
                    choose_result(fake, uid, query_of.pop(key), want, group)
        elif cmd == "groups":
            for g in arg:
                fake.add_group(g)
            conn.send(None)
        elif cmd == "people":
            add_people(fake, arg)
            conn.send(None)
        elif cmd == "ncalls":
            conn.send(len(fake.calls))
        elif cmd == "rejected":
            conn.send(fake.rejected_429)
        elif cmd == "cpu":
            conn.send(time.process_time() - cpu0)
        elif cmd == "calls":  # (method, chat id, at, status, version shown) of every call since arg
            conn.send([(c.method, int(c.params.get("chat_id", 0) or 0), c.at, c.status, _shown_version(c))
                       for c in fake.calls[arg:]])
        elif cmd == "stop":
            await fake.stop()
            conn.send(None)
            return


class RemoteFake:
    """What `boot` needs of the fake: its token and address."""

    def __init__(self, token: str, api_root: str) -> None:
        self.token, self.api_root = token, api_root


class FakeProcess:
    """The fake server in a child process (`_fake_child`), with its control pipe (`ask`) and,
    for people, the pipe on which it reports inline answers (`events`)."""

    def __init__(self, proc: Any, conn: Any, events: Any) -> None:
        self.proc, self.conn, self.events = proc, conn, events
        self.token = self.api_root = ""

    @classmethod
    async def start(cls, cores: set[int] | None, limits_scale: float | None) -> FakeProcess:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        ev_recv, ev_send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_fake_child, args=(child, cores, limits_scale, ev_send), daemon=True)
        proc.start()
        self = cls(proc, parent, ev_recv)
        self.token, self.api_root = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
        return self

    async def ask(self, cmd: str, arg: Any = None) -> Any:
        self.conn.send((cmd, arg))
        return await asyncio.get_running_loop().run_in_executor(None, self.conn.recv)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.ask("stop")
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
