"""The picker: which searches each game offers, the defaults, and refusals."""

from __future__ import annotations

import pytest

from engine.errors import GameError, UnknownAlgorithmError
from engine.game import ALPHABETA, CHANCE, EXPECTIMINIMAX, MCTS
from engine.registry import GAMES, create_game
from engine.search.alphabeta import Searcher
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Limits
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest
from engine.search.results import SearchResult
from engine.searchers import algorithms, has_chance, searcher_for, think
from tests.engine.search.fake_clock import SteppingClock


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


@pytest.mark.parametrize(
    ("name", "algorithm"), [("chess", ALPHABETA), ("backgammon", EXPECTIMINIMAX), ("go", MCTS)]
)
def test_every_searcher_keeps_time_on_its_own_clock(name: str, algorithm: str) -> None:
    """The driver reads the searcher's clock for the start, the deadlines and the
    reports: on a fake clock a timed search is the same search every time,
    however busy the machine (the tests of timed searches rely on it)."""
    game = create_game(name)
    state = game.initial_state()
    if game.to_move(state) == CHANCE:
        state = game.play(state, game.chance_outcomes(state)[0][0])

    def timed_search() -> SearchResult:
        seeded = algorithm == MCTS  # the playouts' dice are seeded too
        searcher = MctsSearcher(game, seed=1) if seeded else searcher_for(game, algorithm)
        searcher.clock = SteppingClock(0.001)
        return searcher.think(SearchRequest(state, Limits(movetime_ms=40)))

    first, second = timed_search(), timed_search()
    assert first.reason == "time" and first.move is not None
    assert first.info.time_ms >= 40  # on the fake clock, never the wall's
    assert (first.move, first.info.nodes, first.info.depth) == (
        second.move,
        second.info.nodes,
        second.info.depth,
    )
