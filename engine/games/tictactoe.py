"""Tic-tac-toe on a 3x3 board.

State: ``(x, o)``, two 9-bit masks of the cells each player holds; bit
``3 * row + col`` with row 0 at the top. X (player 0) moves first, so the
player to move follows from the number of marks.

Move notation: the cell as column letter and row number, ``a1`` bottom
left to ``c3`` top right (``b2`` is the centre).
Position notation: nine characters, top row first, ``X``, ``O`` or ``.``;
the empty board is ``.........``.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from engine.errors import BadPositionError
from engine.game import Game, Outcome

TicTacToeState = tuple[int, int]

#: The eight winning lines as masks.
LINES: Final = tuple(
    sum(1 << cell for cell in line)
    for line in (
        (0, 1, 2),
        (3, 4, 5),
        (6, 7, 8),
        (0, 3, 6),
        (1, 4, 7),
        (2, 5, 8),
        (0, 4, 8),
        (2, 4, 6),
    )
)
FULL: Final = (1 << 9) - 1
#: Centre, then corners, then edges: cells on more lines first.
CELL_ORDER: Final = (4, 0, 2, 6, 8, 1, 3, 5, 7)
#: The three ways a game ends (records are immutable, so one of each serves).
X_WINS: Final = Outcome(0, "three in a row")
O_WINS: Final = Outcome(1, "three in a row")
BOARD_FULL: Final = Outcome(None, "board full")


def _has_line(marks: int) -> bool:
    return any(marks & line == line for line in LINES)


@mypyc_attr(allow_interpreted_subclasses=True)
class TicTacToe(Game[TicTacToeState, int]):
    """Tic-tac-toe; evaluation = open lines for the side to move minus the opponent's."""

    name = "tictactoe"
    title = "Tic-tac-toe"
    players = ("X", "O")
    only_mover_wins = True
    eval_unit = "open lines (lines with none of the opponent's marks)"
    #: Open lines per unit of log-odds (Monte Carlo search), fitted by ``python -m bench.mcts_bench
    #: --only scales``: evaluations of 200 random positions against the results of 16 playouts from
    #: each (fitted 3).
    win_odds_scale = 3

    def initial_state(self) -> TicTacToeState:
        return (0, 0)

    def to_move(self, state: TicTacToeState) -> int:
        x, o = state
        return 0 if x.bit_count() == o.bit_count() else 1

    def legal_moves(self, state: TicTacToeState) -> list[int]:
        if self.outcome(state) is not None:
            return []
        taken = state[0] | state[1]
        return [cell for cell in range(9) if not taken >> cell & 1]

    def ordered_moves(self, state: TicTacToeState) -> list[int]:
        taken = state[0] | state[1]
        return [cell for cell in CELL_ORDER if not taken >> cell & 1]

    def play(self, state: TicTacToeState, move: int) -> TicTacToeState:
        x, o = state
        if x.bit_count() == o.bit_count():
            return (x | 1 << move, o)
        return (x, o | 1 << move)

    def outcome(self, state: TicTacToeState) -> Outcome | None:
        x, o = state
        for line in LINES:
            if x & line == line:
                return X_WINS
            if o & line == line:
                return O_WINS
        if x | o == FULL:
            return BOARD_FULL
        return None

    def evaluate(self, state: TicTacToeState) -> int:
        x, o = state
        x_open = o_open = 0
        for line in LINES:
            if not line & o:
                x_open += 1
            if not line & x:
                o_open += 1
        return x_open - o_open if self.to_move(state) == 0 else o_open - x_open

    def key(self, state: TicTacToeState) -> int:
        return state[0] | state[1] << 9

    def max_remaining_plies(self, state: TicTacToeState) -> int:
        return 9 - (state[0] | state[1]).bit_count()

    def format_move(self, state: TicTacToeState, move: int) -> str:
        row, col = divmod(move, 3)
        return f"{'abc'[col]}{3 - row}"

    def format_position(self, state: TicTacToeState) -> str:
        x, o = state
        return "".join("X" if x >> c & 1 else "O" if o >> c & 1 else "." for c in range(9))

    def parse_position(self, text: str) -> TicTacToeState:
        if not isinstance(text, str) or len(text) != 9 or set(text) - set("XO."):
            raise BadPositionError(
                "a tic-tac-toe position is nine characters X, O or '.', top row first"
            )
        x = sum(1 << c for c, ch in enumerate(text) if ch == "X")
        o = sum(1 << c for c, ch in enumerate(text) if ch == "O")
        xs, os_ = x.bit_count(), o.bit_count()
        if xs not in (os_, os_ + 1):
            raise BadPositionError("X moves first, so X has as many marks as O or one more")
        x_line, o_line = _has_line(x), _has_line(o)
        if x_line and o_line:
            raise BadPositionError("both players cannot have three in a row")
        if x_line and xs != os_ + 1:
            raise BadPositionError("X made three in a row, so O cannot have moved after")
        if o_line and xs != os_:
            raise BadPositionError("O made three in a row, so X cannot have moved after")
        return (x, o)
