"""A search process reads the games' shared data before it reports ready."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_worker_reads_the_game_data_before_its_first_think() -> None:
    # A suite run beside a CPU hog (2026-12-08): once the engine stopped
    # reading backgammon's network and bear-off tables at import, a worker's
    # first backgammon think paid for them, and its 300 ms completed no
    # iteration. The worker now makes one game of each kind before "ready".
    script = textwrap.dedent(
        """
        from engine.games.backgammon_bearoff import shipped_tables
        from engine.games.backgammon_net import shipped_network
        from server.runtime.worker import _read_game_data

        print(shipped_tables.cache_info().currsize, shipped_network.cache_info().currsize)
        _read_game_data()
        print(shipped_tables.cache_info().currsize, shipped_network.cache_info().currsize)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["0 0", "1 1"]
