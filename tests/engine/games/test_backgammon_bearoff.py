"""The one-sided bear-off tables: their rules, their recurrence, the shipped file, the game's use.

The chances checked by hand below are counted from the dice (36 rolls), not
taken from any table.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from engine.games.backgammon import POINT, Backgammon, BgState, legal_plays
from engine.games.backgammon_bearoff import (
    BOARDS,
    CHECKERS,
    MAX_ROLLS,
    ROLLS,
    TABLES_FILE,
    all_boards,
    bearoff_results,
    board_index,
    home_board,
    load_tables,
    shipped_tables,
)

TABLES = shipped_tables()
#: The shipped tables are 16-bit: each chance is within this of the exact one.
QUANTISED = 1e-4


def board(home: tuple[int, ...]) -> tuple[int, ...]:
    return (*home, *([0] * 19))


def random_homes(count: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    homes = all_boards()
    return [homes[rng.randrange(1, BOARDS)] for _ in range(count)]


def test_every_home_board_has_its_own_rank() -> None:
    boards = all_boards()
    assert len(boards) == BOARDS == 54_264
    assert [board_index(home) for home in boards] == list(range(BOARDS))
    assert max(sum(home) for home in boards) == CHECKERS


def test_a_home_board_is_one_with_every_checker_on_points_1_to_6() -> None:
    assert home_board(board((1, 0, 0, 0, 0, 2))) == (1, 0, 0, 0, 0, 2)
    assert home_board((0,) * 6 + (1,) + (0,) * 18) is None  # a checker on the 7 point
    assert home_board((1,) + (0,) * 23 + (1,)) is None  # a checker on the bar


def test_the_bear_off_moves_are_the_full_rules_moves() -> None:
    # The tables' own move generator against the rules engine's, every roll.
    opponent_far = (CHECKERS, *([0] * 24))
    for home in [
        *random_homes(150, seed=5),
        (0, 0, 0, 0, 0, 1),
        (1, 0, 0, 0, 0, 0),
        (0, 0, 0, 3, 0, 0),
    ]:
        for (high, low), _ in ROLLS:
            plays = legal_plays(board(home), opponent_far, high, low)
            expected = sorted({tuple(after[:6]) for _, after, _ in plays})
            assert bearoff_results(home, high, low) == expected, (home, high, low)


def test_chances_counted_by_hand() -> None:
    # One checker on the 6 point is off in one roll unless the dice make less
    # than 6 pips: 1-1, 1-2, 1-3, 1-4 and 2-3 (9 of 36).
    one_on_six = TABLES.off[board_index((0, 0, 0, 0, 0, 1))]
    assert one_on_six[1] == pytest.approx(27 / 36, abs=QUANTISED)
    assert one_on_six[2] == pytest.approx(9 / 36, abs=QUANTISED)
    # Two checkers on the 1 point: any roll.
    assert TABLES.off[board_index((2, 0, 0, 0, 0, 0))][1] == pytest.approx(1.0, abs=QUANTISED)
    # Fifteen on the 6 point bear the first off at once with a 6 (11 rolls)
    # or 5-1, 4-2 (2 each), 3-3 and 2-2 (1 each): 17 of 36.
    first = TABLES.first[board_index((0, 0, 0, 0, 0, CHECKERS))]
    assert first[1] == pytest.approx(17 / 36, abs=QUANTISED)
    # Whoever is on roll with one checker on the 6 point against one on the
    # 1 point wins exactly when it bears off at once.
    win, win_gammon, lose_gammon = TABLES.chances((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0))
    assert (win, win_gammon, lose_gammon) == pytest.approx((27 / 36, 0.0, 0.0), abs=QUANTISED)


@cache
def expected_by_search(home: tuple[int, ...]) -> float:
    """Rolls expected to bear off ``home``, by a plain recursion over the rules' own plays."""
    if not any(home):
        return 0.0
    total = 1.0
    for (high, low), chance in ROLLS:
        plays = legal_plays(board(home), (CHECKERS, *([0] * 24)), high, low)
        total += chance * min(expected_by_search(tuple(after[:6])) for _, after, _ in plays)
    return total


def test_the_tables_match_a_plain_recursion_on_small_boards() -> None:
    small = [home for home in all_boards() if 0 < sum(home) <= 3]
    for home in small:
        assert TABLES.expected_rolls(home) == pytest.approx(
            expected_by_search(home), abs=MAX_ROLLS * QUANTISED
        ), home


def test_every_shipped_row_obeys_the_recurrence() -> None:
    # One step of the recurrence, on boards drawn from the whole file: a
    # board's distribution is its rolls' best results' shifted by one.
    boards = all_boards()
    steps = np.arange(MAX_ROLLS)
    means = TABLES.off @ steps
    for home in random_homes(200, seed=6):
        expected = np.zeros(MAX_ROLLS)
        for (high, low), chance in ROLLS:
            best = min(
                (board_index(result) for result in bearoff_results(home, high, low)),
                key=lambda index: means[index],
            )
            expected[1:] += chance * TABLES.off[best, :-1]
        assert np.abs(expected[:-1] - TABLES.off[board_index(home), :-1]).max() < 4 * QUANTISED, (
            home
        )
    assert boards[0] == (0,) * 6 and TABLES.off[0, 0] == 1.0


def test_every_distribution_is_whole() -> None:
    assert TABLES.off.sum(axis=1) == pytest.approx(1.0)
    full = [board_index(home) for home in all_boards() if sum(home) == CHECKERS]
    assert TABLES.first[full].sum(axis=1) == pytest.approx(1.0)
    assert TABLES.off[:, -4:].max() < QUANTISED  # nothing cut off at MAX_ROLLS
    assert load_tables(TABLES_FILE).off.shape == (BOARDS, MAX_ROLLS)


def test_gammons_need_fifteen_checkers_left() -> None:
    # Against 15 checkers still home a fast side may win a gammon ...
    _, win_gammon, _ = TABLES.chances((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 5, 10))
    assert win_gammon > 0.5
    # ... and never against a side with one checker off.
    _, win_gammon, _ = TABLES.chances((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 4, 10))
    assert win_gammon == 0.0
    # On roll with 15 checkers against a side that finishes next roll: lost,
    # and a gammon unless a checker comes off now. The roll fails with 4-3,
    # 3-1, 2-1 (2 each), 4-4 and 1-1: 8 of 36.
    win, _, lose_gammon = TABLES.chances((0, 0, 0, 0, 5, 10), (1, 1, 0, 0, 0, 0))
    assert win == 0.0
    assert lose_gammon == pytest.approx(8 / 36, abs=QUANTISED)


def test_the_game_values_bear_offs_by_the_tables_and_the_rest_by_the_network() -> None:
    game = Backgammon()
    mine, theirs = (3, 3, 2, 2, 0, 1), (2, 2, 3, 3, 3, 2)
    state = BgState(board(mine), board(theirs), 0, None)
    assert game.evaluate(state) == round(TABLES.equity(mine, theirs) * POINT)
    network_only = Backgammon()
    network_only.bearoff = None
    assert network_only.evaluate(state) == round(
        game.network.equities([(state.me, state.opp)])[0] * POINT
    )
    # One checker of the opponent's still outside its home board: the network.
    outside = (*theirs[:5], theirs[5] - 1, 1, *([0] * 18))
    other = BgState(board(mine), outside, 0, None)
    assert game.evaluate(other) == network_only.evaluate(other)
