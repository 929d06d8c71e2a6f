"""Connect Four's ``think`` solves positions within the game's solver reach.

Positions come from ``tests/facts/connect4_pons.txt`` (Pons' published
scores): ``think`` must answer them ``proven`` with the published score, by
the same null-window bisection as :class:`engine.search.solver.ExactSolver`
(same node count), and fall back to the deepening search when the solver's
share of the budget runs out.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.games.connect4 import ConnectFour
from engine.search.alphabeta import SOLVE_AFTER_DEPTH, Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.search.results import Info
from engine.search.solver import ExactSolver

FACTS = Path(__file__).resolve().parents[2] / "facts" / "connect4_pons.txt"
GAME = ConnectFour()


def pons_positions(set_name: str, count: int) -> list[tuple[str, int]]:
    rows = []
    for line in FACTS.read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] == set_name:
            rows.append((fields[1], int(fields[2])))
    return rows[:count]


@pytest.mark.parametrize(("position", "expected"), pons_positions("Test_L3_R1", 6))
def test_think_answers_proven_with_the_published_score(position: str, expected: int) -> None:
    state = GAME.parse_position(position)
    result = Searcher(GAME).think(SearchRequest(state, Limits(movetime_ms=60_000)))
    assert result.reason == "proven"
    assert GAME.pons_score(state, result.info.score.win_in, result.info.score.loss_in) == expected
    assert result.move is not None and int(result.move) - 1 in GAME.legal_moves(state)


def test_think_solves_with_the_solvers_nodes_and_move() -> None:
    # The solver starts after the deepening search's first iterations: a
    # position they do not prove is solved with their nodes and the solver's.
    for position, _ in pons_positions("Test_L3_R1", 20):
        state = GAME.parse_position(position)
        first = Searcher(GAME).think(SearchRequest(state, Limits(depth=SOLVE_AFTER_DEPTH)))
        if first.reason != "proven":
            break
    else:
        pytest.fail("every position was proven by the first iterations")
    thought = Searcher(GAME).think(SearchRequest(state))
    solved = ExactSolver(GAME).solve(state)
    assert (thought.move, thought.value, thought.info.nodes) == (
        solved.move,
        solved.value,
        first.info.nodes + solved.info.nodes,
    )


def test_a_think_stopped_while_solving_answers_with_its_searched_move() -> None:
    # Reproduces the stop latency seen in bench/server_bench.py (issue 25):
    # the solver ran first and reported nothing, so a stopped think answered
    # an unsearched move at depth 0 and the server had to wait for the
    # worker. Now an iteration is reported before the solver starts, and a
    # stop during the solve answers with that iteration's move.
    position, _ = pons_positions("Test_L2_R2", 1)[0]  # far beyond a quick solve
    state = GAME.parse_position(position)
    stop = threading.Event()
    reports: list[Info] = []

    def on_info(info: Info) -> None:
        reports.append(info)
        if info.depth == SOLVE_AFTER_DEPTH:
            stop.set()  # the solver starts next, and sees the stop at its first check

    result = Searcher(GAME).think(SearchRequest(state, stop=stop, on_info=on_info))
    assert [info.depth for info in reports] == list(range(1, SOLVE_AFTER_DEPTH + 1))
    assert result.reason == "stopped"
    assert result.info.depth == SOLVE_AFTER_DEPTH
    assert result.move == reports[-1].pv[0]


def test_a_depth_limited_think_does_not_solve() -> None:
    position, _ = pons_positions("Test_L3_R1", 1)[0]
    state = GAME.parse_position(position)
    result = Searcher(GAME).think(SearchRequest(state, Limits(depth=2)))
    assert result.reason == "depth" and result.info.depth == 2


def test_positions_beyond_reach_are_left_to_the_deepening_search() -> None:
    state = GAME.parse_position("44")
    assert GAME.max_remaining_plies(state) > GAME.solver_reach
    result = Searcher(GAME).think(SearchRequest(state, Limits(depth=3)))
    assert result.reason == "depth"


def test_the_solver_takes_half_a_node_budget_then_the_deepening_search_goes_on() -> None:
    position, _ = pons_positions("Test_L2_R1", 1)[0]
    state = GAME.parse_position(position)
    limit = 2_000
    result = Searcher(GAME).think(SearchRequest(state, Limits(nodes=limit)))
    assert result.reason in {"nodes", "proven"}
    assert result.info.nodes <= limit
    assert result.move is not None and int(result.move) - 1 in GAME.legal_moves(state)


def test_a_stopped_think_answers_stopped_with_a_legal_move() -> None:
    position, _ = pons_positions("Test_L2_R1", 1)[0]
    state = GAME.parse_position(position)
    stop = threading.Event()
    stop.set()
    result = Searcher(GAME).think(SearchRequest(state, stop=stop))
    assert result.reason == "stopped"
    assert result.move is not None and int(result.move) - 1 in GAME.legal_moves(state)


def test_an_unproven_timed_think_leaves_time_to_the_deepening_search() -> None:
    # Test_L2_R2's first position takes the solver far longer than 0.2 s.
    state = GAME.parse_position("274552224131661")
    result = Searcher(GAME).think(SearchRequest(state, Limits(movetime_ms=200)))
    assert result.reason in {"time", "proven"}
    if result.reason == "time":
        assert result.info.depth >= 1  # the deepening search completed iterations
    assert result.move is not None and int(result.move) - 1 in GAME.legal_moves(state)
