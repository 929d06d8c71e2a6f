"""`arena tournament` killed by SIGKILL resumes without losing or replaying a game."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from clients.tournament.display import BAR_WIDTH
from clients.tournament.runner import RunSettings, TournamentRunner
from clients.tournament.store import Store
from tests.timing import UNIT, wait_until

ROOT = Path(__file__).resolve().parents[3]
GAMES = 4


def _cli(tmp_path: Path, *extra: str, quiet: bool = True) -> list[str]:
    return [
        sys.executable,
        "-m",
        "clients",
        "tournament",
        "--game",
        "connect4",
        "--engine",
        "name=quick,url=local,movetime=10",
        "--engine",
        "name=slow,url=local",
        "--movetime",
        "40",
        "--games",
        str(GAMES),
        "--random-plies",
        "2",
        "--db",
        str(tmp_path / "t.db"),
        "--local-workers",
        "1",
        *(["--quiet"] if quiet else []),
        *extra,
    ]


def _finished(db: Path) -> dict[int, str]:
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(db, timeout=5 * UNIT) as connection:
            rows = connection.execute("SELECT id, record FROM games WHERE done = 1").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return {}
    return dict(rows)


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def test_resume_after_kill(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    db = tmp_path / "t.db"
    process = subprocess.Popen(
        _cli(tmp_path), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )

    def a_game_finished() -> bool:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        return len(_finished(db)) >= 1

    try:
        wait_until(a_game_finished, 60 * UNIT, "the first game to finish")
        servers = _children(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait(10 * UNIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    before = _finished(db)
    assert 1 <= len(before) < GAMES
    # the local server the tournament started goes away with it
    wait_until(
        lambda: not any(_alive(pid) for pid in servers), 15 * UNIT, "the local server to exit"
    )

    done = subprocess.run(
        _cli(tmp_path, "--resume", quiet=False),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120 * UNIT,
    )
    assert done.returncode == 0, done.stderr
    assert f"{GAMES} of {GAMES} games played" in done.stdout
    # Its status line counts the games played before from the start (a
    # teacher's review of 2026-12-07: "0/12" with 6 played, until the first
    # new game ended).
    counts = [int(n) for n in re.findall(rf"\] (\d+)/{GAMES} \|", done.stdout)]
    assert counts and counts[0] == len(before) + 1, done.stdout
    store = Store.open(db)
    try:
        runner = TournamentRunner(store, RunSettings(quiet=True))
        assert runner.progress.status_line().startswith(f"[{'#' * BAR_WIDTH}] {GAMES}/{GAMES}")
    finally:
        store.close()
    after = _finished(db)
    assert sorted(after) == list(range(1, GAMES + 1))
    assert all(after[game_id] == record for game_id, record in before.items())  # not replayed
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["game_id"] for line in lines) == list(range(1, GAMES + 1))
    assert {json.loads(line)["game_id"]: line for line in lines} == after

    # resuming a finished tournament plays nothing and prints the same tables
    again = subprocess.run(
        _cli(tmp_path, "--resume"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60 * UNIT,
    )
    assert again.returncode == 0 and _finished(db) == after
    assert again.stdout.split("Standings")[1] == done.stdout.split("Standings")[1]
