"""How limits become deadlines."""

from __future__ import annotations

import time

import pytest

from engine.registry import create_game
from engine.search.limits import (
    CLOCK_SAFETY_MS,
    DEFAULT_MOVES_TO_GO,
    HARD_STRETCH,
    MAX_DEPTH,
    MAX_SHARE_OF_CLOCK,
    MIN_CLOCK_MOVE_MS,
    SOFT_SHARE,
    Clock,
    Deadlines,
    Limits,
    plan_deadlines,
)
from engine.search.request import SearchRequest

START = 1000.0


def test_no_time_limit_means_no_deadline() -> None:
    deadlines = plan_deadlines(Limits(depth=5, nodes=100), START)
    assert deadlines.soft is None and deadlines.hard is None


def test_movetime_uses_the_whole_budget() -> None:
    deadlines = plan_deadlines(Limits(movetime_ms=250), START)
    assert deadlines.soft == deadlines.hard == pytest.approx(START + 0.25)


def test_sudden_death_clock() -> None:
    deadlines = plan_deadlines(Limits(clock=Clock(time_ms=60_000)), START)
    allotment = (60_000 - CLOCK_SAFETY_MS) / DEFAULT_MOVES_TO_GO
    assert deadlines.soft == pytest.approx(START + SOFT_SHARE * allotment / 1000)
    assert deadlines.hard == pytest.approx(START + HARD_STRETCH * allotment / 1000)


def test_a_sudden_death_clock_is_shared_over_the_moves_the_game_expects() -> None:
    """A review of 2026-12-07: `time_settings 60 0 0` on 19x19 had spent 44 s
    by move 40, each game sharing its clock over chess's 30 moves."""
    limits = Limits(clock=Clock(time_ms=60_000))
    go19 = create_game("go", {"size": 19})
    empty = go19.initial_state()
    assert go19.moves_left(empty) == 145  # 0.8 x 361 plies, the mover's half
    deadlines = plan_deadlines(limits, START, go19.moves_left(empty))
    allotment = (60_000 - CLOCK_SAFETY_MS) / 145
    assert deadlines.allotted() == pytest.approx(START + allotment / 1000)
    # At most every allotment in turn: the clock lasts a 19x19 game's length.
    left, state = 60_000.0, empty
    for _ in range(40):
        planned = plan_deadlines(Limits(clock=Clock(int(left))), 0.0, go19.moves_left(state))
        allotted = planned.allotted()
        assert allotted is not None
        left -= 1000 * allotted
        state = go19.play(state, go19.quick_move(state))
    assert left > 0.6 * 60_000
    # 9x9 about as before, an end at least 10 moves away, chess unchanged.
    go9 = create_game("go", {"size": 9})
    assert go9.moves_left(go9.initial_state()) == 33
    full = go9.parse_position("/".join(["XXXXXXXX."] * 4 + ["OOOOOOOO."] * 5) + " X")
    assert go9.moves_left(full) == 10
    chess = create_game("chess")
    assert chess.moves_left(chess.initial_state()) is None


def test_clock_never_spends_more_than_its_share_of_the_time_left() -> None:
    clock = Clock(time_ms=1_000, inc_ms=5_000)  # a huge increment must not overrun
    deadlines = plan_deadlines(Limits(clock=clock), START)
    assert deadlines.hard is not None
    assert deadlines.hard - START <= MAX_SHARE_OF_CLOCK * (1_000 - CLOCK_SAFETY_MS) / 1000 + 1e-9


def test_last_move_before_the_control_may_use_almost_all() -> None:
    deadlines = plan_deadlines(Limits(clock=Clock(time_ms=1_000, moves_to_go=1)), START)
    assert deadlines.hard is not None
    assert deadlines.hard - START == pytest.approx((1_000 - CLOCK_SAFETY_MS) / 1000)


def test_no_time_left_gives_immediate_deadlines() -> None:
    deadlines = plan_deadlines(Limits(clock=Clock(time_ms=0)), START)
    assert deadlines.hard == START


def test_movetime_and_clock_take_the_earlier() -> None:
    deadlines = plan_deadlines(Limits(movetime_ms=10, clock=Clock(time_ms=60_000)), START)
    assert deadlines.hard == pytest.approx(START + 0.01)


def test_deadlines_keep_their_start_and_can_be_capped() -> None:
    untimed = plan_deadlines(Limits(depth=5), START)
    assert untimed.start == START and untimed.hard is None
    capped = untimed.capped(START + 600)
    assert capped.hard == START + 600 and capped.soft is None and capped.start == START
    clock = plan_deadlines(Limits(clock=Clock(time_ms=60_000)), START)
    early = clock.capped(START + 0.1)
    assert early.hard == START + 0.1 and early.soft is not None and early.soft <= early.hard
    assert clock.capped(START + 3600) == clock, "a later cap changes nothing"


def test_every_searcher_obeys_the_one_max_depth() -> None:
    """Seen: expectiminimax capped depth at 64 while the server announced 128."""
    from engine.search import alphabeta, budget
    from protocol.limits import ServerLimits

    # The driver every searcher runs caps the depth; alpha-beta sizes its tables by it.
    assert budget.MAX_DEPTH is alphabeta.MAX_DEPTH is MAX_DEPTH
    assert ServerLimits().max_depth == MAX_DEPTH


def test_the_allotment_is_the_whole_share_of_the_clock_within_the_hard_deadline() -> None:
    # A search with no iterations to finish (MCTS) stops at the allotment:
    # the soft deadline is SOFT_SHARE of it, the hard one a stretch of it.
    deadlines = plan_deadlines(Limits(clock=Clock(time_ms=60_000)), START)
    allotment = (60_000 - CLOCK_SAFETY_MS) / DEFAULT_MOVES_TO_GO
    assert deadlines.allotment == pytest.approx(START + allotment / 1000)
    assert deadlines.soft is not None and deadlines.hard is not None
    assert deadlines.soft < deadlines.allotment < deadlines.hard
    movetime = plan_deadlines(Limits(movetime_ms=250), START)
    assert movetime.allotment == movetime.hard == pytest.approx(START + 0.25)
    both = plan_deadlines(Limits(movetime_ms=10, clock=Clock(time_ms=60_000)), START)
    assert both.allotment == pytest.approx(START + 0.01)
    assert plan_deadlines(Limits(depth=3), START).allotted() is None


def test_a_cap_cuts_the_allotment_too() -> None:
    clock = plan_deadlines(Limits(clock=Clock(time_ms=60_000)), START)
    early = clock.capped(START + 0.1)
    assert early.allotment == early.hard == START + 0.1
    # Deadlines made without an allotment (a trace's) stop at the hard deadline.
    assert Deadlines(START, None, START + 2).allotted() == START + 2


def test_a_request_plans_its_deadlines_only_when_the_caller_did_not() -> None:
    planned = Deadlines(START, START + 1, START + 2, START + 1.5)
    assert SearchRequest(None, Limits(movetime_ms=5), planned).planned() is planned
    before = time.monotonic()
    own = SearchRequest(None, Limits(movetime_ms=250)).planned()
    assert before <= own.start <= time.monotonic()
    assert own.hard == pytest.approx(own.start + 0.25)


def test_a_low_clock_still_gives_a_move_the_least_time_it_can() -> None:
    # 249 ms left: 229 / 30 = 7.6 ms, stretched to 23 ms, was under what a
    # server needs to search; now 50 ms (half of the time left at most).
    low = plan_deadlines(Limits(clock=Clock(time_ms=249)), START)
    assert low.hard == pytest.approx(START + MIN_CLOCK_MOVE_MS / 1000)
    assert low.allotted() == pytest.approx(START + MIN_CLOCK_MOVE_MS / 2000)
    # Never past half of what is left, and nothing on an empty clock.
    lower = plan_deadlines(Limits(clock=Clock(time_ms=80)), START)
    assert lower.hard == pytest.approx(START + (80 - CLOCK_SAFETY_MS) * MAX_SHARE_OF_CLOCK / 1000)
    assert plan_deadlines(Limits(clock=Clock(time_ms=0)), START).hard == START
