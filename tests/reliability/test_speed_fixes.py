"""Fixes the load benchmarks found, each pinned by a test."""

from __future__ import annotations

import importlib.util
import sys

import adapters.telegram.run  # noqa: F401  (records a missing sniffio at import)


def test_a_missing_sniffio_is_looked_up_once() -> None:
    # httpcore imports sniffio on every request; without it installed, each failed import
    # searched sys.path again. After the adapter is imported it fails at once, or works.
    if importlib.util.find_spec("sniffio") is not None and sys.modules.get("sniffio") is not None:
        return  # installed: nothing to do
    assert "sniffio" in sys.modules and sys.modules["sniffio"] is None
    try:
        import sniffio  # noqa: F401
    except ImportError:
        pass
    else:  # pragma: no cover
        raise AssertionError("sniffio should read as missing")
