"""How the process logs: plain lines at a terminal, or one JSON object a line for a log pipeline.

`TRACTOR_LOG` sets the level (WARNING by default); `TRACTOR_LOG_FORMAT=json` makes every record
a JSON object with its time, level, logger, message and the worker's name, so that the lines of
several workers can be gathered in one place and searched by field.
"""

from __future__ import annotations

import logging
import os
import sys

from pythonjsonlogger.json import JsonFormatter

from bot.cluster import worker_name


def configure() -> None:
    level = os.environ.get("TRACTOR_LOG", "WARNING")
    if os.environ.get("TRACTOR_LOG_FORMAT", "").lower() != "json":
        logging.basicConfig(level=level)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(
        "{levelname}{name}{message}", style="{", rename_fields={"levelname": "level", "name": "logger"},
        static_fields={"worker": worker_name()}, timestamp=True,
    ))
    logging.basicConfig(level=level, handlers=[handler], force=True)
