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
    BIT,
    DARK_SQUARES,
    FILE_A,
    KING,
    KNIGHT,
    LIGHT_SQUARES,
    NOT_FILE_A,
    NOT_FILE_H,
    PAWN,
    QUEEN,
    ROOK,
    Bitboard,
    popcount,
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
_RANKS_1_TO_3: Final[Bitboard] = (1 << 24) - 1
_RANKS_1_TO_5: Final[Bitboard] = (1 << 40) - 1
_RANKS_1_TO_6: Final[Bitboard] = (1 << 48) - 1


def _shelter_ranks() -> tuple[tuple[Bitboard, ...], tuple[Bitboard, ...]]:
    """``[color][rank]``: the two ranks ahead of a king on ``rank`` (fewer near the edge)."""
    ranks: list[Bitboard] = [0]  # ranks[r + 1]: rank r (0-7); ranks[0] and ranks[9]: none
    rank_mask: Bitboard = 0xFF
    for _ in range(8):
        ranks.append(rank_mask)
        rank_mask = rank_mask << 8
    ranks.append(0)
    ranks.append(0)
    white = tuple(ranks[rank + 2] | ranks[rank + 3] for rank in range(8))
    black = tuple(ranks[max(rank - 1, 0)] | ranks[rank] for rank in range(8))
    return white, black


_SHELTER_RANKS: Final = _shelter_ranks()


#: Pawnless endings with one side ahead: drive the lone king to the edge and
#: bring the kings together, so that the search finds the mate in KQK and KRK
#: (the "mop-up" idea; weights ours).
MOP_UP_EDGE: Final = 10
MOP_UP_CLOSE: Final = 4
MOP_UP_MIN_LEAD: Final = 400


#: Rooks on a file with no pawn (open) or with no pawn of their own side
#: (half-open), middlegame and endgame: Fruit 2.1's values.
ROOK_OPEN_FILE_MG: Final = 20
ROOK_OPEN_FILE_EG: Final = 20
ROOK_HALF_OPEN_FILE_MG: Final = 10
ROOK_HALF_OPEN_FILE_EG: Final = 10
#: Pawn structure, per pawn: a second pawn on a file (doubled) and a pawn
#: with no pawn of its side on the files beside (isolated): Fruit 2.1's
#: values (10 in the middlegame, 20 in the endgame).
DOUBLED_PAWN_MG: Final = 10
DOUBLED_PAWN_EG: Final = 20
ISOLATED_PAWN_MG: Final = 10
ISOLATED_PAWN_EG: Final = 20
#: King shelter, middlegame only: for each of the king's file and the files
#: beside it with no pawn of the king's side on the two ranks ahead of the
#: king (our own amount, of the order of Fruit's shelter penalties).
KING_SHELTER_MISSING: Final = 15
#: A passed pawn that the lone king (its side has only pawns left) cannot
#: catch by the rule of the square: promotion is as good as a queen less a
#: pawn, which the passed-pawn bonus by rank already partly counts.
UNSTOPPABLE_PASSER: Final = 500
#: Drawish endings, as scale factors out of 64 applied to the whole
#: evaluation of the side ahead (Stockfish 8's material.cpp and
#: evaluate.cpp): a side without pawns that is up at most a bishop's worth
#: of pieces cannot force a win (0 with less than a rook's worth, else 4
#: when the other side has at most a bishop, else 14); opposite-coloured
#: bishops with no other pieces are drawish (31 with two pawns or more, 9
#: with fewer), and still somewhat with other pieces (46).
SCALE_NORMAL: Final = 64
SCALE_PAWNLESS_MINOR: Final = 0
SCALE_PAWNLESS_VS_MINOR: Final = 4
SCALE_PAWNLESS: Final = 14
SCALE_OPPOSITE_BISHOPS: Final = 31
SCALE_OPPOSITE_BISHOPS_FEW_PAWNS: Final = 9
SCALE_OPPOSITE_BISHOPS_PIECES: Final = 46
#: Non-pawn material in the units of the scaling rules (Stockfish 8's
#: middlegame values, which the rules above are stated in).
SCALE_KNIGHT: Final = 817
SCALE_BISHOP: Final = 836
SCALE_ROOK: Final = 1270
SCALE_QUEEN: Final = 2521


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
    phase = popcount(knights_bishops) + 2 * popcount(boards[ROOK]) + 4 * popcount(boards[QUEEN])
    if phase > FULL_PHASE:
        phase = FULL_PHASE
    # White's point of view until the end; the blend is divided last, from
    # the mover's point of view, so that mirrored positions round alike.
    blend = position.mg * phase + position.eg * (FULL_PHASE - phase)
    pawns = boards[PAWN]
    white, black = boards[0], boards[7]
    if pawns:
        blend += _passed_pawns(position, pawns & white, pawns & black, phase)
    blend += _structure(boards, phase)
    score = 0
    bishops = boards[BISHOP]
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
    if phase <= SCALE_MAX_PHASE:
        scale = _scale(boards, blend > 0)
        if scale != SCALE_NORMAL:
            blend = blend * scale // SCALE_NORMAL
    if position.turn:
        blend = -blend
    return blend // FULL_PHASE + TEMPO


#: The scaling rules are looked at only when this little material is left
#: (every rule needs at most a rook and a bishop a side, phase 6 in all).
SCALE_MAX_PHASE: Final = 6


def _file_set(board: Bitboard) -> int:
    """The files that hold a square of ``board``, as a byte (bit 0: the a-file).

    Only the low byte is read: what a right shift of a negative board brings
    in from the top (compiled code) never reaches it.
    """
    board |= board >> 32
    board |= board >> 16
    board |= board >> 8
    return int(board & 0xFF)


def _file_masks() -> tuple[Bitboard, ...]:
    masks: list[Bitboard] = []
    for files in range(256):
        mask: Bitboard = 0
        for file in range(8):
            if files >> file & 1:
                mask |= FILE_A << file
        masks.append(mask)
    return tuple(masks)


#: ``_FILE_MASKS[files]``: the squares of a byte of files (bit 0: the
#: a-file). A look-up, not ``files * FILE_A``: compiled, that product of a
#: plain int overflows into a Python long on every call.
_FILE_MASKS: Final = _file_masks()
#: ``_FILE_COUNTS[files]``: how many files a byte of files holds
#: (``int.bit_count`` is a method call in compiled code).
_FILE_COUNTS: Final = bytes(files.bit_count() for files in range(256))


def _structure(boards: tuple[Bitboard, ...], phase: int) -> int:
    """Rooks on open files, doubled and isolated pawns, king shelter; blended by ``phase``.

    Written for the compiled build (it runs at every evaluation): bitboards
    stay ``Bitboard``, files are bytes counted and widened by table, and the
    loop over the two sides is a ``range``, not a tuple of boxed ints.
    """
    pawns = boards[PAWN]
    rooks = boards[ROOK]
    kings = boards[KING]
    pawn_files = _file_set(pawns)
    mg = eg = 0
    for color in range(2):
        own = boards[7 * color]
        own_pawns: Bitboard = pawns & own
        own_files = _file_set(own_pawns)
        side_mg = side_eg = 0
        # Rooks on open and half-open files.
        own_rooks: Bitboard = rooks & own
        while own_rooks:
            low: Bitboard = own_rooks & -own_rooks
            own_rooks ^= low
            file_bit = 1 << ((int(low).bit_length() - 1) & 7)
            if not pawn_files & file_bit:
                side_mg += ROOK_OPEN_FILE_MG
                side_eg += ROOK_OPEN_FILE_EG
            elif not own_files & file_bit:
                side_mg += ROOK_HALF_OPEN_FILE_MG
                side_eg += ROOK_HALF_OPEN_FILE_EG
        # Doubled pawns: every pawn beyond the first on its file.
        doubled = popcount(own_pawns) - _FILE_COUNTS[own_files]
        # Isolated pawns: on files with no own pawn on either side.
        isolated_files = own_files & ~(own_files << 1 | own_files >> 1)
        isolated = popcount(own_pawns & _FILE_MASKS[isolated_files]) if isolated_files else 0
        side_mg -= DOUBLED_PAWN_MG * doubled + ISOLATED_PAWN_MG * isolated
        side_eg -= DOUBLED_PAWN_EG * doubled + ISOLATED_PAWN_EG * isolated
        # King shelter: own pawns on the two ranks ahead of the king, on
        # its file and the files beside (middlegame only).
        king = int(kings & own).bit_length() - 1
        file, rank = king & 7, king >> 3
        shelter_files = (7 << file >> 1) & 0xFF
        sheltered = _file_set(own_pawns & _SHELTER_RANKS[color][rank] & _FILE_MASKS[shelter_files])
        side_mg -= KING_SHELTER_MISSING * _FILE_COUNTS[shelter_files & ~sheltered]
        if color:
            mg -= side_mg
            eg -= side_eg
        else:
            mg += side_mg
            eg += side_eg
    return mg * phase + eg * (FULL_PHASE - phase)


def _non_pawn_material(boards: tuple[Bitboard, ...], side: Bitboard) -> int:
    return (
        SCALE_KNIGHT * popcount(boards[KNIGHT] & side)
        + SCALE_BISHOP * popcount(boards[BISHOP] & side)
        + SCALE_ROOK * popcount(boards[ROOK] & side)
        + SCALE_QUEEN * popcount(boards[QUEEN] & side)
    )


def _scale(boards: tuple[Bitboard, ...], white_ahead: bool) -> int:
    """The drawish-ending scale factor (out of :data:`SCALE_NORMAL`) for the side ahead."""
    strong = boards[0] if white_ahead else boards[7]
    weak = boards[7] if white_ahead else boards[0]
    strong_material = _non_pawn_material(boards, strong)
    weak_material = _non_pawn_material(boards, weak)
    if not boards[PAWN] & strong and strong_material - weak_material <= SCALE_BISHOP:
        if strong_material < SCALE_ROOK:
            return SCALE_PAWNLESS_MINOR
        return SCALE_PAWNLESS_VS_MINOR if weak_material <= SCALE_BISHOP else SCALE_PAWNLESS
    bishops = boards[BISHOP]
    white_bishops = bishops & boards[0]
    black_bishops = bishops & boards[7]
    if (
        popcount(white_bishops) == 1
        and popcount(black_bishops) == 1
        and bool(white_bishops & LIGHT_SQUARES) != bool(black_bishops & LIGHT_SQUARES)
    ):
        if strong_material == SCALE_BISHOP and weak_material == SCALE_BISHOP:
            if popcount(boards[PAWN]) >= 2:
                return SCALE_OPPOSITE_BISHOPS
            return SCALE_OPPOSITE_BISHOPS_FEW_PAWNS
        return SCALE_OPPOSITE_BISHOPS_PIECES
    return SCALE_NORMAL


def _passed_pawns(
    position: Position, white_pawns: Bitboard, black_pawns: Bitboard, phase: int
) -> int:
    """Passed-pawn bonus, White minus Black, already blended by ``phase``.

    When a side has only king and pawns, a passed pawn of the other side
    that its king cannot catch (the rule of the square) counts
    :data:`UNSTOPPABLE_PASSER` more.
    """
    # Squares each side's pawns watch ahead of them (own file and the files
    # beside): a pawn of the other side standing there is not passed.
    ahead_of_black = black_pawns >> 8
    ahead_of_black |= ahead_of_black >> 8
    ahead_of_black |= ahead_of_black >> 16
    ahead_of_black |= ahead_of_black >> 32
    ahead_of_black |= (ahead_of_black & NOT_FILE_A) >> 1 | (ahead_of_black & NOT_FILE_H) << 1
    # Upwards the fill is cut at rank 7 (each shift only takes the squares
    # that land below rank 8): no black pawn stands on rank 8, and so every
    # value stays below 2**56, the same in both builds.
    ahead_of_white = (white_pawns & _RANKS_1_TO_6) << 8
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_6) << 8
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_5) << 16
    ahead_of_white |= (ahead_of_white & _RANKS_1_TO_3) << 32
    ahead_of_white |= (ahead_of_white & NOT_FILE_A) >> 1 | (ahead_of_white & NOT_FILE_H) << 1
    mg = eg = 0
    white_passed = white_pawns & ~ahead_of_black
    black_passed = black_pawns & ~ahead_of_white
    passed = white_passed
    while passed:
        low = passed & -passed
        passed ^= low
        rank = (int(low).bit_length() - 1) >> 3
        mg += PASSED_PAWN_MG[rank]
        eg += PASSED_PAWN_EG[rank]
    passed = black_passed
    while passed:
        low = passed & -passed
        passed ^= low
        rank = 7 - ((int(low).bit_length() - 1) >> 3)
        mg -= PASSED_PAWN_MG[rank]
        eg -= PASSED_PAWN_EG[rank]
    boards = position.boards
    pieces = boards[KNIGHT] | boards[BISHOP] | boards[ROOK] | boards[QUEEN]
    if white_passed and not pieces & boards[7] and _unstoppable(position, white_passed, 0):
        eg += UNSTOPPABLE_PASSER
    if black_passed and not pieces & boards[0] and _unstoppable(position, black_passed, 1):
        eg -= UNSTOPPABLE_PASSER
    return mg * phase + eg * (FULL_PHASE - phase)


def _unstoppable(position: Position, passed: Bitboard, color: int) -> bool:
    """Whether a passed pawn of ``color`` outruns the other king (the rule of the square).

    The pawn needs one move a rank to promote (a pawn on its second rank
    can step two at once); the king catches it when its distance to the
    promotion square, less one if it moves first, is no more than that.
    A pawn with a piece of its own side on its path is left out.
    """
    boards = position.boards
    defender_king = int(boards[KING] & boards[7 * (1 - color)]).bit_length() - 1
    occupied = boards[0] | boards[7]
    while passed:
        low = passed & -passed
        passed ^= low
        square = int(low).bit_length() - 1
        file, rank = square & 7, square >> 3
        to_go = 7 - rank if color == 0 else rank
        if to_go == 6:
            to_go = 5  # the double step
        promotion = file + (56 if color == 0 else 0)
        king_distance = max(
            abs((defender_king & 7) - file), abs((defender_king >> 3) - (promotion >> 3))
        )
        if position.turn != color:
            king_distance -= 1
        if king_distance <= to_go:
            continue
        # The file above the pawn (White) or below it (Black); a pawn is never
        # on the last rank, so BIT[square + 8] exists.
        path = FILE_A << file
        path = path & -BIT[square + 8] if color == 0 else path & (BIT[square] - 1)
        if not path & occupied:
            return True
    return False


def _mop_up(position: Position, white_leads: bool) -> int:
    kings = position.boards[KING]
    white_king = int(kings & position.boards[0]).bit_length() - 1
    black_king = int(kings & position.boards[7]).bit_length() - 1
    loser = black_king if white_leads else white_king
    edge = _centre_distance(loser & 7, loser >> 3)
    apart = abs((white_king & 7) - (black_king & 7)) + abs((white_king >> 3) - (black_king >> 3))
    bonus = MOP_UP_EDGE * edge + MOP_UP_CLOSE * (14 - apart)
    return bonus if white_leads else -bonus


def material_scores(boards: tuple[Bitboard, ...]) -> tuple[int, int]:
    """``(mg, eg)`` of a board from scratch (White minus Black), for parsed positions."""
    mg = eg = 0
    for color, occupancy in ((0, boards[0]), (1, boards[7])):
        for piece in range(PAWN, KING + 1):
            pieces = boards[piece] & occupancy
            while pieces:
                low = pieces & -pieces
                pieces ^= low
                index = ((piece + 6 * color) << 6) | (int(low).bit_length() - 1)
                mg += MG[index]
                eg += EG[index]
    return mg, eg
