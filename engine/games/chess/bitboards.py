"""Squares, bitboards and the constant attack tables of chess.

A bitboard is a Python int whose bit ``s`` stands for square ``s``, with
``a1 = 0``, ``b1 = 1`` ... ``h8 = 63`` (the layout of python-chess and most
engines): shifting left by 8 moves every square one rank up. Python ints are
arbitrary precision, so every result that may carry past bit 63 is masked
with :data:`FULL`.

Every table here is computed once at import, deterministically, and never
changed afterwards (tuples, or dicts that nothing writes to after this
module has run): worker processes may share them freely.

Sliding attacks use lookup by masked occupancy, as python-chess does: the
attack set of a rook on ``s`` along its rank depends only on the occupancy of
the inner squares of that rank, so ``RANK_ATTACKS[s][occupied & RANK_MASKS[s]]``
answers with one AND and one dict lookup. Rooks combine a rank and a file
lookup (two tables of at most 64 entries per square); bishops use one lookup
on both diagonals at once (at most 512 entries per square).
"""

from __future__ import annotations

import random

FULL = (1 << 64) - 1

WHITE = 0
BLACK = 1

#: Piece types; 0 means "no piece". The type doubles as an index into the
#: board tuple of a position (see :mod:`engine.games.chess.position`).
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_LETTERS = " pnbrqk"

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
SQUARES = {name: index for index, name in enumerate(SQUARE_NAMES)}

FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
RANK_1 = 0xFF
RANK_2 = RANK_1 << 8
RANK_3 = RANK_1 << 16
RANK_6 = RANK_1 << 40
RANK_7 = RANK_1 << 48
RANK_8 = RANK_1 << 56
NOT_FILE_A = FULL ^ FILE_A
NOT_FILE_H = FULL ^ FILE_H
LIGHT_SQUARES = 0x55AA55AA55AA55AA
DARK_SQUARES = FULL ^ LIGHT_SQUARES

A1, C1, D1, E1, F1, G1, H1 = 0, 2, 3, 4, 5, 6, 7
A8, C8, D8, E8, F8, G8, H8 = 56, 58, 59, 60, 61, 62, 63

#: Castling rights as bits of one int, in FEN order.
WHITE_KINGSIDE, WHITE_QUEENSIDE, BLACK_KINGSIDE, BLACK_QUEENSIDE = 1, 2, 4, 8
CASTLING_LETTERS = "KQkq"

KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def square_file(square: int) -> int:
    return square & 7


def square_rank(square: int) -> int:
    return square >> 3


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _step_attacks(steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    table = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        mask = 0
        for df, dr in steps:
            if _on_board(file + df, rank + dr):
                mask |= 1 << ((rank + dr) * 8 + file + df)
        table.append(mask)
    return tuple(table)


def slide(square: int, occupied: int, directions: tuple[tuple[int, int], ...]) -> int:
    """Squares attacked by a slider on ``square``, each ray stopping at the first piece.

    The slow reference used to build the tables (and by tests).
    """
    file, rank = square & 7, square >> 3
    attacks = 0
    for df, dr in directions:
        f, r = file + df, rank + dr
        while _on_board(f, r):
            bit = 1 << (r * 8 + f)
            attacks |= bit
            if occupied & bit:
                break
            f, r = f + df, r + dr
    return attacks


def _inner_ray_mask(square: int, directions: tuple[tuple[int, int], ...]) -> int:
    """Squares on the rays whose occupancy can block: all but the last square of each ray."""
    file, rank = square & 7, square >> 3
    mask = 0
    for df, dr in directions:
        f, r = file + df, rank + dr
        while _on_board(f + df, r + dr):
            mask |= 1 << (r * 8 + f)
            f, r = f + df, r + dr
    return mask


def _subsets(mask: int) -> list[int]:
    """Every subset of the bits of ``mask`` (the carry-rippler enumeration)."""
    subsets = []
    subset = 0
    while True:
        subsets.append(subset)
        subset = (subset - mask) & mask
        if subset == 0:
            return subsets


def _slider_table(
    directions: tuple[tuple[int, int], ...],
) -> tuple[tuple[int, ...], tuple[dict[int, int], ...]]:
    masks = tuple(_inner_ray_mask(square, directions) for square in range(64))
    tables = tuple(
        {occupied: slide(square, occupied, directions) for occupied in _subsets(masks[square])}
        for square in range(64)
    )
    return masks, tables


KNIGHT_ATTACKS = _step_attacks(KNIGHT_STEPS)
KING_ATTACKS = _step_attacks(KING_STEPS)
#: ``PAWN_ATTACKS[color][s]``: squares a pawn of ``color`` on ``s`` attacks.
PAWN_ATTACKS = (_step_attacks(((-1, 1), (1, 1))), _step_attacks(((-1, -1), (1, -1))))

RANK_MASKS, RANK_ATTACKS = _slider_table(((1, 0), (-1, 0)))
FILE_MASKS, FILE_ATTACKS = _slider_table(((0, 1), (0, -1)))
DIAG_MASKS, DIAG_ATTACKS = _slider_table(BISHOP_DIRECTIONS)
#: Attacks on an empty board, for finding pinners and x-ray attackers.
ROOK_EMPTY = tuple(slide(s, 0, ROOK_DIRECTIONS) for s in range(64))
BISHOP_EMPTY = tuple(slide(s, 0, BISHOP_DIRECTIONS) for s in range(64))


def bishop_attacks(square: int, occupied: int) -> int:
    return DIAG_ATTACKS[square][occupied & DIAG_MASKS[square]]


def rook_attacks(square: int, occupied: int) -> int:
    return (
        RANK_ATTACKS[square][occupied & RANK_MASKS[square]]
        | FILE_ATTACKS[square][occupied & FILE_MASKS[square]]
    )


def _between_and_line() -> tuple[tuple[int, ...], tuple[int, ...]]:
    between = [0] * 4096
    line = [0] * 4096
    for a in range(64):
        for directions, empty in ((ROOK_DIRECTIONS, ROOK_EMPTY), (BISHOP_DIRECTIONS, BISHOP_EMPTY)):
            for b in range(64):
                if a == b or not empty[a] >> b & 1:
                    continue
                bit_a, bit_b = 1 << a, 1 << b
                between[a * 64 + b] = slide(a, bit_b, directions) & slide(b, bit_a, directions)
                line[a * 64 + b] = (
                    (slide(a, 0, directions) & slide(b, 0, directions)) | bit_a | bit_b
                )
    return tuple(between), tuple(line)


#: ``BETWEEN[a * 64 + b]``: squares strictly between two aligned squares (else 0).
#: ``LINE[a * 64 + b]``: the whole line through two aligned squares (else 0).
BETWEEN, LINE = _between_and_line()

#: ``CASTLING_KEEP[s]``: the castling rights that survive a move from or to ``s``.
CASTLING_KEEP = tuple(
    15
    ^ {
        A1: WHITE_QUEENSIDE,
        E1: WHITE_KINGSIDE | WHITE_QUEENSIDE,
        H1: WHITE_KINGSIDE,
        A8: BLACK_QUEENSIDE,
        E8: BLACK_KINGSIDE | BLACK_QUEENSIDE,
        H8: BLACK_KINGSIDE,
    }.get(square, 0)
    for square in range(64)
)

# Zobrist keys. Seeded, so keys are the same in every process and every
# run; the seed itself means nothing.
_zobrist = random.Random(0x5EED_C4E55)
#: ``PIECE_KEYS[(type + 6 * color) * 64 + square]``; entries 0-63 are unused.
PIECE_KEYS = tuple(_zobrist.getrandbits(64) for _ in range(13 * 64))
CASTLING_KEYS = (0, *(_zobrist.getrandbits(64) for _ in range(15)))
EP_FILE_KEYS = tuple(_zobrist.getrandbits(64) for _ in range(8))
BLACK_TO_MOVE_KEY = _zobrist.getrandbits(64)
del _zobrist


def squares_of(bitboard: int) -> list[int]:
    """The squares of the set bits, lowest first."""
    result = []
    while bitboard:
        low = bitboard & -bitboard
        result.append(low.bit_length() - 1)
        bitboard ^= low
    return result
