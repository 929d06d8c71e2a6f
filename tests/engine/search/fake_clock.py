"""A fake time source for a searcher (:attr:`BudgetedSearch.clock`).

Each reading moves it on by a fixed step, so that a timed search's course
depends on how often the search reads its clock, not on how busy the
machine is: a time budget becomes a count of readings, and nothing sleeps.
"""

from __future__ import annotations


class SteppingClock:
    """A clock that starts at 0 and advances ``step_s`` seconds at each reading."""

    def __init__(self, step_s: float) -> None:
        self.step_s = step_s
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += self.step_s
        return self.now
