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
