"""The referee's clocks and per-move budgets: arithmetic only, no I/O.

The referee measures each move itself, from sending ``think`` to receiving
``bestmove``, and charges it to the mover's clock with :meth:`GameClock.punch`.
:func:`move_budget` says how long a move may take under the time control
and the engine's own caps; :func:`watchdog_ms` how long the referee waits
for an answer before it gives up.
"""

from __future__ import annotations

from dataclasses import dataclass

from clients.tournament.config import EngineSpec, TimeControl, Timing
from engine.search.limits import Clock


class GameClock:
    """Two clocks counting down; ``moves`` per period adds the base time again."""

    def __init__(self, base_ms: int, inc_ms: int = 0, moves: int | None = None) -> None:
        self.base_ms = base_ms
        self.inc_ms = inc_ms
        self.moves = moves
        self.left_ms = [base_ms, base_ms]
        self.moves_made = [0, 0]

    def moves_to_go(self, player: int) -> int | None:
        """Moves left in the current period, or ``None`` for sudden death."""
        if self.moves is None:
            return None
        return self.moves - self.moves_made[player] % self.moves

    def clock_for(self, player: int) -> Clock:
        """What the engine is told in ``think``: its time left and its opponent's
        (never negative)."""
        return Clock(
            max(0, self.left_ms[player]),
            self.inc_ms,
            self.moves_to_go(player),
            opponent_ms=max(0, self.left_ms[1 - player]),
        )

    def punch(self, player: int, elapsed_ms: float) -> None:
        """Charge a move to ``player``: take the time, add the increment and any new period."""
        self.left_ms[player] -= round(elapsed_ms)
        self.left_ms[player] += self.inc_ms
        self.moves_made[player] += 1
        if self.moves is not None and self.moves_made[player] % self.moves == 0:
            self.left_ms[player] += self.base_ms


@dataclass(frozen=True, slots=True)
class ThinkLimits:
    """The limits of one ``think``, ready for :meth:`clients.client.Engine.think`."""

    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    clock: Clock | None = None


def think_limits(tc: TimeControl, engine: EngineSpec, clock: Clock | None) -> ThinkLimits:
    """The tournament's control combined with the engine's caps (the tighter wins)."""
    return ThinkLimits(
        movetime_ms=_tighter(tc.movetime_ms, engine.movetime_ms),
        depth=_tighter(tc.depth, engine.depth),
        nodes=_tighter(tc.nodes, engine.nodes),
        clock=clock,
    )


def move_budget(tc: TimeControl, clock: Clock | None) -> int | None:
    """Milliseconds the mover may use before losing on time; ``None`` when unlimited.

    Only the tournament's own control counts: an engine's private move-time
    cap is a handicap it chose, not a rule it can be flagged by.
    """
    budget = tc.movetime_ms
    if clock is not None:
        budget = _tighter(budget, clock.time_ms)
    return budget


def is_late(elapsed_ms: float, budget_ms: int | None, margin_ms: int) -> bool:
    """Whether a move that took ``elapsed_ms`` loses on time."""
    return budget_ms is not None and elapsed_ms > budget_ms + margin_ms


def watchdog_ms(budget_ms: int | None, timing: Timing) -> int:
    """How long to wait for an answer at all: budget + margin + grace, or the move timeout."""
    if budget_ms is None:
        return timing.move_timeout_ms
    return budget_ms + timing.margin_ms + timing.grace_ms


def _tighter(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)
