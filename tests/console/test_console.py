"""The terminal table, driven from a script (stdin is not a terminal)."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.console import play_console
from persistence.memory import MemoryStore
from tests.console.terminal import at_a_terminal

ROOT = Path(__file__).resolve().parents[2]


async def test_scripted_session_plays_a_whole_match() -> None:
    store = MemoryStore()
    script = "help\nnonsense here\nplay ZZ\nhint\ntable\n" + "auto\n" * 3000
    out = io.StringIO()
    code = await play_console(resume=False, inp=io.StringIO(script), out=out, lang="en",
                             options=["target=3"], store=store, seed=5)
    text = out.getvalue()
    assert code == 0
    assert "How to play" in text and "sj / bj" in text  # help (the terminal's own, see issue 16.7)
    assert "I did not understand that" in text and "Not a card I know: ZZ" in text
    assert "Suggestion:" in text
    assert "🏆" in text
    [match] = store.matches.values()
    assert match.status == "finished" and match.result is not None
    assert "Saved." not in text


async def test_end_of_input_saves_and_resume_goes_on() -> None:
    store = MemoryStore()
    out = io.StringIO()
    await play_console(resume=False, inp=io.StringIO("auto\n" * 40), out=out, lang="en",
                      options=["target=5"], store=store, seed=3)
    [match] = store.matches.values()
    assert match.status == "active" and len(match.actions) > 40
    assert "Saved. To go on with this match: make run" in out.getvalue()
    done = len(match.actions)
    out2 = io.StringIO()
    await play_console(resume=True, inp=io.StringIO("auto\n" * 40), out=out2, lang="en", store=store)
    assert len(store.matches) == 1
    assert len(store.matches[match.id].actions) > done
    assert "No unfinished" not in out2.getvalue() and "80 Points" in out2.getvalue()


async def test_resume_with_nothing_to_resume_starts_a_new_match() -> None:
    store = MemoryStore()
    out = io.StringIO()
    await play_console(resume=True, inp=io.StringIO("quit\n"), out=out, lang="zh", store=store)
    assert "没有未完成的终端比赛" in out.getvalue()
    assert len(store.matches) == 1


async def test_bad_preset_option_is_refused() -> None:
    out = io.StringIO()
    code = await play_console(resume=False, inp=io.StringIO(""), out=out, lang="en",
                             options=["target=banana"], store=MemoryStore())
    assert code == 2 and "Bad option" in out.getvalue()


def _matches(db: Path) -> list[tuple[int, str, int]]:
    with sqlite3.connect(db) as conn:
        return [tuple(r) for r in conn.execute("SELECT id, status, version FROM matches ORDER BY id")]


def test_cli_console_from_a_pipe(tmp_path: Path) -> None:
    """The real entry point, stdin a pipe: plays, stops at end of input, resumes from the same file."""
    db = tmp_path / "t.sqlite3"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "app.cli", "console", "--db", str(db), "--lang", "en"]
    first = subprocess.run(base, input="auto\n" * 10, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "80 Points" in first.stdout and "Your hand" in first.stdout and "Saved." in first.stdout
    [(mid, status, version)] = _matches(db)
    assert status == "active" and version > 10
    resumed = subprocess.run([*base, "--resume"], input="table\n" + "auto\n" * 10, capture_output=True, text=True,
                             cwd=ROOT, env=env, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "No unfinished" not in resumed.stdout and "80 Points" in resumed.stdout
    [(mid2, status2, version2)] = _matches(db)
    assert (mid2, status2) == (mid, "active") and version2 > version


def test_run_without_tokens_opens_the_terminal_table(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN")}
    env.update(PYTHONPATH=str(ROOT), TRACTOR_DB=str(tmp_path / "run.sqlite3"), TRACTOR_LANG="zh")
    done = subprocess.run([sys.executable, "-m", "app.cli", "run"], input="help\nquit\n", capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "80分" in done.stdout and "你的手牌" in done.stdout and "玩法" in done.stdout  # the terminal's help
    assert _matches(tmp_path / "run.sqlite3")


def test_ctrl_c_saves_and_exits_while_waiting_for_input(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "console", "--db", str(db), "--lang", "en"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env, preexec_fn=at_a_terminal)
    assert proc.stdout is not None and proc.stdin is not None
    seen = ""
    while "> " not in seen:  # wait for the first prompt (the input pipe stays open)
        chunk = proc.stdout.read(1)
        assert chunk, proc.stderr.read() if proc.stderr else ""
        seen += chunk
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert f"Saved. To go on with this match: {os.path.relpath(sys.executable)} -m app.cli console --db {db}" \
        in seen + rest
    [(_, status, _)] = _matches(db)
    assert status == "active"


async def test_lang_at_the_terminal_switches_table_and_hand() -> None:
    store = MemoryStore()
    out = io.StringIO()
    await play_console(resume=False, inp=io.StringIO("lang en\ntable\nhand\nquit\n"), out=out, lang="zh",
                      options=["target=3"], store=store, seed=5)
    text = out.getvalue()
    after = text[text.index("lang en"):] if "lang en" in text else text[len(text) // 2:]
    assert "Your hand" in after or "your hand" in after.lower()
    assert "你的手牌" not in after
