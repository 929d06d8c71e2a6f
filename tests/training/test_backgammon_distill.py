"""The distillation script: its positions are real, gnubg's labels mean what we take them to mean,
the fit learns, and an exported network loads in the engine with the same values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.programs import find_program
from engine.games.backgammon import START_BOARD, legal_plays
from engine.games.backgammon_net import encode_many, load_network
from tests.engine.games.test_backgammon_net import random_positions
from training.backgammon_distill import (
    every_play,
    export,
    fit,
    label,
    play_positions,
    shipped_net,
)
from training.backgammon_td import equity

GNUBG = find_program("gnubg")
needs_gnubg = pytest.mark.skipif(
    GNUBG is None, reason="gnubg not installed (apt-get install gnubg)"
)


def test_the_positions_are_positions_of_a_game_in_progress() -> None:
    boards = play_positions(shipped_net(), games=3, explore=0.2, seed=4)
    assert boards.dtype == np.uint8 and boards.shape[1:] == (2, 25)
    # Two a turn (the position on roll and one other play's result), less a few.
    assert len(boards) > 3 * 40
    for me, opp in boards.tolist():
        assert 0 < sum(me) <= 15 and 0 < sum(opp) <= 15
        # No point is held by both sides (each board is seen from its owner's side).
        for point in range(24):
            assert not (me[point] and opp[23 - point])


def test_every_play_keeps_all_the_results_of_each_roll_drawn() -> None:
    source = np.array(random_positions(60, seed=6), dtype=np.uint8)
    boards = every_play(source, decisions=10, seed=2)
    assert boards.dtype == np.uint8 and boards.shape[1:] == (2, 25)
    results = {(tuple(b[0]), tuple(b[1])) for b in boards.tolist()}
    assert len(results) == len(boards)  # one row per distinct result
    # Each row is the result of a legal play from some source position, seen by
    # the opponent (on roll next), and those plays' siblings are all there.
    found = 0
    for me, opp in source.tolist():
        for high in range(1, 7):
            for low in range(1, high + 1):
                after = {
                    (theirs, mine)
                    for _, mine, theirs in legal_plays(tuple(me), tuple(opp), high, low)
                    if any(mine)
                }
                if len(after) > 1 and after <= results:
                    found += 1
    assert found >= 10
    assert (every_play(source, decisions=10, seed=2) == boards).all()  # seeded


@needs_gnubg
def test_gnubg_labels_are_chances_for_the_player_on_roll() -> None:
    ahead = (2, 2, 2) + (0,) * 22  # six checkers on my 1-3 points, nine off
    behind = (0,) * 12 + (3, 3, 3, 3, 3) + (0,) * 8  # fifteen on its 13-17 points, none off
    boards = np.array([[START_BOARD, START_BOARD], [ahead, behind], [behind, ahead]], np.uint8)
    chances = label(boards, plies=0, processes=2, progress=False)
    assert chances.shape == (3, 5)
    # The opening position: about even, the side on roll a little ahead.
    assert 0.48 < chances[0, 0] < 0.56
    # A won race for the side on roll, with a gammon likely: the outputs are
    # cumulative (a gammon counts as a win, a backgammon as a gammon).
    assert chances[1, 0] > 0.99 and chances[1, 1] > 0.5
    assert chances[2, 0] < 0.01 and chances[2, 3] > 0.5
    assert np.all(chances[:, 0] >= chances[:, 1] - 1e-6)
    assert np.all(chances[:, 1] >= chances[:, 2] - 1e-6)
    assert np.all(chances[:, 3] >= chances[:, 4] - 1e-6)


@needs_gnubg
def test_gnubgs_started_together_on_a_machine_new_to_gnubg_all_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh CI run lost one gnubg of two (2026-11-29): gnubg 1.07 creates ~/.gnubg as it
    starts and exits with "File exists" when the other gnubg created it first. Each round
    here starts two gnubgs in a home where gnubg never ran (without the fix about a third
    of the rounds failed)."""
    boards = np.array([[START_BOARD, START_BOARD]] * 2, np.uint8)
    for round_ in range(4):
        home = tmp_path / f"home{round_}"
        home.mkdir()
        monkeypatch.setenv("HOME", str(home))
        assert label(boards, plies=0, processes=2, progress=False).shape == (2, 5)
        assert (home / ".gnubg" / "backup").is_dir()


def test_a_gnubg_that_fails_is_named_with_what_it_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "gnubg"
    fake.write_text("#!/bin/sh\necho 'something went wrong' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr("training.backgammon_distill.find_gnubg", lambda: str(fake))
    boards = np.array([[START_BOARD, START_BOARD]], np.uint8)
    with pytest.raises(SystemExit, match=r"exit 3.*something went wrong"):
        label(boards, plies=0, processes=1, progress=False)


def test_the_fit_learns_labels_it_can_represent() -> None:
    """Labels made by a network are learned by a fresh one far better than it starts."""
    teacher = shipped_net()
    positions = random_positions(3000, seed=9)
    boards = np.array(positions, dtype=np.uint8)
    _, labels = teacher.forward(encode_many(positions, teacher.with_features))
    _, history = fit(boards, labels, 20, 6, 0.03, 64, 0.1, 3, None)
    assert len(history) == 6
    # Seeded, so the same figures every run: 0.47 after one epoch, 0.20 after six.
    assert history[-1]["held_out"] < 0.5 * history[0]["held_out"]


def test_an_exported_network_loads_in_the_engine_with_the_same_values(tmp_path: Path) -> None:
    net = shipped_net()
    run = tmp_path / "run"
    run.mkdir()
    steps = [
        f"python -m training.backgammon_distill {step} --run {run}"
        for step in ("positions", "label", "fit --hidden 9", "fit --hidden 128")
    ]
    (run / "commands.txt").write_text("\n".join(steps) + "\n", encoding="utf-8")
    settings = {
        "run": str(run),
        "games": 3,
        "explore": 0.1,
        "seed": 1,
        "plies": 1,
        "positions": 10,
        "hidden": net.w1.shape[1],
        "epochs": 1,
        "lr": 0.003,
        "batch": 128,
        "holdout": 0.05,
        "from_shipped": True,
    }
    fitted = run / "fitted.npz"
    saved: dict[str, Any] = net.arrays() | {"settings": json.dumps(settings), "history": "[]"}
    np.savez_compressed(fitted, **saved)
    target = tmp_path / "net.json"
    export(fitted, target)
    network = load_network(target)
    # Each step's last command, then the export.
    assert network.settings["reproduce"].split(" && ") == [
        steps[0],
        steps[1],
        steps[3],
        f"python -m training.backgammon_distill export --run {run}",
    ]
    assert network.settings["plies"] == 1
    # With a second run of every play's results: this run's positions and
    # labels first (the plays are drawn from them), then the other run's, then the fit.
    plays = tmp_path / "plays"
    plays.mkdir()
    (plays / "commands.txt").write_text(
        f"python -m training.backgammon_distill plays --run {plays} --from {run}\n"
        f"python -m training.backgammon_distill label --run {plays}\n",
        encoding="utf-8",
    )
    settings["more"] = [str(plays)]
    saved["settings"] = json.dumps(settings)
    np.savez_compressed(fitted, **saved)
    export(fitted, target)
    assert load_network(target).settings["reproduce"].split(" && ") == [
        steps[0],
        steps[1],
        f"python -m training.backgammon_distill plays --run {plays} --from {run}",
        f"python -m training.backgammon_distill label --run {plays}",
        steps[3],
        f"python -m training.backgammon_distill export --run {run}",
    ]
    assert network.with_features == net.with_features
    positions = random_positions(30, seed=7)
    _, outputs = net.forward(encode_many(positions, net.with_features))
    assert np.allclose(network.equities(positions), equity(outputs), atol=1e-4)
