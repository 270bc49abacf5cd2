"""What a child process started by these tests gets from a real terminal.

A shell runs a background job with SIGINT ignored, and a child inherits that: a test run launched
that way would see Ctrl-C do nothing. At a terminal Ctrl-C always interrupts, so the children the
Ctrl-C tests start put SIGINT back to its default before Python starts (Python then installs its
KeyboardInterrupt handler as usual).
"""

from __future__ import annotations

import signal


def at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
