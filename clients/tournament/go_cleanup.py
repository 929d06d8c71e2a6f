"""Go's clean-up phase: whether a board can be counted as it stands (pure: no I/O).

The referee counts a finished Go game by area, every stone on the board
alive (the engine's Tromp-Taylor rules). That is only right once the dead
stones are off the board: GNU Go, for one, passes with its opponent's dead
stones still inside its area, and counting them alive gave the game to the
wrong engine. So when two passes end a game whose board is not
:func:`settled` (or the game's length bound, 2 x size² plies, cuts it
short on such a board: an engine that plays on inside its opponent's area
had its stones there counted alive) the referee plays a clean-up phase,
once, as KGS does:
play resumes from that board (the engines get it as a ``new_game``, and
each ``think`` carries ``cleanup: true``) until two passes in a row end it
again, and then the board is counted as it stands: stones left on the
board count as alive, so an engine that leaves dead stones in its area
gives the points away.

A board is settled when every empty region (connected empty points)
borders stones of one colour only, so that the count gives every empty
point to a player. Dead stones inside an area make the region around them
border both colours; so do neutral points between living groups (dame,
which Chinese counting rewards filling) and the shared liberties of a
seki, for which the clean-up phase costs a few moves and changes nothing.

A settled board can still hold a dead group: one round an eye space of
two points, with no opposing stone inside yet, borders its own colour
only. GNU Go counts it dead; counted as it stood, it once gave Black 12
points GNU Go gave White (W+76.5 where GNU Go said W+88.5, 2026-11-29).
So a board is :func:`countable` only when it is settled and the engine's
capture-all-dead rule (``engine.games.go.dead_stones``, the rule our own
search uses before it passes) finds no dead stones on it.
"""

from __future__ import annotations

from typing import Any

from engine.game import Game
from engine.games.go import Go, dead_stones

#: The game whose games end in a count of the board.
GO = "go"
#: A pass and a resignation in the game's canonical notation.
PASS = "pass"
RESIGN = "resign"
#: The points of a Go position (``engine/games/go.py``: rows ``/``, then the side to move).
EMPTY, BLACK, WHITE = ".", "X", "O"


def unsettled_points(position: str) -> int:
    """Empty points whose region borders both colours, in a Go position string."""
    rows = position.split()[0].split("/") if position.strip() else []
    size = len(rows)
    seen: set[tuple[int, int]] = set()
    unsettled = 0
    for row in range(size):
        for column in range(len(rows[row])):
            if rows[row][column] != EMPTY or (row, column) in seen:
                continue
            region, borders = _region(rows, row, column)
            seen.update(region)
            if borders == {BLACK, WHITE}:
                unsettled += len(region)
    return unsettled


def settled(position: str) -> bool:
    """Whether the count of this board gives every empty point to a player."""
    return unsettled_points(position) == 0


def countable(game: Game[Any, Any], state: Any) -> bool:
    """Whether a finished Go game's board can be counted as it stands (else: a clean-up phase)."""
    if not settled(game.format_position(state)):
        return False
    return not isinstance(game, Go) or not dead_stones(game, state)


def _region(rows: list[str], row: int, column: int) -> tuple[set[tuple[int, int]], set[str]]:
    """The empty region holding ``(row, column)`` and the colours it borders."""
    region = {(row, column)}
    borders: set[str] = set()
    stack = [(row, column)]
    while stack:
        r, c = stack.pop()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= nr < len(rows) and 0 <= nc < len(rows[nr])):
                continue
            point = rows[nr][nc]
            if point == EMPTY:
                if (nr, nc) not in region:
                    region.add((nr, nc))
                    stack.append((nr, nc))
            else:
                borders.add(point)
    return region, borders
