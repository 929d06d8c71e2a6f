"""Connect Four: rules, notation, and exact solves against Pons' published scores.

The positions with their published scores that every run checks are kept in
``tests/facts/connect4_pons.txt`` (a few hundred, source named there); the
full sets in ``../shared/refdata`` are an optional, longer check.
"""

from __future__ import annotations

import pytest

from engine.errors import BadOptionsError, BadPositionError, IllegalMoveError
from engine.games.connect4 import ConnectFour
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from engine.search.solver import ExactSolver
from tests.refdata import fact_lines, refdata_file

GAME = ConnectFour()
#: Positions with their published scores, kept in tests/facts.
FACTS_FILE = "connect4_pons.txt"
#: Sets in the facts file, in its order, with how many positions it keeps of each.
FACT_SETS = {"Test_L3_R1": 150, "Test_L2_R1": 150, "Test_L2_R2": 30, "Test_L1_R1": 70}
#: Lines in each full set of Pons' (../shared/refdata/connect4).
FULL_SET_SIZE = 1000


def fact_rows(set_name: str) -> list[tuple[str, int]]:
    """The positions of one of Pons' sets kept in tests/facts, with their published scores."""
    rows = []
    for line in fact_lines(FACTS_FILE):
        name, position, score = line.split()
        if name == set_name:
            rows.append((position, int(score)))
    return rows


def load_set(name: str) -> list[tuple[str, int]]:
    """A full set from ../shared/refdata, or skip (the optional, longer check)."""
    path = refdata_file("connect4", name)
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            position, score = line.split()
            rows.append((position, int(score)))
    return rows


def solve_all(rows: list[tuple[str, int]]) -> list[tuple[str, int, int]]:
    solver = ExactSolver(GAME, tt_slots=1 << 20)
    wrong = []
    for position, expected in rows:
        state = GAME.parse_position(position)
        result = solver.solve(state)
        assert result.reason == "proven"
        got = GAME.pons_score(state, result.info.score.win_in, result.info.score.loss_in)
        if got != expected:
            wrong.append((position, expected, got))
    return wrong


def test_the_facts_file_holds_every_set_it_names() -> None:
    names = [line.split()[0] for line in fact_lines(FACTS_FILE)]
    assert {name: names.count(name) for name in FACT_SETS} == FACT_SETS
    assert len(names) == sum(FACT_SETS.values())


@pytest.mark.parametrize("set_name", FACT_SETS)
def test_published_scores_kept_in_tests(set_name: str) -> None:
    rows = fact_rows(set_name)
    assert len(rows) == FACT_SETS[set_name]
    assert solve_all(rows) == []


def test_full_endgame_set_test_l3_r1() -> None:
    rows = load_set("Test_L3_R1")
    assert len(rows) == FULL_SET_SIZE
    assert solve_all(rows) == []


@pytest.mark.parametrize("part", range(4))
def test_full_middlegame_set_test_l2_r1(part: int) -> None:
    rows = load_set("Test_L2_R1")
    assert len(rows) == FULL_SET_SIZE
    assert solve_all(rows[part * 250 : (part + 1) * 250]) == []


def test_published_examples() -> None:
    # Pons, "Solving Connect 4", part 2: 4455 scores 18, 44455554221 scores -15.
    for position, expected in (("4455", 18), ("44455554221", -15)):
        state = GAME.parse_position(position)
        result = ExactSolver(GAME).solve(state)
        assert (
            GAME.pons_score(state, result.info.score.win_in, result.info.score.loss_in) == expected
        )


def test_best_move_of_a_solve_achieves_the_value() -> None:
    solver = ExactSolver(GAME, tt_slots=1 << 18)
    for position, _ in fact_rows("Test_L3_R1")[:50]:
        state = GAME.parse_position(position)
        result = solver.solve(state)
        after = solver.solve(GAME.play(state, result.move_value))
        # One ply later the opponent sees the same result from the other side.
        if result.info.score.win_in is not None:
            assert after.info.score.loss_in == result.info.score.win_in - 1
        elif result.info.score.loss_in is not None:
            assert after.info.score.win_in == result.info.score.loss_in - 1
        else:
            assert after.info.score.draw


def test_centre_opening_is_preferred() -> None:
    # The empty board is a first-player win only by the centre column
    # (Allis 1988; Tromp). A full proof takes far too long in CPython for a
    # test; a fixed-depth search must at least choose the centre.
    result = Searcher(GAME).think(SearchRequest(GAME.initial_state(), Limits(depth=8)))
    assert result.move == "4"


def test_vertical_horizontal_and_diagonal_wins() -> None:
    for position in ("1213141", "1122334", "12234334544", "76654554344"):
        state = GAME.parse_position(position[:-1])
        assert GAME.outcome(state) is None
        assert GAME.winning_move(state) == int(position[-1]) - 1
        final = GAME.play_text(state, position[-1])
        outcome = GAME.outcome(final)
        assert outcome is not None and outcome.winner == 0


def test_full_board_draw_and_no_moves() -> None:
    game = ConnectFour(width=4, height=4)
    state = game.parse_position("1122334421433412"[:0])
    # Fill the 4x4 board column pairs in a pattern with no four in a row.
    for column in "1212343421214343":
        state = game.play_text(state, column)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert game.legal_moves(state) == []


def test_notation_round_trip_and_columns() -> None:
    state = GAME.parse_position("4455")
    assert GAME.format_position(state) == "4455"
    assert GAME.to_move(state) == 0
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == list("1234567")
    assert GAME.parse_move(state, "7") == 6


@pytest.mark.parametrize("text", ["0", "8", "x", "44444444", "1111111"])
def test_bad_positions(text: str) -> None:
    with pytest.raises(BadPositionError):
        GAME.parse_position(text)


def test_full_column_is_illegal() -> None:
    state = GAME.parse_position("444444")
    with pytest.raises(IllegalMoveError) as info:
        GAME.parse_move(state, "4")
    assert "4" not in info.value.legal_moves


@pytest.mark.parametrize("options", [{"width": 3}, {"height": 9}, {"width": "7"}, {"depth": 1}])
def test_bad_options(options: dict[str, object]) -> None:
    with pytest.raises(BadOptionsError):
        create_game("connect4", options)


def test_other_board_sizes() -> None:
    game = ConnectFour(width=9, height=8)
    state = game.parse_position("999")
    assert game.legal_moves(state)[-1] == 8
    result = Searcher(game).think(SearchRequest(state, Limits(depth=3)))
    assert result.move in [str(c) for c in range(1, 10)]
