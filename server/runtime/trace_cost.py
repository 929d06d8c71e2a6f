"""Refusing a Monte Carlo trace before it runs when this server has seen it cannot finish.

A deterministic trace's size is estimated from the position alone
(:func:`engine.search.trace.check_cost`, in the session). An ``mcts``
trace's cost is its playouts, whose speed depends on the game, its options,
the build and the machine: the workers measure it. A trace that ran for
at least :data:`MIN_MEASURED_S` reports its playouts per second (whether
it finished or was refused by its own projection,
:data:`engine.search.trace.PROJECTION_AFTER_S`), and :class:`TraceRates`
keeps the latest rate per game and options. A later trace that would need
more than PROJECTION_MARGIN times its time at that rate is refused at once
with ``limit_exceeded``, without taking a worker: the issue's 19x19 Go
trace of 20,000 playouts (issue 26, item 8) costs a worker half a second
once, then nothing.
"""

from __future__ import annotations

from typing import Final

from engine.search.trace import MCTS, PROJECTION_MARGIN
from protocol.errors import LimitExceeded
from server.jobs import TraceJob

#: A rate measured over less than this (seconds) is too noisy to refuse by.
MIN_MEASURED_S: Final = 0.2
#: Games and options remembered (a few per game); the oldest goes first.
MAX_RATES: Final = 64


def _key(job: TraceJob) -> tuple[str, str]:
    return job.game.name, repr(sorted(job.game.options.items()))


class TraceRates:
    """Playouts per second of ``mcts`` traces, by game and options, as the workers measured them."""

    def __init__(self) -> None:
        self._rates: dict[tuple[str, str], float] = {}

    def note(self, job: TraceJob, playouts: int, seconds: float) -> None:
        """A worker ran ``playouts`` of ``job`` in ``seconds``."""
        if job.algorithm != MCTS or seconds < MIN_MEASURED_S or playouts < 1:
            return
        key = _key(job)
        self._rates.pop(key, None)
        self._rates[key] = playouts / seconds
        while len(self._rates) > MAX_RATES:
            del self._rates[next(iter(self._rates))]

    def rate(self, job: TraceJob) -> float | None:
        """The last measured playouts per second for ``job``'s game and options, if any."""
        return self._rates.get(_key(job))

    def check(self, job: TraceJob) -> None:
        """Raise ``limit_exceeded`` if ``job`` needs more time than it has at the measured rate."""
        rate = self.rate(job)
        if job.algorithm != MCTS or rate is None:
            return
        budget_s = job.deadline - job.received_at
        needed_s = job.playouts / rate
        if needed_s > budget_s * PROJECTION_MARGIN:
            fit = int(rate * budget_s / PROJECTION_MARGIN)
            raise LimitExceeded(
                f"the trace would take about {needed_s:.0f} s ({job.playouts} playouts at the "
                f"{rate:.0f} a second this server measured for {job.game.name}), more than the "
                f"{budget_s:.0f} s a trace may run: ask for fewer playouts (about {fit} fit)",
                job.trace_id,
            )
