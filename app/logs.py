"""How the process logs: plain lines at a terminal, or one JSON object a line for a log pipeline,
and never a secret in either.

`TRACTOR_LOG` sets the level (WARNING by default); `TRACTOR_LOG_FORMAT=json` makes every record
a JSON object with its time, level, logger, message and the worker's name, so that the lines of
several workers can be gathered in one place and searched by field.

Why redaction sits here, on the finished line. The secrets reach log lines from places the bot
does not write: PTB logs the Bot API URL it was given (the Telegram token is part of the path) and
puts the token in its `InvalidToken` message, a traceback shows the
arguments a library formatted into its message, an asyncpg error may quote a DSN. Scrubbing each
call site would miss the next library's. Every handler's formatter is wrapped instead
(`Redacting`), so whatever a record became (text, JSON, a traceback, a warning routed through
logging) is scrubbed of the known secrets (the tokens, the web and webhook secrets, database
passwords) and of anything shaped like one (a URL's password, a Bot API path, a Telegram or
Discord token) before it is written.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import quote, unquote, urlsplit

from pythonjsonlogger.json import JsonFormatter

from bot.cluster import worker_name

#: Environment variables whose whole value is a secret.
SECRET_VARIABLES = ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "TRACTOR_WEB_SECRET", "TELEGRAM_WEBHOOK_SECRET",
                    "PGPASSWORD")
#: Environment variables that may hold a URL with a password in it.
URL_VARIABLES = ("TRACTOR_DATABASE_URL", "TRACTOR_DB", "DATABASE_URL")
#: A known secret shorter than this is left to the patterns (replacing every "ab" would garble the logs).
SHORTEST = 6
MASK = "***"


def _masked(match: re.Match[str]) -> str:
    """What replaces a match: its `keep` group, if any, then the mask (a function, not a template:
    a template is compiled at first use, which fails in the lines logged while Python shuts down)."""
    return (match.groupdict().get("keep") or "") + MASK


_PATTERNS = tuple(re.compile(p) for p in (
    # scheme://user:password@host: the password
    r"(?P<keep>[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)[^\s@/]+(?=@)",
    # a Bot API path: .../bot<token>/method, .../file/bot<token>/...
    r"(?P<keep>/bot)\d+(?::|%3A)[^/\s\"'<>]+",
    # a Telegram token anywhere: digits, a colon, 30 or more token characters
    r"\b\d{5,}:[A-Za-z0-9_-]{30,}",
    # a Discord token: three base64url parts, the first a user id
    r"\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}",
    # an Authorization header's credentials
    r"(?P<keep>(?:Bot|Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}",
))


class Redactor:
    """Knows the process's secrets; `scrub` returns a text without them."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._known: re.Pattern[str] | None = None
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        """More secrets to hide: each as written and as it looks inside a URL."""
        for s in secrets:
            s = s.strip()
            if len(s) >= SHORTEST:
                self._secrets |= {s, quote(s, safe=""), quote(s, safe=":")}
        if self._secrets:  # longest first, so a secret containing another is hidden whole
            self._known = re.compile("|".join(re.escape(s) for s in sorted(self._secrets, key=len, reverse=True)))

    def scrub(self, text: str) -> str:
        if self._known is not None:
            text = self._known.sub(_masked, text)
        for pattern in _PATTERNS:
            text = pattern.sub(_masked, text)
        return text


def secrets_of(env: Mapping[str, str], argv: Iterable[str] = ()) -> list[str]:
    """The secrets this process may hold: the secret variables' values and every password of a URL
    given in the environment or on the command line (`--db postgresql://user:pw@...`)."""
    found = [env.get(name, "") for name in SECRET_VARIABLES]
    for value in [*(env.get(name, "") for name in URL_VARIABLES), *argv]:
        if "://" in value:
            try:
                password = urlsplit(value.strip()).password
            except ValueError:
                password = None
            if password:
                found += [password, unquote(password)]
    return [s for s in found if s]


#: The process's redactor; `configure` fills it, tests may add to it.
REDACTOR = Redactor()


class Redacting(logging.Formatter):
    """Wraps a handler's formatter: the finished line (message, traceback, stack) without secrets."""

    def __init__(self, inner: logging.Formatter | None, redactor: Redactor = REDACTOR) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter(logging.BASIC_FORMAT)
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.scrub(self.inner.format(record))


def guard(handler: logging.Handler, redactor: Redactor = REDACTOR) -> None:
    """Makes `handler` write only scrubbed lines (again is harmless)."""
    if not isinstance(handler.formatter, Redacting):
        handler.setFormatter(Redacting(handler.formatter, redactor))


def guard_all(redactor: Redactor = REDACTOR) -> None:
    """Every handler of every logger known now, and Python's last-resort handler."""
    loggers: list[logging.Logger] = [logging.getLogger()]
    loggers += [lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    for lg in loggers:
        for handler in lg.handlers:
            guard(handler, redactor)
    if logging.lastResort is not None:
        guard(logging.lastResort, redactor)


def configure(argv: Iterable[str] = ()) -> None:
    """Sets up logging for the process: level, format, the redactor on every handler, Python's
    warnings and uncaught exceptions (the main thread's and any other's) routed through it.
    `argv`: the command line, whose database URL may carry a password."""
    REDACTOR.add(*secrets_of(os.environ, argv))
    level = os.environ.get("TRACTOR_LOG", "WARNING").upper()
    if os.environ.get("TRACTOR_LOG_FORMAT", "").lower() != "json":
        logging.basicConfig(level=level)
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter(
            "{levelname}{name}{message}", style="{", rename_fields={"levelname": "level", "name": "logger"},
            static_fields={"worker": worker_name()}, timestamp=True,
        ))
        logging.basicConfig(level=level, handlers=[handler], force=True)
    quiet_libraries(level)
    logging.captureWarnings(True)  # a library's warning goes through the scrubbed handlers too
    guard_all()
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_thread_uncaught


def quiet_libraries(level: str) -> None:
    """asyncpg's pool warns with a traceback at every attempt to reconnect while the database
    restarts; the store's own one-line warning and its "reachable again" say the same."""
    if logging.getLevelName(level) != logging.DEBUG:
        logging.getLogger("asyncpg.pool").setLevel(logging.ERROR)


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: object) -> None:
    logging.getLogger("tractor").critical("uncaught exception", exc_info=(kind, exc, tb))  # type: ignore[arg-type]


def _log_thread_uncaught(args: threading.ExceptHookArgs) -> None:
    """A thread's uncaught exception (an AI's, a library's): Python would print it to stderr
    unscrubbed; it goes through the scrubbed handlers instead."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    logging.getLogger("tractor").error("uncaught exception in thread %s", name,
                                       exc_info=(args.exc_type, args.exc_value, args.exc_traceback))  # type: ignore[arg-type]
