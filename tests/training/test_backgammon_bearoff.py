"""The bear-off tables against GNU Backgammon's own, and the script that builds them."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from bench.programs import find_program
from engine.games.backgammon_bearoff import all_boards, load_tables, shipped_tables
from training import backgammon_bearoff
from training.backgammon_distill import label
from training.backgammon_td import equity

GNUBG = find_program("gnubg")


@pytest.mark.skipif(GNUBG is None, reason="gnubg not installed (apt-get install gnubg)")
def test_the_tables_give_gnubgs_own_bear_off_equities() -> None:
    # gnubg's 0-ply values a position with both sides home by its one-sided
    # bear-off database, built on the same two approximations; ours are
    # computed here from the rules. On 200 random such positions the two
    # agreed to 0.0002 points (the 16-bit storage); the network alone is off
    # by 0.035 on average (2026-12-07, 600 positions).
    rng = random.Random(9)
    homes = all_boards()
    pairs = [
        (homes[rng.randrange(1, len(homes))], homes[rng.randrange(1, len(homes))])
        for _ in range(200)
    ]
    boards = np.array([[(*a, *[0] * 19), (*b, *[0] * 19)] for a, b in pairs], dtype=np.uint8)
    theirs = equity(label(boards, plies=0, processes=1, progress=False))
    ours = np.array([shipped_tables().equity(a, b) for a, b in pairs])
    assert np.abs(ours - theirs).max() < 0.001


def test_the_script_writes_tables_the_engine_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The whole build takes a minute: a stand-in for it checks the writing.
    shipped = shipped_tables()
    monkeypatch.setattr(backgammon_bearoff, "build", lambda: (shipped.off, shipped.first))
    out = tmp_path / "tables.npz"
    assert backgammon_bearoff.main(["--out", str(out)]) == 0
    again = load_tables(out)
    # Stored again in 16 bits: within one step of the quantisation.
    assert np.abs(again.off - shipped.off).max() < 1e-4
    assert np.abs(again.first - shipped.first).max() < 1e-4
