"""Backgammon bear-offs counted exactly: a one-sided bear-off database.

Reading guide. When both players have every checker in their home board
(points 1-6), the checkers can no longer meet: the game is two races run
side by side, each decided by its own dice. A side's race is then a
*one-sided* question: from these counts on points 1-6, how many rolls until
the last checker is off? This module answers it for every home board of up
to 15 checkers (54,264 of them) by the recurrence below, and the engine
(:meth:`engine.games.backgammon.Backgammon.evaluate_many`) uses the answers
in place of the network for such positions. GNU Backgammon does the same
with its one-sided bear-off database (its manual, "Bearoff databases"),
which is why its 0-ply plays bear-offs all but perfectly; the tables here
are computed by this module, from the rules, not taken from anywhere.

1. **Rolls to bear off.** For a home board ``h``, ``D_h(n)`` is the chance
   that the side needs exactly ``n`` rolls when each roll is played to
   leave the fewest rolls expected::

       D_empty = (1 at n = 0)
       D_h(n)  = sum over the 21 rolls r of P(r) * D_q(n - 1),
                 q = the result of r's plays with the least expected rolls

   Every play lowers the pip count, so the boards are filled in order of
   pips and each ``q`` is known before ``h`` needs it (:func:`build`).
2. **Rolls to the first checker off** (the gammon race), for boards of 15
   checkers: ``G_h(n)``, the same recurrence with "no checker off yet" as
   the state, each roll played to bear a checker off as soon as possible.
3. **Equity of a position** with both sides home, the side on roll ``A``
   against ``B`` (:meth:`BearoffTables.chances`): ``A`` wins when it
   finishes on its ``n``-th roll and ``B`` needs ``n`` rolls or more
   (``B`` has had ``n - 1``); ``A`` wins a gammon when besides ``B`` has
   borne off nothing after ``n - 1`` rolls; ``A`` loses a gammon when ``B``
   finishes on its ``m``-th roll and ``A`` has borne off nothing after
   ``m`` rolls. No backgammon is possible: the loser's checkers are all in
   its own home board, not the winner's.

Two approximations, both GNU Backgammon's own in its one-sided database:
each roll is played to minimise the *expected* number of rolls, not to
maximise the chance of winning against the particular opponent; and the
gammon chances use the race to the first checker off, played for that
alone. The answers are exact for the first question (a test checks the
recurrence against small positions counted by hand).

Storage: each distribution is kept to :data:`MAX_ROLLS` rolls (15 checkers
on the 6 point need at most 30 rolls of 1-2 and the chance of more than
:data:`MAX_ROLLS` is below 1e-9), quantised to 16 bits and compressed:
``backgammon_bearoff.npz`` beside this module, written by ``python -m
training.backgammon_bearoff`` and read once per process, by
:func:`shipped_tables` when the first backgammon game is made (as the
shipped network is), never at import: the script imports this module before
the file exists.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Final

import numpy as np

#: Home-board points, and the checkers of a side.
POINTS: Final = 6
CHECKERS: Final = 15
#: Rolls kept in a distribution (index 0 is "already off").
MAX_ROLLS: Final = 32
#: The tables shipped with the engine, written by training/backgammon_bearoff.py.
TABLES_FILE: Final = Path(__file__).with_name("backgammon_bearoff.npz")
#: A distribution is stored as integers summing to about this (16 bits).
QUANTUM: Final = 65535

HomeBoard = tuple[int, ...]


def _counts_table() -> tuple[tuple[int, ...], ...]:
    """``COUNT[length][s]``: home boards of ``length`` points holding at most ``s`` checkers."""
    return tuple(
        tuple(math.comb(s + length, length) for s in range(CHECKERS + 1))
        for length in range(POINTS + 1)
    )


#: Stars and bars: the boards of L points with at most s checkers are C(s + L, L).
COUNT: Final = _counts_table()
#: Home boards of up to 15 checkers: 54,264.
BOARDS: Final = COUNT[POINTS][CHECKERS]


def board_index(home: HomeBoard) -> int:
    """The rank of a home board (counts on points 1-6) among all :data:`BOARDS`.

    Boards are ranked by their count on point 1, then point 2, and so on:
    every board with fewer checkers on the first point comes first, and there
    are ``COUNT[5][left - v]`` of them for each smaller count ``v``.
    """
    index = 0
    left = CHECKERS
    for point in range(POINTS - 1):
        count = home[point]
        length = POINTS - 1 - point
        for smaller in range(count):
            index += COUNT[length][left - smaller]
        left -= count
    return index + home[POINTS - 1]


def all_boards() -> list[HomeBoard]:
    """Every home board, in the order of :func:`board_index`."""
    boards: list[HomeBoard] = []

    def fill(prefix: list[int], left: int) -> None:
        if len(prefix) == POINTS - 1:
            boards.extend((*prefix, last) for last in range(left + 1))
            return
        for count in range(left + 1):
            fill([*prefix, count], left - count)

    fill([], CHECKERS)
    return boards


def home_board(board: tuple[int, ...]) -> HomeBoard | None:
    """A side's counts on points 1-6 when every checker it has left is there, else None."""
    for index in range(POINTS, len(board)):
        if board[index]:
            return None
    return tuple(board[:POINTS])


class BearoffTables:
    """The two distributions of every home board, and the chances they give.

    ``off[i]`` is ``D`` of the board ranked ``i`` (rolls to bear off every
    checker), ``first[i]`` is ``G`` (rolls to bear off the first one; zero
    rows for boards of fewer than 15 checkers, which have one off already).
    """

    def __init__(self, off: np.ndarray, first: np.ndarray) -> None:
        self.off = off
        self.first = first
        # P(needing at least n rolls) = the sum of D from n on, kept once.
        self.off_at_least = np.cumsum(off[:, ::-1], axis=1)[:, ::-1]
        self.first_at_least = np.cumsum(first[:, ::-1], axis=1)[:, ::-1]

    def chances(self, mine: HomeBoard, theirs: HomeBoard) -> tuple[float, float, float]:
        """(win, win a gammon, lose a gammon) for the side on roll with ``mine``.

        Both sides must have checkers left (a side with none has won).
        """
        a = board_index(mine)
        b = board_index(theirs)
        mine_off = self.off[a]
        # A finishes on roll n (n >= 1) and B needs at least n rolls.
        win = float(mine_off[1:] @ self.off_at_least[b, 1:])
        win_gammon = 0.0
        if sum(theirs) == CHECKERS:
            win_gammon = float(mine_off[1:] @ self.first_at_least[b, 1:])
        lose_gammon = 0.0
        if sum(mine) == CHECKERS:
            # B finishes on its m-th roll, A has had m rolls: A needs m + 1 or more.
            lose_gammon = float(self.off[b, 1:-1] @ self.first_at_least[a, 2:])
        return win, win_gammon, lose_gammon

    def equity(self, mine: HomeBoard, theirs: HomeBoard) -> float:
        """Expected points of a cubeless game for the side on roll."""
        win, win_gammon, lose_gammon = self.chances(mine, theirs)
        return 2.0 * win - 1.0 + win_gammon - lose_gammon

    def expected_rolls(self, home: HomeBoard) -> float:
        """The mean of ``D``: rolls expected to bear off every checker of ``home``."""
        return float(self.off[board_index(home)] @ np.arange(MAX_ROLLS))


# ----------------------------------------------------------------------
# Building the tables (training/backgammon_bearoff.py calls this; minutes).

#: The 21 rolls (high, low) and their chances.
ROLLS: Final = tuple(
    ((high, low), (1.0 if high == low else 2.0) / 36.0)
    for high in range(1, 7)
    for low in range(1, high + 1)
)


def _one_die(home: HomeBoard, die: int) -> set[HomeBoard]:
    """Every board one die can leave: a checker moved down, or borne off by
    the exact number, or from the highest point when the die is larger."""
    highest = max(point for point in range(POINTS) if home[point])
    results = set()
    for point in range(highest + 1):
        if not home[point]:
            continue
        after = list(home)
        after[point] -= 1
        target = point - die
        if target >= 0:
            after[target] += 1
        elif target != -1 and point != highest:
            continue  # bearing off by a larger die only from the highest point
        results.add(tuple(after))
    return results


def bearoff_results(home: HomeBoard, high: int, low: int) -> list[HomeBoard]:
    """The distinct home boards a roll can leave.

    With every checker home a die can always be played while a checker is
    left (a higher checker moves down, or the highest is borne off), so
    every play uses all the dice (both orders; a double four times) until
    the board is empty; the rule of the larger die never decides anything
    here. A test holds this to the full rules (:func:`engine.games.backgammon.legal_plays`).
    """
    orders = [(high,) * 4] if high == low else [(high, low), (low, high)]
    results: set[HomeBoard] = set()
    for order in orders:
        boards = {home}
        for die in order:
            boards = {
                after
                for board in boards
                for after in (_one_die(board, die) if any(board) else {board})
            }
        results |= boards
    return sorted(results)


def build() -> tuple[np.ndarray, np.ndarray]:
    """Both distributions of every home board, by the recurrences of the guide (float64)."""
    boards = all_boards()
    off = np.zeros((BOARDS, MAX_ROLLS))
    first = np.zeros((BOARDS, MAX_ROLLS))
    mean_off = np.zeros(BOARDS)
    mean_first = np.zeros(BOARDS)
    steps = np.arange(MAX_ROLLS)
    by_pips = sorted(range(BOARDS), key=lambda i: sum((p + 1) * c for p, c in enumerate(boards[i])))
    for index in by_pips:
        home = boards[index]
        if not any(home):
            off[index, 0] = 1.0
            continue
        full = sum(home) == CHECKERS
        for (high, low), chance in ROLLS:
            results = [board_index(result) for result in bearoff_results(home, high, low)]
            best = min(results, key=lambda i: mean_off[i])
            off[index, 1:] += chance * off[best, :-1]
            if full:
                kept = [i for i in results if sum(boards[i]) == CHECKERS]
                if len(kept) < len(results):
                    first[index, 1] += chance  # a checker off with this roll
                else:
                    best_first = min(kept, key=lambda i: mean_first[i])
                    first[index, 1:] += chance * first[best_first, :-1]
        # Rolls past MAX_ROLLS (below 1e-9 in all) are counted in the last.
        off[index, -1] += 1.0 - off[index].sum()
        mean_off[index] = float(off[index] @ steps)
        if full:
            first[index, -1] += 1.0 - first[index].sum()
            mean_first[index] = float(first[index] @ steps)
    return off, first


def quantise(table: np.ndarray) -> np.ndarray:
    """Distributions as 16-bit integers (each row sums to about :data:`QUANTUM`)."""
    quantised: np.ndarray = np.rint(table * QUANTUM).astype(np.uint16)
    return quantised


def _from_quantised(table: np.ndarray) -> np.ndarray:
    rows = table.astype(np.float64)
    totals = rows.sum(axis=1, keepdims=True)
    chances: np.ndarray = np.divide(rows, totals, out=np.zeros_like(rows), where=totals > 0)
    return chances


def load_tables(path: Path = TABLES_FILE) -> BearoffTables:
    """Read tables written by ``training/backgammon_bearoff.py``.

    Raises ``OSError`` or ``ValueError`` when the file is missing or does not fit.
    """
    with np.load(path) as data:
        off = data["off"]
        first = data["first"]
    if off.shape != (BOARDS, MAX_ROLLS) or first.shape != (BOARDS, MAX_ROLLS):
        raise ValueError(f"{path}: not bear-off tables of {BOARDS} boards by {MAX_ROLLS} rolls")
    return BearoffTables(_from_quantised(off), _from_quantised(first))


@functools.cache
def shipped_tables() -> BearoffTables:
    """The tables shipped with the engine, read at their first use in a process.

    Every game shares them (they are never modified); they are read on first
    use, not when a module is imported, so that importing the engine does no I/O.
    """
    return load_tables()
