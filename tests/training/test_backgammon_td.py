"""The TD(λ) training script: its encoding is the engine's, runs resume exactly, export loads."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from engine.games.backgammon_net import encode_many, load_network
from tests.engine.games.test_backgammon_net import random_positions
from training.backgammon_td import Progress, Run, Settings, equity, export

SMALL = Settings(games=12, hidden=6, check_every=6, check_games=4, seed=5)


def test_a_run_stopped_and_resumed_ends_where_an_uninterrupted_one_does(tmp_path: Path) -> None:
    whole = Run(tmp_path / "whole", SMALL)
    whole.train(Progress(io.StringIO()))
    split = Run(tmp_path / "split", SMALL)
    split.train(Progress(io.StringIO()), until=7)
    assert split.games == 7 and (tmp_path / "split" / "checkpoint.npz").exists()
    resumed = Run(tmp_path / "split", SMALL)
    assert resumed.restore() and resumed.games == 7
    resumed.train(Progress(io.StringIO()))
    assert resumed.games == whole.games == 12
    for name, array in whole.net.arrays().items():
        assert np.array_equal(array, resumed.net.arrays()[name]), name
    assert [entry["games"] for entry in resumed.history] == [6, 12]


def test_the_progress_bar_reports_games_and_checks(tmp_path: Path) -> None:
    stream = io.StringIO()
    Run(tmp_path / "run", SMALL).train(Progress(stream, every=0.0))
    text = stream.getvalue()
    assert "12/12 games" in text and "6 games:" in text and "points a game" in text


def test_an_exported_network_loads_in_the_engine_with_the_same_values(tmp_path: Path) -> None:
    run = Run(tmp_path / "run", SMALL)
    run.train(Progress(io.StringIO()))
    target = tmp_path / "net.json"
    export(run, target, "python -m training.backgammon_td train ...")
    network = load_network(target)
    assert network.settings["games_trained"] == run.best_games
    positions = random_positions(30, seed=7)
    _, outputs = run.best.forward(encode_many(positions))
    expected = equity(outputs)
    # float32 weights in the file: equal to about 1e-6.
    assert np.allclose(network.equities(positions), expected, atol=1e-4)
