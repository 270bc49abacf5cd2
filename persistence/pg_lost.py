"""Which PostgreSQL errors mean the connection or the server went away (`lost`): the store and
the cluster link try those again, or report them as `StoreDown`, instead of as a wrong request."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import asyncpg

from persistence.errors import StoreDown

P = ParamSpec("P")
T = TypeVar("T")


def lost(exc: BaseException) -> bool:
    """Whether `exc` says the connection or the server went away (worth another attempt on a new
    connection), rather than that the request itself is wrong.

    Besides refused and dropped connections and the server's shutdown and start-up refusals, that
    is asyncpg's `InternalClientError` ("cannot switch to state 15; another operation (2) is in
    progress"): a session the server terminated in the middle of a transaction leaves its
    protocol in the error-consuming state, and the ROLLBACK (or the pool's reset) that follows
    trips over it. The pool then terminates that connection; the next attempt gets a fresh one.

    asyncpg's InterfaceError "another operation is in progress" is not: it means two tasks used one
    connection at once, a fault in our code, which a retry would hide."""
    if isinstance(exc, asyncpg.QueryCanceledError):
        return False  # a statement timeout or our own cancel: not the server going away
    if isinstance(exc, (asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError,
                        asyncpg.TooManyConnectionsError, asyncpg.InternalClientError, OSError, TimeoutError)):
        return True
    if isinstance(exc, asyncpg.InterfaceError):
        text = str(exc)
        return "closed" in text or "connection" in text
    return False


def down_when_lost(what: str) -> Callable[[Callable[P, Coroutine[Any, Any, T]]], Callable[P, Coroutine[Any, Any, T]]]:
    """A call that raises StoreDown (one line, naming `what`) where a lost connection would raise
    asyncpg's own error: its callers tell an outage from a fault without knowing asyncpg."""

    def wrap(call: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
        @functools.wraps(call)
        async def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
            try:
                return await call(*args, **kwargs)
            except BaseException as exc:
                if lost(exc):
                    raise StoreDown(f"{what}: the database went away ({type(exc).__name__}: {exc})") from None
                raise

        return guarded

    return wrap
