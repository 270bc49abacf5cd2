"""What docs/operating.md tells an operator to install and run: the systemd units point to real
commands and stop the bot the way it stops cleanly; the scheduled backup keeps the newest N; the
restore drill restores the newest backup into a fresh file or database and checks it.

The backup and drill run the shipped scripts (`deploy/`) as processes with `tractor-host` on the
PATH, as the timer runs them (real time: a few processes, each a second or so).
"""

from __future__ import annotations

import asyncio
import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from adapters.telegram.run import DRAIN_ON_STOP
from app.cli import build_parser
from persistence import SqliteStore
from persistence.postgres import PostgresStore
from tests.persistence import engine_play
from tests.persistence.conftest import pg_server, pg_url
from tests.persistence.pg_server import PgServer

__all__ = ["pg_server", "pg_url"]

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
#: Where the units expect the checkout (the docs say to put it there).
INSTALLED = "/opt/tractor-host"


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are case-sensitive
    parser.read_string((DEPLOY / name).read_text())
    return parser


def in_checkout(path: str) -> Path:
    """A path of the installed checkout, as a path of this one."""
    assert path.startswith(INSTALLED + "/"), path
    return ROOT / path[len(INSTALLED) + 1:]


def test_the_service_runs_the_command_and_stops_it_cleanly() -> None:
    service = unit("tractor-host.service")["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[0] == f"{INSTALLED}/.venv/bin/tractor-host"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tractor-host"] == "app.cli:main"  # the console script the venv installs
    assert build_parser().parse_args(command[1:]).cmd == "run"
    assert service["KillSignal"] == "SIGTERM"  # what hands the tables over at once
    assert float(service["TimeoutStopSec"]) > DRAIN_ON_STOP + 10  # the drain fits before SIGKILL
    assert service["RestartPreventExitStatus"] == "2"  # a refused token: tractor-host exits with 2
    assert service["Restart"] == "on-failure"
    assert service["EnvironmentFile"] == "/etc/tractor-host/env"
    assert in_checkout(f"{INSTALLED}/docs/operating.md").exists()
    assert unit("tractor-host.service")["Install"]["WantedBy"] == "multi-user.target"


def test_the_backup_timer_runs_the_backup_script() -> None:
    service = unit("tractor-backup.service")["Service"]
    assert service["Type"] == "oneshot"
    command = shlex.split(service["ExecStart"])
    script = in_checkout(command[0])
    assert script.exists() and os.access(script, os.X_OK)
    assert int(command[2]) >= 1  # how many backups it keeps
    timer = unit("tractor-backup.timer")
    assert timer["Timer"]["OnCalendar"] and timer["Timer"]["Persistent"] == "true"
    assert timer["Install"]["WantedBy"] == "timers.target"


def test_the_guide_makes_every_folder_the_units_may_write() -> None:
    """systemd refuses to start a unit (status 226/NAMESPACE) whose ReadWritePaths does not
    exist, and `make install` makes no data/ folder: the guide's commands must make each one."""
    guide = (ROOT / "docs" / "operating.md").read_text()
    commands = [line for block in re.findall(r"```\n(.*?)```", guide, re.S) for line in block.splitlines()]
    made = {word for line in commands if re.search(r"\b(mkdir -p|install -d)\b", line)
            for word in shlex.split(line.split("#")[0]) if word.startswith("/")}
    for name in ("tractor-host.service", "tractor-backup.service"):
        for folder in unit(name)["Service"]["ReadWritePaths"].split():
            assert folder.lstrip("-") in made, f"{name}: nothing in docs/operating.md makes {folder}"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_reads_the_units_without_a_complaint(tmp_path: Path) -> None:
    """Pointed at this checkout in place of /opt/tractor-host, each unit passes `systemd-analyze
    verify`: every key known, every value readable, every command there and executable."""
    for name in ("tractor-host.service", "tractor-backup.service", "tractor-backup.timer"):
        (tmp_path / name).write_text((DEPLOY / name).read_text().replace(INSTALLED, str(ROOT)))
    for name in ("tractor-host.service", "tractor-backup.service", "tractor-backup.timer"):
        done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp_path / name)],
                              capture_output=True, text=True, check=False, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


def script(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", ""), os.environ.get("PATH", "")])
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TRACTOR_", "PG"))}
    return subprocess.run([str(DEPLOY / name), *args], capture_output=True, text=True, cwd=ROOT,
                          env={**base, **env, "PATH": path}, check=False, timeout=120)


async def _a_match_in_progress(store: SqliteStore | PostgresStore) -> int:
    rules = engine_play.rules_dict()
    seats = [{"kind": "human", "user_id": str(i), "name": f"P{i}"} for i in range(4)]
    match_id = await store.create_match("telegram", "-7", rules, seats, 11, {"preset": "classic"})
    for seq, action in enumerate(engine_play.play(rules, 11, 60)):
        await store.append_action(match_id, seq, action, f"k{seq}")
    return match_id


async def test_sqlite_backups_keep_the_newest_and_the_drill_restores_one(tmp_path: Path) -> None:
    db, folder = tmp_path / "live.sqlite3", tmp_path / "backups"
    store = await SqliteStore.open(db)
    try:
        await _a_match_in_progress(store)
        env = {"TRACTOR_DB": str(db)}
        for _ in range(3):  # three nights, keeping two
            done = await asyncio.to_thread(script, "backup.sh", str(folder), "2", env=env)
            assert done.returncode == 0, done.stderr
    finally:
        await store.close()
    kept = sorted(folder.glob("tractor-*.sqlite3"))
    assert len(kept) == 2 and "deleted the older backup" in done.stdout
    drill = await asyncio.to_thread(script, "restore-drill.sh", str(folder), str(tmp_path / "drill.sqlite3"), env={})
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert f"restoring {kept[-1]}" in drill.stdout
    assert "integrity: ok" in drill.stdout and "replayed: 1" in drill.stdout


async def test_postgres_backups_and_the_drill_into_a_fresh_database(pg_server: PgServer, tmp_path: Path) -> None:
    url, scratch = pg_server.new_database(), pg_server.new_database()
    store = await PostgresStore.open(url)
    try:
        await _a_match_in_progress(store)
    finally:
        await store.close()
    folder = tmp_path / "backups"
    env = {"TRACTOR_DATABASE_URL": url, "PATH": str(pg_server.bin)}
    for _ in range(2):
        done = await asyncio.to_thread(script, "backup.sh", str(folder), "1", env=env)
        assert done.returncode == 0, done.stderr
    assert len(list(folder.glob("tractor-*.dump"))) == 1
    drill = await asyncio.to_thread(script, "restore-drill.sh", str(folder), scratch, env={"PATH": str(pg_server.bin)})
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert "integrity: ok" in drill.stdout and "replayed: 1" in drill.stdout
