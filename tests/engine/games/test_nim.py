"""Nim: exact search values agree with the nim-sum theory (Bouton 1901)."""

from __future__ import annotations

import itertools
from functools import reduce
from operator import xor

import pytest

from engine.errors import BadOptionsError, BadPositionError, GameOverError, IllegalMoveError
from engine.games.nim import Nim
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest

HEAP_SETS = [[3, 4, 5], [1, 2, 3, 4], [6, 5, 1], [2, 2, 7]]


def side_to_move_wins(heaps: tuple[int, ...], misere: bool) -> bool:
    """The theory: normal play wins iff the nim-sum is not 0; misère differs
    only when every heap has at most one object (then win iff an even
    number of heaps remain)."""
    if misere and all(h <= 1 for h in heaps):
        return sum(heaps) % 2 == 0
    return reduce(xor, heaps, 0) != 0


def every_position(heaps: list[int]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(h + 1) for h in heaps)))


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("heaps", HEAP_SETS)
def test_exact_values_and_moves_follow_the_theory(heaps: list[int], misere: bool) -> None:
    game = Nim(heaps=heaps, misere=misere)
    searcher = Searcher(game, tt_slots=1 << 14)
    for position in every_position(heaps):
        state = (position, 0)
        if game.outcome(state) is not None:
            continue
        result = searcher.think(SearchRequest(state, Limits()))
        assert result.reason == "proven"
        wins = side_to_move_wins(position, misere)
        assert (result.info.score.win_in is not None) == wins, position
        assert (result.info.score.loss_in is not None) == (not wins), position
        if wins:  # the chosen move must leave a lost position for the opponent
            after = game.play(state, result.move_value)[0]
            assert not side_to_move_wins(after, misere), (position, result.move)


def test_published_example() -> None:
    # Heaps 6, 5, 1 have nim-sum 2; the winning move takes 2 from the heap of 6
    # (shared/refdata/README.md, Nim).
    game = create_game("nim", {"heaps": [6, 5, 1]})
    result = Searcher(game).think(SearchRequest(game.initial_state()))
    assert result.move == "1:2"


def test_normal_and_misere_terminal_rules() -> None:
    normal, misere = Nim(heaps=[1]), Nim(heaps=[1], misere=True)
    end = ((0,), 1)  # player 0 took the last object
    assert normal.outcome(end).winner == 0  # type: ignore[union-attr]
    assert misere.outcome(end).winner == 1  # type: ignore[union-attr]


def test_notation() -> None:
    game = Nim(heaps=[3, 4, 5])
    state = game.initial_state()
    assert game.format_position(state) == "3 4 5 /0"
    state = game.play_text(state, "2:3")
    assert game.format_position(state) == "3 1 5 /1"
    assert game.parse_position("3 1 5 /1") == state
    for move in game.legal_moves(state):
        assert game.parse_move(state, game.format_move(state, move)) == move


@pytest.mark.parametrize("text", ["", "0:1", "4:1", "1:0", "1:4", "x", "1:2:3"])
def test_illegal_moves(text: str) -> None:
    game = Nim(heaps=[3, 4, 5])
    with pytest.raises(IllegalMoveError):
        game.parse_move(game.initial_state(), text)


def test_move_after_the_end() -> None:
    game = Nim(heaps=[1])
    with pytest.raises(GameOverError):
        game.parse_move(((0,), 1), "1:1")


@pytest.mark.parametrize("text", ["3 4 5", "/0", "3 x /0", "3 4 /2", "-1 /0"])
def test_bad_positions(text: str) -> None:
    with pytest.raises(BadPositionError):
        Nim().parse_position(text)


@pytest.mark.parametrize(
    "options",
    [
        {"heaps": []},
        {"heaps": [True]},
        {"heaps": "345"},
        {"heaps": [-1]},
        {"misere": 1},
        {"x": 1},
        # Every heap empty: the game would be over before it started (the
        # review of 2026-12-07 started one and got no move to play).
        {"heaps": [0]},
        {"heaps": [0, 0, 0]},
    ],
)
def test_bad_options(options: dict[str, object]) -> None:
    with pytest.raises(BadOptionsError):
        create_game("nim", options)
