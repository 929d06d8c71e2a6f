"""Expectiminimax: the production search equals the textbook reference, within every limit."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import CHANCE, Game, Outcome
from engine.games.backgammon import Backgammon
from engine.search.alphabeta import Searcher
from engine.search.expectimax import ExpectimaxSearcher, _round_div
from engine.search.limits import Clock, Limits, plan_deadlines
from engine.search.reference import expectiminimax, expectiminimax_search
from engine.search.request import SearchRequest
from engine.search.results import Info
from engine.searchers import has_chance, searcher_for, think
from tests.timing import UNIT

#: total, player on roll, roll (None: to be rolled), plies left
ToyState = tuple[int, int, int | None, int]


class DiceToy(Game[ToyState, Any]):
    """A small game of chance with uneven probabilities and a chance outcome that passes the turn.

    The roller throws 1 (1/2), 2 (1/3) or "pass" (1/6: the opponent moves
    with a 1 instead). The mover then adds the roll to a shared total,
    subtracts it, or doubles it with the sign of its side. After the last
    ply player 0 wins if the total is positive, player 1 if negative, and a
    win by 6 or more is worth 2 points.
    """

    name = "dicetoy"
    title = "Dice toy"
    players = ("plus", "minus")
    utility_scale = 100
    value_bound = 200

    def __init__(self, plies: int = 6) -> None:
        super().__init__()
        self.plies = plies

    def initial_state(self) -> ToyState:
        return (0, 0, None, self.plies)

    def to_move(self, state: ToyState) -> int:
        return CHANCE if state[2] is None and state[3] > 0 else state[1]

    def roller(self, state: ToyState) -> int:
        return state[1]

    def chance_outcomes(self, state: ToyState) -> list[tuple[Any, float]] | None:
        if state[2] is not None or state[3] == 0:
            return None
        return [(1, 1 / 2), (2, 1 / 3), ("pass", 1 / 6)]

    def legal_moves(self, state: ToyState) -> list[Any]:
        if state[3] == 0:
            return []
        outcomes = self.chance_outcomes(state)
        if outcomes is not None:
            return [outcome for outcome, _ in outcomes]
        return ["add", "sub", "double"]

    def play(self, state: ToyState, move: Any) -> ToyState:
        total, player, roll, plies = state
        if roll is None:
            if move == "pass":
                return (total, 1 - player, 1, plies)
            return (total, player, move, plies)
        sign = 1 if player == 0 else -1
        change = {"add": roll, "sub": -roll, "double": 2 * roll * sign}[move]
        return (total + change, 1 - player, None, plies - 1)

    def outcome(self, state: ToyState) -> Outcome | None:
        total, _, _, plies = state
        if plies > 0:
            return None
        if total == 0:
            return Outcome(None, "level")
        return Outcome(0 if total > 0 else 1, "ahead", 2 if abs(total) >= 6 else 1)

    def evaluate(self, state: ToyState) -> int:
        total, player = state[0], state[1]
        value = max(-190, min(190, 30 * total + (7 if state[2] is None else 0)))
        return value if player == 0 else -value

    def key(self, state: ToyState) -> int:
        total, player, roll, plies = state
        code = 0 if roll is None else roll
        return (((total + 100) * 2 + player) * 4 + code) * 64 + plies

    def format_move(self, state: ToyState, move: Any) -> str:
        return str(move)

    def format_position(self, state: ToyState) -> str:
        return repr(state)

    def parse_position(self, text: str) -> ToyState:
        raise NotImplementedError


BACKGAMMON = Backgammon()


def random_toy_state(game: DiceToy, rng: random.Random) -> ToyState:
    state = game.initial_state()
    for _ in range(rng.randrange(4)):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.play(state, rng.choice(moves))
    while game.to_move(state) == CHANCE:
        state = game.play(state, rng.choice(game.legal_moves(state)))
    return state


def backgammon_positions(count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    states: list[Any] = []
    state = BACKGAMMON.initial_state()
    while len(states) < count:
        if BACKGAMMON.outcome(state) is not None:
            state = BACKGAMMON.initial_state()
            continue
        if BACKGAMMON.to_move(state) != CHANCE and rng.random() < 0.15:
            states.append(state)
        state = BACKGAMMON.play(state, rng.choice(BACKGAMMON.legal_moves(state)))
    return states


def _searcher(game: Game[Any, Any], star1: bool, star2: bool, slots: int) -> ExpectimaxSearcher:
    searcher = ExpectimaxSearcher(game, slots)
    searcher.use_star1, searcher.use_star2 = star1, star2
    return searcher


# ----------------------------------------------------------------------
# Equal to the reference.


def test_round_div_is_symmetric_and_nearest() -> None:
    assert [_round_div(t, 4) for t in (-6, -5, -2, 1, 2, 5, 6)] == [-2, -1, -1, 0, 1, 1, 2]
    assert all(_round_div(-t, 36) == -_round_div(t, 36) for t in range(-200, 200))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), star1=st.booleans(), star2=st.booleans())
def test_toy_game_equals_reference_at_every_depth(seed: int, star1: bool, star2: bool) -> None:
    game = DiceToy(plies=4)
    state = random_toy_state(game, random.Random(seed))
    if game.outcome(state) is not None:
        return
    searcher = _searcher(game, star1, star2, slots=1 << 10)
    for depth in range(1, 5):
        result = searcher.think(SearchRequest(state, Limits(depth=depth)))
        assert result.value == expectiminimax(game, state, depth), (state, depth)


def test_toy_game_tiny_table_still_agrees() -> None:
    game = DiceToy(plies=4)
    rng = random.Random(3)
    for _ in range(3):
        state = random_toy_state(game, rng)
        result = ExpectimaxSearcher(game, tt_slots=1).think(SearchRequest(state, Limits(depth=5)))
        assert result.value == expectiminimax(game, state, 5)
        assert result.reason == "proven"  # every line ends within 4 moves


@pytest.mark.parametrize("depth", [1, 2])
def test_backgammon_equals_reference(depth: int) -> None:
    positions = backgammon_positions(12 if depth == 1 else 4, seed=depth)
    searcher = ExpectimaxSearcher(BACKGAMMON, tt_slots=1 << 16)
    searcher.root_filter = None  # the reference searches every root move
    for state in positions:
        result = searcher.think(SearchRequest(state, Limits(depth=depth)))
        expected, _ = expectiminimax_search(BACKGAMMON, state, depth)
        assert result.value == expected, BACKGAMMON.format_position(state)


def test_backgammon_bear_off_depth_three_equals_reference_with_fewer_nodes() -> None:
    # A bear-off: few plays per roll, so the reference can go three moves deep.
    state = BACKGAMMON.parse_position(BEAR_OFF)
    plain = _searcher(BACKGAMMON, star1=False, star2=False, slots=1 << 16)
    pruned = ExpectimaxSearcher(BACKGAMMON, tt_slots=1 << 16)
    expected = expectiminimax(BACKGAMMON, state, 3)
    result = pruned.think(SearchRequest(state, Limits(depth=3)))
    baseline = plain.think(SearchRequest(state, Limits(depth=3)))
    assert result.value == baseline.value == expected
    assert result.info.nodes < baseline.info.nodes


def test_the_root_filter_searches_the_best_few_plays_deeper() -> None:
    # Doubles from the opening: many plays, so the filter has work to do.
    state = BACKGAMMON.parse_position("4HPwATDgc/ABMA 0 6-6")
    moves = BACKGAMMON.legal_moves(state)
    keep, margin = BACKGAMMON.root_filter or (0, 0)
    assert keep == 8 and margin == 160, "GNU Backgammon's 0-ply filter: 8 plays, 0.16 points"
    afterstate = {
        move: expectiminimax_search(BACKGAMMON, BACKGAMMON.play(state, move), 0)[0]
        for move in moves
    }
    # The value of each play for the mover (the afterstate is the opponent's roll).
    ranked = sorted(moves, key=lambda move: afterstate[move])
    best = -afterstate[ranked[0]]
    kept = [move for move in ranked[:keep] if -afterstate[move] >= best - margin]
    assert 1 < len(kept) < len(moves)
    filtered = ExpectimaxSearcher(BACKGAMMON, tt_slots=1 << 16)
    result = filtered.think(SearchRequest(state, Limits(depth=2)))
    assert filtered._candidates is not None
    assert set(filtered._candidates) == set(kept)
    # Depth 2 over the survivors: the best of their depth-2 values, as the reference has them.
    expected = max(-expectiminimax(BACKGAMMON, BACKGAMMON.play(state, move), 1) for move in kept)
    assert result.value == expected and result.move_value in kept
    everything = ExpectimaxSearcher(BACKGAMMON, tt_slots=1 << 16)
    everything.root_filter = None
    unfiltered = everything.think(SearchRequest(state, Limits(depth=2)))
    assert unfiltered.value >= result.value
    assert result.stats.nodes_per_depth[1] * 2 < unfiltered.stats.nodes_per_depth[1]


def test_a_filtered_root_is_never_reported_proven() -> None:
    game = DiceToy(plies=4)
    rng = random.Random(3)
    state = random_toy_state(game, rng)
    while len(game.legal_moves(state)) < 2:
        state = random_toy_state(game, rng)
    searcher = ExpectimaxSearcher(game, tt_slots=1 << 10)
    assert searcher.think(SearchRequest(state, Limits(depth=5))).reason == "proven"
    searcher.root_filter = (1, 0)  # keeps one move: the others are never searched deeper
    assert searcher.think(SearchRequest(state, Limits(depth=5))).reason == "depth"


#: Both sides bearing off, 4 and 5 checkers left, player 0 to play 4-2.
BEAR_OFF = "EwMAQCkAAAAAAA 0 4-2"
#: Only 20/14 is legal (tests/engine/games/test_backgammon.py: larger die).
ONLY_MOVE = "4P8DMAD/PwAAAg 0 6-5"


# ----------------------------------------------------------------------
# Limits, stop, progress, dispatch.


def test_dispatch_picks_the_searcher_by_kind_of_game() -> None:
    from engine.registry import create_game

    assert has_chance(BACKGAMMON) and not has_chance(create_game("connect4"))
    assert isinstance(searcher_for(BACKGAMMON), ExpectimaxSearcher)
    assert isinstance(searcher_for(create_game("connect4")), Searcher)
    result = think(
        BACKGAMMON,
        SearchRequest(BACKGAMMON.parse_position("4HPwATDgc/ABMA 0 3-1"), Limits(depth=1)),
    )
    assert result.move == "8/5 6/5"  # the standard opening play of 3-1


def test_chance_state_is_refused() -> None:
    with pytest.raises(ValueError, match="decision state"):
        ExpectimaxSearcher(BACKGAMMON).think(
            SearchRequest(BACKGAMMON.initial_state(), Limits(depth=1))
        )


def test_time_limit_answers_on_time_with_a_legal_move() -> None:
    state = BACKGAMMON.parse_position("4HPwATDgc/ABMA 0 6-6")
    started = time.monotonic()
    result = ExpectimaxSearcher(BACKGAMMON).think(SearchRequest(state, Limits(movetime_ms=150)))
    elapsed = time.monotonic() - started
    assert elapsed < 1.0 * UNIT  # generous: a shared machine
    assert result.reason == "time" and result.info.depth >= 1
    assert result.move_value in BACKGAMMON.legal_moves(state)


def test_node_limit_and_stop_and_progress() -> None:
    state = BACKGAMMON.parse_position("4HPwATDgc/ABMA 1 5-2")
    infos: list[Info] = []
    result = ExpectimaxSearcher(BACKGAMMON).think(
        SearchRequest(state, Limits(nodes=3000), on_info=infos.append)
    )
    assert result.reason == "nodes" and result.info.nodes <= 3000
    assert (
        infos
        and infos[0].depth == 1
        and infos[0].pv[0]
        in {BACKGAMMON.format_move(state, move) for move in BACKGAMMON.legal_moves(state)}
    )
    stop = threading.Event()
    stop.set()
    stopped = ExpectimaxSearcher(BACKGAMMON).think(SearchRequest(state, stop=stop))
    assert stopped.reason == "stopped" and stopped.move is not None


def test_only_move_ends_a_timed_search_at_once() -> None:
    state = BACKGAMMON.parse_position(ONLY_MOVE)
    result = ExpectimaxSearcher(BACKGAMMON).think(SearchRequest(state, Limits(movetime_ms=5000)))
    assert (result.move, result.reason, result.info.depth) == ("20/14", "only_move", 1)


class CountedToy(DiceToy):
    """The toy, counting how often a search asks its estimate of the moves to come."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def moves_left(self, state: ToyState) -> int | None:
        self.asked += 1
        return super().moves_left(state)


def test_the_moves_to_come_are_asked_only_for_a_clock_to_share() -> None:
    """Computed at every think until 2026-12-07, even with the caller's
    deadlines or no clock (Go's estimate counts the empty points)."""
    game = CountedToy()
    state = game.play(game.initial_state(), 1)
    searcher = ExpectimaxSearcher(game, tt_slots=1 << 8)
    start = time.monotonic()
    searcher.think(SearchRequest(state, Limits(depth=2)))
    given = plan_deadlines(Limits(movetime_ms=int(50 * UNIT)), start)
    searcher.think(SearchRequest(state, Limits(movetime_ms=int(50 * UNIT)), deadlines=given))
    assert game.asked == 0
    searcher.think(SearchRequest(state, Limits(depth=2, clock=Clock(time_ms=60_000))))
    assert game.asked == 1
