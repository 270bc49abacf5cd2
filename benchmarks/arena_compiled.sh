#!/usr/bin/env bash
# The arena on a mypyc build of the AI's playout path, for runs of hundreds of deals on few cores.
# The budget is turned into a number of playouts by a cost model, not read from the clock, so the
# compiled build takes the same decisions as the pure-Python engine, about twice as fast; the
# action digests in --out files show it (docs/ai.md). The build lives in build/arena-compiled.
# Usage: benchmarks/arena_compiled.sh --a strong --b basic --deals 400 --seed 41 --jobs 2 --out f.jsonl
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/arena-compiled"
hot=(engine/ai/policy.py engine/ai/rollout.py engine/ai/sampling.py engine/ai/search.py engine/ai/race.py
     engine/ai/infer.py engine/ai/value.py engine/ai/basic.py engine/ai/options.py engine/ai/seen.py
     engine/ai/bidding.py engine/ai/burying.py engine/play.py engine/combos.py engine/order.py
     engine/cards.py engine/scoring.py)
stamp="$build/.source"
source_id="$(cd "$root" && cat engine/*.py engine/ai/*.py | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$source_id" ]; then
    rm -rf "$build" && mkdir -p "$build"
    cp -r "$root/engine" "$build/engine"
    # mypyc builds with setuptools in the build folder (no pyproject there: the project's is not a build spec for it)
    (cd "$build" && "$root/.venv/bin/mypyc" "${hot[@]}" >mypyc.log 2>&1) || { cat "$build/mypyc.log"; exit 1; }
    echo "$source_id" >"$stamp"
fi
cd "$build" && PYTHONPATH="$build" exec "$root/.venv/bin/python" -m engine.arena "$@"
