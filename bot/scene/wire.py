"""A scene as JSON, for a door that draws it elsewhere (the web page): the same fields, the same names.

Tuples become lists, a set of indices a sorted list, phases their strings; nothing is added or
left out, so a frame shows exactly what the scene holds (and, like the scene, no card its reader
may not know).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def scene_json(value: object) -> Json:
    """A scene value of any kind (a `Scene`, a `TableScene`, a `HandScene`, ...) as JSON values."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return value
    if isinstance(value, tuple | list):
        return [scene_json(v) for v in value]
    if isinstance(value, frozenset | set):
        return [scene_json(v) for v in sorted(value)]
    if is_dataclass(value) and not isinstance(value, type):
        return {name: scene_json(getattr(value, name)) for name in _names(type(value))}
    raise TypeError(f"not a scene value: {type(value).__name__}")
