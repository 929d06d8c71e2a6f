"""Everything that crosses a process boundary pickles, in both engine builds.

The server's workers receive games, states and limits and send back infos
and results by pickle; compiled by mypyc, frozen dataclasses and games with
derived tables need their own ``__reduce__`` (see :mod:`engine.records`).
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from engine.game import CHANCE, Outcome
from engine.registry import GAMES, create_game
from engine.search.limits import Clock, Deadlines, Limits
from engine.search.request import PlayedLine, SearchRequest
from engine.search.results import Info
from engine.search.score import Score
from engine.searchers import think


@pytest.mark.parametrize(
    "record",
    [
        Limits(movetime_ms=5, depth=3, nodes=10, clock=Clock(1000, 20, 5)),
        Deadlines(1.0, 2.0, 3.0),
        Score.from_search(5, False),
        Outcome(None, "board full"),
        Outcome(1, "gammon", 2),
        Info(3, 5, Score.from_search(-7, True), ("4", "4"), 100, 2, 50_000, 0.25, False),
        PlayedLine("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ("e2e4",)),
    ],
    ids=lambda record: type(record).__name__,
)
def test_records_round_trip(record: Any) -> None:
    assert pickle.loads(pickle.dumps(record)) == record


@pytest.mark.parametrize("name", sorted(GAMES))
def test_games_states_and_results_round_trip(name: str) -> None:
    game = create_game(name)
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game) and copy.options == game.options
    state = game.initial_state()
    assert pickle.loads(pickle.dumps(state)) == state
    if game.to_move(state) == CHANCE:
        state = game.play(state, game.legal_moves(state)[0])
    # A node cap as well: Monte Carlo (Go's default) has no depth, and ran its default
    # 20,000 playouts (15 s of the suite) for a record that any search result shows.
    result = think(game, SearchRequest(state, Limits(depth=2, nodes=500)))
    assert pickle.loads(pickle.dumps(result)) == result
