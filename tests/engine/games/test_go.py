"""Go: rules (captures, suicide, ko, superko, end, scoring), notation, SGF, and two oracles.

Oracle 1 is OpenSpiel's ``go`` (legal moves along seeded games, final
returns); oracle 2 is GNU Go's area count (``final_score`` with
``--chinese-rules``) of finished games. Each skips with its reason when the
program is missing.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import subprocess
from typing import Any

import pytest

from engine.errors import BadOptionsError, BadPositionError, GameOverError, IllegalMoveError
from engine.game import EVAL_LIMIT, MCTS
from engine.games.go import (
    NO_MOVE,
    PASS,
    RESIGN,
    RESIGN_BELOW,
    RESIGN_CONSECUTIVE,
    RESIGN_MIN_PLAYOUTS,
    RESIGN_MIN_THINK_PLAYOUTS,
    Go,
    GoState,
    ResignStreak,
    cleanup_move,
    dead_stones,
    gaining_move,
    ownership,
    passing_wins,
    should_resign,
)
from engine.registry import create_game
from engine.search.alphabeta import Searcher
from engine.search.limits import Limits
from engine.search.request import SearchRequest
from tests.timing import UNIT

GAME = Go()
SMALL = Go(size=5)
EMPTY_9 = "/".join(["........."] * 9) + " X"


def position(*rows: str, side: str = "X", game: Go = SMALL) -> GoState:
    """A position from rows given top first."""
    return game.parse_position("/".join(rows) + " " + side)


def play(game: Go, state: GoState, *moves: str) -> GoState:
    for move in moves:
        state = game.play_text(state, move)
    return state


def names(game: Go, state: GoState) -> set[str]:
    return {game.format_move(state, m) for m in game.legal_moves(state)}


def seeded_game(game: Go, seed: int) -> list[tuple[GoState, int]]:
    """Positions and moves of a game played to its end by the playout policy."""
    rng = random.Random(seed)
    state = game.initial_state()
    line = []
    while game.outcome(state) is None:
        move = game.playout_move(state, rng)
        line.append((state, move))
        state = game.play(state, move)
    line.append((state, PASS))
    return line


# ----------------------------------------------------------------------
# Registry and options.


def test_registered_with_defaults() -> None:
    game = create_game("go")
    assert isinstance(game, Go)
    assert game.options == {"size": 9, "komi": 7.5}
    assert game.title == "Go" and game.players == ("black", "white")
    assert game.default_algorithm == MCTS
    assert game.to_move(game.initial_state()) == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 4}, "between 5 and 19"),
        ({"size": 20}, "between 5 and 19"),
        ({"size": True}, "integer"),
        ({"komi": 7.3}, "multiple of 0.5"),
        ({"komi": "7.5"}, "number"),
        ({"komi": True}, "number"),
        ({"komi": 151}, "between"),
        ({"komi": float("nan")}, "multiple of 0.5"),
        # huge numbers: doubling 1e308 overflows to inf, and int(inf) raised
        # OverflowError (an "internal" error over the protocol) before the range check
        ({"komi": 1e308}, "between"),
        ({"komi": -1e308}, "between"),
        ({"komi": float("inf")}, "between"),
        ({"komi": 10**400}, "between"),
        ({"handicap": 2}, "no option"),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionsError, match=message):
        create_game("go", options)


def test_integer_and_negative_komi_accepted() -> None:
    assert create_game("go", {"komi": 6}).options["komi"] == 6
    assert create_game("go", {"komi": -0.5}).options["komi"] == -0.5


# ----------------------------------------------------------------------
# Rules.


def test_capture_of_one_stone() -> None:
    state = position(".....", "..X..", ".XO..", ".....", ".....")
    assert state.player == 0
    after = play(SMALL, state, "D3")
    assert after.black_captures == 0
    after = play(SMALL, after, "A1", "C2")
    assert SMALL.format_position(after).split("/")[2] == ".X.X."
    assert after.black_captures == 1 and after.white_captures == 0
    assert after.last_move == SMALL.point("C2")


def test_capture_of_a_string_of_two() -> None:
    state = position(".....", "..XX.", ".XOOX", "..X..", ".....")
    after = play(SMALL, state, "D2")
    assert SMALL.format_position(after) == "...../..XX./.X..X/..XX./..... O"
    assert after.black_captures == 2


def test_suicide_is_illegal() -> None:
    state = position(".....", ".....", ".....", "O....", ".O...")
    assert "A1" not in names(SMALL, state)
    with pytest.raises(IllegalMoveError, match="A1 would be suicide") as error:
        SMALL.parse_move(state, "A1")
    assert "B2" in error.value.legal_moves and "A1" not in error.value.legal_moves


def test_multi_stone_suicide_is_illegal() -> None:
    state = position(".....", ".....", "OO...", "XO...", ".O...")
    assert "A1" not in names(SMALL, state)


def test_a_move_that_captures_is_not_suicide() -> None:
    state = position(".....", ".....", "X....", "OX...", ".OX..")
    assert "A1" in names(SMALL, state)
    after = play(SMALL, state, "A1")
    assert SMALL.format_position(after) == "...../...../X..../.X.../X.X.. O"
    assert after.black_captures == 2


def ko_position() -> GoState:
    # White takes the ko at B3 (capturing C3); Black may not retake at once.
    return position(".....", ".XO..", "X.XO.", ".XO..", ".....", side="O")


def test_simple_ko() -> None:
    state = play(SMALL, ko_position(), "B3")
    assert state.white_captures == 1
    assert state.ko == SMALL.point("C3")
    assert "C3" not in names(SMALL, state)
    with pytest.raises(IllegalMoveError, match=r"C3 would repeat .* \(ko, positional superko\)"):
        SMALL.parse_move(state, "C3")
    # A ko threat and an answer elsewhere, then the retake is legal.
    state = play(SMALL, state, "E1", "E5")
    assert "C3" in names(SMALL, state)
    state = play(SMALL, state, "C3")
    assert state.black_captures == 1


def superko_position() -> GoState:
    # Black B5 makes a string of two in atari; White D5 takes both; Black
    # retaking at C5 would take one stone back and recreate the position
    # below. Simple ko does not forbid it (two stones were taken).
    return position("O.X.X", "OOOXX", ".....", ".....", ".....")


def test_positional_superko() -> None:
    start = superko_position()
    state = play(SMALL, start, "B5", "D5")
    assert state.white_captures == 2
    assert state.ko == 0  # no simple ko
    assert "C5" not in names(SMALL, state)
    with pytest.raises(IllegalMoveError, match="C5 would repeat an earlier whole-board position"):
        SMALL.parse_move(state, "C5")
    # The same board with a history that does not hold it: C5 is legal and
    # recreates exactly the start position's board.
    fresh = SMALL.parse_position(SMALL.format_position(state))
    assert "C5" in names(SMALL, fresh)
    assert play(SMALL, fresh, "C5").board == start.board


def test_superko_regardless_of_side_to_move() -> None:
    # The earlier position had White to move, the recreated one Black.
    start = position("O.X.X", "OOOXX", ".....", ".....", ".....", side="O")
    state = play(SMALL, start, "A1", "B5", "D5")
    assert "C5" not in names(SMALL, state)


def test_pass_twice_ends_the_game() -> None:
    state = play(SMALL, SMALL.initial_state(), "C3", "pass")
    assert SMALL.outcome(state) is None
    state = play(SMALL, state, "pass")
    outcome = SMALL.outcome(state)
    assert outcome is not None and outcome.winner == 0
    assert outcome.reason == "black wins by 17.5"
    assert SMALL.legal_moves(state) == []
    with pytest.raises(GameOverError):
        SMALL.parse_move(state, "A1")


def test_a_pass_between_moves_does_not_end_the_game() -> None:
    state = play(SMALL, SMALL.initial_state(), "pass", "C3", "pass")
    assert SMALL.outcome(state) is None and state.passes == 1


def test_resign() -> None:
    state = SMALL.initial_state()
    assert RESIGN not in SMALL.legal_moves(state)
    move = SMALL.parse_move(state, "resign")
    assert SMALL.format_move(state, move) == "resign"
    outcome = SMALL.outcome(SMALL.play(state, move))
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "black resigns"
    state = play(SMALL, state, "C3", "Resign")
    outcome = SMALL.outcome(state)
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "white resigns"


def test_maximum_length_ends_the_game() -> None:
    assert SMALL.max_length == 2 * 5 * 5 == GAME.max_length // 81 * 25
    state = play(SMALL, SMALL.initial_state(), "C3")._replace(ply=SMALL.max_length - 1)
    assert SMALL.outcome(state) is None
    assert SMALL.max_remaining_plies(state) == 1
    state = play(SMALL, state, "D3")
    outcome = SMALL.outcome(state)
    assert outcome is not None and outcome.winner == 1  # 12 to 12 + 7.5
    assert SMALL.legal_moves(state) == []


@pytest.mark.parametrize(
    ("komi", "reason", "winner"),
    [
        (7.5, "white wins by 7.5", 1),
        (0, "draw at 10 points each", None),
        (-1, "black wins by 1", 0),
        (-0.5, "black wins by 0.5", 0),
    ],
)
def test_area_scoring(komi: float, reason: str, winner: int | None) -> None:
    game = Go(size=5, komi=komi)
    state = position(*[".X.O."] * 5, game=game)
    assert game.score(state) == (10, 10)
    outcome = game.outcome(play(game, state, "pass", "pass"))
    assert outcome is not None
    assert (outcome.reason, outcome.winner) == (reason, winner)


def test_area_counts_only_regions_reaching_one_colour() -> None:
    state = position("..X.O", ".XX.O", "XX.OO", "..O..", ".O...")
    black, white = SMALL.score(state)
    # Black: 5 stones and {A5, B5, A4}; {D5, D4}, {C3} and {A2, B2, A1}
    # reach both colours and count for neither.
    assert black == 5 + 3
    # White: 6 stones and {C1, D1, E1, D2, E2}.
    assert white == 6 + 5


def test_evaluate_is_for_the_side_to_move() -> None:
    state = GAME.initial_state()
    assert GAME.evaluate(state) == -75  # komi alone, in tenths
    after = play(GAME, state, "E5")
    assert GAME.evaluate(after) == -(810 - 75)
    assert -EVAL_LIMIT <= GAME.evaluate(after) <= EVAL_LIMIT


def test_distance_area() -> None:
    # Black at A3, White at E3: columns A-B are Black's, D-E White's, C neutral.
    state = position(".....", ".....", "X...O", ".....", ".....")
    assert SMALL.evaluate(state) == 10 * (10 - 10) - 75


def test_key_includes_side_and_passes() -> None:
    state = play(SMALL, SMALL.initial_state(), "C3")
    passed = play(SMALL, state, "pass")
    assert SMALL.key(state) != SMALL.key(passed)
    assert state.board_key == passed.board_key
    # The history does not enter the key: the same board, side and passes
    # read from the notation share it.
    fresh = SMALL.parse_position(SMALL.format_position(state))
    assert fresh.history != state.history and SMALL.key(fresh) == SMALL.key(state)
    other_side = SMALL.parse_position(SMALL.format_position(state)[:-1] + "X")
    assert SMALL.key(other_side) != SMALL.key(state)
    assert all(0 <= k < 1 << 62 for k in (SMALL.key(state), SMALL.key(passed)))


def test_ordered_moves_are_the_legal_moves_captures_first() -> None:
    state = position(".....", "..X..", ".XO..", "..X..", ".....")
    ordered = SMALL.ordered_moves(state)
    assert sorted(ordered) == sorted(SMALL.legal_moves(state))
    assert SMALL.format_move(state, ordered[0]) == "D3"
    assert ordered[-1] == PASS


# ----------------------------------------------------------------------
# Notation.


def test_empty_position() -> None:
    assert GAME.format_position(GAME.initial_state()) == EMPTY_9
    assert GAME.parse_position(EMPTY_9) == GAME.initial_state()


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_vertices_round_trip(size: int) -> None:
    game = Go(size=size)
    state = game.initial_state()
    texts = [game.format_move(state, m) for m in game.legal_moves(state)]
    assert len(texts) == size * size + 1 and texts[-1] == "pass"
    assert all("I" not in t for t in texts)
    for text in texts:
        assert game.format_move(state, game.parse_move(state, text)) == text
        assert game.format_move(state, game.parse_move(state, text.lower())) == text


def test_vertex_letters() -> None:
    big = Go(size=19)
    state = big.initial_state()
    assert big.format_move(state, big.parse_move(state, "t19")) == "T19"
    assert big.format_move(state, big.parse_move(state, "J10")) == "J10"
    after = big.play_text(state, "A1")
    assert big.format_position(after).split("/")[-1].startswith("X....")
    after = big.play_text(state, "T19")
    assert big.format_position(after).startswith("..................X/")


@pytest.mark.parametrize("text", ["I5", "Z9", "A10", "A0", "", "E", "55", "pas", "E5E"])
def test_bad_moves(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(GAME.initial_state(), text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I5", "there is no column I"),
        ("K5", r"K5 is off the 9x9 board \(columns A-J without I, rows 1-9\)"),
        ("A10", "A10 is off the 9x9 board"),
        ("E", "like D4"),
        ("55", "like D4"),
    ],
)
def test_a_refused_move_says_why(text: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError, match=reason):
        GAME.parse_move(GAME.initial_state(), text)


def test_format_move_refuses_what_is_not_a_move() -> None:
    state = GAME.initial_state()
    assert state.last_move == NO_MOVE
    for move in (NO_MOVE, 10, 11 * 10, 5 * 10 + 10):  # none, border, past the end
        with pytest.raises(ValueError, match="not a move"):
            GAME.format_move(state, move)


def test_occupied_point_is_illegal() -> None:
    state = play(GAME, GAME.initial_state(), "E5")
    # The reason is in the message: the server's error carries it to every client.
    with pytest.raises(IllegalMoveError, match="'E5' is not a legal move here: E5 is occupied"):
        GAME.parse_move(state, "E5")


def test_position_round_trip_keeps_side() -> None:
    text = "...../.XO../X.XO./.XO../..... O"
    assert SMALL.format_position(SMALL.parse_position(text)) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "rows"),
        ("...../...../...../...../.....", "rows"),
        ("...../...../...../...../..... B", "rows"),
        ("...../...../...../..... X", "rows"),
        ("...../...../...../...../.... X", "row 5"),
        ("...../...../..#../...../..... X", "'#'"),
        ("OX.../X..../...../...../..... X", "no liberty"),
    ],
)
def test_bad_positions(text: str, message: str) -> None:
    with pytest.raises(BadPositionError, match=message):
        SMALL.parse_position(text)


# ----------------------------------------------------------------------
# SGF.


def test_sgf_setup_and_move() -> None:
    state = GAME.parse_position("(;SZ[9]KM[7.5]AB[dd][ee]AW[cc];B[ef])")
    assert GAME.format_position(state).split("/") == [
        ".........",
        ".........",
        "..O......",
        "...X.....",
        "....X....",
        "....X....",
        ".........",
        ".........",
        "......... O",
    ]
    assert GAME.format_move(state, state.last_move) == "E4"
    assert state.ply == 1


def test_sgf_passes_captures_and_history() -> None:
    record = "(;GM[1]FF[4]SZ[5]AB[bc]AW[ab][ad](;W[ac];B[];W[tt])(;W[ee]))"
    state = SMALL.parse_position(record)
    assert state.white_captures == 0
    assert state.passes == 2
    outcome = SMALL.outcome(state)
    assert outcome is not None and outcome.winner == 1
    record = "(;SZ[5]AB[bc][ab][bd]AW[cc][bb][cd];W[ac];B[cb])"
    state = SMALL.parse_position(record)
    assert state.white_captures == 0


def test_sgf_play_goes_on_after_two_passes() -> None:
    """A record with a clean-up phase (moves after two passes, as the tournament writes
    them and KGS and GoGui games hold) was refused: "the game is already over"."""
    record = "(;SZ[5];B[cc];W[];B[];W[bb];B[dd];W[];B[])"
    state = SMALL.parse_position(record)
    assert SMALL.format_position(state) == "...../.O.../..X../...X./..... O"
    assert state.passes == 2 and SMALL.outcome(state) is not None
    resumed = SMALL.resumed(state)
    assert resumed.passes == 0 and SMALL.outcome(resumed) is None
    assert resumed.history == state.history and resumed.board == state.board
    resigned = SMALL.play(SMALL.initial_state(), SMALL.parse_move(SMALL.initial_state(), "resign"))
    assert SMALL.resumed(resigned) is resigned  # a resignation stays the end


def test_sgf_superko_history_comes_from_the_record() -> None:
    record = "(;SZ[5]AW[aa][ab][bb][cb]AB[ca][db][eb][ea]PL[B];B[ba];W[da])"
    state = SMALL.parse_position(record)
    assert state.white_captures == 2
    assert "C5" not in names(SMALL, state)


def test_sgf_setup_after_moves_keeps_the_counts() -> None:
    record = "(;SZ[5]AB[bc][cb][dc]AW[cc];B[cd];W[ee];AB[aa];W[];B[ab])"
    state = SMALL.parse_position(record)
    assert state.black_captures == 1 and state.ply == 4 and state.passes == 0
    # The history: the position the setup made, and the one B[ab] made.
    assert len(state.history) == 2 and state.board_key in state.history


def test_sgf_side_to_move() -> None:
    assert SMALL.parse_position("(;SZ[5]AB[cc][dd])").player == 1  # handicap
    assert SMALL.parse_position("(;SZ[5]AB[cc]AW[dd])").player == 0
    assert SMALL.parse_position("(;SZ[5]AB[cc]AW[dd]PL[W])").player == 1
    assert SMALL.parse_position("(;SZ[5];B[cc];W[dd])").player == 0
    assert SMALL.parse_position("(;SZ[5]AE[aa]AB[aa:bb])").board.count(1) == 4


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("(;SZ[19])", "size 19"),
        ("(;SZ[5:7])", "square"),
        ("(;B[aa])", "no SZ"),
        ("(;SZ[5];B[zz])", "not a point"),
        ("(;SZ[5];B[cc];W[cc])", "not a legal move"),
        ("(;SZ[5]", "ends before"),
        ("(;SZ[5]AB[aa)", "unclosed"),
        ("(;SZ[5]PL[X])", "PL"),
        ("(;SZ[5]AB)", "no"),
        ("(;SZ[5]AB[aa][ab][ba]AW[bb][ac][ca])", "no liberty"),
        ("(SZ[5])", "unexpected"),
    ],
)
def test_bad_sgf(record: str, message: str) -> None:
    with pytest.raises(BadPositionError, match=message):
        SMALL.parse_position(record)


def test_sgf_main_line_follows_the_first_variation() -> None:
    state = SMALL.parse_position("(;SZ[5];B[cc](;W[dd];B[bb])(;W[aa]))")
    assert SMALL.format_position(state) == "...../.X.../..X../...O./..... O"


# ----------------------------------------------------------------------
# Pickling and playouts.


def test_pickle_round_trip() -> None:
    state = play(SMALL, ko_position(), "B3", "pass")
    assert pickle.loads(pickle.dumps(state)) == state
    game = pickle.loads(pickle.dumps(Go(size=7, komi=5)))
    assert game.options == {"size": 7, "komi": 5}


@pytest.mark.parametrize(("size", "seed"), [(5, 1), (9, 2), (13, 3)])
def test_playouts_obey_the_rules(size: int, seed: int) -> None:
    """Playout moves replayed by ``play`` are legal (but for superko) and score the same."""
    game = Go(size=size, komi=0.5)
    rng = random.Random(seed)
    replayed = 0
    for _ in range(20):
        start = game.initial_state()
        reward, moves = game.playout(start, rng, 10_000)
        state = start
        for player, move in moves:
            assert game.to_move(state) == player
            if move not in game.legal_moves(state):
                assert move != PASS
                board = game.play(state, move).board_key
                assert board in state.history, "only superko may differ"
                break
            state = game.play(state, move)
        else:
            replayed += 1
            outcome = game.outcome(state)
            assert outcome is not None
            assert game.reward(outcome) == reward
    assert replayed >= 10


def test_playout_from_a_finished_game() -> None:
    state = play(SMALL, SMALL.initial_state(), "C3", "pass", "pass")
    assert SMALL.playout(state, random.Random(1), 100) == (1.0, [])


def test_playout_respects_simple_ko() -> None:
    state = play(SMALL, ko_position(), "B3")
    c3 = SMALL.point("C3")
    for seed in range(200):
        _, moves = SMALL.playout(state, random.Random(seed), 1)
        assert moves[0][1] != c3
        assert SMALL.playout_move(state, random.Random(seed)) != c3


def test_playout_takes_a_stone_in_atari_and_saves_its_own() -> None:
    # White's last stone C3 is in atari at D3: Black takes it.
    state = play(SMALL, position(".....", "..X..", ".X...", "..X..", ".....", side="O"), "C3")
    for seed in range(20):
        assert SMALL.playout(state, random.Random(seed), 1)[1] == [(0, SMALL.point("D3"))]
        assert SMALL.playout_move(state, random.Random(seed)) == SMALL.point("D3")
    # White's D3 puts Black's C3 in atari: Black extends at C2 (three liberties).
    state = play(SMALL, position(".....", "..O..", ".OX..", ".....", ".....", side="O"), "D3")
    for seed in range(20):
        assert SMALL.playout(state, random.Random(seed), 1)[1] == [(0, SMALL.point("C2"))]
        assert SMALL.playout_move(state, random.Random(seed)) == SMALL.point("C2")
    # White's B4 puts Black's C4 in atari; C5 gives it two liberties, but
    # White's B5 then chases it along the edge to its death (a ladder): the
    # heavy playout does not run there, the light policy's move does.
    state = play(SMALL, position(".....", "..XO.", ".OOX.", ".....", ".....", side="O"), "B4")
    c5 = SMALL.point("C5")
    runs = sum(
        1 for seed in range(20) if SMALL.playout(state, random.Random(seed), 1)[1] == [(0, c5)]
    )
    assert runs <= 4  # only a random move lands there
    for seed in range(20):
        assert SMALL.playout_move(state, random.Random(seed)) == c5


def test_playout_moves_are_legal_in_random_positions() -> None:
    rng = random.Random(7)
    for seed in range(5):
        for state, _ in seeded_game(GAME, seed)[:-1:7]:
            assert GAME.playout_move(state, rng) in GAME.legal_moves(state)


def test_playout_never_fills_its_own_eye() -> None:
    # Black's only empty points are its eyes A1 and C1, White's B5 and D5
    # (suicide for Black): both sides pass.
    state = position("O.O.O", "OOOOO", "XXXXX", "XXXXX", ".X.XX", side="X")
    assert SMALL.legal_moves(state) == [SMALL.point("A1"), SMALL.point("C1"), PASS]
    assert SMALL.playout(state, random.Random(3), 50) == (0.0, [(0, PASS), (1, PASS)])
    assert SMALL.playout_move(state, random.Random(3)) == PASS


def build_probe() -> dict[str, Any]:
    """What the pure and compiled builds must agree on, as JSON-ready data."""
    answers: dict[str, Any] = {}
    for size in (5, 9):
        game = Go(size=size, komi=6 if size == 5 else 7.5)
        rng = random.Random(size)
        start = game.initial_state()
        answers[f"playouts {size}"] = [game.playout(start, rng, 1000) for _ in range(5)]
        line = seeded_game(game, size)
        answers[f"legal {size}"] = [game.ordered_moves(state) for state, _ in line]
        answers[f"evaluate {size}"] = [game.evaluate(state) for state, _ in line[:-1]]
        answers[f"keys {size}"] = [game.key(state) for state, _ in line]
        outcome = game.outcome(line[-1][0])
        assert outcome is not None
        answers[f"outcome {size}"] = [outcome.winner, outcome.reason]
        result = Searcher(game, 1 << 12).think(
            SearchRequest(line[len(line) // 2][0], Limits(depth=2))
        )
        answers[f"search {size}"] = [result.move, result.info.nodes, result.info.score.to_dict()]
    return answers


def test_pure_and_compiled_builds_agree_on_go() -> None:
    from tests.engine.test_build import _require_compiled, _run_child

    _require_compiled()
    code = "import json, tests.engine.games.test_go as t; print(json.dumps(t.build_probe()))"
    pure = json.loads(_run_child(True, code))
    compiled = json.loads(json.dumps(build_probe()))
    for case, answer in compiled.items():
        assert pure[case] == answer, case


# ----------------------------------------------------------------------
# Oracle 1: OpenSpiel.


def openspiel_action(game: Go, move: int) -> int:
    if move == PASS:
        return game.size * game.size
    row, col = divmod(move, game.stride)
    return (game.size - row) * game.size + col - 1


@pytest.mark.parametrize(("size", "seeds"), [(9, range(6)), (5, range(20))])
def test_legal_moves_match_openspiel(size: int, seeds: range) -> None:
    """OpenSpiel's go has simple ko only: its extra moves must be exactly our superko refusals."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pyspiel) is not installed")
    game = Go(size=size, komi=7.5)
    oracle = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    assert oracle.max_game_length() == game.max_length
    positions = finished = 0
    for seed in seeds:
        spiel = oracle.new_initial_state()
        for state, move in seeded_game(game, seed):
            outcome = game.outcome(state)
            if outcome is not None:
                # Both end together (two passes or the length bound), with
                # the same winner by area.
                assert spiel.is_terminal()
                assert spiel.returns()[0] == {0: 1.0, 1: -1.0, None: 0.0}[outcome.winner]
                finished += 1
                break
            assert not spiel.is_terminal()
            ours = {openspiel_action(game, m) for m in game.legal_moves(state)}
            theirs = set(spiel.legal_actions())
            positions += 1
            assert ours <= theirs
            for action in theirs - ours:
                # The one allowed difference: a move that recreates an
                # earlier position (positional superko; OpenSpiel's ko is
                # simple ko only).
                row, col = divmod(action, size)
                point = (size - row) * game.stride + col + 1
                assert game.play(state, point).board_key in state.history
            spiel.apply_action(openspiel_action(game, move))
    assert finished == len(seeds)
    assert positions > 100


def test_openspiel_allows_a_superko_recreation() -> None:
    """The one rule difference: OpenSpiel's simple ko lets Black retake at C5, ours does not."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pyspiel) is not installed")
    oracle = pyspiel.load_game("go", {"board_size": 5, "komi": 7.5})
    spiel = oracle.new_initial_state()
    # Build the superko position by moves (OpenSpiel has no setup).
    start = SMALL.initial_state()
    setup = ["C5", "A5", "E5", "A4", "D4", "B4", "E4", "C4"]
    state = play(SMALL, start, *setup)
    assert SMALL.format_position(state) == SMALL.format_position(superko_position())
    state = play(SMALL, state, "B5", "D5")
    for text in [*setup, "B5", "D5"]:
        spiel.apply_action(openspiel_action(SMALL, SMALL.point(text) or 0))
    c5 = openspiel_action(SMALL, SMALL.point("C5") or 0)
    assert c5 in spiel.legal_actions()
    assert SMALL.point("C5") not in SMALL.legal_moves(state)


# ----------------------------------------------------------------------
# Oracle 2: GNU Go.


def gnugo_path() -> str | None:
    return shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def our_score(game: Go, state: GoState) -> str:
    black, white = game.score(state)
    margin2 = 2 * (black - white) - int(2 * game.komi)
    if margin2 == 0:
        return "0"
    text = str(abs(margin2) // 2) + (".5" if margin2 % 2 else "")
    return ("B+" if margin2 > 0 else "W+") + text


def test_final_scores_match_gnugo() -> None:
    path = gnugo_path()
    if path is None:
        pytest.skip("GNU Go (gnugo) is not installed")
    commands: list[str] = []
    expected: list[str] = []
    # (size, komi, seed): GNU Go scores these 17 games in about 0.1 s.
    cases = [(9, 7.5, seed) for seed in range(10)]
    cases += [(9, 0, 3), (9, 6, 11), (7, 2.5, 4), (5, 0.5, 5), (13, 6.5, 1), (13, 7.5, 2)]
    cases += [(19, 7.5, 1)]
    for size, komi, seed in cases:
        game = Go(size=size, komi=komi)
        line = seeded_game(game, seed)
        final = line[-1][0]
        commands += [f"boardsize {size}", "clear_board", f"komi {komi}"]
        for state, move in line[:-1]:
            colour = "black" if state.player == 0 else "white"
            commands.append(f"play {colour} {game.format_move(state, move)}")
        commands.append("final_score")
        expected.append(our_score(game, final))
    commands.append("quit")
    completed = subprocess.run(
        [path, "--mode", "gtp", "--chinese-rules", "--level", "1"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=60 * UNIT,
        env={**os.environ, "LC_ALL": "C"},
        check=True,
    )
    replies = [r for r in completed.stdout.split("\n\n") if r.strip()]
    assert all(r.startswith("=") for r in replies), [r for r in replies if not r.startswith("=")]
    scores = [normal_score(r[1:].strip()) for r in replies if r[1:].strip()]
    assert scores == expected


def normal_score(text: str) -> str:
    """GNU Go's score with a whole margin as ours (``W+5.0`` as ``W+5``)."""
    return text[:-2] if text.endswith(".0") else text


def test_result_text_is_the_area_count_in_go_notation() -> None:
    assert Go(size=5, komi=0.5).result_text(Go(size=5, komi=0.5).initial_state()) == "W+0.5"
    assert Go(size=5, komi=7).result_text(Go(size=5, komi=7).initial_state()) == "W+7"
    assert Go(size=5, komi=0).result_text(Go(size=5, komi=0).initial_state()) == "0"
    game = Go(size=5, komi=0.5)
    state = game.play(game.initial_state(), game.parse_move(game.initial_state(), "C3"))
    assert game.result_text(state) == "B+24.5"  # one black stone owns the empty board


# ----------------------------------------------------------------------
# Dead stones and the clean-up phase's move (issue 30).

#: Black's wall on E, White's on F, a dead White stone at B5 in Black's area.
DEAD_IN_BLACKS_AREA = "/".join(["....XO..."] * 4 + [".O..XO..."] + ["....XO..."] * 4)


def test_a_stone_inside_living_walls_is_dead_and_the_walls_are_not() -> None:
    state = GAME.parse_position(DEAD_IN_BLACKS_AREA + " X")
    assert [GAME.format_move(state, p) for p in dead_stones(GAME, state)] == ["B5"]
    owned = dict(zip(GAME.points, ownership(GAME, state), strict=True))
    assert owned[GAME.point("E1") or 0] > 0.5 and owned[GAME.point("F9") or 0] < -0.5
    assert all(-1 <= share <= 1 for share in owned.values())
    # a lone stone in a corner, two stones against it
    corner = position("O.X..", "..X..", "XX...", ".....", ".....")
    assert [SMALL.format_move(corner, p) for p in dead_stones(SMALL, corner)] == ["A5"]
    # a wall facing a wall of the same length: both alive
    walls = position("..XO.", "..XO.", "..XO.", "..XO.", "..XO.")
    assert dead_stones(SMALL, walls) == []


def test_the_clean_up_move_takes_the_dead_stone_off_then_there_is_none() -> None:
    state = GAME.parse_position(DEAD_IN_BLACKS_AREA + " X")
    moves: list[str] = []
    for _ in range(6):
        move = cleanup_move(GAME, state)
        if move is None:
            break
        moves.append(GAME.format_move(state, move))
        state = GAME.play(GAME.play(state, move), PASS)  # White lets it happen
    assert 1 <= len(moves) <= 4 and set(moves) <= {"A5", "C5", "B4", "B6"}, moves
    rows = GAME.format_position(state).split()[0].split("/")
    assert all("O" not in row[:4] for row in rows), rows  # B5 is off the board
    # White has no dead Black stone to take: nothing to clean up
    white = GAME.parse_position(DEAD_IN_BLACKS_AREA + " O")
    assert cleanup_move(GAME, white) is None
    assert cleanup_move(GAME, GAME.initial_state()) is None


#: A clean-up phase's board (2026-11-29): sixteen Black stones round a two-point
#: eye space (H8, J8) inside White's area. GNU Go counts them dead (W+88.5); they
#: stayed on the board, and the count gave W+52.5.
TWO_POINT_EYE = (
    "OOOXXXXXX/OOOXXXX../OOOXXXXXX/OOOOOOOOO/OOOOOOOOO/OOOOOOOOO/OOOOOOOOO/OOOOOOOOO/OOOOO.OO."
)


def test_a_group_round_a_two_point_eye_is_dead_and_the_clean_up_takes_it() -> None:
    state = GAME.parse_position(TWO_POINT_EYE + " O")
    dead = {GAME.format_move(state, p) for p in dead_stones(GAME, state)}
    assert len(dead) == 16 and "D9" in dead and "H7" in dead
    # White fills the eye space (a stone in atari on purpose), Black takes it, White
    # takes the group; or Black passes and White takes it at once.
    for reply in ("capture", "pass"):
        board = state
        for _ in range(4):
            move = cleanup_move(GAME, board)
            if move is None:
                break
            board = GAME.play(board, move)
            answer = PASS
            if reply == "capture":
                takes = [m for m in GAME.legal_moves(board) if m != PASS]
                answer = next(
                    (m for m in takes if GAME.play(board, m).black_captures > board.black_captures),
                    PASS,
                )
            board = GAME.play(board, answer)
        assert "X" not in GAME.format_position(board).split()[0], (reply, board)
        assert GAME.result_text(board) == "W+88.5"


def test_a_pass_that_gives_away_a_neutral_point_is_not_taken() -> None:
    # two living walls with a neutral point between them (C3): filling it gains a point
    dame = position("XX.OO", "XX.OO", "XXXOO", "XX.OO", "XX.OO", side="X")
    move = gaining_move(SMALL, dame)
    assert move is not None and SMALL.format_move(dame, move) in ("C5", "C4", "C2", "C1")
    settled = position("X.XO.", "X.XO.", "X.XO.", "X.XO.", "X.XO.", side="X")
    assert gaining_move(SMALL, settled) is None


def test_resignation_needs_a_low_win_rate_over_enough_playouts_past_the_opening() -> None:
    busy = GAME.parse_position("/".join(["X.XXXOO.O"] * 9) + " X")  # 63 stones of 81
    assert should_resign(GAME, busy, 0.01, RESIGN_MIN_PLAYOUTS)
    assert not should_resign(GAME, busy, RESIGN_BELOW, RESIGN_MIN_PLAYOUTS)
    # Each search of the streak of RESIGN_CONSECUTIVE needs its share of the
    # 500 (short thinks once never resigned: issue 30, 2026-12-07).
    assert should_resign(GAME, busy, 0.01, RESIGN_MIN_THINK_PLAYOUTS)
    assert not should_resign(GAME, busy, 0.01, RESIGN_MIN_THINK_PLAYOUTS - 1)
    assert RESIGN_MIN_THINK_PLAYOUTS * RESIGN_CONSECUTIVE >= RESIGN_MIN_PLAYOUTS
    assert not should_resign(GAME, GAME.initial_state(), 0.0, 10 * RESIGN_MIN_PLAYOUTS)


def test_a_resign_streak_confirms_the_third_low_search_in_a_row_of_one_side() -> None:
    streak = ResignStreak()
    assert [streak.confirms(0, True) for _ in range(RESIGN_CONSECUTIVE)] == [False] * (
        RESIGN_CONSECUTIVE - 1
    ) + [True]
    assert not streak.confirms(0, False)  # a search with hope starts the count again
    assert streak.counts == [0, 0]
    for _ in range(RESIGN_CONSECUTIVE - 1):
        streak.confirms(1, True)
    assert not streak.confirms(0, True)  # each side counts its own
    assert streak.confirms(1, True, record=False)  # asked, not counted
    assert streak.counts == [1, RESIGN_CONSECUTIVE - 1]


def test_passing_wins_only_after_a_pass_on_a_board_won_as_it_stands() -> None:
    game = Go(size=5)
    split = game.parse_position("/".join(["..XO."] * 5) + " X")  # W+2.5 as it stands
    assert not passing_wins(game, split)  # nobody has passed
    after_black_pass = game.play(split, PASS)
    assert passing_wins(game, after_black_pass)  # White's pass ends it, White winning
    white_to_lose = game.play(game.parse_position("/".join(["..XO."] * 5) + " O"), PASS)
    assert not passing_wins(game, white_to_lose)  # Black would lose the count
    # A lone White stone inside Black's area is dead: the board needs a clean-up first.
    dead = game.play(game.parse_position("X.XO./..XO./..XO./..XO./O.XO. X"), PASS)
    assert dead_stones(game, dead) and not passing_wins(game, dead)
