"""`tractor-host`: run the bots, play in the terminal, simulate AI matches, manage the database.

Each command imports only what it runs: the chat platforms' clients (python-telegram-bot,
discord.py, aiohttp) are half of a start's CPU, and the terminal table and the database tools
never use them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from collections.abc import Sequence

from adapters.discord.config import DiscordConfig
from adapters.telegram.config import TelegramConfig
from app import logs
from app.store import StoreUnavailable, open_store
from bot.platform import CredentialsRefused
from bot.settings import AI_LEVELS
from engine import PRESETS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tractor-host", description="80分 (Tractor) for group chats")
    sub = p.add_subparsers(dest="cmd")
    run = sub.add_parser("run", help="Telegram/Discord when a token is set, else the terminal table")
    con = sub.add_parser("console", help="play against three AI players in the terminal")
    for table in (run, con):  # `make run` with no token is the terminal table: the same options
        table.add_argument("--db", default=None)
        table.add_argument("--resume", action="store_true",
                           help="terminal table: go on with your unfinished match (the default)")
        table.add_argument("--new", action="store_true", help="terminal table: abandon an unfinished match, start anew")
        table.add_argument("--lang", default=os.environ.get("TRACTOR_LANG"), choices=LANG_CHOICES,
                           help="terminal table: zh, zht (繁體) or en; default from TRACTOR_LANG or the locale")
        table.add_argument("--preset", default="classic", type=_preset,
                           help=f"terminal table: the rules of a new match, one of {', '.join(sorted(PRESETS))}")
        table.add_argument("--daily", action="store_true",
                           help="terminal table: today's daily board (an unfinished one goes on), with three AIs")
        table.add_argument("options", nargs="*", help="terminal table: rule or table options, key=value")
    sim = sub.add_parser("simulate", help="AI-only matches through the whole host")
    sim.add_argument("--matches", type=int, default=4)
    sim.add_argument("--preset", default="classic", type=_preset,
                     help=f"the rules, one of {', '.join(sorted(PRESETS))}")
    sim.add_argument("--db", default=None, help="SQLite file (default: a temporary one)")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--level", default="basic", choices=AI_LEVELS, help="the AI players' level")
    sim.add_argument("--sync", default="NORMAL", choices=["FULL", "NORMAL", "OFF"],
                     help="SQLite synchronous mode (FULL fsyncs every action)")
    sim.add_argument("--league", action="store_true",
                     help="a league in one chat: people drawn four a match, playing by typing (not AIs)")
    sim.add_argument("--people", type=int, default=8, help="with --league: how many people")
    sim.add_argument("options", nargs="*", help="rule options, key=value (e.g. target=5)")
    # main() hands its words to its own parser (persistence.cli), which lists the subcommands
    db = sub.add_parser("db", help="database tools: backup, export, check")
    db.add_argument("args", nargs=argparse.REMAINDER)
    return p


LANG_CHOICES = ("zh", "zht", "zh-Hant", "en")


def _preset(name: str) -> str:
    """A preset's name, or an error that lists them all."""
    if name not in PRESETS:
        raise argparse.ArgumentTypeError(f"no preset {name!r}; the presets are {', '.join(sorted(PRESETS))}")
    return name


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point."""
    words = list(sys.argv[1:] if argv is None else argv)
    logs.configure(words)
    if words[:1] == ["db"]:  # its own parser reads the rest, --help included (it lists the subcommands)
        from app.db import db_command
        try:
            return asyncio.run(db_command(words[1:]))
        except StoreUnavailable as exc:
            print(f"tractor-host: {logs.REDACTOR.scrub(str(exc))}", file=sys.stderr)
            return 1
    args = build_parser().parse_args(words)
    cmd = args.cmd or "run"
    try:
        if cmd == "db":
            from app.db import db_command
            return asyncio.run(db_command(args.args))
        if cmd == "simulate":
            from app.simulate import simulate, simulate_league
        if cmd == "simulate" and args.league:
            league = asyncio.run(simulate_league(matches=args.matches, people=args.people, preset=args.preset,
                                                 db=args.db, seed=args.seed, options=args.options,
                                                 synchronous=args.sync))
            print(league.text())
            return 0 if league.finished == args.matches else 1
        if cmd == "simulate":
            summary = asyncio.run(simulate(matches=args.matches, preset=args.preset, db=args.db, seed=args.seed,
                                           level=args.level, options=args.options, synchronous=args.sync))
            print(summary.text())
            return 0 if summary.finished == args.matches else 1
        if cmd == "run" and (TelegramConfig.from_env() is not None or DiscordConfig.from_env() is not None):
            from app.run import run_bots
            return asyncio.run(run_bots(args.db))
        # `run` with no token is the terminal table, as `console` is
        db = getattr(args, "db", None)
        return asyncio.run(_console(db, getattr(args, "new", False), getattr(args, "lang", None),
                                    getattr(args, "preset", "classic"), getattr(args, "options", []),
                                    getattr(args, "daily", False)))
    except KeyboardInterrupt:
        return 130  # the terminal table said how to go on with it
    except CredentialsRefused as exc:  # no restart helps: a supervisor should not try (exit status 2)
        print(f"tractor-host: {logs.REDACTOR.scrub(str(exc))}", file=sys.stderr)
        return 2
    except StoreUnavailable as exc:
        print(f"tractor-host: {logs.REDACTOR.scrub(str(exc))}", file=sys.stderr)
        return 1


async def _console(db: str | None, fresh: bool, lang: str | None, preset: str, options: list[str],
                   daily: bool = False) -> int:
    from app.console import play_console
    store = await open_store(db)
    try:
        return await play_console(store, fresh=fresh, inp=sys.stdin, out=sys.stdout, lang=lang,
                                  preset=preset, options=options, again=_again(db), daily=daily)
    finally:
        await store.close()


def _again(db: str | None) -> str:
    """The command that goes on with this terminal match, as it can be typed here (`make run` from make)."""
    if os.environ.get("MAKELEVEL") and db is None:
        return "make run"
    prog = sys.argv[0] if sys.argv and sys.argv[0] else "tractor-host"
    if prog.endswith(".py"):
        prog = f"{shlex.quote(os.path.relpath(sys.executable))} -m app.cli"
    elif os.sep in prog:
        prog = shlex.quote(os.path.relpath(prog))
    return f"{prog} console" + (f" --db {shlex.quote(db)}" if db else "")


if __name__ == "__main__":
    sys.exit(main())
