"""MCTS time management with a clock: the game's phase weight and the early stop.

The search reads its time from its ``clock`` (``BudgetedSearch.clock``); these tests give it
a fake clock that advances a fixed step per reading (one per playout), so
that a time budget is a playout count and nothing sleeps.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from engine.games.go import (
    TIME_ENDGAME_WEIGHT,
    TIME_MIDDLE_WEIGHT,
    TIME_OPENING_WEIGHT,
    Go,
)
from engine.games.tictactoe import TicTacToe
from engine.registry import create_game
from engine.search.limits import Clock, Limits, plan_deadlines
from engine.search.mcts import (
    EARLY_STOP_MIN_PLAYOUTS,
    MIN_INFO_INTERVAL_S,
    MctsSearcher,
    Node,
    decided,
    playouts_left,
    weighed_allotment,
)
from engine.search.request import SearchRequest
from tests.engine.search.fake_clock import SteppingClock

CONNECT4 = create_game("connect4")
#: Seconds the fake clock moves at each reading.
STEP_S = 0.005


def block_position() -> Any:
    # Connect Four: X has three in column 1; O must block there, every
    # other move loses at once (the solver proves them), so the block
    # takes almost every visit.
    state = CONNECT4.initial_state()
    for column in ("1", "2", "1", "2", "1"):
        state = CONNECT4.play(state, CONNECT4.parse_move(state, column))
    return state


def test_the_weighed_allotment_scales_and_stays_under_the_hard_deadline() -> None:
    assert weighed_allotment(10.0, 12.0, 20.0, 1.5) == 13.0
    assert weighed_allotment(10.0, 12.0, 12.5, 1.5) == 12.5
    assert weighed_allotment(10.0, 12.0, None, 0.5) == 11.0


def test_playouts_left_at_the_measured_rate() -> None:
    assert playouts_left(300, 1.5, 0.5) == 100.0
    assert playouts_left(300, 1.5, -1.0) == 0.0
    assert playouts_left(0, 0.0, 1.0) == float("inf")


def test_decided_compares_the_lead_with_the_playouts_left() -> None:
    root = Node(None, 0)
    for visits in (50, 400, 90):
        child = Node(None, 1)
        child.visits = visits
        root.children.append(child)
    root.children.append(None)
    assert decided(root, 309.0)  # 400 - 90 = 310 > 309
    assert not decided(root, 310.0)


def test_go_spends_most_in_the_middle_game() -> None:
    game = Go()  # 81 points: opening plies 0-8, endgame from 49
    state = game.initial_state()
    assert game.time_weight(state) == TIME_OPENING_WEIGHT
    assert game.time_weight(state._replace(ply=20)) == TIME_MIDDLE_WEIGHT
    assert game.time_weight(state._replace(ply=70)) == TIME_ENDGAME_WEIGHT
    assert TIME_OPENING_WEIGHT < TIME_MIDDLE_WEIGHT > TIME_ENDGAME_WEIGHT
    assert TicTacToe().time_weight(TicTacToe().initial_state()) == 1.0


def _search(limits: Limits) -> tuple[MctsSearcher, str, str]:
    searcher = MctsSearcher(CONNECT4, seed=1)
    searcher.clock = SteppingClock(STEP_S)
    request = SearchRequest(block_position(), limits, plan_deadlines(limits, 0.0))
    result = searcher.think(request)
    assert result.move is not None
    return searcher, result.move, result.reason


def test_a_clocked_search_stops_early_when_one_move_dominates() -> None:
    # 60 s left, 30 moves to go: a 2 s share (Connect Four weighs every
    # move alike), so about 400 readings of the fake clock; the block
    # leads by more than the playouts left well before.
    limits = Limits(clock=Clock(60_000))
    budget = 2.0 / STEP_S
    searcher, move, reason = _search(limits)
    assert move == "1"
    assert reason == "time"
    assert EARLY_STOP_MIN_PLAYOUTS <= searcher.playouts < 0.9 * budget


def test_a_fixed_move_time_is_searched_to_its_end() -> None:
    limits = Limits(movetime_ms=2000)
    searcher, move, reason = _search(limits)
    assert move == "1"
    assert reason == "time"
    assert searcher.playouts >= 0.95 * 2.0 / STEP_S


def test_a_short_search_reports_before_its_end() -> None:
    # Found under load (2026-11-29): at 100 ms a move the first report was
    # due after INFO_INTERVAL_S, so a search process late with its answer
    # left the server's guard nothing but the first move of the game's
    # order (Go's A9) although some 50 playouts had been made. A short
    # search now reports after half its time left, at MIN_INFO_INTERVAL_S
    # apart at the closest, so the guard has a move from late in it.
    clock = SteppingClock(STEP_S)
    reports: list[tuple[float, int]] = []
    searcher = MctsSearcher(CONNECT4, seed=1)
    searcher.clock = clock
    limits = Limits(movetime_ms=100)
    deadlines = plan_deadlines(limits, 0.0)
    allotment = deadlines.allotted()
    assert allotment is not None and allotment <= 0.1
    request = SearchRequest(
        block_position(),
        limits,
        deadlines,
        on_info=lambda info: reports.append((clock.now, info.playouts or 0)),
    )
    searcher.think(request)
    during = [(now, playouts) for now, playouts in reports[:-1] if playouts > 0]
    assert during, reports
    # The last report before the end comes after about 80% of the time
    # (half of what is left each time, until the intervals reach 10 ms).
    assert during[-1][0] >= 0.7 * allotment, reports
    assert all(b[0] - a[0] >= MIN_INFO_INTERVAL_S for a, b in pairwise(during)), reports
