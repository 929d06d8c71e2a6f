"""Connect Four's own exact solver: Pons' method on plain integers.

The generic solver (:class:`engine.search.solver.ExactSolver`) drives the
production alpha-beta search through the :class:`~engine.game.Game` hooks:
one Python call per hook per node, tuple states, a table shared with the
deepening search. This module solves Connect Four positions with the same
method as Pascal Pons' solver (blog "Solving Connect 4", parts 4-12), on
the bitboards of :mod:`engine.games.connect4` held as two integers:

* scores are Pons' (``cells // 2 + 1`` minus the winner's stones at the
  end, negative for a loss), and the root value is found by null-window
  searches that narrow ``[min, max]`` towards 0 first, as his ``solve``
  does;
* a node never looks at a move that hands the opponent an immediate win
  (it blocks a single threat, loses at once to two, never plays under a
  threat), so the side to move never has an immediate win on entry;
* the score is bounded by the earliest possible win and loss from the
  number of stones played, which cuts before any move is tried;
* moves are tried by the number of threats they create, then centre first;
* a transposition table of :data:`TABLE_SLOTS` slots keeps an upper or a
  lower bound per position (always-replace, indexed by key modulo the size).

Nothing here knows about the search engine: :meth:`Connect4Solver.solve`
returns the outcome as signed plies (positive: the mover wins in that many
plies, negative: loses, 0: a draw) and a best column, and calls ``check``
with the node count every :data:`CHECK_INTERVAL` nodes so that the caller
can end the solve by raising.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, final

from mypy_extensions import i64

#: Table slots. Each slot holds one int packing the position key and its
#: bound (a 49-bit key and 8 bits on the 7x6 board): a list of 8-byte
#: pointers to ints of 32 bytes in CPython, so at most about 20 MB once
#: full, made on a searcher's first solve (a worker keeps up to 4 searchers:
#: server/runtime/worker.py). Pons' solver uses 2**23 slots of 5 bytes. On
#: the first 100 positions of Test_L2_R2 (one table for all), 2**19 to 2**22
#: slots all took 57,000-61,000 nodes a position (CPU 2.3-2.7 s compiled,
#: load 13-16), so more slots buy nothing there.
TABLE_SLOTS: Final = (1 << 19) + 1  # odd, so that key % size mixes the columns
#: The largest board, in bits (``width * (height + 1)``), whose packed table
#: entries (key and 8 bits of bound) and shifted bitboards stay within a
#: signed 64-bit machine integer, which the compiled solver uses throughout:
#: 7x6 takes 49 bits; 7x7 and 8x6 (56) are left to the generic solver.
MAX_BOARD_BITS: Final = 55
#: ``think`` tries this solver on every position but the first plies
#: (:attr:`Connect4Solver.reach`): with fewer than 4 stones on the 7x6
#: board a solve takes far longer than any think (random 10-stone positions
#: already take up to 1.5 s of CPU, compiled), so trying would only spend
#: half the think's budget for nothing. Pons' Test_L1 sets (4 to 14 stones)
#: are within reach.
UNSOLVED_OPENING_PLIES: Final = 4
#: Nodes between two calls of the caller's ``check``.
CHECK_INTERVAL: Final = 4096
#: Offsets of the packed table value: the score plus :data:`VALUE_OFFSET`
#: in the low 7 bits, and :data:`LOWER_FLAG` for a lower bound.
VALUE_OFFSET: Final = 64
LOWER_FLAG: Final = 128
VALUE_BITS: Final = 8


@final
class Connect4Solver:
    """Exact values of Connect Four positions on a ``width`` x ``height`` board.

    Keeps its transposition table between solves (every entry is a true
    bound of its position, whatever the window that found it), so
    successive positions of one game get cheaper. Boards wider than
    :data:`MAX_BOARD_BITS` are refused (:func:`fits`).
    """

    def __init__(self, width: int, height: int, table_slots: int = TABLE_SLOTS) -> None:
        if not fits(width, height):
            raise ValueError(f"a {width}x{height} board does not fit the solver's 64-bit integers")
        self.width = width
        self.height = height
        # The masks are built with plain ints and converted once: built
        # with ``i64`` shifts by ``int`` amounts, the compiled masks were wrong.
        self.cells: i64 = i64(width * height)
        stride = height + 1
        self.stride: i64 = i64(stride)
        bottom = sum(1 << (c * stride) for c in range(width))
        self.bottom_mask: i64 = i64(bottom)
        self.board_mask: i64 = i64(bottom * ((1 << height) - 1))
        # Centre first, then outwards, left before right (Pons' order).
        order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
        self.order_masks: list[i64] = [i64(((1 << height) - 1) << (c * stride)) for c in order]
        self.reach = width * height - UNSOLVED_OPENING_PLIES
        self.table_slots: i64 = table_slots
        self.table: list[i64] = [0] * table_slots
        self.nodes: i64 = 0
        self.next_check: i64 = CHECK_INTERVAL
        self.check: Callable[[int], None] | None = None

    # ------------------------------------------------------------------
    # Bitboards.

    def winning_cells(self, stones: i64, mask: i64) -> i64:
        """Empty cells that would complete four for the owner of ``stones``."""
        free = self.board_mask ^ mask
        cells = (stones << 1) & (stones << 2) & (stones << 3)
        stride = self.stride
        cells |= _line_cells(stones, free, stride)
        cells |= _line_cells(stones, free, stride - 1)
        cells |= _line_cells(stones, free, stride + 1)
        return cells & free

    # ------------------------------------------------------------------
    # Scores.

    def win_now_score(self, played: i64) -> i64:
        """The score of a win with the mover's next stone."""
        return self.cells // 2 - played // 2

    def loss_next_score(self, played: i64) -> i64:
        """The score of a loss to the opponent's next stone."""
        return -(self.cells // 2 - (played + 1) // 2)

    def plies_of(self, score: int, played: int) -> int:
        """Pons' score as signed plies to the end (positive: the mover wins)."""
        if score > 0:
            stones = int(self.cells) // 2 + 1 - score - played // 2
            return 2 * stones - 1
        if score < 0:
            stones = int(self.cells) // 2 + 1 + score - (played + 1) // 2
            return -2 * stones
        return 0

    # ------------------------------------------------------------------
    # Solving.

    def solve_position(
        self, state: tuple[int, int, str], check: Callable[[int], None] | None = None
    ) -> tuple[int, int, int]:
        """:class:`~engine.game.PositionSolver`'s answer for a Connect Four state.

        ``(signed plies, column, nodes)``; the state is
        :mod:`engine.games.connect4`'s ``(current, mask, moves)``.
        """
        current, mask, moves = state
        _, plies, column = self.solve(current, mask, len(moves), check)
        return plies, column, int(self.nodes)

    def solve(
        self,
        current: int,
        mask: int,
        played: int,
        check: Callable[[int], None] | None = None,
    ) -> tuple[int, int, int]:
        """``(score, signed plies, column)`` of a position not yet over.

        ``current`` holds the mover's stones, ``mask`` all stones, and
        ``played`` their number. ``check(nodes)`` is called every
        :data:`CHECK_INTERVAL` nodes; whatever it raises ends the solve.
        The column (0-based) achieves the score.
        """
        self.nodes = 0
        self.next_check = CHECK_INTERVAL
        self.check = check
        score, column = self.solve_bits(i64(current), i64(mask), i64(played))
        return int(score), self.plies_of(int(score), played), int(column)

    def solve_bits(self, current: i64, mask: i64, played: i64) -> tuple[i64, i64]:
        possible = (mask + self.bottom_mask) & self.board_mask
        wins = self.winning_cells(current, mask) & possible
        if wins:
            return self.win_now_score(played), self.column_of(wins & -wins)
        opponent = current ^ mask
        threats = self.winning_cells(opponent, mask)
        forced = possible & threats
        safe = forced if forced else possible
        safe &= ~(threats >> 1)
        if not safe or (forced & (forced - 1)):
            # Every move loses to the opponent's next stone.
            fallback = forced if forced else possible
            return self.loss_next_score(played), self.column_of(fallback & -fallback)
        best = self.column_of(self.sorted_moves(current, mask, safe)[0])
        if played >= self.cells - 2:
            return 0, best  # neither side can complete four with the last two stones
        low = -(self.cells // 2 - 1 - (played + 1) // 2)
        high = self.cells // 2 - 1 - played // 2
        while low < high:
            probe = low + (high - low) // 2
            # Narrow towards 0 first: win/draw/loss is cheaper to prove than
            # a distance (Pons, part 8).
            if probe <= 0 and _half(low) < probe:
                probe = _half(low)
            elif probe >= 0 and _half(high) > probe:
                probe = _half(high)
            value, column = self.root(current, mask, played, safe, probe)
            if value > probe:
                low = value
                best = column
            else:
                high = value
        return low, best

    def root(self, current: i64, mask: i64, played: i64, safe: i64, probe: i64) -> tuple[i64, i64]:
        """Is the score above ``probe``? The null-window search of the root.

        Returns the bound found and, on a fail-high, the column that proved it.
        """
        self.nodes += 1
        opponent = current ^ mask
        best: i64 = -self.cells  # below every score: any move's bound raises it
        for move in self.sorted_moves(current, mask, safe):
            value = -self.negamax(opponent, mask | move, played + 1, -probe - 1, -probe)
            if value > probe:
                return value, self.column_of(move)
            if value > best:
                best = value
        return best, -1

    def negamax(self, current: i64, mask: i64, played: i64, alpha: i64, beta: i64) -> i64:
        """The score within ``(alpha, beta)``; the mover has no immediate win.

        Fails soft only as far as Pons' does: a result at or above ``beta``
        is a lower bound, at or below ``alpha`` an upper bound.
        """
        nodes = self.nodes = self.nodes + 1
        if nodes >= self.next_check:
            self.next_check = nodes + CHECK_INTERVAL
            if self.check is not None:
                self.check(int(nodes))
        cells = self.cells
        opponent = current ^ mask
        possible = (mask + self.bottom_mask) & self.board_mask
        threats = self.winning_cells(opponent, mask)
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return -(cells // 2 - (played + 1) // 2)  # two threats: lost next move
            possible = forced
        safe = possible & ~(threats >> 1)
        if not safe:
            return -(cells // 2 - (played + 1) // 2)
        if played >= cells - 2:
            return 0  # neither side can complete four with the last two stones
        # The earliest possible loss and win bound the score.
        low = -(cells // 2 - 1 - (played + 1) // 2)
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
        high = cells // 2 - 1 - played // 2
        key = current + mask
        slot = key % self.table_slots
        entry = self.table[slot]
        if entry >> VALUE_BITS == key:
            value = (entry & (LOWER_FLAG - 1)) - VALUE_OFFSET
            if entry & LOWER_FLAG:
                if value > low:
                    low = value
                    if alpha < low:
                        alpha = low
                        if alpha >= beta:
                            return alpha
            elif value < high:
                high = value
        if beta > high:
            beta = high
            if alpha >= beta:
                return beta
        for move in self.sorted_moves(current, mask, safe):
            value = -self.negamax(opponent, mask | move, played + 1, -beta, -alpha)
            if value >= beta:
                self.table[slot] = (key << VALUE_BITS) | LOWER_FLAG | (value + VALUE_OFFSET)
                return value
            if value > alpha:
                alpha = value
        self.table[slot] = (key << VALUE_BITS) | (alpha + VALUE_OFFSET)
        return alpha

    def sorted_moves(self, current: i64, mask: i64, safe: i64) -> list[i64]:
        """The cells of ``safe`` (one per column), most threats made first, then centre first."""
        moves: list[i64] = []
        keys: list[i64] = []
        for column_mask in self.order_masks:
            move = safe & column_mask
            if not move:
                continue
            key = _popcount(self.winning_cells(current | move, mask | move))
            # Insertion sort: stable, so ties keep the centre-first order.
            index = len(moves)
            moves.append(move)
            keys.append(key)
            while index > 0 and keys[index - 1] < key:
                moves[index] = moves[index - 1]
                keys[index] = keys[index - 1]
                index -= 1
            moves[index] = move
            keys[index] = key
        return moves

    def column_of(self, cell: i64) -> i64:
        """The column of a one-bit ``cell``."""
        return (int(cell).bit_length() - 1) // self.stride


def fits(width: int, height: int) -> bool:
    """Whether a ``width`` x ``height`` board fits the solver (:data:`MAX_BOARD_BITS`)."""
    return width * (height + 1) <= MAX_BOARD_BITS


def _half(value: i64) -> i64:
    """``value / 2`` rounded towards zero (C's division, as in Pons' bisection)."""
    return value // 2 if value >= 0 else -((-value) // 2)


def _popcount(bits: i64) -> i64:
    """The number of set bits of a non-negative ``bits`` (SWAR, no multiplication)."""
    bits -= (bits >> 1) & 0x5555555555555555
    bits = (bits & 0x3333333333333333) + ((bits >> 2) & 0x3333333333333333)
    bits = (bits + (bits >> 4)) & 0x0F0F0F0F0F0F0F0F
    bits += bits >> 8
    bits += bits >> 16
    bits += bits >> 32
    return bits & 0x7F


def _line_cells(stones: i64, free: i64, shift: i64) -> i64:
    """Cells completing four along one direction ``shift`` bits apart.

    The same patterns as :func:`engine.games.connect4._line_threats`
    (``_xxx``, ``x_xx``, ``xx_x``, ``xxx_``), masking before the long
    shifts so that values stay within the board's bits.
    """
    pair = stones & (stones >> shift)
    triple = pair & (stones >> 2 * shift)
    cells = triple >> shift
    cells |= (stones << shift) & (pair >> shift)
    cells |= ((pair & (free >> 2 * shift)) << 2 * shift) & (stones >> shift)
    cells |= (triple & (free >> 3 * shift)) << 3 * shift
    return cells
