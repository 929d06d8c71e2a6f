"""Chess bitboards as 64-bit words: the two builds agree bit for bit.

Compiled, a bitboard is mypyc's ``i64`` (h8's bit is the sign bit); as plain
Python it is an unbounded int. These tests pin down the few helpers whose
results could differ between the two (counting, the lowest square, single
bits) and the positions that put pieces on g8 and h8, the squares of bits
62 and 63.
"""

from __future__ import annotations

import random

import chess
import pytest

from engine.games.chess import Chess
from engine.games.chess.bitboards import (
    ALL_SQUARES,
    BISHOP_DIRECTIONS,
    BIT,
    DARK_SQUARES,
    FILE_A,
    FILE_H,
    LIGHT_SQUARES,
    NOT_FILE_H,
    RANK_8,
    ROOK_DIRECTIONS,
    Bitboard,
    bishop_attacks,
    lsb,
    popcount,
    rook_attacks,
    slide,
    squares_of,
)
from engine.games.chess.position import has_legal_move, perft
from tests.engine.games.test_chess_perft import python_chess_perft

GAME = Chess()


def board_of(squares: list[int]) -> Bitboard:
    """A bitboard built the way the engine builds them, from single bits."""
    board: Bitboard = 0
    for square in squares:
        board |= BIT[square]
    return board


def test_single_bits_are_64_distinct_squares() -> None:
    # mypyc 2.4 compiles ``1 << s`` of a literal as a 32-bit C shift, which
    # gave 2**30 for square 62: BIT is built by shifting a variable instead.
    assert [squares_of(BIT[square]) for square in range(64)] == [[s] for s in range(64)]
    assert [lsb(BIT[square]) for square in range(64)] == list(range(64))
    assert popcount(board_of(list(range(64)))) == 64
    assert board_of(list(range(64))) == ALL_SQUARES or board_of(list(range(64))) == 2**64 - 1


@pytest.mark.parametrize("seed", range(4))
def test_counting_and_scanning_agree_with_the_squares(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        squares = sorted(rng.sample(range(64), rng.randint(1, 64)))
        if rng.random() < 0.5:
            squares = sorted({*squares, 62, 63})
        board = board_of(squares)
        assert squares_of(board) == squares
        assert popcount(board) == len(squares)
        assert lsb(board) == squares[0]


def test_masks_that_hold_bit_63_select_the_right_squares() -> None:
    every = board_of(list(range(64)))
    assert squares_of(every & RANK_8) == list(range(56, 64))
    assert squares_of(every & DARK_SQUARES) == [s for s in range(64) if (s + s // 8) % 2 == 0]
    assert popcount(every & LIGHT_SQUARES) == popcount(every & DARK_SQUARES) == 32
    assert squares_of(every & FILE_H) == list(range(7, 64, 8))
    assert squares_of(every & NOT_FILE_H) == [s for s in range(64) if s % 8 != 7]
    assert squares_of(every & FILE_A) == list(range(0, 64, 8))


# Positions with pieces on g8 and h8 (bits 62 and 63) doing everything a
# piece there can do: checking from h8, pinned on h8, taken on h8,
# promoting on g8 and h8, castling past g8.
CORNER_FENS = (
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 8",
    "6kq/8/8/8/8/8/8/K7 w - - 0 1",
    "6rk/6P1/8/8/8/8/8/K7 b - - 0 1",
    "1n4nr/5P1P/8/8/8/8/8/K5k1 w - - 0 1",
    "7b/8/8/8/3K4/8/8/7k w - - 0 1",
    "6k1/5ppp/8/8/8/8/8/4K2R w K - 0 1",
    "7q/6P1/8/8/3K4/8/8/k7 w - - 0 1",
    "5rkr/5p1p/6Q1/8/8/8/8/K7 b - - 0 1",
)


@pytest.mark.parametrize("fen", CORNER_FENS)
def test_positions_with_pieces_on_g8_and_h8_match_python_chess(fen: str) -> None:
    state = GAME.parse_position(fen)
    board = chess.Board(fen)
    assert {GAME.format_move(state, move) for move in state.legal_moves()} == {
        move.uci() for move in board.legal_moves
    }
    assert has_legal_move(state) == any(board.legal_moves)
    assert bool(state.checkers()) == board.is_check()
    assert GAME.format_position(state) == board.fen()


@pytest.mark.parametrize("fen", CORNER_FENS)
def test_perft_with_pieces_on_g8_and_h8_matches_python_chess(fen: str) -> None:
    assert perft(GAME.parse_position(fen), 3) == python_chess_perft(chess.Board(fen), 3)


@pytest.mark.parametrize("seed", range(3))
def test_slider_look_ups_equal_the_ray_walk(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        occupied = board_of(rng.sample(range(64), rng.randint(0, 40)))
        for square in range(64):
            assert rook_attacks(square, occupied) == slide(square, occupied, ROOK_DIRECTIONS)
            assert bishop_attacks(square, occupied) == slide(square, occupied, BISHOP_DIRECTIONS)
