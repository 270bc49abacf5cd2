"""The README stays a page for the people who use the bot, and no link in it or in docs/ points nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    start = text.index("## Quick start")
    quick = text[start:text.index("\n## ", start + 1)]
    assert "make run\n" in quick and "make test\n" in quick


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: {target}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_measurement_diaries(page: Path) -> None:
    text = page.read_text(encoding="utf-8").lower()
    for phrase in ("this round", "before this round", "tried and dropped"):
        assert phrase not in text, f"{page.name}: {phrase}"


BUILT = (".pot", ".mo")  # written by make, not committed
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:app|adapters|bot|engine|persistence|fakes|benchmarks|tests|docs)/[\w./*-]*)")


def _repo_paths(text: str) -> set[str]:
    """The repo paths named in backticks outside code blocks; `path::name` counts as its path."""
    out = set()
    for span in SPAN.findall(FENCE.sub("", text)):
        for found in REPO_PATH.findall(span.split("::")[0]):
            out.add(found.rstrip("./"))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_named_path_exists(page: Path) -> None:
    """A page that names a file moved or split away sends the reader nowhere."""
    missing = [p for p in sorted(_repo_paths(page.read_text(encoding="utf-8")))
               if not p.endswith(BUILT) and not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())]
    assert not missing, f"{page.name}: {missing}"
