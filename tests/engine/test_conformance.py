"""The public conformance cases, run through the real command as the checker does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"
CHECKER = Path(__file__).resolve().parents[1] / "conformance" / "check.py"


@pytest.mark.slow(6)
def test_checker_passes_every_public_case() -> None:
    proc = subprocess.run(
        [sys.executable, str(CHECKER), "--cmd", f"{sys.executable} -m engine.conformance", str(CASES)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert proc.stdout.strip().splitlines()[-1].endswith(" 0 failed")


@pytest.mark.parametrize(
    "case",
    [
        {"kind": "trick", "rules": "classic", "hands": [["XX"], [], [], []]},
        {"kind": "score", "rules": "nonesuch", "defender_points": 0},
        {"kind": "trick", "rules": "classic", "hands": [["AS", "AS", "AS"], [], [], []]},
        {"kind": "mystery"},
    ],
)
def test_malformed_case_exits_2(tmp_path: Path, case: dict[str, object]) -> None:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    proc = subprocess.run([sys.executable, "-m", "engine.conformance", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("error:")
