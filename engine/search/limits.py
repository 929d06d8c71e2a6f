"""Search limits and how a clock becomes deadlines.

A :class:`Limits` may combine a fixed time per move, a depth, a node count
and a game clock; the search ends at whichever comes first.
:func:`plan_deadlines` turns the time-based parts into two deadlines: a soft
one (start no new iteration after it) and a hard one (abort mid-iteration).
Plan them once, where the request is read, and hand the :class:`Deadlines`
to the searcher: the server does this so that the deadline it promises the
client and the one the search obeys are the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.records import reduce_record

#: Moves assumed to remain when a clock has no ``moves_to_go`` and the game
#: gives no estimate of its own (:meth:`engine.game.Game.moves_left`): the
#: usual sudden-death assumption of engines (Stockfish and Crafty start near
#: 30-40).
DEFAULT_MOVES_TO_GO: Final = 30
#: Share of the increment spent on this move; the rest builds a reserve.
INCREMENT_SHARE: Final = 0.75
#: The soft deadline is this share of the allotment: the next iteration
#: costs several times the last one (the effective branching factor), so
#: starting one late rarely completes it.
SOFT_SHARE: Final = 0.5
#: The hard deadline may stretch the allotment this many times when an
#: iteration is under way, never beyond :data:`MAX_SHARE_OF_CLOCK`.
HARD_STRETCH: Final = 3.0
#: Never spend more than this share of the time left on one move, unless it
#: is the last move before the time control.
MAX_SHARE_OF_CLOCK: Final = 0.5
#: Kept back from the time left for the message to reach the opponent's clock.
CLOCK_SAFETY_MS: Final = 20
#: The least a move on a clock is given when the clock allows it (never more
#: than :data:`MAX_SHARE_OF_CLOCK` of what is left). A server needs about
#: 23 ms of a think for delivery and its guard and answers a shorter one
#: unsearched (server/runtime/constants.py, MIN_WORKER_BUDGET_S); an
#: unsearched answer costs no time, so a side down to 250 ms of a sudden-death
#: clock played unsearched first legal moves for the rest of the game (a 0.6 s
#: game between two of our engines, 2026-12-06). 50 ms leaves the search
#: some 25 ms: a few plies of chess. Half of it is the least allotment.
MIN_CLOCK_MOVE_MS: Final = 50
#: Deepest iteration of every searcher (plies). Real searches stop far
#: sooner; the bound keeps per-ply tables small and is the ``max_depth`` the
#: server announces.
MAX_DEPTH: Final = 128


@dataclass(frozen=True, slots=True)
class Clock:
    """A game clock: time left for the side to move, its increment, moves to go.

    ``opponent_ms`` is the other side's time left, when the caller knows it.
    Our searches plan from the mover's clock alone; a UCI program is told
    both (``wtime`` and ``btime``), as cutechess tells it, since engines such
    as Stockfish weigh their time against the opponent's.
    """

    time_ms: int
    inc_ms: int = 0
    moves_to_go: int | None = None
    opponent_ms: int | None = None

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


@dataclass(frozen=True, slots=True)
class Limits:
    """Which limits end the search; ``None`` means unlimited.

    With nothing set the search runs until it is stopped or the game tree is
    exhausted (an exact solve).
    """

    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    clock: Clock | None = None

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


@dataclass(frozen=True, slots=True)
class Deadlines:
    """When a search started and when it must end, in ``time.monotonic()`` seconds.

    ``soft``: start no new iteration after it; ``hard``: abort at once.
    ``allotment``: the end of the time allotted to the move, where a search
    with no iterations to finish (Monte Carlo) stops; ``None`` with a hard
    deadline means the hard deadline is the allotment (see :meth:`allotted`).
    ``None`` means no time limit. ``soft`` and ``allotment`` are never after
    ``hard``.
    """

    start: float
    soft: float | None
    hard: float | None
    allotment: float | None = None

    def allotted(self) -> float | None:
        """When the allotment ends: :attr:`allotment`, else the hard deadline."""
        return self.hard if self.allotment is None else self.allotment

    def capped(self, latest: float) -> Deadlines:
        """These deadlines, ending by ``latest`` at the latest."""
        hard = latest if self.hard is None else min(self.hard, latest)
        soft = None if self.soft is None else min(self.soft, hard)
        allotment = None if self.allotment is None else min(self.allotment, hard)
        return Deadlines(self.start, soft, hard, allotment)

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


def plan_deadlines(
    limits: Limits, start: float, moves_left: int | None = None, own_clock: bool = False
) -> Deadlines:
    """The soft and hard deadlines for a search that started at ``start``.

    A fixed move time gives one deadline used for both: the search uses the
    whole time and answers with the best move found. A clock gives an
    allotment (time left over the moves to go, plus most of the increment):
    the soft deadline is a share of it, the hard one a stretch of it. A
    clock that names no moves to go (sudden death) is shared over
    ``moves_left``, the game's estimate of the mover's moves to come
    (:meth:`engine.game.Game.moves_left`), else :data:`DEFAULT_MOVES_TO_GO`.

    ``own_clock``: the search keeps its own time (an engine program that is
    given the clock itself, as cutechess gives it): every deadline is the
    time left on the clock, less :data:`CLOCK_SAFETY_MS`; only an answer
    later than that is late.
    """
    soft: float | None = None
    hard: float | None = None
    allotment: float | None = None
    if limits.movetime_ms is not None:
        soft = hard = allotment = start + max(0, limits.movetime_ms) / 1000
    if limits.clock is not None and own_clock:
        end = start + max(0, limits.clock.time_ms - CLOCK_SAFETY_MS) / 1000
        soft = _earliest(soft, end)
        hard = _earliest(hard, end)
        allotment = _earliest(allotment, end)
    elif limits.clock is not None:
        clock_allotment, clock_hard = _clock_budget_ms(limits.clock, moves_left)
        soft = _earliest(soft, start + SOFT_SHARE * clock_allotment / 1000)
        hard = _earliest(hard, start + clock_hard / 1000)
        allotment = _earliest(allotment, start + clock_allotment / 1000)
    if soft is not None and hard is not None:
        soft = min(soft, hard)
    if allotment is not None and hard is not None:
        allotment = min(allotment, hard)
    return Deadlines(start, soft, hard, allotment)


def _clock_budget_ms(clock: Clock, moves_left: int | None = None) -> tuple[float, float]:
    """The allotment and the hard limit for a move on ``clock``, in milliseconds."""
    left = max(0, clock.time_ms - CLOCK_SAFETY_MS)
    moves_to_go = clock.moves_to_go if clock.moves_to_go and clock.moves_to_go > 0 else None
    expected = moves_left if moves_left and moves_left > 1 else DEFAULT_MOVES_TO_GO
    share_over = moves_to_go or expected
    allotment = left / share_over + INCREMENT_SHARE * max(0, clock.inc_ms)
    ceiling = left if moves_to_go == 1 else left * MAX_SHARE_OF_CLOCK
    hard = min(max(HARD_STRETCH * allotment, MIN_CLOCK_MOVE_MS), ceiling)
    allotment = min(max(allotment, MIN_CLOCK_MOVE_MS / 2), hard)
    return allotment, hard


def _earliest(a: float | None, b: float) -> float:
    return b if a is None else min(a, b)
