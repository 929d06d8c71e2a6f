"""The move-error bench: a network scored against its own judgement loses nothing; gnubg's
judgement of real decisions is read the right way round."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.gnubg_moves import PLAYER, build, main, score
from bench.programs import find_program
from engine.games.backgammon import legal_plays
from engine.games.backgammon_net import WEIGHTS_FILE, load_network
from tests.engine.games.test_backgammon_net import random_positions

Results = list[tuple[tuple[int, ...], tuple[int, ...]]]


def decisions(count: int) -> tuple[Results, list[list[int]], Results]:
    """``count`` rolls of 5-2 with a choice: every play's result, the spans, the positions."""
    results: Results = []
    spans: list[list[int]] = []
    positions: Results = []
    for me, opp in random_positions(count * 3, seed=8):
        plays = legal_plays(me, opp, 5, 2)
        if len(plays) < 2 or any(not any(mine) for _, mine, _ in plays):
            continue
        spans.append([len(results), len(results) + len(plays)])
        results.extend((theirs, mine) for _, mine, theirs in plays)
        positions.append((me, opp))
        if len(spans) == count:
            break
    return results, spans, positions


def write(path: Path, results: Results, equities: list[float], spans: list[list[int]],
          positions: Results) -> None:  # fmt: skip
    np.savez_compressed(
        path,
        results=np.array(results, dtype=np.uint8),
        equities=np.array(equities),
        spans=np.array(spans, dtype=np.int64),
        positions=np.array(positions, dtype=np.uint8),
        dice=np.array([(5, 2)] * len(spans), dtype=np.int64),
        settings=json.dumps({}),
    )


def test_a_network_judged_by_its_own_equities_loses_nothing(tmp_path: Path) -> None:
    results, spans, positions = decisions(40)
    mover = [-value for value in load_network(WEIGHTS_FILE).equities(results)]
    write(tmp_path / "own.npz", results, mover, spans, positions)
    figures = score(tmp_path / "own.npz", WEIGHTS_FILE)
    assert figures["decisions"] == 40
    assert figures["mean_loss"] == 0.0 and figures["best_chosen"] == 1.0
    # Judged by the opposite opinion, it chooses the worst play every time.
    write(tmp_path / "worst.npz", results, [-value for value in mover], spans, positions)
    worst = score(tmp_path / "worst.npz", WEIGHTS_FILE)
    expected = np.mean([max(mover[a:b]) - min(mover[a:b]) for a, b in spans])
    assert worst["mean_loss"] == pytest.approx(expected)
    assert worst["best_chosen"] == 0.0


def test_the_command_gives_each_network_s_difference_from_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, spans, positions = decisions(20)
    mover = [-value for value in load_network(WEIGHTS_FILE).equities(results)]
    write(tmp_path / "own.npz", results, mover, spans, positions)
    td = PLAYER  # the TD network: a different opinion, so some loss
    assert main(["score", "--bench", str(tmp_path / "own.npz"), str(WEIGHTS_FILE), str(td)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{WEIGHTS_FILE}: 0.0000 ± 0.0000 points lost a decision over 20")
    assert lines[1].startswith(str(td)) and lines[2].startswith(f"  minus {WEIGHTS_FILE}: +")
    # At a fixed depth the engine's search chooses; judged by the network's own
    # depth-1 opinion it may differ, never by more than the worst play.
    deeper = score(tmp_path / "own.npz", WEIGHTS_FILE, depth=2)
    assert deeper["mean_loss"] >= 0.0 and deeper["decisions"] == 20


@pytest.mark.skipif(
    find_program("gnubg") is None, reason="gnubg not installed (apt-get install gnubg)"
)
def test_gnubg_judges_every_play_of_real_decisions() -> None:
    data = build(PLAYER, games=2, seed=3, decisions=6, plies=0, processes=2)
    spans = np.asarray(data["spans"]).tolist()
    equities = np.asarray(data["equities"])
    assert len(spans) == 6 and spans[-1][1] == len(np.asarray(data["results"]))
    assert all(end - start >= 2 for start, end in spans)
    assert np.all(np.abs(equities) <= 3.0)
    # The mover's equities: the shipped network agrees with gnubg on most best plays.
    ours = [-value for value in load_network(WEIGHTS_FILE).equities(
        [(tuple(a), tuple(b)) for a, b in np.asarray(data["results"]).tolist()])]  # fmt: skip
    agree = sum(int(np.argmax(ours[a:b])) == int(np.argmax(equities[a:b])) for a, b in spans)
    assert agree >= 3
