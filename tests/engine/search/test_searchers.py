"""The picker: which searches each game offers, the defaults, and refusals."""

from __future__ import annotations

import pytest

from engine.errors import GameError, UnknownAlgorithmError
from engine.game import ALPHABETA, EXPECTIMINIMAX, MCTS
from engine.registry import GAMES, create_game
from engine.search.alphabeta import Searcher
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest
from engine.searchers import algorithms, has_chance, searcher_for, think


@pytest.mark.parametrize("name", list(GAMES))
def test_algorithms_per_game_default_first(name: str) -> None:
    game = create_game(name)
    offered = algorithms(game)
    assert offered[0] == game.default_algorithm
    if game.default_algorithm == MCTS:
        assert offered == (MCTS, EXPECTIMINIMAX if has_chance(game) else ALPHABETA)
    elif has_chance(game):
        assert offered == (EXPECTIMINIMAX, MCTS)
    else:
        assert offered == (ALPHABETA, MCTS)


def test_searcher_classes() -> None:
    chess = create_game("chess")
    backgammon = create_game("backgammon")
    assert isinstance(searcher_for(chess), Searcher)
    assert isinstance(searcher_for(chess, ALPHABETA), Searcher)
    assert isinstance(searcher_for(chess, MCTS), MctsSearcher)
    assert isinstance(searcher_for(backgammon), ExpectimaxSearcher)
    assert isinstance(searcher_for(backgammon, MCTS), MctsSearcher)
    assert isinstance(searcher_for(backgammon, tt_slots=1 << 10), ExpectimaxSearcher)


@pytest.mark.parametrize(
    ("name", "algorithm"),
    [("chess", EXPECTIMINIMAX), ("backgammon", ALPHABETA), ("connect4", "minimax"), ("nim", "")],
)
def test_an_unoffered_algorithm_is_refused(name: str, algorithm: str) -> None:
    game = create_game(name)
    with pytest.raises(UnknownAlgorithmError) as raised:
        searcher_for(game, algorithm)
    message = str(raised.value)
    assert repr(algorithm) in message
    for offered in algorithms(game):
        assert offered in message
    assert isinstance(raised.value, GameError) and raised.value.code == "unknown_algorithm"


def test_think_by_algorithm() -> None:
    game = create_game("connect4")
    state = game.parse_position("121212")
    assert think(game, SearchRequest(state, Limits(depth=2))).move == "1"
    result = think(game, SearchRequest(state, Limits(nodes=200)), algorithm=MCTS)
    assert result.move == "1" and result.info.playouts > 0
