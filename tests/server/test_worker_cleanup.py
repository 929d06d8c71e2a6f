"""Go's end of game in a worker: no pass over points still to take, resignation when lost.

Issue 30: a winning side's search may pass with the opponent's dead stones
still in its area (the board's count would then take them as alive); the
worker plays the capture instead, in a clean-up phase (``think.cleanup``)
as at any time. A side whose win rate stays below the threshold resigns.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from typing import Any

from engine.games.go import (
    PASS,
    RESIGN_MIN_PLAYOUTS,
    RESIGN_MIN_THINK_PLAYOUTS,
    Go,
    GoState,
    gaining_move,
)
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


def search_chose(state: GoState, move: str) -> SearchResult:
    """A short search of ``state`` said to have chosen ``move``, winning (score 300)."""
    searched = searcher_for(GAME, "mcts").think(SearchRequest(state, Limits(nodes=20)))
    return dataclasses.replace(
        searched,
        move=move,
        move_value=GAME.point(move),
        info=dataclasses.replace(searched.info, pv=(move,), score=Score(value=300)),
        reason="time",
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
        hopeless, info=dataclasses.replace(info, playouts=RESIGN_MIN_THINK_PLAYOUTS - 1)
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
    filling = search_chose(state, "J1")
    answer = go_answer(GAME, state, filling)
    assert answer.move == "pass" and answer.info.pv == ("pass",), answer
    # A point that is no eye of its own is played as the search chose.
    open_board = GAME.parse_position("/".join(["........."] * 9) + " X")
    first = searcher_for(GAME, "mcts").think(SearchRequest(open_board, Limits(nodes=20)))
    assert go_answer(GAME, open_board, first).move == first.move


#: 5x5, Black's wall on C, White's on D: Black 15 points, White 10 + 7.5.
SPLIT_5X5 = "/".join(["..XO."] * 5)


def test_a_won_board_is_passed_back_when_the_opponent_passes() -> None:
    """2026-12-06, in the browser: a player passed, on a board White had won by
    2.5 as it stood, and our White answered A5 (inside Black's area), then E3, and
    on an empty 5x5 board filled its own area pass after pass. A search that
    wins every line picks any move; the answer now passes back and ends the game."""
    game = Go(size=5)
    state = game.play(game.parse_position(SPLIT_5X5 + " X"), PASS)  # Black passes
    searched = searcher_for(game, "mcts").think(SearchRequest(state, Limits(nodes=20)))
    for move in ("A5", "E3"):
        chose = dataclasses.replace(
            searched,
            move=move,
            move_value=game.point(move),
            info=dataclasses.replace(searched.info, pv=(move,), playouts=RESIGN_MIN_PLAYOUTS),
            reason="time",
        )
        answer = go_answer(game, state, chose)
        assert answer.move == "pass" and answer.info.pv == ("pass",), answer
        assert game.outcome(game.play(state, PASS)) is not None  # the pass ends the game
        assert game.result_text(state) == "W+2.5"
    # The side that loses the count plays on; so does a side whose opponent
    # did not pass.
    black_to_move = game.parse_position(SPLIT_5X5 + " O")
    losing = game.play(black_to_move, PASS)  # White passes; Black loses the count
    searched = searcher_for(game, "mcts").think(SearchRequest(losing, Limits(nodes=20)))
    playing = dataclasses.replace(searched, reason="time")
    assert go_answer(game, losing, playing).move == searched.move
    fresh = game.parse_position(SPLIT_5X5 + " O")
    searched = searcher_for(game, "mcts").think(SearchRequest(fresh, Limits(nodes=20)))
    assert (
        go_answer(game, fresh, dataclasses.replace(searched, reason="time")).move == searched.move
    )


def test_no_pass_back_over_dead_stones_or_points_still_to_take() -> None:
    # A dead White stone in Black's area: after White's pass, Black takes it first.
    state = GAME.play(GAME.parse_position(DEAD_IN_BLACKS_AREA.replace(" X", " O")), PASS)
    assert GAME.to_move(state) == 0 and state.passes == 1
    searched = PassingSearcher().think(SearchRequest(state, Limits(nodes=20)))
    elsewhere = dataclasses.replace(searched, move="J9", move_value=GAME.point("J9"), reason="time")
    assert go_answer(GAME, state, elsewhere).move == "J9"  # the search's own move stands
    passing = dataclasses.replace(searched, reason="time")
    assert go_answer(GAME, state, passing).move in ("A5", "C5", "B4", "B6")


def test_a_short_think_on_a_kept_tree_resigns_a_lost_game() -> None:
    # Issue 30, seen on a loaded server: a think of 100 ms (a few hundred
    # playouts) never resigned, since each think counted only its own
    # playouts, and the engine played on in a lost game. The root's win
    # rate rests on the kept tree's playouts too.
    lost = GAME.parse_position("/".join(["XX.OOOO.O"] * 9) + " X")  # Black: 27 of 81
    few = RESIGN_MIN_THINK_PLAYOUTS * 3 // 5
    limited = WorkerJob(
        1, "go", dict(GAME.options), lost, Limits(nodes=few), Deadlines(0.0, None, None), "mcts"
    )
    searcher = searcher_for(GAME, "mcts")
    stop = StopFlag(multiprocessing.get_context("spawn"))
    first = _think(searcher, limited, stop, lambda info: None)
    assert first.move != "resign" and first.root_playouts == few, first
    again = _think(searcher, limited, stop, lambda info: None)
    assert again.stats.reused_visits >= few and again.root_playouts >= RESIGN_MIN_THINK_PLAYOUTS
    assert again.move == "resign", again


def test_no_pass_back_on_an_open_board() -> None:
    """A browser review, 2026-12-07: Black played E5, our White F7, Black passed,
    and White passed back, ending the game on its komi with 79 neutral points
    on the board. protocol.md says no pass while a neutral point is left to
    fill; no point touched both colours, but every region reached both."""
    state = GAME.play(
        GAME.play(GAME.play(GAME.initial_state(), GAME.point("E5")), GAME.point("F7")), PASS
    )
    assert GAME.to_move(state) == 1 and state.passes == 1
    searched = searcher_for(GAME, "mcts").think(SearchRequest(state, Limits(nodes=20)))
    for chosen in ("pass", "C3"):
        chose = dataclasses.replace(
            searched,
            move=chosen,
            move_value=GAME.point(chosen) if chosen != "pass" else PASS,
            info=dataclasses.replace(searched.info, pv=(chosen,), playouts=RESIGN_MIN_PLAYOUTS),
            reason="time",
        )
        answer = go_answer(GAME, state, chose)
        assert answer.move not in ("pass", "resign") and answer.info.pv == (answer.move,), answer
        if chosen != "pass":
            assert answer.move == chosen  # the search's own move stands
    # Black passes on an empty board: White does not take the game on komi alone.
    empty = GAME.play(GAME.initial_state(), PASS)
    searched = searcher_for(GAME, "mcts").think(SearchRequest(empty, Limits(nodes=20)))
    passing = dataclasses.replace(
        searched,
        move="pass",
        move_value=PASS,
        info=dataclasses.replace(searched.info, pv=("pass",)),
        reason="time",
    )
    assert go_answer(GAME, empty, passing).move != "pass"
    # Two walls two points apart: no point touches both, the gap is still to fill.
    gap = Go(size=5).parse_position("/".join(["X..O."] * 5) + " X")
    move = gaining_move(Go(size=5), gap)
    assert move is not None and Go(size=5).format_move(gap, move)[0] in "BC"


def test_a_program_keeps_at_most_two_copies_a_worker() -> None:
    """A review of 2026-12-07: one client cycling Go's komi made one worker
    start 45 GNU Go processes (one per set of game options, up to 64)."""
    from collections import OrderedDict

    from engine.registry import create_game
    from server.external import ExternalEngine, program_searcher
    from server.runtime import worker

    engine = ExternalEngine("go", "gnugo", "gtp", ("/nonexistent/gnugo",), ())
    other = ExternalEngine("go", "other", "gtp", ("/nonexistent/other",), ())
    searchers: OrderedDict[str, Any] = OrderedDict()
    for komi in (0.5, 1.5, 2.5, 3.5):
        game = create_game("go", {"size": 9, "komi": komi})
        searchers[f"gnugo {komi}"] = program_searcher(engine, game)
        searchers[f"other {komi}"] = program_searcher(other, game)
        worker._evict(searchers)
    assert list(searchers) == ["gnugo 2.5", "other 2.5", "gnugo 3.5", "other 3.5"]


def test_after_a_pass_a_point_of_its_own_area_gives_way_to_a_neutral_one() -> None:
    """A review of 2026-12-07 (arena play): Black's wall on D, White's on F,
    the E column neutral; the player passed and our White answered H5, J7 and
    H3, inside its own area, before any E point. Such a stone changes no
    count; a neutral point gains one."""
    walls = "/".join(["...X.O..."] * 9)
    state = GAME.play(GAME.parse_position(walls + " X"), PASS)  # Black passes
    chose = search_chose(state, "H5")
    answer = go_answer(GAME, state, chose)
    assert answer.move is not None and answer.move.startswith("E"), answer
    assert answer.info.pv == (answer.move,), answer
    # Without the pass before it, the search's move stands (the game goes on).
    playing = GAME.parse_position(walls + " O")
    assert go_answer(GAME, playing, chose).move == "H5"
