"""Garbage-collector settings for a long-running host.

With 500 tables in memory, CPython's default thresholds ran a full collection every few
seconds under load: each one paused the event loop for up to 0.2 s (every table and every
message waited), and all collections together took 7% of the bot's time. Almost nothing the
host keeps forms reference cycles, so most of that work freed nothing.
"""

from __future__ import annotations

import gc
import logging
import os

log = logging.getLogger(__name__)

# Container allocations (net of frees) between young collections; young collections per
# middle one; middle ones before a full one may run (CPython's defaults: 700, 10, 10).
THRESHOLDS = (20_000, 20, 20)


def tune() -> None:
    """Moves what start-up built (modules, resumed tables) out of the collector's way and makes
    collections rarer. Called once the host has started. TRACTOR_GC=default keeps CPython's
    settings; TRACTOR_GC=a,b,c sets other thresholds."""
    spec = os.environ.get("TRACTOR_GC", "").strip()
    if spec == "default":
        return
    thresholds = THRESHOLDS
    if spec:
        try:
            a, b, c = (int(x) for x in spec.split(","))
            thresholds = (a, b, c)
        except ValueError:
            log.warning("TRACTOR_GC=%r is not 'default' or three integers; using %s", spec, THRESHOLDS)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
