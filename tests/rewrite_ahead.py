"""Writes pytest's assertion-rewritten bytecode of every test module once, before the parallel run.

pytest rewrites the asserts of each test module and conftest before compiling it, and keeps the
result in `__pycache__` under its own name, which `compileall` does not write. On a fresh clone each
of the parallel workers would do it for every module at the same moment: about 3.4 s of CPU each
(docs/testing.md). Here it is done once, spread over the cores, with pytest's own rewriter and
writer, so that a worker finds the same file it would have written. Best effort, through pytest's
private functions: a module it cannot do (or a pytest that renamed them) is left to the workers, as
before. `make pytest` runs it.
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent


def _one(path: str) -> bool:
    try:
        return _rewrite(Path(path))
    except Exception:  # this module is the workers' to rewrite, as before; the others go on
        return False


def _rewrite(fn: Path) -> bool:
    from _pytest.assertion import rewrite

    pyc = rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)
    if rewrite._read_pyc(fn, pyc) is not None:
        return True  # already there, and up to date with its source
    source_hash, code = rewrite._rewrite_test(fn, None)  # no config: pytest's defaults
    if not rewrite.try_makedirs(pyc.parent):
        return False
    quiet = SimpleNamespace(trace=lambda _message: None)  # what _write_pyc reads of pytest's assertion state
    return bool(rewrite._write_pyc(quiet, code, source_hash, pyc))


def main() -> int:
    files = sorted({str(p) for pattern in ("test_*.py", "*_test.py", "conftest.py") for p in ROOT.rglob(pattern)})
    try:
        with ProcessPoolExecutor() as pool:
            done = sum(pool.map(_one, files, chunksize=8))
    except Exception as exc:  # the workers rewrite what is not done here
        print(f"tests/rewrite_ahead.py: left to pytest ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 0
    if done < len(files):
        print(f"tests/rewrite_ahead.py: {len(files) - done} of {len(files)} modules left to pytest", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
