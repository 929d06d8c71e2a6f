"""The production search returns the reference minimax value at equal depth.

Positions come from seeded random playouts of each game; for every one the
textbook minimax, the textbook alpha-beta and the production search (with
its table, ordering, PVS and pruning) must agree exactly.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.reference import alphabeta, minimax
from engine.search.request import SearchRequest

#: (game, options, depths): depths kept small enough for plain minimax.
CASES: list[tuple[str, dict[str, Any], tuple[int, ...]]] = [
    ("tictactoe", {}, (1, 2, 3, 4, 9)),
    ("nim", {"heaps": [3, 4, 5]}, (1, 2, 3, 4)),
    ("nim", {"heaps": [2, 3, 4], "misere": True}, (1, 2, 3, 5)),
    ("connect4", {}, (1, 2, 3, 4)),
    ("connect4", {"width": 5, "height": 4}, (1, 3, 5)),
]


def random_position(game: Game[Any, Any], rng: random.Random, max_plies: int) -> Any:
    state = game.initial_state()
    for _ in range(rng.randrange(max_plies + 1)):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.play(state, rng.choice(moves))
    return state


@pytest.mark.parametrize(("name", "options", "depths"), CASES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_production_equals_reference(
    name: str, options: dict[str, Any], depths: tuple[int, ...], seed: int
) -> None:
    game = create_game(name, options)
    rng = random.Random(seed)
    state = random_position(game, rng, 14)
    searcher = Searcher(game, tt_slots=1 << 12)
    for depth in depths:
        expected = minimax(game, state, depth)
        assert alphabeta(game, state, depth) == expected
        result = searcher.think(SearchRequest(state, Limits(depth=depth)))
        if result.move is None:
            continue  # game over: nothing to compare
        assert result.value == expected, (game.format_position(state), depth)


def test_tiny_table_still_agrees() -> None:
    """Collisions in a one-slot table may cost speed, never correctness."""
    game = create_game("connect4", {"width": 5, "height": 4})
    rng = random.Random(7)
    for _ in range(10):
        state = random_position(game, rng, 10)
        if game.outcome(state) is not None:
            continue
        result = Searcher(game, tt_slots=1).think(SearchRequest(state, Limits(depth=4)))
        assert result.value == minimax(game, state, 4)
