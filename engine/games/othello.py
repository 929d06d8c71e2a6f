"""Othello (Reversi) on 64-bit bitboards.

Board and coordinates: columns ``a``-``h`` left to right, rows ``1``-``8``
top to bottom; square ``col + 8 * row`` is bit ``col + 8 * row`` (a1 is bit
0, h8 bit 63). The start position has White on d4 and e5 and Black on e4
and d5; Black (player 0) moves first, so Black's first moves are d3, c4, f5
and e6.

State: ``(own, opp, player, mobility, opp_mobility)``: the discs of the
side to move, the discs of the other side, the index of the side to move,
and the squares each side could play. Both mobilities are computed once in
:meth:`Othello.play` (in one pass, see :func:`_mobilities`), since the move
list, the end-of-game test and the evaluation all need them.

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
with a parallel-prefix (Kogge-Stone) fill, so a position's moves cost a
fixed ~80 integer operations. The key merges positions that differ only in
colours (``own``/``opp`` swapped with the side to move): the rules and the
evaluation are colour-blind, so their values are equal.

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
2-core machine): 10 empties in under 0.5 s, 12 in about 5 s, 14 in about
50 s (2 of 3 positions within 60 s).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import Game, Outcome

#: ``(own, opp, player, mobility, opp_mobility)``; see the module docstring.
OthelloState = tuple[int, int, int, int, int]

#: The move ``pass`` (squares are 0-63).
PASS = 64

FULL = (1 << 64) - 1
FILE_A = 0x0101_0101_0101_0101
FILE_H = FILE_A << 7
#: Every square but the a- and h-files: a disc there may be flipped along
#: a direction with a horizontal component without wrapping round the edge.
INNER_COLUMNS = FULL ^ FILE_A ^ FILE_H
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
MOBILITY_WEIGHT = 10  # per legal move more than the opponent
POTENTIAL_MOBILITY_WEIGHT = 3  # per empty square next to an opponent disc
CORNER_WEIGHT = 100
X_SQUARE_WEIGHT = 40  # an X-square next to an empty corner
C_SQUARE_WEIGHT = 15  # a C-square next to an empty corner
FRONTIER_WEIGHT = 4  # per own disc next to an empty square (a liability)
STABLE_EDGE_WEIGHT = 12  # per edge disc anchored on an own corner
#: Disc difference counts from this many empties down, growing by one
#: point per disc for each empty square fewer.
PARITY_EMPTIES = 20


def _moves(own: int, opp: int, inner: int = INNER_COLUMNS, full: int = FULL) -> int:
    """Squares where the owner of ``own`` may play: parallel-prefix fills in 8 directions.

    ``inner`` and ``full`` are the masks of the board layout (two boards
    side by side for :func:`_mobilities`).

    Each line follows one direction: flips adjacent to ``own``, extended one
    step, then two doubling steps through runs of opponent discs (``pre``
    marks pairs of them), which covers runs of up to six. Unrolled because a
    loop costs a quarter more in CPython.
    """
    # Horizontal and diagonal directions may not wrap round the a/h files.
    m = opp & inner
    f = m & (own << 1); f |= m & (f << 1); pre = m & (m << 1)  # noqa: E702
    f |= pre & (f << 2); f |= pre & (f << 2); moves = f << 1  # noqa: E702
    f = m & (own >> 1); f |= m & (f >> 1); pre >>= 1  # noqa: E702
    f |= pre & (f >> 2); f |= pre & (f >> 2); moves |= f >> 1  # noqa: E702
    f = m & (own << 7); f |= m & (f << 7); pre = m & (m << 7)  # noqa: E702
    f |= pre & (f << 14); f |= pre & (f << 14); moves |= f << 7  # noqa: E702
    f = m & (own >> 7); f |= m & (f >> 7); pre >>= 7  # noqa: E702
    f |= pre & (f >> 14); f |= pre & (f >> 14); moves |= f >> 7  # noqa: E702
    f = m & (own << 9); f |= m & (f << 9); pre = m & (m << 9)  # noqa: E702
    f |= pre & (f << 18); f |= pre & (f << 18); moves |= f << 9  # noqa: E702
    f = m & (own >> 9); f |= m & (f >> 9); pre >>= 9  # noqa: E702
    f |= pre & (f >> 18); f |= pre & (f >> 18); moves |= f >> 9  # noqa: E702
    m = opp
    f = m & (own << 8); f |= m & (f << 8); pre = m & (m << 8)  # noqa: E702
    f |= pre & (f << 16); f |= pre & (f << 16); moves |= f << 8  # noqa: E702
    f = m & (own >> 8); f |= m & (f >> 8); pre >>= 8  # noqa: E702
    f |= pre & (f >> 16); f |= pre & (f >> 16); moves |= f >> 8  # noqa: E702
    return moves & ~(own | opp) & full


#: Offset of the second board in :func:`_mobilities`: more than 63 + 18,
#: the furthest a shift in :func:`_moves` carries a bit, so the two boards
#: never mix.
LANE = 96
FULL_PAIR = FULL | (FULL << LANE)
INNER_PAIR = INNER_COLUMNS | (INNER_COLUMNS << LANE)


def _mobilities(own: int, opp: int) -> tuple[int, int]:
    """The moves of both sides at once: the two boards side by side in one int.

    CPython's cost per operation hardly depends on the size of the int, so
    this costs about as much as one call of :func:`_moves`.
    """
    both = _moves(own | (opp << LANE), opp | (own << LANE), INNER_PAIR, FULL_PAIR)
    return both & FULL, both >> LANE


def _ray(square: int, d_col: int, d_row: int) -> int:
    col, row = square % 8, square // 8
    mask = 0
    col += d_col
    row += d_row
    while 0 <= col < 8 and 0 <= row < 8:
        mask |= 1 << (col + 8 * row)
        col += d_col
        row += d_row
    return mask


#: For each square, the rays towards higher bit numbers and towards lower
#: ones (empty rays left out).
UP_RAYS = tuple(
    tuple(r for r in (_ray(s, 1, 0), _ray(s, -1, 1), _ray(s, 0, 1), _ray(s, 1, 1)) if r)
    for s in range(64)
)
DOWN_RAYS = tuple(
    tuple(r for r in (_ray(s, -1, 0), _ray(s, 1, -1), _ray(s, 0, -1), _ray(s, -1, -1)) if r)
    for s in range(64)
)


def _flips(own: int, opp: int, square: int) -> int:
    """Discs flipped by the owner of ``own`` playing ``square``."""
    flips = 0
    for ray in UP_RAYS[square]:
        blockers = ray & ~opp
        first = blockers & -blockers  # the nearest non-opponent square
        if first & own:
            flips |= ray & (first - 1)
    for ray in DOWN_RAYS[square]:
        blockers = ray & ~opp
        if blockers:
            first = 1 << (blockers.bit_length() - 1)
            if first & own:
                flips |= ray & -(first << 1)
    return flips


def _neighbours(mask: int) -> int:
    """Squares next to any square of ``mask`` (in the 8 directions)."""
    inner = mask & ~FILE_H
    left = mask & ~FILE_A
    return (
        (inner << 1) | (left >> 1) | (mask << 8) | (mask >> 8)
        | (inner << 9) | (left << 7) | (inner >> 7) | (left >> 9)
    ) & FULL


def _stable_edges(discs: int) -> int:
    """Edge discs joined to an own corner by a line of own discs along the edge."""
    stable = discs & CORNERS
    if not stable:
        return 0
    horizontal = discs & (ROW_1 | ROW_8)
    vertical = discs & (FILE_A | FILE_H)
    for _ in range(6):
        grown = stable | (((stable << 1) | (stable >> 1)) & horizontal)
        grown |= ((stable << 8) | (stable >> 8)) & vertical
        if grown == stable:
            break
        stable = grown
    return stable


def _squares(mask: int) -> list[int]:
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


def _perft(own: int, opp: int, mobility: int, depth: int) -> int:
    """Leaves ``depth`` plies below; bulk-counted at the last ply (moves counted, not made)."""
    if depth == 1:
        return mobility.bit_count() or 1  # a pass or a finished game is one leaf
    if not mobility:
        opp_mobility = _moves(opp, own)
        if not opp_mobility:
            return 1  # neither side can move: a leaf above full depth
        return _perft(opp, own, opp_mobility, depth - 1)
    total = 0
    while mobility:
        low = mobility & -mobility
        mobility ^= low
        flips = _flips(own, opp, low.bit_length() - 1)
        new_own = own | flips | low
        new_opp = opp ^ flips
        total += _perft(new_opp, new_own, _moves(new_opp, new_own), depth - 1)
    return total


@mypyc_attr(allow_interpreted_subclasses=True)
class Othello(Game[OthelloState, int]):
    """Othello; evaluation = mobility, corners and X/C squares, frontier, stable edges, discs."""

    name = "othello"
    title = "Othello"
    players = ("black", "white")
    eval_unit = f"points (a corner is worth {CORNER_WEIGHT}, one more legal move {MOBILITY_WEIGHT})"
    aspiration_window = 50

    def initial_state(self) -> OthelloState:
        black = _square_mask("e4", "d5")
        white = _square_mask("d4", "e5")
        return (black, white, 0, *_mobilities(black, white))

    def to_move(self, state: OthelloState) -> int:
        return state[2]

    def legal_moves(self, state: OthelloState) -> list[int]:
        mobility = state[3]
        if mobility:
            return _squares(mobility)
        return [PASS] if state[4] else []

    def ordered_moves(self, state: OthelloState) -> list[int]:
        """Corners first, X-squares last (see :data:`ORDER_GROUPS`)."""
        mobility = state[3]
        if not mobility:
            return [PASS] if state[4] else []
        moves: list[int] = []
        for group in ORDER_GROUPS:
            part = mobility & group
            while part:
                low = part & -part
                moves.append(low.bit_length() - 1)
                part ^= low
        return moves

    def play(self, state: OthelloState, move: int) -> OthelloState:
        own, opp, player, mobility, opp_mobility = state
        if move == PASS:
            return (opp, own, 1 - player, opp_mobility, mobility)
        flips = _flips(own, opp, move)
        new_own = own | flips | (1 << move)
        new_opp = opp ^ flips
        return (new_opp, new_own, 1 - player, *_mobilities(new_opp, new_own))

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
        occupied = own | opp
        empty = ~occupied & FULL
        empties = empty.bit_count()
        value = MOBILITY_WEIGHT * (mobility.bit_count() - opp_mobility.bit_count())
        # Potential mobility: empty squares next to the other side's discs.
        value += POTENTIAL_MOBILITY_WEIGHT * (
            (empty & _neighbours(opp)).bit_count() - (empty & _neighbours(own)).bit_count()
        )
        near_empty = _neighbours(empty)
        value += FRONTIER_WEIGHT * ((opp & near_empty).bit_count() - (own & near_empty).bit_count())
        open_corners = CORNERS & empty
        if open_corners != CORNERS:
            value += CORNER_WEIGHT * ((own & CORNERS).bit_count() - (opp & CORNERS).bit_count())
            value += STABLE_EDGE_WEIGHT * (
                _stable_edges(own).bit_count() - _stable_edges(opp).bit_count()
            )
        if open_corners:
            # X- and C-squares next to an empty corner give it away.
            danger = _neighbours(open_corners)
            xs = danger & X_SQUARE_MASK
            cs = danger & C_SQUARE_MASK
            value += X_SQUARE_WEIGHT * ((opp & xs).bit_count() - (own & xs).bit_count())
            value += C_SQUARE_WEIGHT * ((opp & cs).bit_count() - (own & cs).bit_count())
        if empties <= PARITY_EMPTIES:
            value += (PARITY_EMPTIES + 1 - empties) * (own.bit_count() - opp.bit_count())
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
        return _perft(state[0], state[1], state[3], depth)


def _parse_square(text: str) -> int | None:
    text = text.strip().lower()
    if text == "pass":
        return PASS
    if len(text) == 2 and "a" <= text[0] <= "h" and "1" <= text[1] <= "8":
        return ord(text[0]) - ord("a") + 8 * (int(text[1]) - 1)
    return None
