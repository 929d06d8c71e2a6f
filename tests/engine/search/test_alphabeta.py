"""The production search: limits, stop, progress, proofs and statistics."""

from __future__ import annotations

import threading
import time

import pytest

from engine.games.connect4 import ConnectFour
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Clock, Limits
from engine.search.request import SearchRequest
from engine.search.results import Info
from engine.search.score import WIN, Score
from engine.search.solver import solve
from engine.searchers import think
from tests.timing import UNIT

#: Generous bound for "returns quickly" on a shared, noisy machine.
SLACK_S = 0.5 * UNIT

C4 = ConnectFour()


def test_movetime_returns_a_legal_move_quickly() -> None:
    state = C4.parse_position("4453")
    started = time.monotonic()
    result = think(C4, SearchRequest(state, Limits(movetime_ms=100)))
    elapsed = time.monotonic() - started
    assert result.move_value in C4.legal_moves(state)
    assert result.reason == "time"
    assert elapsed < 0.1 + SLACK_S


def test_depth_limit_is_exact() -> None:
    infos: list[Info] = []
    result = think(C4, SearchRequest(C4.initial_state(), Limits(depth=5), on_info=infos.append))
    assert result.info.depth == 5 and result.reason == "depth"
    assert [i.depth for i in infos if not i.partial] == [1, 2, 3, 4, 5]


def test_node_limit_is_exact() -> None:
    for limit in (1, 50, 1000, 4321):
        result = think(C4, SearchRequest(C4.initial_state(), Limits(nodes=limit)))
        assert result.info.nodes == limit
        assert result.reason == "nodes"
        assert result.move_value in C4.legal_moves(C4.initial_state())


def test_stop_signal_mid_search_returns_best_so_far() -> None:
    stop = threading.Event()
    infos: list[Info] = []

    def on_info(info: Info) -> None:
        infos.append(info)
        if info.depth >= 4:
            stop.set()

    state = C4.parse_position("44")
    result = think(C4, SearchRequest(state, Limits(), stop=stop, on_info=on_info))
    assert result.reason == "stopped"
    assert result.info.depth >= 4
    assert result.move_value in C4.legal_moves(state)


def test_stop_before_the_first_iteration_still_gives_a_legal_move() -> None:
    stop = threading.Event()
    stop.set()
    for name in ("tictactoe", "nim", "connect4"):
        game = create_game(name)
        result = think(game, SearchRequest(game.initial_state(), Limits(), stop=stop))
        assert result.move_value in game.legal_moves(game.initial_state())
        assert result.reason == "stopped"


def test_stop_from_another_thread() -> None:
    stop = threading.Event()
    stopped_at: list[float] = []

    def stop_now() -> None:
        stopped_at.append(time.monotonic())
        stop.set()

    timer = threading.Timer(0.2, stop_now)  # mid-search: an analysis has no end of its own
    timer.start()
    result = think(C4, SearchRequest(C4.initial_state(), Limits(), stop=stop))
    timer.join()
    assert time.monotonic() - stopped_at[0] < SLACK_S  # answered soon after the stop
    assert result.reason == "stopped"
    assert result.move is not None


def test_tiny_budgets_still_answer() -> None:
    for movetime in (0, 1, 5):
        result = think(C4, SearchRequest(C4.initial_state(), Limits(movetime_ms=movetime)))
        assert result.move_value in C4.legal_moves(C4.initial_state())


def test_clock_never_overruns_the_time_left() -> None:
    started = time.monotonic()
    result = think(
        C4, SearchRequest(C4.initial_state(), Limits(clock=Clock(time_ms=300, inc_ms=0)))
    )
    # The planner allots a small share of the 0.3 s; the rest is room for a busy machine.
    assert time.monotonic() - started < 0.3 * UNIT
    assert result.move is not None


def test_whichever_limit_comes_first() -> None:
    result = think(
        C4, SearchRequest(C4.initial_state(), Limits(depth=3, movetime_ms=10_000, nodes=10**9))
    )
    assert result.reason == "depth" and result.info.depth == 3


def test_proven_win_stops_deepening_and_reports_distance() -> None:
    state = C4.parse_position("4455")  # Pons: score 18, a win with the 4th stone
    result = think(C4, SearchRequest(state, Limits(depth=20)))
    assert result.reason == "proven"
    assert result.info.score == Score(win_in=3)
    assert result.info.depth == 3
    assert result.info.pv[0] in ("3", "6")


def test_prefers_the_fastest_win() -> None:
    # X to move can win at once on the top row, or later elsewhere.
    game = create_game("tictactoe")
    state = game.parse_position("XX.OO....")
    result = think(game, SearchRequest(state, Limits()))
    assert result.move == "c3"
    assert result.info.score == Score(win_in=1)


def test_proven_draw_is_reported_as_such() -> None:
    game = create_game("tictactoe")
    result = think(game, SearchRequest(game.initial_state()))
    assert result.info.score == Score(draw=True)


def test_game_over_position_has_no_move() -> None:
    game = create_game("tictactoe")
    state = game.parse_position("XXXOO....")
    result = think(game, SearchRequest(state))
    assert result.move is None and result.reason == "no_moves"
    assert result.info.score == Score(loss_in=0)  # O to move has lost


def test_info_records_are_consistent() -> None:
    infos: list[Info] = []
    think(C4, SearchRequest(C4.parse_position("4453"), Limits(depth=7), on_info=infos.append))
    full = [i for i in infos if not i.partial]
    assert [i.depth for i in full] == list(range(1, 8))
    nodes = [i.nodes for i in full]
    assert nodes == sorted(nodes)
    for info in full:
        assert info.seldepth >= info.depth
        assert info.pv and info.pv[0] in "1234567"
        assert 0.0 <= info.tt_hit_rate <= 1.0


def test_statistics() -> None:
    result = think(C4, SearchRequest(C4.initial_state(), Limits(depth=8)))
    stats = result.stats
    assert len(stats.nodes_per_depth) == 8
    assert sum(stats.nodes_per_depth) <= result.info.nodes
    assert 0.5 < stats.first_move_cutoff_rate <= 1.0
    assert stats.effective_branching_factor > 0
    assert stats.cutoffs > 0


def test_searcher_reuse_across_positions_and_games_is_safe() -> None:
    searcher = Searcher(C4, tt_slots=1 << 10)
    state = C4.initial_state()
    for _ in range(8):
        result = searcher.think(SearchRequest(state, Limits(depth=4)))
        assert result.move_value in C4.legal_moves(state)
        state = C4.play(state, result.move_value)


@pytest.mark.parametrize(
    ("width", "height", "first_player_result"),
    # John Tromp's table of Connect Four results by board size
    # (homepages.cwi.nl/~tromp/c4/c4.html): 4x4, 5x4 and 4x5 are draws.
    # Larger boards take minutes in CPython (6x4, a second-player win, 83 s).
    [(4, 4, 0), (5, 4, 0), (4, 5, 0)],
)
def test_small_boards_match_published_results(
    width: int, height: int, first_player_result: int
) -> None:
    game = ConnectFour(width=width, height=height)
    result = solve(game, game.initial_state(), tt_slots=1 << 18)
    assert result.reason == "proven"
    value = result.value
    sign = 0 if value == 0 else (1 if value > 0 else -1)
    assert sign == first_player_result
    assert abs(value) == 0 or abs(value) > WIN - 100


def test_solver_agrees_with_unlimited_search_on_tictactoe() -> None:
    game = create_game("tictactoe")
    state = game.parse_position("X...O....")
    assert solve(game, state).value == think(game, SearchRequest(state)).value


def test_one_move_asked_for_to_a_depth_is_searched_to_it() -> None:
    """A review of 2026-12-07: ``go depth 4 searchmoves b8c6`` (a search with a
    stop signal, as every worker's) ended at depth 1 as an only move. A search
    asked for a depth, a node count or given moves analyses the one move; a
    timed one with a single legal move still answers after one iteration."""
    chess = create_game("chess")
    start = chess.parse_position("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 3 2")
    stop = threading.Event()
    given = Searcher(chess).think(
        SearchRequest(start, Limits(depth=4), stop=stop, searchmoves=("c6e5",))
    )
    assert (given.move, given.info.depth, given.reason) == ("c6e5", 4, "depth")
    forced = chess.parse_position("k7/8/8/8/8/8/7q/6RK w - - 0 1")  # Kxh2 only
    deep = Searcher(chess).think(SearchRequest(forced, Limits(depth=3), stop=stop))
    assert (deep.move, deep.info.depth) == ("h1h2", 3)
    timed = Searcher(chess).think(SearchRequest(forced, Limits(movetime_ms=5000), stop=stop))
    assert (timed.move, timed.reason, timed.info.depth) == ("h1h2", "only_move", 1)
