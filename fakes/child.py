"""A Python module of ours run as a child process, the way the crash and failover runs kill bots.

The crash run (`fakes.crash`), the failover run (`fakes.failover`) and the web cluster
(`fakes.web_cluster`) each start a child (`python -m fakes.…`), wait for its ``ready`` line,
keep every line it prints, and SIGKILL it at a moment of their choosing. They did this
alike in three copies; here it is once, and each names only its module and arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class ChildProcess:
    """One child process: started from `argv()`, its stdout kept line by line in `output`."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.output: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    def argv(self) -> list[str]:
        """The module to run and its arguments (after ``python -m``)."""
        raise NotImplementedError

    async def start(self, *, wait_ready: bool = True) -> None:
        """Start the child; with `wait_ready`, wait (60 s at most) for its ``ready`` line and keep reading.

        Without `wait_ready` the caller may kill it before it is up, which is a moment a crash run wants.
        """
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", *self.argv(), cwd=ROOT, stdout=asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None
        if not wait_ready:
            return
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line == b"ready\n", line
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for line in self.proc.stdout:
            self.output.append(line.decode().rstrip())

    async def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send `sig` (SIGKILL unless told) and wait until the child is gone and its output read."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)
        await self.proc.wait()
        if self._reader is not None:
            await self._reader

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None
