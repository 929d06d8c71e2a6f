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
from typing import Final

FULL: Final = (1 << 64) - 1

WHITE: Final = 0
BLACK: Final = 1

#: Piece types; 0 means "no piece". The type doubles as an index into the
#: board tuple of a position (see :mod:`engine.games.chess.position`).
PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6
PIECE_LETTERS: Final = " pnbrqk"

FILE_NAMES: Final = "abcdefgh"
RANK_NAMES: Final = "12345678"
SQUARE_NAMES: Final = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
SQUARES: Final = {name: index for index, name in enumerate(SQUARE_NAMES)}

FILE_A: Final = 0x0101010101010101
FILE_H: Final = FILE_A << 7
RANK_1: Final = 0xFF
RANK_2: Final = RANK_1 << 8
RANK_3: Final = RANK_1 << 16
RANK_6: Final = RANK_1 << 40
RANK_7: Final = RANK_1 << 48
RANK_8: Final = RANK_1 << 56
# Complements as negative ints (``~mask``: every bit set but the mask's)
# rather than ``FULL ^ mask``: ANDed with a bitboard they give the same
# squares, and they stay inside the short ints that compiled code (mypyc)
# handles without allocating, which hold values in [-2**62, 2**62); a
# 64-bit ``FULL ^ mask`` would be a boxed Python int in every operation.
NOT_FILE_A: Final = ~FILE_A
NOT_FILE_H: Final = ~FILE_H
#: Every square, as a mask (``-1``, for the same reason; not ``FULL``).
ALL_SQUARES: Final = -1
LIGHT_SQUARES: Final = 0x55AA55AA55AA55AA
DARK_SQUARES: Final = FULL ^ LIGHT_SQUARES

A1: Final = 0
C1: Final = 2
D1: Final = 3
E1: Final = 4
F1: Final = 5
G1: Final = 6
H1: Final = 7
A8: Final = 56
C8: Final = 58
D8: Final = 59
E8: Final = 60
F8: Final = 61
G8: Final = 62
H8: Final = 63

#: Castling rights as bits of one int, in FEN order.
WHITE_KINGSIDE: Final = 1
WHITE_QUEENSIDE: Final = 2
BLACK_KINGSIDE: Final = 4
BLACK_QUEENSIDE: Final = 8
CASTLING_LETTERS: Final = "KQkq"

KNIGHT_STEPS: Final = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_STEPS: Final = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
ROOK_DIRECTIONS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))


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


KNIGHT_ATTACKS: Final = _step_attacks(KNIGHT_STEPS)
KING_ATTACKS: Final = _step_attacks(KING_STEPS)
#: ``PAWN_ATTACKS[color][s]``: squares a pawn of ``color`` on ``s`` attacks.
PAWN_ATTACKS: Final = (_step_attacks(((-1, 1), (1, 1))), _step_attacks(((-1, -1), (1, -1))))

_RANK_TABLE = _slider_table(((1, 0), (-1, 0)))
_FILE_TABLE = _slider_table(((0, 1), (0, -1)))
_DIAG_TABLE = _slider_table(BISHOP_DIRECTIONS)
RANK_MASKS: Final = _RANK_TABLE[0]
RANK_ATTACKS: Final = _RANK_TABLE[1]
FILE_MASKS: Final = _FILE_TABLE[0]
FILE_ATTACKS: Final = _FILE_TABLE[1]
DIAG_MASKS: Final = _DIAG_TABLE[0]
DIAG_ATTACKS: Final = _DIAG_TABLE[1]
#: Attacks on an empty board, for finding pinners and x-ray attackers.
ROOK_EMPTY: Final = tuple(slide(s, 0, ROOK_DIRECTIONS) for s in range(64))
BISHOP_EMPTY: Final = tuple(slide(s, 0, BISHOP_DIRECTIONS) for s in range(64))


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
_BETWEEN_AND_LINE = _between_and_line()
BETWEEN: Final = _BETWEEN_AND_LINE[0]
LINE: Final = _BETWEEN_AND_LINE[1]

#: ``CASTLING_KEEP[s]``: the castling rights that survive a move from or to ``s``.
CASTLING_KEEP: Final = tuple(
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
# run; the seed itself means nothing. 62 bits, not the usual 64: XORs of
# values below 2**62 stay below 2**62, inside the short ints that compiled
# code (mypyc) handles without allocating, and the chance of two positions
# of one search sharing a key stays negligible.
ZOBRIST_BITS: Final = 62
_zobrist = random.Random(0x5EED_C4E55)
#: ``PIECE_KEYS[(type + 6 * color) * 64 + square]``; entries 0-63 are unused.
PIECE_KEYS: Final = tuple(_zobrist.getrandbits(ZOBRIST_BITS) for _ in range(13 * 64))
CASTLING_KEYS: Final = (0, *(_zobrist.getrandbits(ZOBRIST_BITS) for _ in range(15)))
EP_FILE_KEYS: Final = tuple(_zobrist.getrandbits(ZOBRIST_BITS) for _ in range(8))
BLACK_TO_MOVE_KEY: Final = _zobrist.getrandbits(ZOBRIST_BITS)
del _zobrist


def squares_of(bitboard: int) -> list[int]:
    """The squares of the set bits, lowest first."""
    result = []
    while bitboard:
        low = bitboard & -bitboard
        result.append(low.bit_length() - 1)
        bitboard ^= low
    return result
