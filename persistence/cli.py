"""`tractor-host db ...`: backup, export and check the database.

The command (`app.db`) calls `db_main(ARGS, rebuild=...)`; `rebuild` replays
one stored match (the engine's replay), so persistence itself knows no rules.
The database is `--db PATH` (a SQLite file or a postgresql:// URL), else
$TRACTOR_DATABASE_URL, else $TRACTOR_DB, else ./data/tractor.sqlite3. On
PostgreSQL `check` and `export` work the same; `backup` names pg_dump, the tool
made for a consistent copy of a live PostgreSQL database.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from persistence.migrate import MigrationError
from persistence.paths import database_target
from persistence.postgres import PostgresStore, redact
from persistence.replay import Rebuild, replay_one
from persistence.store import BROKEN, SqliteStore, StoredMatch

#: The "format" field of an exported match log.
EXPORT_FORMAT = "tractor-host.match-log"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tractor-host db", description="Back up, export and check the tractor-host database."
    )
    db_help = ("database file or postgresql:// URL"
               " (default: $TRACTOR_DATABASE_URL, $TRACTOR_DB or ./data/tractor.sqlite3)")
    parser.add_argument("--db", help=db_help)
    # --db is taken after the command too (`tractor-host db check --db FILE`); SUPPRESS keeps
    # an absent one from overwriting the one given before the command.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help=db_help, default=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    backup = sub.add_parser(
        "backup", parents=[common], help="copy the live database to PATH (safe while the bot runs)"
    )
    backup.add_argument("path", metavar="PATH", help="the copy; with --keep, the folder the dated copies go to")
    backup.add_argument("--keep", type=int, metavar="N",
                        help="write tractor-<UTC time>.sqlite3 into the folder PATH and delete all but the newest N")
    export = sub.add_parser("export", parents=[common], help="print one match's log as replayable JSON")
    export.add_argument("match", metavar="MATCH", type=int, help="match id")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    sub.add_parser("check", parents=[common], help="integrity check, then replay every unfinished match")
    return parser


async def db_main(argv: list[str], *, rebuild: Rebuild[object]) -> int:
    """Run one `db` command; returns the process exit code (0 ok, 1 problems found, 2 usage)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage or --help
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    try:
        target = database_target(args.db)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    store: SqliteStore | PostgresStore
    if isinstance(target, str):
        if args.command == "backup":
            print(
                f"a PostgreSQL database is backed up with pg_dump, not here: pg_dump --format=custom"
                f" --file={args.path} '{redact(target)}' (or continuous archiving, or a replica)",
                file=sys.stderr,
            )
            return 1
        try:
            store = await PostgresStore.open(target, max_size=2)
        except (OSError, asyncpg.PostgresError, MigrationError) as exc:
            print(f"cannot open {redact(target)}: {exc}", file=sys.stderr)
            return 1
    else:
        path = target
        if not path.exists():
            print(f"no database at {path} (set --db, TRACTOR_DATABASE_URL or TRACTOR_DB)", file=sys.stderr)
            return 1
        try:
            store = await SqliteStore.open(path, migrate_schema=args.command != "backup")
        except (sqlite3.DatabaseError, MigrationError) as exc:
            print(f"cannot open {path}: {exc}", file=sys.stderr)
            return 1
    try:
        if args.command == "backup":
            assert isinstance(store, SqliteStore)
            if args.keep is not None:
                return await _rotated_backup(store, Path(args.path), args.keep)
            return await _backup(store, Path(args.path))
        if args.command == "export":
            return await _export(store, args.match, args.output)
        return await _check(store, rebuild)
    finally:
        await store.close()


async def _backup(store: SqliteStore, target: Path) -> int:
    try:
        await store.backup(target)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"backup failed: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {store.path} to {target} ({target.stat().st_size} bytes)")
    return 0


#: The name of a dated backup (`backup --keep`): sorting the names sorts them by time.
ROTATED = "tractor-{stamp}.sqlite3"


async def _rotated_backup(store: SqliteStore, folder: Path, keep: int) -> int:
    """A dated copy in `folder`, then the oldest dated copies beyond `keep` deleted (scheduled
    backups: a timer runs this, the folder holds the last `keep`)."""
    if keep < 1:
        print("--keep must be at least 1", file=sys.stderr)
        return 2
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    code = await _backup(store, folder / ROTATED.format(stamp=stamp))
    if code != 0:
        return code
    copies = sorted(folder.glob(ROTATED.format(stamp="*")))
    for old in copies[:-keep]:
        old.unlink()
        print(f"deleted the older backup {old}")
    return 0


def export_document(stored: StoredMatch) -> dict[str, Any]:
    """A match as self-contained, replayable JSON: rules, seed, seats and the action log."""
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "format_version": 1,
        "match_id": stored.id,
        "platform": stored.platform,
        "chat_id": stored.chat_id,
        "status": stored.status,
        "created_at": stored.created_at,
        "finished_at": stored.finished_at,
        "rules": stored.rules,
        "seed": stored.seed,
        "seats": stored.seats,
        "meta": stored.meta,
        "result": stored.result,
        "version": stored.version,
        "actions": stored.actions,
    }
    if stored.error:
        document["error"] = stored.error
    return document


async def _export(store: SqliteStore | PostgresStore, match_id: int, output: str | None) -> int:
    stored = await store.get_match(match_id)
    if stored is None:
        print(f"no match with id {match_id}", file=sys.stderr)
        return 1
    document = export_document(stored)
    if stored.error:
        # Damaged: add every row as stored, so the damage can be seen (and mended by hand).
        rows = await store.fetchall(
            "SELECT seq, action FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
        )
        document["raw_actions"] = [{"seq": seq, "text": text} for seq, text in rows]
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    if output:
        Path(output).write_text(text, encoding="utf-8")
        print(f"match {match_id}: {len(stored.actions)} actions written to {output}")
    else:
        sys.stdout.write(text)
    if stored.error:
        print(f"warning: the log is damaged, exported what is readable: {stored.error}", file=sys.stderr)
        return 1
    return 0


async def _check(store: SqliteStore | PostgresStore, rebuild: Rebuild[object]) -> int:
    problems = await store.integrity_check()
    if problems:
        print("integrity: FAILED")
        for line in problems[:20]:
            print(f"  {line}")
    else:
        print("integrity: ok")
    matches = await store.load_unfinished(include_broken=True)
    broken: list[tuple[int, str]] = []
    recovered: list[int] = []
    for stored in matches:
        try:
            replay_one(stored, rebuild)
        except Exception as exc:
            broken.append((stored.id, str(exc)))
        else:
            if stored.status == BROKEN:
                recovered.append(stored.id)
    print(
        f"unfinished matches: {len(matches)}, replayed: {len(matches) - len(broken)}, broken: {len(broken)}"
    )
    for match_id, reason in broken:
        print(f"  {reason}  (see: tractor-host db export {match_id})")
    for match_id in recovered:
        print(f"  match {match_id} is set aside as broken but replays now")
    return 1 if problems or broken else 0
