"""Ladder reading (engine.games.go_ladder) and its use in Go's priors and playouts."""

from __future__ import annotations

import random

from engine.games.go import Go, GoState
from engine.games.go_ladder import LadderReader, atari_captures, escape_fails
from engine.games.go_policy import BLACK, PRIOR_LADDER_RUN, WHITE

GAME = Go()
BUDGET = 200

# Black E5 with White on D5, E6 and F4: two liberties (E4, F5). White's
# atari at F5 drives it down to the lower left, where it dies on the edge.
LADDER = (
    ".........",
    ".........",
    ".........",
    "....O....",
    "...OX....",
    ".....O...",
    ".........",
    ".........",
    ".........",
)
# Black E5 in atari (White took F5 too): extending to E4 runs into that ladder.
IN_ATARI = (
    ".........",
    ".........",
    ".........",
    "....O....",
    "...OXO...",
    ".....O...",
    ".........",
    ".........",
    ".........",
)


def position(rows: tuple[str, ...], side: str) -> GoState:
    return GAME.parse_position("/".join(rows) + " " + side)


def with_stone(rows: tuple[str, ...], vertex: str, stone: str) -> tuple[str, ...]:
    """``rows`` with ``stone`` (X or O) on ``vertex`` (GTP, e.g. C3)."""
    column = "ABCDEFGHJ".index(vertex[0])
    row = GAME.size - int(vertex[1:])
    changed = list(rows)
    changed[row] = changed[row][:column] + stone + changed[row][column + 1 :]
    return tuple(changed)


def point(vertex: str) -> int:
    p = GAME.point(vertex)
    assert p is not None
    return p


def reads_captured(rows: tuple[str, ...], target: str) -> bool:
    """Whether the attacker, to move, captures the two-liberty string on ``target``."""
    board = list(position(rows, "X").board)
    before = list(board)
    dead = LadderReader(board, GAME.stride, BUDGET).captures(point(target))
    assert board == before  # every read puts the board back
    return dead


def prior(state: GoState, vertex: str) -> tuple[int, int]:
    moves = GAME.ordered_moves(state)
    found = GAME.priors(state, moves)
    assert found is not None
    visits, wins = found
    index = moves.index(point(vertex))
    return visits[index], wins[index]


def test_a_ladder_in_the_open_works() -> None:
    assert reads_captured(LADDER, "E5")


def test_a_ladder_breaker_on_the_path_saves_the_string() -> None:
    # Black stones on both diagonals the ladder could run along.
    broken = with_stone(with_stone(LADDER, "C3", "X"), "G7", "X")
    assert not reads_captured(broken, "E5")


def test_a_string_with_three_liberties_is_not_in_a_ladder() -> None:
    free = with_stone(LADDER, "F4", ".")
    assert not reads_captured(free, "E5")


def test_an_escape_along_the_edge_dies_in_the_corner() -> None:
    # Black A5 in atari under White A6 and B5: A4 runs down the edge to A1.
    rows = (
        ".........",
        ".........",
        ".........",
        "O........",
        "XO.......",
        ".........",
        ".........",
        ".........",
        ".........",
    )
    board = list(position(rows, "X").board)
    assert escape_fails(board, GAME.stride, point("A4"), BLACK, BUDGET)
    # A Black stone on B2 meets the string on its way: it escapes.
    board = list(position(with_stone(rows, "B2", "X"), "X").board)
    assert not escape_fails(board, GAME.stride, point("A4"), BLACK, BUDGET)


def test_a_chaser_left_in_atari_is_taken() -> None:
    # The edge ladder again, but White's B5 is short of liberties (Black
    # B6, C5, C4): whichever side White ataris from, Black takes a chaser.
    rows = (
        ".........",
        ".........",
        ".........",
        "OX.......",
        "XOX......",
        "..X......",
        ".........",
        ".........",
        ".........",
    )
    board = list(position(rows, "X").board)
    assert not escape_fails(board, GAME.stride, point("A4"), BLACK, BUDGET)


def test_an_atari_that_starts_a_working_ladder() -> None:
    board = list(position(LADDER, "O").board)
    assert atari_captures(board, GAME.stride, point("F5"), WHITE, point("E5"), BUDGET)
    broken = with_stone(with_stone(LADDER, "C3", "X"), "G7", "X")
    board = list(position(broken, "O").board)
    assert not atari_captures(board, GAME.stride, point("F5"), WHITE, point("E5"), BUDGET)


def test_a_read_that_runs_out_of_budget_says_escapes() -> None:
    board = list(position(LADDER, "X").board)
    reader = LadderReader(board, GAME.stride, 3)
    assert not reader.captures(point("E5"))
    assert reader.exhausted


def test_priors_punish_running_into_a_ladder_and_reward_starting_one() -> None:
    visits, wins = prior(position(IN_ATARI, "X"), "E4")
    assert visits - wins >= PRIOR_LADDER_RUN and wins / visits < 0.5
    # With the breakers the same extension is an escape.
    broken = with_stone(with_stone(IN_ATARI, "C3", "X"), "G7", "X")
    visits, wins = prior(position(broken, "X"), "E4")
    assert wins / visits > 0.5
    # White's atari at F5 starts the ladder: credited like a capture.
    ladder_visits, ladder_wins = prior(position(LADDER, "O"), "F5")
    plain_visits, plain_wins = prior(
        position(with_stone(with_stone(LADDER, "C3", "X"), "G7", "X"), "O"), "F5"
    )
    assert ladder_wins / ladder_visits > plain_wins / plain_visits


def test_a_playout_does_not_run_into_a_working_ladder() -> None:
    # White's F5 has just put E5 in atari; the heavy policy's escape at E4
    # would die in the ladder, so the policy does not play it (step b); with
    # the breakers it always does.
    before = position(with_stone(IN_ATARI, "F5", "."), "O")
    state = GAME.play_text(before, "F5")
    e4 = point("E4")
    runs = sum(
        1 for seed in range(20) if GAME.playout(state, random.Random(seed), 1)[1] == [(0, e4)]
    )
    assert runs <= 2  # only a random move lands there
    broken = with_stone(with_stone(IN_ATARI, "C3", "X"), "G7", "X")
    before = position(with_stone(broken, "F5", "."), "O")
    state = GAME.play_text(before, "F5")
    for seed in range(10):
        assert GAME.playout(state, random.Random(seed), 1)[1] == [(0, e4)]
