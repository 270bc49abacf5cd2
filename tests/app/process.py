"""`tractor-host run` as its own process, the way an operator (or a supervisor) runs it.

The tests of what an operator sees (secrets in logs, start-up errors, SIGTERM) need the real
command: its logging set up as `main` sets it up, its exit status, everything it writes to
stdout and stderr. `RunProcess` keeps every line as it comes and wakes waiters at each line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Settings of the environment the test process may carry, which a child must not inherit.
OURS = ("TELEGRAM_", "DISCORD_", "TRACTOR_", "PG")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RunProcess:
    """One `python -m app.cli <args>` with its own environment; `lines` holds stdout and stderr."""

    def __init__(self, env: Mapping[str, str], args: Sequence[str] = ("run",), *, stdin: str | None = None) -> None:
        base = {k: v for k, v in os.environ.items() if not k.startswith(OURS)}
        self.env = {**base, **env}
        self.args = list(args)
        self.stdin = stdin  # written to the process's input, then closed (None: no input at all)
        self.proc: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._changed = asyncio.Event()
        self._readers: list[asyncio.Task[None]] = []

    async def start(self) -> RunProcess:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app.cli", *self.args, cwd=ROOT, env=self.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            stdin=asyncio.subprocess.DEVNULL if self.stdin is None else asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        if self.proc.stdin is not None and self.stdin is not None:
            self.proc.stdin.write(self.stdin.encode())
            self.proc.stdin.close()
        self._readers = [asyncio.create_task(self._read(self.proc.stdout, self.stdout)),
                         asyncio.create_task(self._read(self.proc.stderr, self.stderr))]
        return self

    async def _read(self, stream: asyncio.StreamReader, into: list[str]) -> None:
        async for raw in stream:
            line = raw.decode(errors="replace").rstrip("\n")
            into.append(line)
            self.lines.append(line)
            self._changed.set()
        self._changed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    async def wait_line(self, found: Callable[[str], bool], timeout: float = 30.0) -> str:
        """The first line (so far or to come) for which `found` holds."""
        seen = 0
        async with asyncio.timeout(timeout):
            while True:
                for line in self.lines[seen:]:
                    if found(line):
                        return line
                seen = len(self.lines)
                if self.proc is not None and self.proc.returncode is not None and all(r.done() for r in self._readers):
                    raise AssertionError(f"the process ended without such a line:\n{self.text[-3000:]}")
                self._changed.clear()
                await self._changed.wait()

    async def exited(self, timeout: float = 30.0) -> int:
        """Its exit status, once it ended and everything it wrote was read."""
        assert self.proc is not None
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        await asyncio.wait_for(asyncio.gather(*self._readers), timeout)
        return code

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)
        return await self.exited(timeout)

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        for reader in self._readers:
            reader.cancel()
