"""`tractor-host`: run the bots, play in the terminal, simulate AI matches, manage the database."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import inspect
import logging
import os
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from bot.storage import db_path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tractor-host", description="80分 (Tractor) for group chats")
    sub = p.add_subparsers(dest="cmd")
    run = sub.add_parser("run", help="Telegram/Discord when a token is set, else the terminal table")
    run.add_argument("--db", default=None)
    run.add_argument("--new", action="store_true", help="terminal table: abandon an unfinished match, start anew")
    run.add_argument("options", nargs="*", help="terminal table: rule or table options, key=value")
    con = sub.add_parser("console", help="play against three AI players in the terminal")
    con.add_argument("--resume", action="store_true", help="go on with the last unfinished match (the default)")
    con.add_argument("--new", action="store_true", help="abandon an unfinished match and start a new one")
    con.add_argument("--db", default=None)
    con.add_argument("--lang", default=os.environ.get("TRACTOR_LANG"))
    con.add_argument("--preset", default="classic")
    con.add_argument("options", nargs="*", help="rule or table options, key=value")
    sim = sub.add_parser("simulate", help="AI-only matches through the whole host")
    sim.add_argument("--matches", type=int, default=4)
    sim.add_argument("--preset", default="classic")
    sim.add_argument("--db", default=None, help="SQLite file (default: a temporary one)")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--level", default="basic")
    sim.add_argument("--sync", default="NORMAL", choices=["FULL", "NORMAL", "OFF"],
                     help="SQLite synchronous mode (FULL fsyncs every action)")
    sim.add_argument("options", nargs="*", help="rule options, key=value (e.g. target=5)")
    db = sub.add_parser("db", help="database tools (persistence.cli)")
    db.add_argument("args", nargs=argparse.REMAINDER)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=os.environ.get("TRACTOR_LOG", "WARNING"))
    cmd = args.cmd or "run"
    try:
        if cmd == "db":
            return _db(args.args)
        if cmd == "simulate":
            from bot.simulate import simulate

            summary = asyncio.run(simulate(matches=args.matches, preset=args.preset, db=args.db, seed=args.seed,
                                           level=args.level, options=args.options, synchronous=args.sync))
            print(summary.text())
            return 0 if summary.finished == args.matches else 1
        if cmd == "console":
            return _console(args.db, args.new, args.lang, args.preset, args.options)
        return asyncio.run(_run(getattr(args, "db", None), getattr(args, "new", False), getattr(args, "options", [])))
    except KeyboardInterrupt:
        return 130


def _console(db: str | None, fresh: bool, lang: str | None, preset: str, options: list[str]) -> int:
    from adapters.console.app import run_console

    try:
        return asyncio.run(run_console(db=db_path(db), fresh=fresh, inp=sys.stdin, out=sys.stdout, lang=lang,
                                       preset=preset, options=options, again=_again(db)))
    except KeyboardInterrupt:
        return 130  # the table said how to go on with it


def _again(db: str | None) -> str:
    """The command that goes on with this terminal match, as it can be typed here (`make run` from make)."""
    if os.environ.get("MAKELEVEL") and db is None:
        return "make run"
    prog = sys.argv[0] if sys.argv and sys.argv[0] else "tractor-host"
    if prog.endswith(".py"):
        prog = f"{shlex.quote(os.path.relpath(sys.executable))} -m bot.cli"
    elif os.sep in prog:
        prog = shlex.quote(os.path.relpath(prog))
    return f"{prog} console" + (f" --db {shlex.quote(db)}" if db else "")


def _db(argv: list[str]) -> int:
    try:
        mod = importlib.import_module("persistence.cli")
    except ImportError:
        print("persistence.cli is not installed", file=sys.stderr)
        return 2
    rc = mod.db_main(argv)
    if inspect.isawaitable(rc):
        rc = asyncio.run(_await(rc))
    return int(rc or 0)


async def _await(aw: Any) -> Any:
    return await aw


async def _run(db: str | None, fresh: bool = False, options: Sequence[str] = ()) -> int:
    """Starts every platform with a token; with none, the terminal table."""
    have_tg = bool(os.environ.get("TELEGRAM_BOT_TOKEN"))
    have_dc = bool(os.environ.get("DISCORD_BOT_TOKEN"))
    if not have_tg and not have_dc:
        from adapters.console.app import run_console

        return await run_console(db=db_path(db), fresh=fresh, inp=sys.stdin, out=sys.stdout,
                                 lang=os.environ.get("TRACTOR_LANG"), options=list(options), again=_again(db))
    from bot import collector
    from bot.host import Host
    from bot.storage import open_store

    store = await open_store(db)
    host = Host(store)
    started: list[Any] = []
    try:
        telegram = None
        if have_tg:
            tg = importlib.import_module("adapters.telegram.run")
            telegram = tg.from_env(host)
            host.register(telegram.platform)
            await telegram.connect()
        discord_runner = None
        if have_dc:
            dc = importlib.import_module("adapters.discord.run")
            cfg = importlib.import_module("adapters.discord.config").DiscordConfig.from_env()
            discord_runner = dc.DiscordRunner(host, cfg)  # registers its platform on the host
        await host.start()
        collector.tune()  # after resuming: what is loaded now stays for the process's life
        if telegram is not None:
            await telegram.listen()
            started.append(telegram)
        if discord_runner is not None:
            await discord_runner.start()
            started.append(discord_runner)
        await asyncio.Event().wait()
    finally:
        for runner in started:
            with contextlib.suppress(Exception):
                await runner.stop()
        await host.stop()
        await store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
