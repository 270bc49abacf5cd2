"""A Python module of ours run as a child process, the way the crash and failover runs kill bots.

The crash run (`fakes.crash`), the failover run (`fakes.failover`) and the web cluster
(`fakes.web_cluster`) each start a child (`python -m fakes.…`), wait for its ``ready`` line,
keep every line it prints, and SIGKILL it at a moment of their choosing. They did this
alike in three copies; here it is once, and each names only its module and arguments.

A child is a process of its own, killed by the operating system, but it is not a new Python:
it is forked from a server process that imported the children's modules once (multiprocessing's
forkserver) and runs its module as `python -m` would (`runpy`). A new interpreter spent most of
a second importing the bot before it was up, at every restart of every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import os
import runpy
import signal
import sys
import warnings
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PR_SET_PDEATHSIG = 1  # Linux's prctl: a signal for this process when its parent dies
#: What the fork server imports once, for every child started after it.
PRELOAD = ["fakes.bot_child", "fakes.worker_child", "fakes.web_worker_child", "tests.persistence.crash_child"]


def _run_module(module: str, args: list[str], out: Connection) -> None:
    """In the child: stdout is the pipe to the parent, then the module runs as `python -m module args`."""
    with contextlib.suppress(OSError, AttributeError):  # dies with the fork server, which ends with its test run
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.dup2(out.fileno(), 1)
    out.close()
    os.chdir(ROOT)
    sys.argv = [module, *args]
    # the module was imported by the fork server: running it again as __main__ is what we want
    warnings.filterwarnings("ignore", message=".*found in sys.modules after import of package", category=RuntimeWarning)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


class Forked:
    """A child forked from the fork server: what the callers used of asyncio's subprocess."""

    def __init__(self, proc: Any, stdout: asyncio.StreamReader) -> None:
        self._proc = proc
        self.pid: int = proc.pid
        self.stdout = stdout

    @property
    def returncode(self) -> int | None:
        """None while it runs; then its exit status, or minus the signal that ended it."""
        return self._proc.exitcode  # type: ignore[no-any-return]

    def send_signal(self, sig: int) -> None:
        if self._proc.exitcode is None:
            os.kill(self.pid, sig)

    async def wait(self) -> int:
        """Until the process is gone (its sentinel is readable), without holding up the loop."""
        if self._proc.exitcode is None:
            loop = asyncio.get_running_loop()
            gone = loop.create_future()
            loop.add_reader(self._proc.sentinel, lambda: gone.done() or gone.set_result(None))
            try:
                await gone
            finally:
                loop.remove_reader(self._proc.sentinel)
        self._proc.join()
        return int(self._proc.exitcode)


async def start_module(module: str, args: list[str]) -> Forked:
    """Runs `python -m module args` in a child forked from the fork server; its stdout is a stream."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    read_end, write_end = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_run_module, args=(module, args, write_end), daemon=False)
    proc.start()
    write_end.close()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    pipe = os.fdopen(os.dup(read_end.fileno()), "rb", buffering=0)
    read_end.close()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    return Forked(proc, reader)


class ChildProcess:
    """One child process: started from `argv()`, its stdout kept line by line in `output`."""

    def __init__(self) -> None:
        self.proc: Forked | None = None
        self.output: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    def argv(self) -> list[str]:
        """The module to run and its arguments (after ``python -m``)."""
        raise NotImplementedError

    async def start(self, *, wait_ready: bool = True) -> None:
        """Start the child; with `wait_ready`, wait (60 s at most) for its ``ready`` line and keep reading.

        Without `wait_ready` the caller may kill it before it is up, which is a moment a crash run wants.
        """
        module, *args = self.argv()
        self.proc = await start_module(module, args)
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
