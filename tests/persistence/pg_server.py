"""A throwaway PostgreSQL server for tests and measurements: initdb and pg_ctl in a temporary folder.

PostgreSQL refuses to run as root, so under root the server runs as `nobody`.
Run as a script (`python -m tests.persistence.pg_server`) it starts one with
fsync on, prints its URL and keeps it until Ctrl-C (for `benchmarks.store_bench --postgres`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def find_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), or None when it is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:  # Debian's layout, the newest version
        return Path(found[-1]).parent
    for name in ("initdb", "pg_ctl", "createdb"):
        if shutil.which(name) is None:
            return None
    return Path(str(shutil.which("initdb"))).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_names = itertools.count()


@dataclass
class PgServer:
    bin: Path
    folder: Path
    port: int
    user: str | None  # the system user the server runs as, when we are root

    @property
    def url(self) -> str:
        return f"postgresql://tractor@127.0.0.1:{self.port}/postgres"

    def url_for(self, database: str) -> str:
        return f"postgresql://tractor@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database (a synchronous call, so sync fixtures can use it); its URL."""
        name = f"t{os.getpid()}_{next(_names)}"
        subprocess.run([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "tractor", name],
                       check=True, capture_output=True, text=True)
        return self.url_for(name)

    def _run(self, *args: str) -> None:
        kwargs: dict[str, object] = {}
        if self.user:
            kwargs["user"] = self.user
        subprocess.run(args, check=True, capture_output=True, text=True, cwd=self.folder, **kwargs)  # type: ignore[call-overload]

    def restart(self) -> None:
        """Stops the server as an operator's restart does (fast: sessions are ended, transactions
        rolled back) and starts it again on the same port and data; returns once it accepts."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-l", str(self.folder / "log"),
                  "-m", "fast", "-w", "-t", "30", "restart")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, OSError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def start(*, fsync: bool = False) -> PgServer:
    """Start a fresh server on a free loopback port (trust authentication, superuser "tractor").

    fsync off (the default, for tests) keeps every commit in memory; measurements turn it on.

    :raises RuntimeError: PostgreSQL is not installed, or it would not start (with its log).
    """
    bin_dir = find_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (no initdb; apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="tractor-pg-"))
    user = None
    if os.geteuid() == 0:
        user = "nobody"
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    server = PgServer(bin_dir, folder, _free_port(), user)
    data = folder / "data"
    try:
        server._run(str(bin_dir / "initdb"), "-D", str(data), "-U", "tractor", "-A", "trust",
                    "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        options = (f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1"
                   f" -c fsync={'on' if fsync else 'off'} -c max_connections=200")
        if not fsync:
            options += " -c full_page_writes=off -c synchronous_commit=off"
        server._run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-t", "30",
                    "-o", options, "start")
    except subprocess.CalledProcessError as exc:
        log = (folder / "log").read_text(errors="replace") if (folder / "log").exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr or exc}\n{log[-2000:]}") from exc
    return server


def _serve() -> None:
    def stop(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    srv = start(fsync="--no-fsync" not in sys.argv)
    print(srv.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


if __name__ == "__main__":
    _serve()
