"""Squares, bitboards and the constant attack tables of chess.

A bitboard is a 64-bit integer whose bit ``s`` stands for square ``s``, with
``a1 = 0``, ``b1 = 1`` ... ``h8 = 63`` (the layout of python-chess and most
engines): shifting left by 8 moves every square one rank up.

Bitboards are typed :data:`Bitboard`, mypyc's native ``i64``. Why: compiled
code keeps a plain ``int`` unboxed only in [-2**62, 2**62), and a bitboard
holding g8 or h8 (bits 62 and 63: a king castled short, a rook at home) is
outside it, so every operation on it allocated a Python object; profiling
put a third of the search's time there (docs/chess_tuning.md). An ``i64``
is a machine word in compiled code, two's complement: h8's bit is the sign
bit and a shift past bit 63 drops the bits. Run as plain Python, the same
code computes with unbounded ints, so the two builds agree only where the
code never depends on what lies above bit 63. The rules that keep them
agreeing, followed throughout the chess package:

* A value that may hold bit 63 is only ANDed, ORed, XORed, complemented,
  added or subtracted (all exact modulo 2**64), and every result that
  matters is ANDed with a real bitboard before it is tested.
* A right shift of such a value is masked before use (compiled code
  shifts the sign bit in, Python shifts in zeros).
* Counting bits and finding the lowest bit use :func:`popcount` and
  :func:`lsb`, which read the low 64 bits alike in both builds (the
  int methods would count a negative number's magnitude).
* Single bits come from :data:`BIT`, never from ``1 << s`` (which would
  overflow the ``i64``; and mypyc 2.4 compiles a shift of a small literal
  as a 32-bit C ``int`` shift, which is wrong from bit 32 on).

Every table here is computed once at import, deterministically, and never
changed afterwards (tuples, or dicts that nothing writes to after this
module has run): worker processes may share them freely.

Sliding attacks (:func:`rook_attacks`, :func:`bishop_attacks`) read flat
tables by an index gathered from the occupancy of each line through the
square (see the comment above :func:`rook_attacks`).
"""

from __future__ import annotations

import random
from typing import Final

from mypy_extensions import i64

#: A set of squares (see the module's docstring).
Bitboard = i64


def _single_bits() -> tuple[Bitboard, ...]:
    bits: list[Bitboard] = []
    bit: Bitboard = 1
    for _ in range(64):
        bits.append(bit)
        bit = bit << 1  # past bit 62 compiled code wraps to the sign bit; see above
    return tuple(bits)


#: ``BIT[s]``: the bitboard of square ``s`` alone.
BIT: Final = _single_bits()

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

# Masks that hold bit 63 are written as complements (``~mask``: every bit
# set but the mask's), negative numbers in both builds: ANDed with a
# bitboard they give the same squares, where ``2**64 - 1 - mask`` would not
# fit an ``i64`` in compiled code.
FILE_A: Final[Bitboard] = 0x0101010101010101
FILE_H: Final[Bitboard] = 0x8080808080808080 - 2**64  # the sign bit is h8's
RANK_1: Final[Bitboard] = 0xFF
RANK_2: Final[Bitboard] = 0xFF << 8
RANK_3: Final[Bitboard] = 0xFF << 16
RANK_6: Final[Bitboard] = 0xFF << 40
RANK_7: Final[Bitboard] = 0xFF << 48
#: Rank 8 as every bit from 56 up (see above).
RANK_8: Final[Bitboard] = ~((1 << 56) - 1)
NOT_FILE_A: Final[Bitboard] = ~0x0101010101010101
NOT_FILE_H: Final[Bitboard] = 0x7F7F7F7F7F7F7F7F
#: Every square, as a mask: ``-1``, every bit set.
ALL_SQUARES: Final[Bitboard] = -1
LIGHT_SQUARES: Final[Bitboard] = 0x55AA55AA55AA55AA
DARK_SQUARES: Final[Bitboard] = ~0x55AA55AA55AA55AA

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


def _step_attacks(steps: tuple[tuple[int, int], ...]) -> tuple[Bitboard, ...]:
    table: list[Bitboard] = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        mask: Bitboard = 0
        for df, dr in steps:
            if _on_board(file + df, rank + dr):
                mask |= BIT[(rank + dr) * 8 + file + df]
        table.append(mask)
    return tuple(table)


def slide(square: int, occupied: Bitboard, directions: tuple[tuple[int, int], ...]) -> Bitboard:
    """Squares attacked by a slider on ``square``, each ray stopping at the first piece.

    The slow reference used to build the tables (and by tests).
    """
    file, rank = square & 7, square >> 3
    attacks: Bitboard = 0
    for df, dr in directions:
        f, r = file + df, rank + dr
        while _on_board(f, r):
            bit = BIT[r * 8 + f]
            attacks |= bit
            if occupied & bit:
                break
            f, r = f + df, r + dr
    return attacks


def _inner_ray_mask(square: int, directions: tuple[tuple[int, int], ...]) -> Bitboard:
    """Squares on the rays whose occupancy can block: all but the last square of each ray.

    Never bit 63 (h8 is the last square of every ray through it), so the
    masked occupancies that key the tables are the same in both builds.
    """
    file, rank = square & 7, square >> 3
    mask: Bitboard = 0
    for df, dr in directions:
        f, r = file + df, rank + dr
        while _on_board(f + df, r + dr):
            mask |= BIT[r * 8 + f]
            f, r = f + df, r + dr
    return mask


def _subsets(mask: Bitboard) -> list[Bitboard]:
    """Every subset of the bits of ``mask`` (the carry-rippler enumeration)."""
    subsets: list[Bitboard] = []
    subset: Bitboard = 0
    while True:
        subsets.append(subset)
        subset = (subset - mask) & mask
        if subset == 0:
            return subsets


KNIGHT_ATTACKS: Final = _step_attacks(KNIGHT_STEPS)
KING_ATTACKS: Final = _step_attacks(KING_STEPS)
#: ``PAWN_ATTACKS[color][s]``: squares a pawn of ``color`` on ``s`` attacks.
PAWN_ATTACKS: Final = (_step_attacks(((-1, 1), (1, 1))), _step_attacks(((-1, -1), (1, -1))))

# Sliding attacks by index. The attacks of a slider along one line depend
# only on which of the line's inner squares (at most six: not the two ends)
# are occupied; each look-up gathers those bits into a 6-bit index and reads
# a flat table of 64 entries a square. Gathering is a shift for a rank and
# one multiplication for a file or a diagonal: the "kindergarten bitboards"
# of the Chess Programming Wiki. A multiplication of the masked occupancy
# by the right constant copies each inner square's bit into its own place
# among bits 58-63, where no other partial product lands (the places are
# worked out at each constant), and whatever overflows past bit 63 is lost
# in compiled code and ignored by the final mask in plain Python.

#: The inner squares of the a-file (a2-a7), and the constant that gathers
#: them: a2 (bit 8) lands on bit 58, a3 on 59 ... a7 on 63 (bit 8k goes to
#: 57 + k, so the factor holds bit 57 - 7k for k = 1..6; a product of bit 8j
#: with another k's term lands on 57 + 8j - 7k, above bit 63 when j > k and
#: below bit 56 when j < k, never twice on one place).
_INNER_FILE_A: Final[Bitboard] = 0x0001010101010100
_FILE_GATHER: Final[Bitboard] = sum(1 << (57 - 7 * k) for k in range(1, 7))
#: The b-file, which gathers a diagonal: a square on file f and rank r times
#: bit 8t + 1 lands on 8(r + t) + f + 1, which is 57 + f when r + t = 7, so
#: inner squares (files b-g) land on bits 58-63 by file; one diagonal has
#: one square a file, so no two products share a place.
_DIAGONAL_GATHER: Final[Bitboard] = 0x0202020202020202


def _gather_line(masked: Bitboard, gather: Bitboard) -> int:
    return int((masked * gather) >> 58 & 63)


def _line_table(
    directions: tuple[tuple[int, int], ...], index_of: str
) -> tuple[tuple[Bitboard, ...], tuple[Bitboard, ...]]:
    """Inner masks by square, and attacks by ``square * 64 + index`` along one line.

    A rank's or a file's index is read from the whole occupancy, the
    slider's own square included (it may be an inner square of its line),
    so every index gets an entry; a diagonal's is read through its mask,
    which leaves the slider's square out.
    """
    masks = tuple(_inner_ray_mask(square, directions) for square in range(64))
    table: list[Bitboard] = [0] * (64 * 64)
    for square in range(64):
        if index_of == "diagonal":
            for subset in _subsets(masks[square]):
                index = _gather_line(subset, _DIAGONAL_GATHER)
                table[square * 64 + index] = slide(square, subset, directions)
            continue
        for index in range(64):
            occupied: Bitboard = 0
            for k in range(6):  # bit k of the index: the line's square k + 1 (from 0)
                if index >> k & 1:
                    inner = (
                        (k + 1) * 8 + (square & 7) if index_of == "file" else (square & 56) + k + 1
                    )
                    occupied |= BIT[inner]
            table[square * 64 + index] = slide(square, occupied, directions)
    return masks, tuple(table)


_RANK_TABLE = _line_table(((1, 0), (-1, 0)), "rank")
_FILE_TABLE = _line_table(((0, 1), (0, -1)), "file")
_DIAGONAL_TABLE = _line_table(((1, 1), (-1, -1)), "diagonal")
_ANTIDIAGONAL_TABLE = _line_table(((1, -1), (-1, 1)), "diagonal")
_RANK_ATTACKS: Final = _RANK_TABLE[1]
_FILE_ATTACKS: Final = _FILE_TABLE[1]
_DIAGONAL_MASKS: Final = _DIAGONAL_TABLE[0]
_DIAGONAL_ATTACKS: Final = _DIAGONAL_TABLE[1]
_ANTIDIAGONAL_MASKS: Final = _ANTIDIAGONAL_TABLE[0]
_ANTIDIAGONAL_ATTACKS: Final = _ANTIDIAGONAL_TABLE[1]


def rook_attacks(square: int, occupied: Bitboard) -> Bitboard:
    """Squares a rook on ``square`` attacks, each ray ending at the first piece of ``occupied``."""
    row = square & 56
    file = square & 7
    base = square << 6
    rank_index = int(occupied >> (row + 1) & 63)
    file_index = int((occupied >> file & _INNER_FILE_A) * _FILE_GATHER >> 58 & 63)
    return _RANK_ATTACKS[base | rank_index] | _FILE_ATTACKS[base | file_index]


def bishop_attacks(square: int, occupied: Bitboard) -> Bitboard:
    """Squares a bishop on ``square`` attacks, each ray ending at a piece of ``occupied``."""
    base = square << 6
    diagonal = int((occupied & _DIAGONAL_MASKS[square]) * _DIAGONAL_GATHER >> 58 & 63)
    antidiagonal = int((occupied & _ANTIDIAGONAL_MASKS[square]) * _DIAGONAL_GATHER >> 58 & 63)
    return _DIAGONAL_ATTACKS[base | diagonal] | _ANTIDIAGONAL_ATTACKS[base | antidiagonal]


#: Attacks on an empty board, for finding pinners and x-ray attackers.
ROOK_EMPTY: Final = tuple(slide(s, 0, ROOK_DIRECTIONS) for s in range(64))
BISHOP_EMPTY: Final = tuple(slide(s, 0, BISHOP_DIRECTIONS) for s in range(64))


def _between_and_line() -> tuple[tuple[Bitboard, ...], tuple[Bitboard, ...]]:
    between: list[Bitboard] = [0] * 4096
    line: list[Bitboard] = [0] * 4096
    for a in range(64):
        for directions, empty in ((ROOK_DIRECTIONS, ROOK_EMPTY), (BISHOP_DIRECTIONS, BISHOP_EMPTY)):
            for b in range(64):
                if a == b or not empty[a] & BIT[b]:
                    continue
                bit_a, bit_b = BIT[a], BIT[b]
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


def squares_of(bitboard: Bitboard) -> list[int]:
    """The squares of the set bits, lowest first."""
    result = []
    while bitboard:
        result.append(lsb(bitboard))
        bitboard &= bitboard - 1
    return result


def lsb(bitboard: Bitboard) -> int:
    """The lowest square of a non-empty bitboard.

    ``int(low).bit_length()`` of the lowest bit alone is right in both
    builds, h8's included: compiled, that bit is ``-2**63``, whose length
    is 64 as that of ``2**63``.
    """
    return int(bitboard & -bitboard).bit_length() - 1


#: The masks of the bit-counting below (the "SWAR" population count of the
#: Chess Programming Wiki's "Population Count" page): every other bit, every
#: other pair, every other nibble, and the byte-sum multiplier.
_ODD_BITS: Final[Bitboard] = 0x5555555555555555
_ODD_PAIRS: Final[Bitboard] = 0x3333333333333333
_ODD_NIBBLES: Final[Bitboard] = 0x0F0F0F0F0F0F0F0F
_BYTE_SUM: Final[Bitboard] = 0x0101010101010101


def popcount(bitboard: Bitboard) -> int:
    """The number of squares of a bitboard.

    Counted in the word, pairs then nibbles then bytes, rather than with
    ``int.bit_count`` (a Python method call in compiled code, which counts
    a negative number's magnitude). Each step reads only bits that are the
    same in both builds: the masks drop what a right shift brings in above,
    and the last multiplication's overflow lands above bit 63.
    """
    x = bitboard - ((bitboard >> 1) & _ODD_BITS)
    x = (x & _ODD_PAIRS) + ((x >> 2) & _ODD_PAIRS)
    x = (x + (x >> 4)) & _ODD_NIBBLES
    return int((x * _BYTE_SUM) >> 56 & 0xFF)
