"""Othello (Reversi) on 64-bit bitboards.

Board and coordinates: columns ``a``-``h`` left to right, rows ``1``-``8``
top to bottom; square ``col + 8 * row`` is bit ``col + 8 * row`` (a1 is bit
0, h8 bit 63). The start position has White on d4 and e5 and Black on e4
and d5; Black (player 0) moves first, so Black's first moves are d3, c4, f5
and e6.

State: ``(own, opp, player, mobility, opp_mobility)``: the discs of the
side to move, the discs of the other side, the index of the side to move,
and the squares each side could play, each board one 64-bit int. Both
mobilities are computed once in :meth:`Othello.play`, since the move list,
the end-of-game test and the evaluation all need them. Inside, move
generation and evaluation work on half boards, ``lo`` (rows 1-4) and
``hi`` (rows 5-8), so that every value stays below 2**62, the range the
compiled engine computes natively (see "Half boards" below).

Rules as implemented: a move must flip at least one disc; a side with no
such move but whose opponent has one must play ``pass`` (its only legal
move); the game ends when neither side can move, and the side with more
discs wins (equal counts draw; empty squares are not awarded).

Move notation: the square, ``d3``; a pass is ``pass``.

Position notation: 64 characters, row 1 first and ``a`` to ``h`` in each
row, ``X`` for Black, ``O`` for White and ``-`` for empty (``.`` is also
read as empty), then one space and the side to move, ``X`` or ``O``. The
start position is::

    ---------------------------OX------XO--------------------------- X

This is the common "X/O/- plus side" convention of Othello programs' test
files (for example the FFO endgame positions).

Search: move generation shifts all candidate flips one direction at a time
(a parallel-prefix fill along rows, a three-step fill along columns and
diagonals), so a side's moves cost a fixed ~200 integer operations. The
key merges positions that differ only in colours (``own``/``opp`` swapped
with the side to move): the rules and the evaluation are colour-blind, so
their values are equal.

Move ordering: corners first and X-squares last (:data:`ORDER_GROUPS`),
then the search's table move, killers and history. Measured to depth 8-9
on eight random middle-game positions, this ordering and plain square
order are within 10% of each other in time; sorting by the opponent's
replies (fewest first) saved few nodes and cost 15-30% more time, so it is
not used.

Exact endgame: :meth:`Othello.max_remaining_plies` gives the generic search
a bound (``2 * empties``: each placement may be preceded by at most one
pass), and every line that reaches the end is scored exactly as a win, loss
or draw. When the empties at the root are few, iterative deepening reaches
the end of every line and the search reports a proven result (the fastest
win or the slowest loss, not the largest disc margin). No separate solver
or threshold is needed: the search proves whatever its time allows.
Measured with ``python -m bench.perft_bench endgame`` (CPython 3.11, a busy
2-core machine, the pure build on whole 64-bit boards): 10 empties in
under 0.5 s, 12 in about 5 s, 14 in about 50 s (2 of 3 positions within
60 s); the compiled build searches about 5x as many nodes a second.

Speed (``python -m bench.compiled_bench``, CPython 3.11, load average
about 3 on 2 cores): depth 11 from the start, 70,704 nodes, 0.12 s
compiled and 1.3 s pure; perft 7 through ``legal_moves``/``play``, 0.03 s
and 0.6 s. Before the half boards (whole 64-bit boards, the two sides'
moves in one pass over one wide int) the pure build took 0.69 s and
0.33 s and the compiled one hardly less, 0.55 s and 0.28 s: the compiled
build is 6-10x faster than that pure one, the pure build about 1.9x slower.

Why one module: one game whole: its rules, notation and evaluation share the
half-board arithmetic and are read together, like every module of
``engine/games``; hence the length (over 600 lines).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64, mypyc_attr

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import Game, Outcome

#: ``(own, opp, player, mobility, opp_mobility)``; see the module docstring.
OthelloState = tuple[int, int, int, int, int]

#: The move ``pass`` (squares are 0-63).
PASS: Final = 64

FULL = (1 << 64) - 1
FILE_A = 0x0101_0101_0101_0101
FILE_H = FILE_A << 7
ROW_1 = 0xFF
ROW_8 = ROW_1 << 56
EDGES = FILE_A | FILE_H | ROW_1 | ROW_8

CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)


def _square_mask(*names: str) -> int:
    mask = 0
    for name in names:
        mask |= 1 << (ord(name[0]) - ord("a") + 8 * (int(name[1]) - 1))
    return mask


#: X-squares (diagonally next to a corner) and C-squares (beside a corner
#: on an edge).
X_SQUARE_MASK = _square_mask("b2", "g2", "b7", "g7")
C_SQUARE_MASK = _square_mask("a2", "b1", "g1", "h2", "a7", "b8", "h7", "g8")

#: Move-ordering groups, best first: corners, then the edge squares that are
#: not C-squares, then the inner squares away from the corners, then
#: C-squares, then X-squares last (the order of the usual static
#: square-value tables: corners best, the squares that give them away worst).
ORDER_GROUPS = (
    CORNERS,
    EDGES & ~CORNERS & ~C_SQUARE_MASK & FULL,
    FULL & ~EDGES & ~X_SQUARE_MASK,
    C_SQUARE_MASK,
    X_SQUARE_MASK,
)

#: Evaluation weights, in points (the unit of :attr:`Othello.eval_unit`).
#: The features are the classic ones (Rosenbloom's IAGO, 1982: mobility,
#: potential mobility, corners and the squares next to them, edge
#: stability); the values were set by hand. Checks by self-play at 3,000
#: nodes a move (colours swapped, random 4-ply openings): 16/16 against the
#: same engine counting discs; doubling the mobility weight scored 7/16
#: against these values, so it was not taken.
MOBILITY_WEIGHT: Final = 10  # per legal move more than the opponent
POTENTIAL_MOBILITY_WEIGHT: Final = 3  # per empty square next to an opponent disc
CORNER_WEIGHT: Final = 100
X_SQUARE_WEIGHT: Final = 40  # an X-square next to an empty corner
C_SQUARE_WEIGHT: Final = 15  # a C-square next to an empty corner
FRONTIER_WEIGHT: Final = 4  # per own disc next to an empty square (a liability)
STABLE_EDGE_WEIGHT: Final = 12  # per edge disc anchored on an own corner
#: Disc difference counts from this many empties down, growing by one
#: point per disc for each empty square fewer.
PARITY_EMPTIES: Final = 20


# ----------------------------------------------------------------------
# Half boards.
#
# The state keeps each bitboard as one 64-bit int, but the functions
# below work on its two halves: ``lo`` is rows 1-4 (squares 0-31, bit
# ``square``) and ``hi`` is rows 5-8 (squares 32-63, bit ``square - 32``).
# The compiled engine (mypyc) computes natively only with ints in
# [-2**62, 2**62); a whole board with g8 or h8 taken, and masks such as
# FULL, are larger and fall back to CPython's arbitrary-size ints, as slow
# as the interpreter. Every value below stays under 2**57 (a half shifted
# by at most 25 places), so compiled it is plain machine arithmetic:
# measured 15x faster for a move (with the ``i64`` below) and 10x for an
# evaluation than on whole boards, but 2.5-3x slower in the interpreter,
# which does more than twice the operations (the whole-board code also
# found both sides' moves in one pass over one wide int, which compiled
# code cannot do natively).
# A shift that crosses row 4/5 moves bits from one half to the other
# (the "carry").
#
# Move generation goes further and types its halves ``i64`` (mypyc's
# 64-bit machine int, a plain ``int`` to the interpreter): no tag checks,
# and 40% less time for a move. That is exact only while no value
# leaves [-2**63, 2**63), which holds here (under 2**41); the callers
# join the halves into whole boards as ``int``, where 64 bits are safe.

HALF: Final = 0xFFFF_FFFF
HALF_BITS: Final = 32
#: Half-board masks (the same pattern in both halves). Inner: every square
#: but the a- and h-files, where a disc may be flipped along a direction
#: with a horizontal component without wrapping round the edge.
INNER_HALF: Final = 0x7E7E_7E7E
FILE_A_HALF: Final = 0x0101_0101
FILE_H_HALF: Final = 0x8080_8080
ROW_1_LO: Final = 0xFF
ROW_8_HI: Final = 0xFF00_0000
CORNERS_LO: Final = 0x81
CORNERS_HI: Final = 0x8100_0000
#: :data:`ORDER_GROUPS` as halves.
ORDER_GROUP_HALVES: Final = tuple((group & HALF, group >> HALF_BITS) for group in ORDER_GROUPS)
X_SQUARES_LO: Final = X_SQUARE_MASK & HALF
X_SQUARES_HI: Final = X_SQUARE_MASK >> HALF_BITS
C_SQUARES_LO: Final = C_SQUARE_MASK & HALF
C_SQUARES_HI: Final = C_SQUARE_MASK >> HALF_BITS

#: Bits set in each 16-bit number: table lookup is the fastest count
#: compiled (``int.bit_count`` is a generic method call there, 10x slower).
POPCOUNT_16: Final = bytes(bin(i).count("1") for i in range(1 << 16))


def _count(lo: int, hi: int) -> int:
    """Squares in a board given as halves."""
    return (
        POPCOUNT_16[lo & 0xFFFF]
        + POPCOUNT_16[lo >> 16]
        + POPCOUNT_16[hi & 0xFFFF]
        + POPCOUNT_16[hi >> 16]
    )


def _row_moves(own: i64, m: i64) -> i64:
    """Moves along the rows of one half board, through runs of ``m`` discs (both ways).

    A parallel-prefix (Kogge-Stone) fill in each direction: the discs of
    ``m`` next to ``own``, extended one step, then two doubling steps
    through pairs of ``m`` discs (``pre``), which covers runs of up to six;
    a move is the square after a run (the caller keeps the empty ones).
    """
    f = m & (own << 1)
    f |= m & (f << 1)
    pre = m & (m << 1)
    f |= pre & (f << 2)
    f |= pre & (f << 2)
    moves = f << 1
    f = m & (own >> 1)
    f |= m & (f >> 1)
    pre >>= 1
    f |= pre & (f >> 2)
    f |= pre & (f >> 2)
    return moves | (f >> 1)


def _column_moves(own_lo: i64, own_hi: i64, m_lo: i64, m_hi: i64, s: i64) -> tuple[i64, i64]:
    """Moves through runs of ``m`` discs along a column or diagonal (step ``s``, both ways).

    Each half board spans four rows, so a run that is followed by its move
    has at most three discs in either half: three fill steps per half. Upwards (towards row 8) the
    low half is filled first; its runs and its discs that reach row 5 go
    on in the high half (the ``carry``). Downwards the other way round.
    """
    down = HALF_BITS - s  # a bit at ``b >= down`` moves into the other half
    # Upwards.
    f = m_lo & (own_lo << s)
    f |= m_lo & (f << s)
    f |= m_lo & (f << s)
    moves_lo = f << s
    carry = f >> down  # the squares of the high half just after a run
    f = m_hi & ((own_hi << s) | (own_lo >> down) | carry)
    f |= m_hi & (f << s)
    f |= m_hi & (f << s)
    moves_hi = (f << s) | carry
    # Downwards; only the low ``s`` bits of the high half move into the low
    # half, so they are masked before the shift (no value exceeds 2**41).
    low_bits = (1 << s) - 1
    f = m_hi & (own_hi >> s)
    f |= m_hi & (f >> s)
    f |= m_hi & (f >> s)
    moves_hi |= f >> s
    carry = (f & low_bits) << down
    f = m_lo & ((own_lo >> s) | ((own_hi & low_bits) << down) | carry)
    f |= m_lo & (f >> s)
    f |= m_lo & (f >> s)
    return moves_lo | (f >> s) | carry, moves_hi


def _moves(own_lo: i64, own_hi: i64, opp_lo: i64, opp_hi: i64) -> tuple[i64, i64]:
    """Squares where the owner of ``own`` may play, as halves."""
    # Runs with a horizontal component may not wrap round the a/h files.
    inner_lo = opp_lo & INNER_HALF
    inner_hi = opp_hi & INNER_HALF
    lo = _row_moves(own_lo, inner_lo)
    hi = _row_moves(own_hi, inner_hi)
    m_lo, m_hi = _column_moves(own_lo, own_hi, opp_lo, opp_hi, 8)
    lo |= m_lo
    hi |= m_hi
    m_lo, m_hi = _column_moves(own_lo, own_hi, inner_lo, inner_hi, 7)
    lo |= m_lo
    hi |= m_hi
    m_lo, m_hi = _column_moves(own_lo, own_hi, inner_lo, inner_hi, 9)
    lo |= m_lo
    hi |= m_hi
    return lo & ~(own_lo | opp_lo) & HALF, hi & ~(own_hi | opp_hi) & HALF


def _mobilities(own: int, opp: int) -> tuple[int, int]:
    """The moves of both sides, as whole boards."""
    return _mobilities_of_halves(own & HALF, own >> HALF_BITS, opp & HALF, opp >> HALF_BITS)


def _mobilities_of_halves(own_lo: i64, own_hi: i64, opp_lo: i64, opp_hi: i64) -> tuple[int, int]:
    """The moves of both sides, from half boards, as whole boards."""
    # ``int``, not ``i64``: joined, a board may need all 64 bits.
    lo: int
    hi: int
    opp_moves_lo: int
    opp_moves_hi: int
    lo, hi = _moves(own_lo, own_hi, opp_lo, opp_hi)
    opp_moves_lo, opp_moves_hi = _moves(opp_lo, opp_hi, own_lo, own_hi)
    return lo | (hi << HALF_BITS), opp_moves_lo | (opp_moves_hi << HALF_BITS)


def _ray(square: int, d_col: int, d_row: int) -> tuple[int, int]:
    col, row = square % 8, square // 8
    mask = 0
    col += d_col
    row += d_row
    while 0 <= col < 8 and 0 <= row < 8:
        mask |= 1 << (col + 8 * row)
        col += d_col
        row += d_row
    return mask & HALF, mask >> HALF_BITS


#: For each square, the rays towards higher bit numbers and towards lower
#: ones, as halves (empty rays left out).
UP_RAYS: Final = tuple(
    tuple(r for r in (_ray(s, 1, 0), _ray(s, -1, 1), _ray(s, 0, 1), _ray(s, 1, 1)) if r[0] | r[1])
    for s in range(64)
)
DOWN_RAYS: Final = tuple(
    tuple(
        r for r in (_ray(s, -1, 0), _ray(s, 1, -1), _ray(s, 0, -1), _ray(s, -1, -1)) if r[0] | r[1]
    )
    for s in range(64)
)


def _flips(own_lo: int, own_hi: int, opp_lo: int, opp_hi: int, square: int) -> tuple[int, int]:
    """Discs flipped by the owner of ``own`` playing ``square``, as halves.

    Along each ray the nearest square that is not the opponent's ends the
    run; the run flips if that square is the mover's. An upward ray's
    squares in the low half come first, a downward ray's in the high half,
    so the other half is looked at only when the first is all opponent's.
    """
    flips_lo = flips_hi = 0
    for ray_lo, ray_hi in UP_RAYS[square]:
        blockers = ray_lo & ~opp_lo
        if blockers:
            first = blockers & -blockers  # the nearest non-opponent square
            if first & own_lo:
                flips_lo |= ray_lo & (first - 1)
        else:
            blockers = ray_hi & ~opp_hi
            first = blockers & -blockers
            if first & own_hi:
                flips_lo |= ray_lo
                flips_hi |= ray_hi & (first - 1)
    for ray_lo, ray_hi in DOWN_RAYS[square]:
        blockers = ray_hi & ~opp_hi
        if blockers:
            first = 1 << (blockers.bit_length() - 1)
            if first & own_hi:
                flips_hi |= ray_hi & -(first << 1)
        else:
            blockers = ray_lo & ~opp_lo
            if blockers:
                first = 1 << (blockers.bit_length() - 1)
                if first & own_lo:
                    flips_hi |= ray_hi
                    flips_lo |= ray_lo & -(first << 1)
    return flips_lo, flips_hi


def _neighbours(lo: int, hi: int) -> tuple[int, int]:
    """Squares next to any square of the board ``lo``, ``hi`` (in the 8 directions)."""
    inner_lo, inner_hi = lo & ~FILE_H_HALF, hi & ~FILE_H_HALF
    left_lo, left_hi = lo & ~FILE_A_HALF, hi & ~FILE_A_HALF
    near_lo = (
        (inner_lo << 1)
        | (left_lo >> 1)
        | (lo << 8)
        | (lo >> 8)
        | (inner_lo << 9)
        | (left_lo << 7)
        | (inner_lo >> 7)
        | (left_lo >> 9)
        # Row 5 reaches down into row 4.
        | (hi << 24)
        | (inner_hi << 25)
        | (left_hi << 23)
    )
    near_hi = (
        (inner_hi << 1)
        | (left_hi >> 1)
        | (hi << 8)
        | (hi >> 8)
        | (inner_hi << 9)
        | (left_hi << 7)
        | (inner_hi >> 7)
        | (left_hi >> 9)
        # Row 4 reaches up into row 5.
        | (lo >> 24)
        | (inner_lo >> 23)
        | (left_lo >> 25)
    )
    return near_lo & HALF, near_hi & HALF


def _stable_edges(lo: int, hi: int) -> int:
    """Edge discs joined to an own corner by a line of own discs along the edge (counted)."""
    stable_lo, stable_hi = lo & CORNERS_LO, hi & CORNERS_HI
    if not (stable_lo | stable_hi):
        return 0
    row_1, row_8 = lo & ROW_1_LO, hi & ROW_8_HI
    files_lo, files_hi = lo & (FILE_A_HALF | FILE_H_HALF), hi & (FILE_A_HALF | FILE_H_HALF)
    for _ in range(6):
        grown_lo = (
            stable_lo
            | (((stable_lo << 1) | (stable_lo >> 1)) & row_1)
            | (((stable_lo << 8) | (stable_lo >> 8) | (stable_hi << 24)) & files_lo)
        )
        grown_hi = (
            stable_hi
            | (((stable_hi << 1) | (stable_hi >> 1)) & row_8)
            | (((stable_hi << 8) | (stable_hi >> 8) | (stable_lo >> 24)) & files_hi)
        )
        if grown_lo == stable_lo and grown_hi == stable_hi:
            break
        stable_lo, stable_hi = grown_lo, grown_hi
    return _count(stable_lo, stable_hi)


def _squares(lo: int, hi: int, squares: list[int]) -> None:
    """Append the squares of the board ``lo``, ``hi`` to ``squares``, lowest first."""
    while lo:
        low = lo & -lo
        squares.append(low.bit_length() - 1)
        lo ^= low
    while hi:
        low = hi & -hi
        squares.append(low.bit_length() + (HALF_BITS - 1))
        hi ^= low


def _perft(own_lo: int, own_hi: int, opp_lo: int, opp_hi: int, depth: int) -> int:
    """Leaves ``depth`` plies below; bulk-counted at the last ply (moves counted, not made)."""
    mobility_lo, mobility_hi = _moves(own_lo, own_hi, opp_lo, opp_hi)
    if depth == 1:
        return _count(mobility_lo, mobility_hi) or 1  # a pass or a finished game is one leaf
    if not (mobility_lo | mobility_hi):
        opp_lo_moves, opp_hi_moves = _moves(opp_lo, opp_hi, own_lo, own_hi)
        if not (opp_lo_moves | opp_hi_moves):
            return 1  # neither side can move: a leaf above full depth
        return _perft(opp_lo, opp_hi, own_lo, own_hi, depth - 1)
    total = 0
    squares: list[int] = []
    _squares(mobility_lo, mobility_hi, squares)
    for square in squares:
        flips_lo, flips_hi = _flips(own_lo, own_hi, opp_lo, opp_hi, square)
        new_own_lo, new_own_hi = own_lo | flips_lo, own_hi | flips_hi
        if square < HALF_BITS:
            new_own_lo |= 1 << square
        else:
            new_own_hi |= 1 << (square - HALF_BITS)
        total += _perft(opp_lo ^ flips_lo, opp_hi ^ flips_hi, new_own_lo, new_own_hi, depth - 1)
    return total


@mypyc_attr(allow_interpreted_subclasses=True)
class Othello(Game[OthelloState, int]):
    """Othello; evaluation = mobility, corners and X/C squares, frontier, stable edges, discs."""

    name = "othello"
    title = "Othello"
    players = ("black", "white")
    eval_unit = f"points (a corner is worth {CORNER_WEIGHT}, one more legal move {MOBILITY_WEIGHT})"
    aspiration_window = 50
    #: Evaluation units per unit of log-odds (Monte Carlo search), fitted by ``python -m
    #: bench.mcts_bench --only scales``: evaluations of 200 random positions against the results of
    #: 16 playouts from each (fitted 338).
    win_odds_scale = 340

    def initial_state(self) -> OthelloState:
        black = _square_mask("e4", "d5")
        white = _square_mask("d4", "e5")
        return (black, white, 0, *_mobilities(black, white))

    def to_move(self, state: OthelloState) -> int:
        return state[2]

    def legal_moves(self, state: OthelloState) -> list[int]:
        mobility = state[3]
        if mobility:
            moves: list[int] = []
            _squares(mobility & HALF, mobility >> HALF_BITS, moves)
            return moves
        return [PASS] if state[4] else []

    def ordered_moves(self, state: OthelloState) -> list[int]:
        """Corners first, X-squares last (see :data:`ORDER_GROUPS`)."""
        mobility = state[3]
        if not mobility:
            return [PASS] if state[4] else []
        mobility_lo, mobility_hi = mobility & HALF, mobility >> HALF_BITS
        moves: list[int] = []
        for group_lo, group_hi in ORDER_GROUP_HALVES:
            _squares(mobility_lo & group_lo, mobility_hi & group_hi, moves)
        return moves

    def play(self, state: OthelloState, move: int) -> OthelloState:
        own, opp, player, mobility, opp_mobility = state
        if move == PASS:
            return (opp, own, 1 - player, opp_mobility, mobility)
        own_lo, own_hi, opp_lo, opp_hi = own & HALF, own >> HALF_BITS, opp & HALF, opp >> HALF_BITS
        flips_lo, flips_hi = _flips(own_lo, own_hi, opp_lo, opp_hi, move)
        own_lo |= flips_lo
        own_hi |= flips_hi
        opp_lo ^= flips_lo
        opp_hi ^= flips_hi
        if move < HALF_BITS:
            own_lo |= 1 << move
        else:
            own_hi |= 1 << (move - HALF_BITS)
        # The side to move next is the opponent.
        next_mobility, then_mobility = _mobilities_of_halves(opp_lo, opp_hi, own_lo, own_hi)
        return (
            opp_lo | (opp_hi << HALF_BITS),
            own_lo | (own_hi << HALF_BITS),
            1 - player,
            next_mobility,
            then_mobility,
        )

    def outcome(self, state: OthelloState) -> Outcome | None:
        own, opp, player, mobility, opp_mobility = state
        if mobility or opp_mobility:
            return None
        mine, theirs = own.bit_count(), opp.bit_count()
        if mine == theirs:
            return Outcome(None, f"{mine}-{theirs} discs")
        black, white = (mine, theirs) if player == 0 else (theirs, mine)
        return Outcome(player if mine > theirs else 1 - player, f"{black}-{white} discs")

    def evaluate(self, state: OthelloState) -> int:
        own, opp, _, mobility, opp_mobility = state
        own_lo, own_hi, opp_lo, opp_hi = own & HALF, own >> HALF_BITS, opp & HALF, opp >> HALF_BITS
        empty_lo, empty_hi = ~(own_lo | opp_lo) & HALF, ~(own_hi | opp_hi) & HALF
        empties = _count(empty_lo, empty_hi)
        # Whole boards: splitting them to count would cost as much compiled
        # and more interpreted.
        value = MOBILITY_WEIGHT * (mobility.bit_count() - opp_mobility.bit_count())
        # Potential mobility: empty squares next to the other side's discs.
        near_opp_lo, near_opp_hi = _neighbours(opp_lo, opp_hi)
        near_own_lo, near_own_hi = _neighbours(own_lo, own_hi)
        value += POTENTIAL_MOBILITY_WEIGHT * (
            _count(empty_lo & near_opp_lo, empty_hi & near_opp_hi)
            - _count(empty_lo & near_own_lo, empty_hi & near_own_hi)
        )
        near_empty_lo, near_empty_hi = _neighbours(empty_lo, empty_hi)
        value += FRONTIER_WEIGHT * (
            _count(opp_lo & near_empty_lo, opp_hi & near_empty_hi)
            - _count(own_lo & near_empty_lo, own_hi & near_empty_hi)
        )
        open_lo, open_hi = CORNERS_LO & empty_lo, CORNERS_HI & empty_hi
        if open_lo != CORNERS_LO or open_hi != CORNERS_HI:
            value += CORNER_WEIGHT * (
                _count(own_lo & CORNERS_LO, own_hi & CORNERS_HI)
                - _count(opp_lo & CORNERS_LO, opp_hi & CORNERS_HI)
            )
            value += STABLE_EDGE_WEIGHT * (
                _stable_edges(own_lo, own_hi) - _stable_edges(opp_lo, opp_hi)
            )
        if open_lo | open_hi:
            # X- and C-squares next to an empty corner give it away.
            danger_lo, danger_hi = _neighbours(open_lo, open_hi)
            xs_lo, xs_hi = danger_lo & X_SQUARES_LO, danger_hi & X_SQUARES_HI
            cs_lo, cs_hi = danger_lo & C_SQUARES_LO, danger_hi & C_SQUARES_HI
            value += X_SQUARE_WEIGHT * (
                _count(opp_lo & xs_lo, opp_hi & xs_hi) - _count(own_lo & xs_lo, own_hi & xs_hi)
            )
            value += C_SQUARE_WEIGHT * (
                _count(opp_lo & cs_lo, opp_hi & cs_hi) - _count(own_lo & cs_lo, own_hi & cs_hi)
            )
        if empties <= PARITY_EMPTIES:
            value += (PARITY_EMPTIES + 1 - empties) * (
                _count(own_lo, own_hi) - _count(opp_lo, opp_hi)
            )
        return value

    def key(self, state: OthelloState) -> int:
        own, opp = state[0], state[1]
        # Multiplicative hashing by two odd 64-bit constants (the golden
        # ratio's and a splitmix64 constant), folded so that the low bits,
        # which index the table, depend on every square.
        mixed = own * 0x9E37_79B9_7F4A_7C15 ^ opp * 0xBF58_476D_1CE4_E5B9
        return mixed ^ (mixed >> 64)

    def uses_reductions(self) -> bool:
        """Late-move reductions pay: 13/20 at 3,000 nodes a move against the same engine without."""
        return True

    def max_remaining_plies(self, state: OthelloState) -> int:
        empties = 64 - (state[0] | state[1]).bit_count()
        return 2 * empties

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: OthelloState, move: int) -> str:
        if move == PASS:
            return "pass"
        return "abcdefgh"[move % 8] + str(move // 8 + 1)

    def parse_move(self, state: OthelloState, text: str) -> int:
        if self.outcome(state) is not None:
            raise GameOverError("the game is over: no move can be played")
        legal = self.legal_moves(state)
        move = _parse_square(text) if isinstance(text, str) else None
        if move is None or move not in legal:
            raise IllegalMoveError(
                f"{text!r} is not a legal move here", [self.format_move(state, m) for m in legal]
            )
        return move

    def format_position(self, state: OthelloState) -> str:
        own, opp, player = state[0], state[1], state[2]
        black, white = (own, opp) if player == 0 else (opp, own)
        cells = [
            "X" if black >> square & 1 else "O" if white >> square & 1 else "-"
            for square in range(64)
        ]
        return "".join(cells) + (" X" if player == 0 else " O")

    def parse_position(self, text: str) -> OthelloState:
        if not isinstance(text, str):
            raise BadPositionError("an Othello position is a string")
        parts = text.split()
        if len(parts) != 2 or len(parts[0]) != 64 or parts[1] not in ("X", "O"):
            raise BadPositionError(
                "an Othello position is 64 characters of X, O or - (row 1 first, a to h),"
                " a space and the side to move, X or O"
            )
        black = white = 0
        for square, char in enumerate(parts[0]):
            if char == "X":
                black |= 1 << square
            elif char == "O":
                white |= 1 << square
            elif char not in "-.":
                raise BadPositionError(
                    f"character {square + 1} of the board, {char!r}, is not X, O, - or ."
                )
        player = 0 if parts[1] == "X" else 1
        own, opp = (black, white) if player == 0 else (white, black)
        return (own, opp, player, *_mobilities(own, opp))

    # ------------------------------------------------------------------
    # Move-generation check.

    def perft(self, state: OthelloState, depth: int) -> int:
        """Leaves ``depth`` plies below ``state``: a pass is a ply, a finished game a leaf."""
        if depth <= 0:
            return 1
        own, opp = state[0], state[1]
        return _perft(own & HALF, own >> HALF_BITS, opp & HALF, opp >> HALF_BITS, depth)


def _parse_square(text: str) -> int | None:
    text = text.strip().lower()
    if text == "pass":
        return PASS
    if len(text) == 2 and "a" <= text[0] <= "h" and "1" <= text[1] <= "8":
        return ord(text[0]) - ord("a") + 8 * (int(text[1]) - 1)
    return None
