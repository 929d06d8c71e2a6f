"""English checkers (American draughts) on bitboards.

Rules as implemented (those of the American Checker Federation and the
English Draughts Association): 8x8 board, 12 men a side on the dark squares;
Black, on squares 1-12, moves first. Men move one square diagonally forward
and capture by jumping diagonally forward; kings move and capture one
square diagonally in all four directions. Captures are compulsory, but when
several captures exist any may be chosen, not necessarily the longest; a
multi-jump is one move and must be jumped to the end. A man that reaches
the far row is crowned and the move ends there, even if the new king could
jump on. A side with no legal move (no pieces, or all blocked) loses.

Draw rules: the game is drawn when the same position (board and side to
move) occurs for the third time, or when 80 plies in a row (40 moves by
each side) have gone by without a capture or a man move. The state keeps
what these rules need: the number of such quiet plies and the keys of the
positions since the last capture or man move.

Squares are numbered 1-32 in the standard way: row by row from Black's side
(1-4 is Black's back row, 29-32 White's), so Black's men move towards higher
numbers; 1 moves to 5 or 6, and 4 only to 8.

Move notation: ``11-15`` for a move; ``22x15`` for a capture and
``22x15x24`` for a multi-jump, listing every landing square. Two capture
paths that jump the same pieces and end on the same square (possible for
kings going round a loop of pieces) are distinct moves, as in the published
perft counts; listing every landing square tells them apart. As input,
``22x24`` (first and last square only) is also accepted when only one legal
capture matches it.

Position notation: the FEN of the Portable Draughts Notation (PDN 3.0):
side to move, then each colour's pieces, with ``K`` before a king's
square, e.g. ``B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12``
(the start position). Output lists each colour's squares in ascending
order; input also accepts ranges (``B1-12``) and either colour first. A
parsed position starts with empty draw counters.

Search hooks: captures are the noisy moves and a due capture counts as
check (see :meth:`Checkers.in_check`); late-move reductions are left off
(11.5/20 at 3,000 nodes a move against the same engine without them: no
measurable gain).

Bitboard layout: square ``s`` (1-32) is bit ``s - 1 + (s - 1) // 8``: one
unused "ghost" bit after every two rows, which makes every diagonal step a
shift by 4 or 5 (down-left and down-right as Black looks at the board,
towards higher numbers) or by -4 or -5, whatever the row.

Speed: the module is compiled by mypyc (see ``setup.py``) and written so
that the compiled code stays native: every module constant is ``Final``
(a plain module global is a dictionary look-up in compiled code), pieces
are counted by :func:`_popcount` (``int.bit_count`` is not a mypyc
primitive, so it would be a Python method call), and the hot functions are
plain module functions on ints and fixed-length tuples, without closures,
generators or ``itertools``; the position key stays below 2**62, where
compiled ints are machine words.

Why one module: one game whole: its rules, both notations and its evaluation
share the bitboard tables and are read together, like every module of
``engine/games``; hence the length (over 600 lines).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64, mypyc_attr

from engine.errors import BadPositionError, GameOverError, IllegalMoveError
from engine.game import Game, Outcome

#: A move: the bit indices of the starting square and of every landing square.
CheckersMove = tuple[int, ...]
#: ``(black, white, kings, player, quiet_plies, history)``: the pieces of
#: each colour and the kings among them as bit masks, the side to move, the
#: plies since the last capture or man move, and the keys of the positions
#: since then (the current one last).
CheckersState = tuple[int, int, int, int, int, tuple[int, ...]]

BLACK: Final = 0
WHITE: Final = 1

#: Bit of each square 1-32 (index 0 unused) and square of each bit.
SQUARE_BITS: Final = (-1, *(i + i // 8 for i in range(32)))
BIT_SQUARES: Final = tuple(
    SQUARE_BITS.index(bit) if bit in SQUARE_BITS[1:] else 0 for bit in range(36)
)
#: The 32 playable squares; the ghost bits (8, 17, 26) are never occupied.
VALID: Final = sum(1 << SQUARE_BITS[s] for s in range(1, 33))


def _squares_mask(*squares: int) -> int:
    return sum(1 << SQUARE_BITS[s] for s in squares)


BLACK_START: Final = _squares_mask(*range(1, 13))
WHITE_START: Final = _squares_mask(*range(21, 33))
#: Where each colour's men are crowned: White's back row for Black, and so on.
CROWN_ROW: Final = (_squares_mask(29, 30, 31, 32), _squares_mask(1, 2, 3, 4))
BACK_ROW: Final = (CROWN_ROW[WHITE], CROWN_ROW[BLACK])
#: Rows by index from Black's side, for advancement.
ROWS: Final = tuple(_squares_mask(*range(4 * r + 1, 4 * r + 5)) for r in range(8))


def _advance_masks(colour: int) -> tuple[int, int, int]:
    """Masks whose popcounts, weighted 1, 2 and 4, give the rows a colour's men have
    advanced beyond their starting rows (0 to 4, the row before crowning counting 4)."""
    rows = ROWS if colour == BLACK else ROWS[::-1]
    weighted = [(row - 2, rows[row]) for row in range(3, 7)]
    ones, twos, fours = (
        sum(mask for weight, mask in weighted if weight & bit) for bit in (1, 2, 4)
    )
    return ones, twos, fours


#: Per colour, the masks of :func:`_advance_masks`.
ADVANCE_MASKS: Final = (_advance_masks(BLACK), _advance_masks(WHITE))
CENTRE: Final = _squares_mask(14, 15, 18, 19)
NEAR_CENTRE: Final = _squares_mask(10, 11, 22, 23)
#: Draw by the move rule after this many plies without capture or man move.
DRAW_QUIET_PLIES: Final = 80

#: Evaluation weights in centi-men (a man is 100). The terms are among the
#: classic ones of Samuel's checkers player (1959: advancement, back row,
#: centre control, mobility) with a king worth about 1.4 men; the values
#: were set by hand. Check by self-play at 3,000 nodes a move (colours
#: swapped, random 4-ply openings): 11.5/16 (+7 =9 -0) against the same
#: engine evaluating material alone.
MAN_VALUE: Final = 100
KING_VALUE: Final = 140
ADVANCE_WEIGHT: Final = 3  # per row a man has advanced, up to the row before crowning
BACK_ROW_WEIGHT: Final = 10  # per man still guarding the own back row
CENTRE_WEIGHT: Final = 8
NEAR_CENTRE_WEIGHT: Final = 4
MOBILITY_WEIGHT: Final = 2  # per simple move more than the opponent
#: When ahead, trading down helps: this share of the material lead (in
#: percent) is added per piece that has left the board.
TRADE_BONUS_PERCENT: Final = 2


#: Number of set bits of every 12-bit value, for :func:`_popcount`.
POPCOUNT_12: Final = bytes(value.bit_count() for value in range(1 << 12))


def _popcount(board: int) -> int:
    """``board.bit_count()`` for a board (bits 0-35) by three table look-ups of 12 bits.

    mypyc compiles the look-ups to native code; ``int.bit_count`` would stay
    a Python method call (with the int boxed) in the compiled engine.
    """
    return POPCOUNT_12[board & 0xFFF] + POPCOUNT_12[board >> 12 & 0xFFF] + POPCOUNT_12[board >> 24]


def _jump_table(steps: tuple[int, ...]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """For each bit, the jumps in ``steps`` directions that stay on the board:
    ``(jumped mask, landing bit index, landing mask)``."""
    table = []
    for bit in range(36):
        jumps = []
        if VALID >> bit & 1:
            for step in steps:
                over, land = bit + step, bit + 2 * step
                if 0 <= land < 36 and VALID >> over & 1 and VALID >> land & 1:
                    jumps.append((1 << over, land, 1 << land))
        table.append(tuple(jumps))
    return tuple(table)


DOWN_JUMPS: Final = _jump_table((4, 5))
UP_JUMPS: Final = _jump_table((-4, -5))
ALL_JUMPS: Final = tuple(d + u for d, u in zip(DOWN_JUMPS, UP_JUMPS, strict=True))


def _movers(own: int, kings: int, player: int) -> tuple[int, int]:
    """The pieces that may step down (to higher bits) and up."""
    if player == BLACK:
        return own, own & kings
    return own & kings, own


def _jumpers(own: int, opp: int, kings: int, player: int) -> int:
    """The pieces of ``own`` that can capture at once."""
    empty = VALID & ~(own | opp)
    down, up = _movers(own, kings, player)
    result = 0
    if down:
        result |= (((empty >> 4) & opp) >> 4) & down
        result |= (((empty >> 5) & opp) >> 5) & down
    if up:
        result |= (((empty << 4) & opp) << 4) & up
        result |= (((empty << 5) & opp) << 5) & up
    return result


def _simple_moves(own: int, opp: int, kings: int, player: int) -> list[CheckersMove]:
    empty = VALID & ~(own | opp)
    down, up = _movers(own, kings, player)
    moves: list[CheckersMove] = []
    for step in (4, 5):
        targets = (down << step) & empty
        while targets:
            low = targets & -targets
            targets ^= low
            to = low.bit_length() - 1
            moves.append((to - step, to))
        targets = (up >> step) & empty
        while targets:
            low = targets & -targets
            targets ^= low
            to = low.bit_length() - 1
            moves.append((to + step, to))
    return moves


def _count_simple_moves(own: int, opp: int, kings: int, player: int) -> int:
    empty = VALID & ~(own | opp)
    down, up = _movers(own, kings, player)
    return (
        _popcount((down << 4) & empty)
        + _popcount((down << 5) & empty)
        + _popcount((up >> 4) & empty)
        + _popcount((up >> 5) & empty)
    )


def _captures(own: int, opp: int, kings: int, player: int, jumpers: int) -> list[CheckersMove]:
    """Every complete capture sequence of the pieces in ``jumpers``."""
    moves: list[CheckersMove] = []
    crown_row = CROWN_ROW[player]
    men_jumps = DOWN_JUMPS if player == BLACK else UP_JUMPS
    while jumpers:
        low = jumpers & -jumpers
        jumpers ^= low
        start = low.bit_length() - 1
        # The moving piece leaves its square, which a king may jump back to.
        empty = VALID & ~(own | opp) | low
        if kings & low:
            _extend(moves, (start,), start, opp, empty, ALL_JUMPS, 0)
        else:
            _extend(moves, (start,), start, opp, empty, men_jumps, crown_row)
    return moves


def _extend(
    moves: list[CheckersMove],
    path: CheckersMove,
    at: int,
    capturable: int,
    empty: int,
    table: tuple[tuple[tuple[int, int, int], ...], ...],
    crown_row: int,
) -> None:
    """Add to ``moves`` every capture continuing ``path`` from bit ``at``.

    ``capturable`` holds the opponent pieces not jumped yet (a piece may be
    jumped once); a man landing on ``crown_row`` stops there.
    """
    extended = False
    for over, land, land_mask in table[at]:
        if capturable & over and empty & land_mask:
            extended = True
            longer = (*path, land)
            if land_mask & crown_row:
                moves.append(longer)
            else:
                _extend(moves, longer, land, capturable ^ over, empty, table, crown_row)
    if not extended:
        moves.append(path)


def _generate(own: int, opp: int, kings: int, player: int) -> list[CheckersMove]:
    jumpers = _jumpers(own, opp, kings, player)
    if jumpers:
        return _captures(own, opp, kings, player, jumpers)
    return _simple_moves(own, opp, kings, player)


def _captured(move: CheckersMove) -> int:
    """The squares jumped by ``move`` (empty for a simple move)."""
    if len(move) == 2 and abs(move[1] - move[0]) < 8:
        return 0
    mask = 0
    for index in range(len(move) - 1):
        # The jumped square is midway between two landing squares.
        mask |= 1 << ((move[index] + move[index + 1]) >> 1)
    return mask


def _apply(
    own: int, opp: int, kings: int, player: int, move: CheckersMove, captured: int
) -> tuple[int, int, int]:
    """``(own, opp, kings)`` after ``move``, which jumps the pieces in ``captured``."""
    start, end = 1 << move[0], 1 << move[-1]
    own = (own & ~start) | end
    opp &= ~captured
    if kings & start:
        kings = (kings & ~start & ~captured) | end
    else:
        kings &= ~captured
        if end & CROWN_ROW[player]:
            kings |= end
    return own, opp, kings


#: Odd multipliers below 2**26 for :func:`_position_key`, for black, white
#: and kings: the leading bits of the golden ratio's constant and of two of
#: splitmix64's, made odd. A board (35 bits) times one stays below 2**61.
KEY_MULTIPLIERS: Final = (
    0x9E37_79B9_7F4A_7C15 >> 38 | 1,
    0xBF58_476D_1CE4_E5B9 >> 38 | 1,
    0x94D0_49BB_1331_11EB >> 38 | 1,
)
#: The fold of :func:`_position_key`: the high half of the products is
#: mixed into the low bits, which index the transposition table.
KEY_FOLD: Final = 31


def _position_key(black: int, white: int, kings: int, player: int) -> int:
    """The position's key: multiplicative hashing, folded so that the low bits
    (which index the transposition table) depend on every square.

    Every value stays below 2**62, so the compiled engine computes it in
    machine words (``i64``; mypyc's ``int`` multiplies natively only small
    values); to the interpreter ``i64`` is ``int``, with the same result.
    """
    black_factor: i64 = KEY_MULTIPLIERS[0]
    white_factor: i64 = KEY_MULTIPLIERS[1]
    kings_factor: i64 = KEY_MULTIPLIERS[2]
    black_board: i64 = black
    white_board: i64 = white
    kings_board: i64 = kings
    mixed = black_board * black_factor ^ white_board * white_factor ^ kings_board * kings_factor
    return int(((mixed ^ (mixed >> KEY_FOLD)) << 1) | player)


def _perft(own: int, opp: int, kings: int, player: int, depth: int) -> int:
    """Leaves ``depth`` plies below; simple moves at the last ply are counted, not made."""
    jumpers = _jumpers(own, opp, kings, player)
    if depth == 1 and not jumpers:
        return _count_simple_moves(own, opp, kings, player)
    if jumpers:
        moves = _captures(own, opp, kings, player, jumpers)
        if depth == 1:
            return len(moves)
    else:
        moves = _simple_moves(own, opp, kings, player)
    total = 0
    for move in moves:
        new_own, new_opp, new_kings = _apply(own, opp, kings, player, move, _captured(move))
        total += _perft(new_opp, new_own, new_kings, 1 - player, depth - 1)
    return total


@mypyc_attr(allow_interpreted_subclasses=True)
class Checkers(Game[CheckersState, CheckersMove]):
    """English checkers; evaluation = material, advancement, back row, centre, mobility."""

    name = "checkers"
    title = "English checkers"
    players = ("black", "white")
    eval_unit = f"centi-men (a man is worth {MAN_VALUE}, a king {KING_VALUE})"
    aspiration_window = 30
    #: Evaluation units per unit of log-odds (Monte Carlo search), fitted by ``python -m
    #: bench.mcts_bench --only scales``: evaluations of 200 random positions against the results of
    #: 16 playouts from each (fitted 231: two men up is about 2.4:1 odds).
    win_odds_scale = 230

    def initial_state(self) -> CheckersState:
        key = _position_key(BLACK_START, WHITE_START, 0, BLACK)
        return (BLACK_START, WHITE_START, 0, BLACK, 0, (key,))

    def to_move(self, state: CheckersState) -> int:
        return state[3]

    @staticmethod
    def _sides(state: CheckersState) -> tuple[int, int]:
        """``(own, opp)``: the pieces of the side to move and of the other side."""
        black, white, _, player, _, _ = state
        return (black, white) if player == BLACK else (white, black)

    def legal_moves(self, state: CheckersState) -> list[CheckersMove]:
        if self._is_draw(state):
            return []
        own, opp = self._sides(state)
        return sorted(_generate(own, opp, state[2], state[3]))

    def ordered_moves(self, state: CheckersState) -> list[CheckersMove]:
        """Captures jumping the most pieces first; moves are otherwise generated in board order."""
        if self._is_draw(state):
            return []
        own, opp = self._sides(state)
        kings, player = state[2], state[3]
        jumpers = _jumpers(own, opp, kings, player)
        if not jumpers:
            return _simple_moves(own, opp, kings, player)
        moves = _captures(own, opp, kings, player, jumpers)
        if len(moves) > 1:
            moves.sort(key=len, reverse=True)
        return moves

    def noisy_moves(self, state: CheckersState) -> list[CheckersMove] | None:
        """Captures, which are compulsory, so a quiescence search resolves exchanges."""
        own, opp = self._sides(state)
        kings, player = state[2], state[3]
        jumpers = _jumpers(own, opp, kings, player)
        if not jumpers or self._is_draw(state):
            return []
        return _captures(own, opp, kings, player, jumpers)

    def in_check(self, state: CheckersState) -> bool:
        """Whether a capture is due: the search treats it like check in chess.

        The capture cannot be declined, so the line is extended by a ply and
        the quiescence search does not stand pat on the static evaluation.
        Measured at 3,000 nodes a move against the same engine without
        quiescence: 16.5/24 with this and the captures as noisy moves,
        against 3/9 for captures as noisy moves alone (standing pat).
        """
        own, opp = self._sides(state)
        return bool(_jumpers(own, opp, state[2], state[3]))

    def is_quiet(self, state: CheckersState, move: CheckersMove) -> bool:
        return not _captured(move)

    def play(self, state: CheckersState, move: CheckersMove) -> CheckersState:
        black, white, kings, player, quiet, history = state
        captured = _captured(move)
        irreversible = not kings >> move[0] & 1 or captured != 0
        if player == BLACK:
            black, white, kings = _apply(black, white, kings, player, move, captured)
        else:
            white, black, kings = _apply(white, black, kings, player, move, captured)
        key = _position_key(black, white, kings, 1 - player)
        if irreversible:
            return (black, white, kings, 1 - player, 0, (key,))
        return (black, white, kings, 1 - player, quiet + 1, (*history, key))

    @staticmethod
    def _is_draw(state: CheckersState) -> bool:
        history = state[5]
        return state[4] >= DRAW_QUIET_PLIES or (
            len(history) >= 9 and history.count(history[-1]) >= 3
        )

    def _can_move(self, state: CheckersState) -> bool:
        own, opp = self._sides(state)
        kings, player = state[2], state[3]
        return bool(
            _jumpers(own, opp, kings, player) or _count_simple_moves(own, opp, kings, player)
        )

    def outcome(self, state: CheckersState) -> Outcome | None:
        if not self._can_move(state):
            player = state[3]
            own = self._sides(state)[0]
            return Outcome(1 - player, "no pieces left" if not own else "no legal move")
        if state[4] >= DRAW_QUIET_PLIES:
            return Outcome(None, "40 moves each without capture or man move")
        history = state[5]
        if len(history) >= 9 and history.count(history[-1]) >= 3:
            return Outcome(None, "threefold repetition")
        return None

    def evaluate(self, state: CheckersState) -> int:
        black, white, kings, player, _, _ = state
        empty = VALID & ~(black | white)
        black_men, black_kings = black & ~kings, black & kings
        white_men, white_kings = white & ~kings, white & kings
        lead = (_popcount(black_men) - _popcount(white_men)) * MAN_VALUE + (
            _popcount(black_kings) - _popcount(white_kings)
        ) * KING_VALUE
        value = lead
        if lead:
            gone = 24 - _popcount(black | white)
            value += lead * gone * TRADE_BONUS_PERCENT // 100
        black_advance, white_advance = ADVANCE_MASKS
        value += ADVANCE_WEIGHT * (
            _popcount(black_men & black_advance[0])
            + 2 * _popcount(black_men & black_advance[1])
            + 4 * _popcount(black_men & black_advance[2])
            - _popcount(white_men & white_advance[0])
            - 2 * _popcount(white_men & white_advance[1])
            - 4 * _popcount(white_men & white_advance[2])
        )
        value += BACK_ROW_WEIGHT * (
            _popcount(black_men & BACK_ROW[BLACK]) - _popcount(white_men & BACK_ROW[WHITE])
        )
        value += CENTRE_WEIGHT * (_popcount(black & CENTRE) - _popcount(white & CENTRE))
        value += NEAR_CENTRE_WEIGHT * (
            _popcount(black & NEAR_CENTRE) - _popcount(white & NEAR_CENTRE)
        )
        # Simple moves: Black steps to higher bits, White to lower; kings both ways.
        mobility = (
            _popcount((black << 4) & empty)
            + _popcount((black << 5) & empty)
            - _popcount((white >> 4) & empty)
            - _popcount((white >> 5) & empty)
        )
        if kings:
            mobility += (
                _popcount((black_kings >> 4) & empty)
                + _popcount((black_kings >> 5) & empty)
                - _popcount((white_kings << 4) & empty)
                - _popcount((white_kings << 5) & empty)
            )
        value += MOBILITY_WEIGHT * mobility
        return value if player == BLACK else -value

    def key(self, state: CheckersState) -> int:
        """The position's key (board and side to move).

        The draw counters are left out, so the table merges positions
        reached by different histories; as in most engines, this accepts
        rare graph-history errors for far more transpositions.
        """
        return state[5][-1]

    # ------------------------------------------------------------------
    # Notation.

    def format_move(self, state: CheckersState, move: CheckersMove) -> str:
        squares = [str(BIT_SQUARES[bit]) for bit in move]
        return ("x" if _captured(move) else "-").join(squares)

    def parse_move(self, state: CheckersState, text: str) -> CheckersMove:
        if self.outcome(state) is not None:
            raise GameOverError("the game is over: no move can be played")
        legal = self.legal_moves(state)
        squares = _parse_move_squares(text)
        if squares is not None:
            path, is_capture = squares
            bits = tuple(SQUARE_BITS[s] for s in path)
            if bits in legal and bool(_captured(bits)) == is_capture:
                return bits
            if is_capture and len(bits) == 2:
                matches = [m for m in legal if (m[0], m[-1]) == bits and _captured(m)]
                if len(matches) == 1:
                    return matches[0]
        raise IllegalMoveError(
            f"{text!r} is not a legal move here", [self.format_move(state, m) for m in legal]
        )

    def format_position(self, state: CheckersState) -> str:
        black, white, kings, player, _, _ = state
        side = "B" if player == BLACK else "W"
        return f"{side}:W{_format_pieces(white, kings)}:B{_format_pieces(black, kings)}"

    def parse_position(self, text: str) -> CheckersState:
        if not isinstance(text, str):
            raise BadPositionError("a checkers position is a PDN FEN string")
        fields = text.strip().rstrip(".").split(":")
        if len(fields) != 3 or fields[0].strip().upper() not in ("B", "W"):
            raise BadPositionError(
                "a checkers position is PDN FEN: side to move, then the pieces of each colour,"
                " e.g. B:W21,22,K30:B1,2,K5"
            )
        player = BLACK if fields[0].strip().upper() == "B" else WHITE
        pieces: dict[str, tuple[int, int]] = {}
        for field in fields[1:]:
            field = field.strip()
            colour = field[:1].upper()
            if colour not in ("B", "W") or colour in pieces:
                raise BadPositionError(
                    f"{field!r}: each colour's field starts with W or B, once each"
                )
            pieces[colour] = _parse_pieces(field[1:])
        black, black_kings = pieces["B"]
        white, white_kings = pieces["W"]
        if black & white:
            raise BadPositionError("a square holds pieces of both colours")
        if black.bit_count() > 12 or white.bit_count() > 12:
            raise BadPositionError("a side has more than 12 pieces")
        kings = black_kings | white_kings
        if (black & ~kings & CROWN_ROW[BLACK]) or (white & ~kings & CROWN_ROW[WHITE]):
            raise BadPositionError("a man stands on the row where it would have been crowned")
        key = _position_key(black, white, kings, player)
        return (black, white, kings, player, 0, (key,))

    # ------------------------------------------------------------------
    # Move-generation check.

    def perft(self, state: CheckersState, depth: int) -> int:
        """Leaves ``depth`` plies below ``state`` by the move rules alone (draw rules ignored)."""
        if depth <= 0:
            return 1
        own, opp = self._sides(state)
        return _perft(own, opp, state[2], state[3], depth)


def _format_pieces(pieces: int, kings: int) -> str:
    parts = []
    for square in range(1, 33):
        bit = 1 << SQUARE_BITS[square]
        if pieces & bit:
            parts.append(("K" if kings & bit else "") + str(square))
    return ",".join(parts)


def _parse_pieces(text: str) -> tuple[int, int]:
    """``(pieces, kings)`` from a comma-separated list like ``1,2,K5,9-12``."""
    pieces = kings = 0
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        is_king = item[:1].upper() == "K"
        if is_king:
            item = item[1:]
        low, _, high = item.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise BadPositionError(f"{item!r} is not a square number 1-32 or a range like 1-12")
        first, last = int(low), int(high or low)
        if not 1 <= first <= last <= 32:
            raise BadPositionError(f"{item!r} is not a square number 1-32 or a range like 1-12")
        for square in range(first, last + 1):
            bit = 1 << SQUARE_BITS[square]
            if pieces & bit:
                raise BadPositionError(f"square {square} is listed twice")
            pieces |= bit
            if is_king:
                kings |= bit
    return pieces, kings


def _parse_move_squares(text: str) -> tuple[list[int], bool] | None:
    """The squares of ``11-15`` or ``22x15x24`` and whether it is a capture."""
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    is_capture = "x" in text
    parts = text.split("x" if is_capture else "-")
    if len(parts) < 2 or (not is_capture and len(parts) != 2):
        return None
    if not all(part.isdigit() and 1 <= int(part) <= 32 for part in parts):
        return None
    return [int(part) for part in parts], is_capture
