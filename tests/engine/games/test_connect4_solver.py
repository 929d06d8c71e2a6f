"""Connect Four's own exact solver (engine/games/connect4_solver.py) and its use by ``think``.

Scores are checked against Pascal Pons' published ones kept in
``tests/facts/connect4_pons.txt`` (source named there); the generic
null-window bisection of the search, which the game's solver replaces for
Connect Four, is the second opinion on a sample.
"""

from __future__ import annotations

import pytest

from engine.game import PositionSolver
from engine.games.connect4 import ConnectFour
from engine.games.connect4_solver import UNSOLVED_OPENING_PLIES, Connect4Solver, fits
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.search.solver import ExactSolver
from tests.refdata import fact_lines

GAME = ConnectFour()
FACTS_FILE = "connect4_pons.txt"
#: A small table: the tests solve a few hundred easy positions.
SLOTS = (1 << 16) + 1


class GenericConnectFour(ConnectFour):
    """Connect Four without its own solver: the search's bisection solves it."""

    def exact_solver(self) -> PositionSolver | None:
        return None


def fact_rows(set_name: str) -> list[tuple[str, int]]:
    rows = []
    for line in fact_lines(FACTS_FILE):
        name, position, score = line.split()
        if name == set_name:
            rows.append((position, int(score)))
    return rows


@pytest.mark.parametrize("set_name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"])
def test_scores_are_the_published_ones(set_name: str) -> None:
    solver = Connect4Solver(7, 6, SLOTS)
    wrong = []
    for position, expected in fact_rows(set_name):
        current, mask, moves = GAME.parse_position(position)
        score, _, _ = solver.solve(current, mask, len(moves))
        if score != expected:
            wrong.append((position, expected, score))
    assert wrong == []


def test_plies_agree_with_the_games_pons_score() -> None:
    solver = Connect4Solver(7, 6, SLOTS)
    for position, expected in fact_rows("Test_L2_R1")[:60] + fact_rows("Test_L1_R1")[:20]:
        state = GAME.parse_position(position)
        plies, _, _ = solver.solve_position(state)
        win_in = plies if plies > 0 else None
        loss_in = -plies if plies < 0 else None
        assert GAME.pons_score(state, win_in, loss_in) == expected


def test_the_best_column_achieves_the_score() -> None:
    solver = Connect4Solver(7, 6, SLOTS)
    for position, expected in fact_rows("Test_L3_R1")[:40] + fact_rows("Test_L1_R1")[:20]:
        state = GAME.parse_position(position)
        _, column, _ = solver.solve_position(state)
        after = GAME.play(state, column)
        outcome = GAME.outcome(after)
        if outcome is not None:  # four in a row (a win) or the board full (a draw)
            assert (expected > 0) if outcome.winner is not None else expected == 0
            continue
        current, mask, moves = after
        score, _, _ = solver.solve(current, mask, len(moves))
        assert score == -expected, (position, column)


def test_the_generic_bisection_agrees_on_a_sample() -> None:
    generic = ExactSolver(GenericConnectFour(), tt_slots=1 << 16)
    own = ExactSolver(GAME)
    for position, expected in fact_rows("Test_L3_R1")[:20] + fact_rows("Test_L2_R1")[:20]:
        state = GAME.parse_position(position)
        by_bisection = generic.solve(state)
        by_own = own.solve(state)
        assert by_own.reason == by_bisection.reason == "proven"
        assert by_own.value == by_bisection.value
        score = by_own.info.score
        assert GAME.pons_score(state, score.win_in, score.loss_in) == expected


def test_published_examples() -> None:
    # Pons, "Solving Connect 4", part 2: 4455 scores 18, 44455554221 scores -15.
    solver = Connect4Solver(7, 6, SLOTS)
    for position, expected in (("4455", 18), ("44455554221", -15)):
        current, mask, moves = GAME.parse_position(position)
        assert solver.solve(current, mask, len(moves))[0] == expected


@pytest.mark.parametrize(("position", "expected"), fact_rows("Test_L1_R1")[:8])
def test_think_proves_opening_positions_with_the_published_score(
    position: str, expected: int
) -> None:
    # Test_L1_R1 holds positions with 4 to 14 stones, beyond the generic
    # solver's reach (28 plies left) but within the game's own solver's.
    state = GAME.parse_position(position)
    assert GAME.max_remaining_plies(state) > GAME.solver_reach
    result = Searcher(GAME).think(SearchRequest(state, Limits(movetime_ms=60_000)))
    assert result.reason == "proven"
    score = result.info.score
    assert GAME.pons_score(state, score.win_in, score.loss_in) == expected


def test_the_first_plies_are_left_to_the_deepening_search() -> None:
    solver = GAME.exact_solver()
    assert solver is not None and solver.reach == 42 - UNSOLVED_OPENING_PLIES
    state = GAME.parse_position("444")
    result = Searcher(GAME).think(SearchRequest(state, Limits(nodes=3_000)))
    assert result.reason == "nodes"  # no solver share spent: the search ran to its limit


def test_a_stopped_solve_ends_with_the_checks_exception() -> None:
    class Enough(Exception):
        pass

    def check(nodes: int) -> None:
        raise Enough

    solver = Connect4Solver(7, 6, SLOTS)
    current, mask, moves = GAME.parse_position("4444")
    with pytest.raises(Enough):
        solver.solve(current, mask, len(moves), check)


def test_boards_too_big_for_64_bits_use_the_generic_solver() -> None:
    assert fits(7, 6) and fits(9, 5)
    assert not fits(7, 7) and not fits(8, 6)
    assert ConnectFour(width=7, height=7).exact_solver() is None
    with pytest.raises(ValueError, match="does not fit"):
        Connect4Solver(8, 6)


def test_other_board_sizes_agree_with_the_generic_bisection() -> None:
    # Small boards, solved by both in well under a second of pure Python.
    for width, height, position in ((5, 4, "33"), (6, 4, "3434"), (5, 5, "3311"), (4, 4, "1")):
        own_game = ConnectFour(width=width, height=height)
        generic_game = GenericConnectFour(width=width, height=height)
        state = own_game.parse_position(position)
        own = ExactSolver(own_game).solve(state)
        generic = ExactSolver(generic_game, tt_slots=1 << 16).solve(state)
        assert own.reason == generic.reason == "proven"
        assert own.value == generic.value, (width, height, position)
