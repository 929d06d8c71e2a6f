"""Static evaluation of chess positions: material and piece-square tables tapered by phase.

Where the numbers come from: the idea and the middlegame piece values
(pawn 100, knight 320, bishop 330, rook 500, queen 900) are those of Tomasz
Michniewski's "Simplified Evaluation Function" (Chess Programming Wiki).
The piece-square values here are not his tables: each is written below as a
small formula (distance to the centre, rank advanced, king shelter) so that
the intent of every number is visible. Endgame values, the phase weights
(knight and bishop 1, rook 2, queen 4, 24 in the opening; the scheme of
Fruit and its descendants) and the small extra terms are our own choices,
checked only by the WAC and match figures of the benchmark.

A position carries ``mg`` and ``eg``: material plus piece-square values,
White minus Black, for the middlegame and for the endgame. :func:`play`
(:mod:`engine.games.chess.position`) updates both from the tables below, so
:func:`evaluate` only blends them by the phase and adds terms computed from
the bitboards in a few operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine.games.chess.bitboards import (
    BISHOP,
    DARK_SQUARES,
    KING,
    KNIGHT,
    LIGHT_SQUARES,
    NOT_FILE_A,
    NOT_FILE_H,
    PAWN,
    QUEEN,
    ROOK,
)

if TYPE_CHECKING:
    from engine.games.chess.position import Position

#: Material, middlegame and endgame (pawns and rooks gain in the endgame,
#: minor pieces lose a little: the usual direction, our own amounts).
MATERIAL_MG: Final = (0, 100, 320, 330, 500, 900, 0)
MATERIAL_EG: Final = (0, 120, 300, 320, 540, 950, 0)

#: Phase weight of each piece type, and the phase of the full set.
PHASE_WEIGHT: Final = (0, 0, 1, 1, 2, 4, 0)
FULL_PHASE: Final = 24

#: Bonus for having both bishops (a classic term; the amount is ours).
BISHOP_PAIR: Final = 30
#: The side to move is worth a little (it is about to improve its position).
TEMPO: Final = 10
#: Passed pawns (no enemy pawn ahead on their file or the files beside),
#: by rank counted from the pawn's own side; worth far more in the endgame.
PASSED_PAWN_MG: Final = (0, 0, 5, 10, 20, 35, 60, 0)
PASSED_PAWN_EG: Final = (0, 5, 10, 20, 40, 70, 110, 0)
#: Masks of the first ranks, for the upward fill of :func:`_passed_pawns`.
_RANKS_1_TO_3: Final = (1 << 24) - 1
_RANKS_1_TO_5: Final = (1 << 40) - 1
_RANKS_1_TO_6: Final = (1 << 48) - 1
#: Pawnless endings with one side ahead: drive the lone king to the edge and
#: bring the kings together, so that the search finds the mate in KQK and KRK
#: (the "mop-up" idea; weights ours).
MOP_UP_EDGE: Final = 10
MOP_UP_CLOSE: Final = 4
MOP_UP_MIN_LEAD: Final = 400


def _ring(file: int, rank: int) -> int:
    """0 for the four centre squares, 1 for the ring round them, ... 3 for the edge."""
    return max(abs(2 * file - 7), abs(2 * rank - 7)) // 2


def _centre_distance(file: int, rank: int) -> int:
    """Manhattan distance to the nearest centre square, 0..6."""
    return (abs(2 * file - 7) + abs(2 * rank - 7)) // 2 - 1


# Per-square values for White, by (file, rank) with rank 0 = White's back rank.


def _pawn(file: int, rank: int) -> tuple[int, int]:
    advance_mg = (0, 0, 0, 5, 10, 20, 40, 0)[rank]
    if file in (3, 4):  # d and e pawns: leave the start square, hold the centre
        shape = (0, -15, 0, 15, 20, 10, 10, 0)[rank]
    elif file in (2, 5):
        shape = (0, -5, 0, 5, 10, 5, 5, 0)[rank]
    else:  # wing pawns shelter the castled king: stay at home
        shape = (0, 5, 0, -5, 0, 0, 0, 0)[rank]
    advance_eg = (0, 0, 5, 15, 30, 50, 80, 0)[rank]
    return advance_mg + shape, advance_eg


def _knight(file: int, rank: int) -> tuple[int, int]:
    ring = _ring(file, rank)
    return (25, 15, -5, -35)[ring], (15, 10, -5, -30)[ring]


def _bishop(file: int, rank: int) -> tuple[int, int]:
    ring = _ring(file, rank)
    back_rank = -10 if rank == 0 else 0
    return (10, 10, 5, -10)[ring] + back_rank, (10, 5, 0, -10)[ring]


def _rook(file: int, rank: int) -> tuple[int, int]:
    seventh = 20 if rank == 6 else 0
    central_home = 5 if rank == 0 and file in (3, 4) else 0
    return seventh + central_home, (15 if rank == 6 else 0)


def _queen(file: int, rank: int) -> tuple[int, int]:
    ring = _ring(file, rank)
    return (5, 5, 0, -10)[ring], (20, 10, 0, -20)[ring]


def _king(file: int, rank: int) -> tuple[int, int]:
    if rank == 0:
        mg = (20, 30, 10, 0, 0, 10, 30, 20)[file]
    elif rank == 1:
        mg = (10, 10, -5, -15, -15, -5, 10, 10)[file]
    else:
        mg = max(-50, -20 - 10 * (rank - 2))
    return mg, 30 - 10 * _centre_distance(file, rank)


_SQUARE_VALUE: Final = {
    PAWN: _pawn,
    KNIGHT: _knight,
    BISHOP: _bishop,
    ROOK: _rook,
    QUEEN: _queen,
    KING: _king,
}


def _tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    mg = [0] * (13 * 64)
    eg = [0] * (13 * 64)
    for piece, value in _SQUARE_VALUE.items():
        for square in range(64):
            file, rank = square & 7, square >> 3
            square_mg, square_eg = value(file, rank)
            white = (piece << 6) | square
            mg[white] = MATERIAL_MG[piece] + square_mg
            eg[white] = MATERIAL_EG[piece] + square_eg
            # Black's table is White's mirrored across the middle, negated.
            black = ((piece + 6) << 6) | (square ^ 56)
            mg[black] = -mg[white]
            eg[black] = -eg[white]
    return tuple(mg), tuple(eg)


#: ``MG[(type + 6 * color) * 64 + square]``: material plus square value,
#: positive for White's pieces and negative for Black's; ``EG`` likewise.
_MG_EG: Final = _tables()
MG: Final = _MG_EG[0]
EG: Final = _MG_EG[1]


def evaluate(position: Position) -> int:
    """Centipawns for the side to move: tapered ``mg``/``eg`` plus a few cheap terms."""
    boards = position.boards
    knights_bishops = boards[KNIGHT] | boards[BISHOP]
    phase = (
        knights_bishops.bit_count() + 2 * boards[ROOK].bit_count() + 4 * boards[QUEEN].bit_count()
    )
    if phase > FULL_PHASE:
        phase = FULL_PHASE
    # White's point of view until the end; the blend is divided last, from
    # the mover's point of view, so that mirrored positions round alike.
    blend = position.mg * phase + position.eg * (FULL_PHASE - phase)
    pawns = boards[PAWN]
    if pawns:
        blend += _passed_pawns(pawns & boards[0], pawns & boards[7], phase)
    score = 0
    bishops = boards[BISHOP]
    white, black = boards[0], boards[7]
    white_bishops = bishops & white
    if white_bishops & LIGHT_SQUARES and white_bishops & DARK_SQUARES:
        score += BISHOP_PAIR
    black_bishops = bishops & black
    if black_bishops & LIGHT_SQUARES and black_bishops & DARK_SQUARES:
        score -= BISHOP_PAIR
    if not boards[PAWN]:
        lead = blend // FULL_PHASE + score
        if lead >= MOP_UP_MIN_LEAD or lead <= -MOP_UP_MIN_LEAD:
            score += _mop_up(position, lead > 0)
    blend += score * FULL_PHASE
    if position.turn:
        blend = -blend
    return blend // FULL_PHASE + TEMPO


def _passed_pawns(white_pawns: int, black_pawns: int, phase: int) -> int:
    """Passed-pawn bonus, White minus Black, already blended by ``phase``."""
    # Squares each side's pawns watch ahead of them (own file and the files
    # beside): a pawn of the other side standing there is not passed.
    ahead_of_black = black_pawns >> 8
    ahead_of_black |= ahead_of_black >> 8
    ahead_of_black |= ahead_of_black >> 16
    ahead_of_black |= ahead_of_black >> 32
    ahead_of_black |= (ahead_of_black & NOT_FILE_A) >> 1 | (ahead_of_black & NOT_FILE_H) << 1
    # Upwards the fill is cut at rank 7 (each shift only takes the squares
    # that land below rank 8): no black pawn stands on rank 8, and so every
    # value stays below 2**56, a short int for compiled code, instead of
    # growing past 64 bits and being masked afterwards.
    ahead_of_white = (white_pawns & _RANKS_1_TO_6) << 8
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_6) << 8
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_5) << 16
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_3) << 32
    ahead_of_white |= (ahead_of_white & NOT_FILE_A) >> 1 | (ahead_of_white & NOT_FILE_H) << 1
    mg = eg = 0
    passed = white_pawns & ~ahead_of_black
    while passed:
        low = passed & -passed
        passed ^= low
        rank = (low.bit_length() - 1) >> 3
        mg += PASSED_PAWN_MG[rank]
        eg += PASSED_PAWN_EG[rank]
    passed = black_pawns & ~ahead_of_white
    while passed:
        low = passed & -passed
        passed ^= low
        rank = 7 - ((low.bit_length() - 1) >> 3)
        mg -= PASSED_PAWN_MG[rank]
        eg -= PASSED_PAWN_EG[rank]
    return mg * phase + eg * (FULL_PHASE - phase)


def _mop_up(position: Position, white_leads: bool) -> int:
    kings = position.boards[KING]
    white_king = (kings & position.boards[0]).bit_length() - 1
    black_king = (kings & position.boards[7]).bit_length() - 1
    loser = black_king if white_leads else white_king
    edge = _centre_distance(loser & 7, loser >> 3)
    apart = abs((white_king & 7) - (black_king & 7)) + abs((white_king >> 3) - (black_king >> 3))
    bonus = MOP_UP_EDGE * edge + MOP_UP_CLOSE * (14 - apart)
    return bonus if white_leads else -bonus


def material_scores(boards: tuple[int, ...]) -> tuple[int, int]:
    """``(mg, eg)`` of a board from scratch (White minus Black), for parsed positions."""
    mg = eg = 0
    for color, occupancy in ((0, boards[0]), (1, boards[7])):
        for piece in range(PAWN, KING + 1):
            pieces = boards[piece] & occupancy
            while pieces:
                low = pieces & -pieces
                pieces ^= low
                index = ((piece + 6 * color) << 6) | (low.bit_length() - 1)
                mg += MG[index]
                eg += EG[index]
    return mg, eg
