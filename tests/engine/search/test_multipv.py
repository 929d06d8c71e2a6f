"""Several root lines from one search (``SearchRequest.multipv``) and ``searchmoves``.

The ``k`` lines of a multi-line think must be the ``k`` best root moves with
their exact values at the think's depth: each root move is scored by the
textbook minimax of its child (:mod:`engine.search.reference`), full width,
and the lines must hold the ``k`` best of those values, in order, each on a
move that has it.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.reference import minimax
from engine.search.request import SearchRequest
from engine.search.results import Info
from engine.search.score import Score, is_decisive

#: (game, options, depth): small games at depths plain minimax can score.
CASES: list[tuple[str, dict[str, Any], int]] = [
    ("tictactoe", {}, 9),
    ("tictactoe", {}, 3),
    ("nim", {"heaps": [3, 4, 5]}, 4),
    ("connect4", {"width": 5, "height": 4}, 4),
]


def move_values(game: Game[Any, Any], state: Any, depth: int) -> dict[Hashable, int]:
    """Each root move's minimax value at ``depth`` for the side to move at the root."""
    values = {}
    for move in game.legal_moves(state):
        value = -minimax(game, game.play(state, move), depth - 1)
        # The child's value counts plies from the child: a decided result
        # is one ply further from the root.
        if is_decisive(value):
            value += -1 if value > 0 else 1
        values[move] = value
    return values


def lines_of(game: Game[Any, Any], state: Any, depth: int, k: int) -> list[Info]:
    """The last iteration's lines of a ``k``-line think to ``depth``."""
    reports: list[Info] = []
    request = SearchRequest(state, Limits(depth=depth), on_info=reports.append, multipv=k)
    result = Searcher(game, tt_slots=1 << 12).think(request)
    final = [info for info in reports if not info.partial and info.depth == result.info.depth]
    assert final and final[0].pv[0] == result.move
    return final


@pytest.mark.parametrize(("name", "options", "depth"), CASES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4))
def test_lines_are_the_k_best_moves_of_a_full_width_search(
    name: str, options: dict[str, Any], depth: int, seed: int, k: int
) -> None:
    game = create_game(name, options)
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(rng.randrange(2, 7)):  # two plies at least: minimax stays quick
        moves = game.legal_moves(state)
        if game.outcome(state) is not None or not moves:
            break
        state = game.play(state, rng.choice(moves))
    if game.outcome(state) is not None or len(game.legal_moves(state)) < 2:
        return
    values = move_values(game, state, depth)
    lines = lines_of(game, state, depth, k)
    assert [info.multipv for info in lines] == list(range(1, len(lines) + 1))
    assert len(lines) == min(k, len(values))
    best = sorted(values.values(), reverse=True)[: len(lines)]
    moves = [info.pv[0] for info in lines]
    assert len(set(moves)) == len(moves)
    by_text = {game.format_move(state, move): value for move, value in values.items()}
    for info, value in zip(lines, best, strict=True):
        assert by_text[info.pv[0]] == value, (game.format_position(state), moves)
        assert info.score in (Score.from_search(value, True), Score.from_search(value, False))


def test_every_move_ranked_on_the_empty_tictactoe_board() -> None:
    """Nine lines from the empty board: all draws, every move once."""
    game = create_game("tictactoe", {})
    lines = lines_of(game, game.initial_state(), 9, 9)
    assert len(lines) == 9 and len({info.pv[0] for info in lines}) == 9
    assert all(info.score == Score(draw=True) for info in lines)


def test_one_line_asks_nothing_more() -> None:
    game = create_game("connect4", {})
    reports: list[Info] = []
    request = SearchRequest(game.initial_state(), Limits(depth=4), on_info=reports.append)
    Searcher(game).think(request)
    assert reports and all(info.multipv == 1 for info in reports)


def test_a_multi_line_think_answers_as_a_single_line_one() -> None:
    """Line 1 is the whole root's search: the same value and (proven) the same best."""
    game = create_game("tictactoe", {})
    state = game.play(game.initial_state(), game.parse_move(game.initial_state(), "b2"))
    single = Searcher(game).think(SearchRequest(state, Limits(depth=8)))
    multi = Searcher(game).think(SearchRequest(state, Limits(depth=8), multipv=3))
    assert multi.value == single.value and multi.info.score == single.info.score


def test_a_node_limit_cutting_a_later_line_keeps_line_one() -> None:
    game = create_game("connect4", {})
    state = game.initial_state()
    for nodes in (50, 400, 3000):
        result = Searcher(game).think(SearchRequest(state, Limits(nodes=nodes), multipv=4))
        assert result.move is not None and result.reason == "nodes"


def test_searchmoves_restricts_the_root() -> None:
    game = create_game("tictactoe", {})
    state = game.initial_state()
    for only in (("a1",), ("a1", "c3")):
        result = Searcher(game).think(
            SearchRequest(state, Limits(depth=9), multipv=3, searchmoves=only)
        )
        assert result.move in only
    # Nothing legal named: every move is searched.
    free = Searcher(game).think(SearchRequest(state, Limits(depth=2), searchmoves=("z9",)))
    assert free.move is not None


def test_searchmoves_does_not_poison_the_table() -> None:
    """A restricted root's value is not the position's: the next think must not reuse it."""
    game = create_game("tictactoe", {})
    state = game.initial_state()
    for move in ("a1", "b1", "c2"):
        state = game.play(state, game.parse_move(state, move))
    searcher = Searcher(game)
    losing = searcher.think(SearchRequest(state, Limits(depth=6), searchmoves=("a2",)))
    free = searcher.think(SearchRequest(state, Limits(depth=6)))
    assert free.value == max(move_values(game, state, 6).values())
    assert losing.move == "a2"
