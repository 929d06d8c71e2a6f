"""Go's end of game in a worker: no pass over points still to take, resignation when lost.

Issue 30: a winning side's search may pass with the opponent's dead stones
still in its area (the board's count would then take them as alive); the
worker plays the capture instead, in a clean-up phase (``think.cleanup``)
as at any time. A side whose win rate stays below the threshold resigns.
"""

from __future__ import annotations

import dataclasses
import multiprocessing

from engine.games.go import RESIGN_MIN_PLAYOUTS, Go
from engine.search.limits import Deadlines, Limits
from engine.search.request import SearchRequest
from engine.search.results import SearchResult
from engine.search.score import Score
from engine.searchers import searcher_for
from server.runtime.worker import StopFlag, WorkerJob, _think, go_answer

GAME = Go()
#: Black's wall on E, White's on F, a dead White stone at B5 in Black's area.
DEAD_IN_BLACKS_AREA = "/".join(["....XO..."] * 4 + [".O..XO..."] + ["....XO..."] * 4) + " X"


class PassingSearcher:
    """Our Monte Carlo search whose answer is always a pass (a winner content to stop)."""

    def think(self, request: SearchRequest) -> SearchResult:
        limited = dataclasses.replace(request, limits=Limits(nodes=50), deadlines=None)
        result = searcher_for(GAME, "mcts").think(limited)
        info = dataclasses.replace(result.info, pv=("pass",))
        return dataclasses.replace(result, move="pass", move_value=0, info=info)


def job(cleanup: bool) -> WorkerJob:
    state = GAME.parse_position(DEAD_IN_BLACKS_AREA)
    return WorkerJob(
        1,
        "go",
        dict(GAME.options),
        state,
        Limits(),
        Deadlines(0.0, None, None),
        "mcts",
        None,
        cleanup,
    )


def test_a_pass_is_replaced_by_the_capture_of_a_dead_stone() -> None:
    stop = StopFlag(multiprocessing.get_context("spawn"))
    for cleanup in (False, True):  # never a pass while a capture gains
        result = _think(PassingSearcher(), job(cleanup), stop, lambda info: None)
        assert result.move in ("A5", "C5", "B4", "B6"), result
        assert result.info.pv == (result.move,)


def test_a_lost_go_position_is_resigned_keeping_the_best_line() -> None:
    lost = GAME.parse_position("/".join(["X.XXXOO.O"] * 9) + " X")  # past the opening
    searched = searcher_for(GAME, "mcts").think(SearchRequest(lost, Limits(nodes=20)))
    info = dataclasses.replace(
        searched.info, score=Score(value=-1000), playouts=RESIGN_MIN_PLAYOUTS
    )
    hopeless = dataclasses.replace(searched, info=info, reason="time")
    answer = go_answer(GAME, lost, hopeless)
    assert answer.move == "resign" and answer.info.pv == searched.info.pv
    few = dataclasses.replace(
        hopeless, info=dataclasses.replace(info, playouts=RESIGN_MIN_PLAYOUTS - 1)
    )
    assert go_answer(GAME, lost, few).move == searched.move
    hopeful = dataclasses.replace(hopeless, info=dataclasses.replace(info, score=Score(value=0)))
    assert go_answer(GAME, lost, hopeful).move == searched.move


def test_an_own_eye_is_never_filled_the_answer_passes_instead() -> None:
    """2026-11-29: at 100 ms a move, winning every line, our search filled its own area
    (C1, D1, E1 ...) until one eye was left, a board GNU Go counts dead. Filling an own
    eye gains nothing under area counting: the answer is a pass (or what a pass would
    give away)."""
    # White's whole board but A9 and J1; White to move, its search "chose" J1.
    board = "." + "O" * 79 + "."
    rows = "/".join(board[i : i + 9] for i in range(0, 81, 9))
    state = GAME.parse_position(rows + " O")
    searched = searcher_for(GAME, "mcts").think(SearchRequest(state, Limits(nodes=20)))
    filling = dataclasses.replace(
        searched,
        move="J1",
        move_value=GAME.point("J1"),
        info=dataclasses.replace(searched.info, pv=("J1",), score=Score(value=300)),
        reason="time",
    )
    answer = go_answer(GAME, state, filling)
    assert answer.move == "pass" and answer.info.pv == ("pass",), answer
    # A point that is no eye of its own is played as the search chose.
    open_board = GAME.parse_position("/".join(["........."] * 9) + " X")
    first = searcher_for(GAME, "mcts").think(SearchRequest(open_board, Limits(nodes=20)))
    assert go_answer(GAME, open_board, first).move == first.move
