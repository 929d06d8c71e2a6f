"""Connect Four on bitboards.

Options: ``width`` (4-9 columns, default 7) and ``height`` (4-8 rows,
default 6).

Bitboard layout (John Tromp's, as in Pascal Pons' solver): column ``c``
uses bits ``c * (H + 1)`` to ``c * (H + 1) + H - 1`` from the bottom up,
plus one spare bit on top so that shifts never carry between columns. A
state is ``(current, mask, moves)``: the stones of the player to move, all
stones, and the columns played so far as a string of digits. ``current +
mask`` identifies the position uniquely and is the transposition key.

Move notation: the column number, ``1`` to ``width`` from the left.
Position notation: the columns played, in order, as one string of digits
(``4455``); the empty board is the empty string. This is the notation of
Pascal Pons' benchmark sets.
"""

from __future__ import annotations

from random import Random
from typing import Final

from mypy_extensions import mypyc_attr

from engine.errors import BadPositionError
from engine.game import Game, Option, Outcome, PositionSolver, int_option
from engine.games.connect4_solver import Connect4Solver, fits

C4State = tuple[int, int, str]

#: Evaluation weights, tuned by hand on self-play at depth 6-8: a threat
#: (an empty cell that would complete four) dominates, and a threat on the
#: row parity that zugzwang favours for its owner (odd rows, counted from 1
#: at the bottom, for the first player; even rows for the second) is worth
#: more because it tends to decide the endgame (Allis 1988, section 4).
THREAT_WEIGHT: Final = 8
GOOD_PARITY_BONUS: Final = 4
#: Per stone in the centre column, and per stone in the columns beside it.
CENTRE_WEIGHT: Final = 3
NEAR_CENTRE_WEIGHT: Final = 1


@mypyc_attr(allow_interpreted_subclasses=True)
class ConnectFour(Game[C4State, int]):
    """Connect Four; the evaluation counts threats by parity, then centre control."""

    name = "connect4"
    title = "Connect Four"
    players = ("first", "second")
    only_mover_wins = True
    #: The generic solver's reach, for boards too big for Connect Four's own
    #: solver (:meth:`exact_solver`, whose reach is
    #: :data:`~engine.games.connect4_solver.SOLVER_REACH`): from 28 plies
    #: left (14 stones on the 7x6 board) the generic solver proved Pons'
    #: middle-game positions in tens of milliseconds (median), while earlier
    #: positions can take seconds and are left to the deepening search.
    solver_reach = 28
    eval_unit = f"points (a threat is worth {THREAT_WEIGHT} to {THREAT_WEIGHT + GOOD_PARITY_BONUS})"
    #: Evaluation units per unit of log-odds (Monte Carlo search), fitted by ``python -m
    #: bench.mcts_bench --only scales``: evaluations of 200 random positions against the results of
    #: 16 playouts from each (fitted 32, so a threat is worth about 1.3:1 odds).
    win_odds_scale = 32
    OPTIONS = (
        Option("width", 7, "number of columns", int_option(4, 9)),
        Option("height", 6, "number of rows", int_option(4, 8)),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        width: int = self.options["width"]
        height: int = self.options["height"]
        self.width = width
        self.height = height
        stride = height + 1
        self._stride = stride
        self._bottom = [1 << (c * stride) for c in range(width)]
        self._top = [1 << (c * stride + height - 1) for c in range(width)]
        self._column = [((1 << height) - 1) << (c * stride) for c in range(width)]
        bottom_mask = sum(self._bottom)
        self._bottom_mask = bottom_mask
        self._board_mask = bottom_mask * ((1 << height) - 1)
        self._cells = width * height
        # Centre first, then outwards, left before right.
        self._order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
        odd_rows = sum(1 << r for r in range(0, height, 2)) * bottom_mask
        self._odd_rows = odd_rows  # rows 1, 3, 5 counted from 1 at the bottom
        self._even_rows = self._board_mask ^ odd_rows
        centre = width // 2
        self._centre_mask = self._column[centre] if width % 2 else 0
        near = [c for c in range(width) if abs(2 * c - (width - 1)) <= 2 and 2 * c != width - 1]
        self._near_mask = sum(self._column[c] for c in near)
        # Bit distance to the neighbour along a row (height + 1) and along
        # the two diagonals; up a column it is 1.
        self._shifts: tuple[int, int, int] = (height + 1, height, height + 2)
        # (column mask, column) in centre-first order, and each column's
        # rank in that order (higher = nearer the centre), for move sorting.
        self._order_columns = [(self._column[c], c) for c in self._order]
        self._centre_rank = [0] * width
        for index, c in enumerate(self._order):
            self._centre_rank[c] = width - index

    # ------------------------------------------------------------------
    # Bitboard primitives.

    def _aligned(self, stones: int) -> bool:
        """Whether ``stones`` contains four in a row in any direction."""
        row, diagonal, antidiagonal = self._shifts
        return (
            _four_along(stones, row)
            or _four_along(stones, diagonal)
            or _four_along(stones, antidiagonal)
            or _four_along(stones, 1)
        )

    def _winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells that would complete four for the owner of ``stones``.

        This is the solver's hottest function (Pons' ``compute_winning_position``):
        a cell wins with three own stones below it, or three in line through
        it along a row or a diagonal (see :func:`_line_threats`).
        """
        free = self._board_mask ^ mask
        row, diagonal, antidiagonal = self._shifts
        cells = (stones << 1) & (stones << 2) & (stones << 3)
        cells |= _line_threats(stones, free, row)
        cells |= _line_threats(stones, free, diagonal)
        cells |= _line_threats(stones, free, antidiagonal)
        return cells & free

    def _column_of(self, cell: int) -> int:
        return (cell.bit_length() - 1) // self._stride

    # ------------------------------------------------------------------
    # The game.

    def initial_state(self) -> C4State:
        return (0, 0, "")

    def to_move(self, state: C4State) -> int:
        return len(state[2]) & 1

    def legal_moves(self, state: C4State) -> list[int]:
        if self.outcome(state) is not None:
            return []
        mask = state[1]
        return [c for c in range(self.width) if not mask & self._top[c]]

    def ordered_moves(self, state: C4State) -> list[int]:
        """Columns centre first; :meth:`sort_moves` adds the threat count."""
        mask = state[1]
        top = self._top
        return [c for c in self._order if not mask & top[c]]

    def safe_moves(self, state: C4State) -> list[int]:
        """Columns that neither leave an opponent's immediate win open nor play under one."""
        current, mask, _ = state
        playable = (mask + self._bottom_mask) & self._board_mask
        threats = self._winning_cells(current ^ mask, mask)
        forced = playable & threats
        if forced:
            if forced & (forced - 1):
                return []  # two immediate threats: one cannot block both
            playable = forced
        playable &= ~(threats >> 1)
        return [c for column_mask, c in self._order_columns if playable & column_mask]

    def sort_moves(self, state: C4State, moves: list[int]) -> list[int]:
        """Most threats created first, then centre first (Pons' ordering)."""
        if len(moves) < 2:
            return moves
        current, mask, _ = state
        playable = (mask + self._bottom_mask) & self._board_mask
        column = self._column
        rank = self._centre_rank
        # Sort keys pack (threats, centre rank, column) into one int so
        # that one plain sort orders by threats, then centre first.
        keys = []
        for c in moves:
            cell = playable & column[c]
            threats = self._winning_cells(current | cell, mask | cell).bit_count()
            keys.append((threats << 8) | (rank[c] << 4) | c)
        keys.sort(reverse=True)
        return [key & 15 for key in keys]

    def uses_ordering_heuristics(self) -> bool:
        # Measured on the first 40 positions of Test_L2_R1: the exact solve
        # visits 18 times more nodes when history reorders the threat-count
        # ordering, and 1.4 times more with killers alone.
        return False

    def play(self, state: C4State, move: int) -> C4State:
        current, mask, moves = state
        return (current ^ mask, mask | (mask + self._bottom[move]), moves + "123456789"[move])

    def outcome(self, state: C4State) -> Outcome | None:
        current, mask, moves = state
        if self._aligned(current ^ mask):
            return Outcome(1 - (len(moves) & 1), "four in a row")
        if len(moves) == self._cells:
            return Outcome(None, "board full")
        return None

    def winning_move(self, state: C4State) -> int | None:
        current, mask, _ = state
        cells = self._winning_cells(current, mask) & (mask + self._bottom_mask)
        if cells:
            return self._column_of(cells & -cells)
        return None

    def playout_move(self, state: C4State, rng: Random) -> int:
        """An immediate win, else a block of the opponent's immediate win, else at random.

        The block makes a playout's result depend on the position, not on
        which side happens to miss a three first; ``bench/mcts_bench.py
        --only hints`` measures it against the default (win, else random).
        """
        current, mask, _ = state
        playable = (mask + self._bottom_mask) & self._board_mask
        wins = self._winning_cells(current, mask) & playable
        if not wins:
            wins = self._winning_cells(current ^ mask, mask) & playable
        if wins:
            return self._column_of(wins & -wins)
        top = self._top
        moves = [c for c in range(self.width) if not mask & top[c]]
        return moves[rng.randrange(len(moves))]

    def evaluate(self, state: C4State) -> int:
        current, mask, moves = state
        opponent = current ^ mask
        mine = self._winning_cells(current, mask)
        theirs = self._winning_cells(opponent, mask)
        first_to_move = not len(moves) & 1
        my_rows, their_rows = (
            (self._odd_rows, self._even_rows)
            if first_to_move
            else (self._even_rows, self._odd_rows)
        )
        value = THREAT_WEIGHT * (mine.bit_count() - theirs.bit_count())
        value += GOOD_PARITY_BONUS * (
            (mine & my_rows).bit_count() - (theirs & their_rows).bit_count()
        )
        value += CENTRE_WEIGHT * (
            (current & self._centre_mask).bit_count() - (opponent & self._centre_mask).bit_count()
        )
        value += NEAR_CENTRE_WEIGHT * (
            (current & self._near_mask).bit_count() - (opponent & self._near_mask).bit_count()
        )
        return value

    def exact_solver(self) -> PositionSolver | None:
        """Connect Four's own solver (Pons' method), for boards of up to 55 bits; else ``None``."""
        if not fits(self.width, self.height):
            return None
        return Connect4Solver(self.width, self.height)

    def key(self, state: C4State) -> int:
        return state[0] + state[1]

    def max_remaining_plies(self, state: C4State) -> int:
        return self._cells - len(state[2])

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: C4State, move: int) -> str:
        return str(move + 1)

    def format_position(self, state: C4State) -> str:
        return state[2]

    def parse_position(self, text: str) -> C4State:
        if not isinstance(text, str):
            raise BadPositionError("a Connect Four position is a string of column numbers")
        state = self.initial_state()
        for index, char in enumerate(text):
            if not ("1" <= char <= "9") or int(char) > self.width:
                raise BadPositionError(
                    f"character {index + 1} of the position, {char!r}, "
                    f"is not a column 1-{self.width}"
                )
            column = int(char) - 1
            if self.outcome(state) is not None:
                raise BadPositionError(
                    f"the game was already over before move {index + 1} of the position"
                )
            if state[1] & self._top[column]:
                raise BadPositionError(
                    f"move {index + 1} of the position plays in full column {char}"
                )
            state = self.play(state, column)
        return state

    # ------------------------------------------------------------------
    # Helpers for the benchmark sets.

    def pons_score(self, state: C4State, win_in: int | None, loss_in: int | None) -> int:
        """Convert a proven result to the score of Pons' benchmark sets.

        A win scores ``cells / 2 + 1`` minus the stones the winner has played
        when the game ends (22 minus the winner's stones on 7x6); a loss the
        negative; a draw 0.
        """
        played = len(state[2])
        plies = win_in if win_in is not None else loss_in
        if plies is None:
            return 0
        winner_stones = (played + plies + 1) // 2
        score = self._cells // 2 + 1 - winner_stones
        return score if win_in is not None else -score


def _line_threats(stones: int, free: int, shift: int) -> int:
    """Cells that complete four along one line direction (``shift`` bits apart).

    The four patterns around a cell ``c`` are ``_xxx``, ``x_xx``, ``xx_x``
    and ``xxx_``. Every intermediate value stays inside the board's bits:
    left shifts by two or three steps are applied to values already masked
    by where they may land (``free >> k``), so on the 7x6 board no value
    reaches 2**62 and the compiled engine keeps them as machine integers.
    """
    pair = stones & (stones >> shift)  # a stone with another one step on
    triple = pair & (stones >> 2 * shift)  # ... and another two steps on
    cells = triple >> shift  # _xxx: three stones after the cell
    cells |= (stones << shift) & (pair >> shift)  # x_xx
    cells |= ((pair & (free >> 2 * shift)) << 2 * shift) & (stones >> shift)  # xx_x
    cells |= (triple & (free >> 3 * shift)) << 3 * shift  # xxx_
    return cells


def _four_along(stones: int, shift: int) -> bool:
    """Whether ``stones`` has four in line ``shift`` bits apart.

    ``stones & stones >> shift`` marks the stones with a neighbour one step
    on; doing it again two steps on finds four in a row.
    """
    pairs = stones & (stones >> shift)
    return bool(pairs & (pairs >> 2 * shift))
