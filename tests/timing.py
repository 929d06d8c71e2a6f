"""The suite's time unit, and waits on conditions instead of sleeps.

Every timing bound and timeout in the tests is a multiple of :data:`UNIT`
(seconds). Set ``ARENA_TEST_UNIT`` (e.g. ``ARENA_TEST_UNIT=3``) to stretch
them all on a slow or busy machine. Without it the unit is 1 (it suits two
shared cores) times the machine's load per core when the suite starts, if
that is above 1 (a machine with more runnable processes than cores gives
each process less of a second), at most :data:`MAX_LOAD_FACTOR`, the
suite's own test processes counted (:func:`load_factor`). The suite's
first process decides it once (tests/conftest.py) and hands it to the
others in ``ARENA_TEST_UNIT``; pytest's header says which unit a run used.

A test that must wait for something to happen waits for the condition itself
(:func:`wait_until`, :func:`wait_until_async`), with a bound in units, rather
than sleeping for a guessed time. How fast something happens is a
performance target, measured in ``bench/``, not asserted here.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

#: Environment variable that scales every timing bound of the suite.
UNIT_VARIABLE = "ARENA_TEST_UNIT"


#: The most the load stretches the default unit: beyond three runnable
#: processes a core, a timing test says more about the machine than about
#: the code (set ARENA_TEST_UNIT to run there anyway).
MAX_LOAD_FACTOR = 3.0


def load_factor(processes: int = 1) -> float:
    """The one-minute load average per core, between 1 and :data:`MAX_LOAD_FACTOR`.

    ``processes`` is how many test processes the suite runs side by side
    (pytest-xdist): the others are not in the load yet when it starts, and
    run beside each test for the whole run. Two of them and a CPU hog on two
    cores (2026-11-29) starved a search process at nice 10 of the 500 ms a
    test gave it, where the load at the start said one process a core.
    """
    try:
        load = os.getloadavg()[0] + max(0, processes - 1)
    except OSError:  # no load average on this system
        return 1.0
    return min(MAX_LOAD_FACTOR, max(1.0, load / (os.cpu_count() or 1)))


def _unit() -> float:
    text = os.environ.get(UNIT_VARIABLE)
    if text is None:
        return load_factor()
    try:
        unit = float(text)
    except ValueError:
        raise ValueError(f"{UNIT_VARIABLE} must be a number of seconds, not {text!r}") from None
    if not math.isfinite(unit) or unit <= 0:
        raise ValueError(f"{UNIT_VARIABLE} must be a positive number of seconds, not {text!r}")
    return unit


#: The time unit all test timeouts and timing bounds scale from (seconds).
UNIT = _unit()

#: How often a wait looks at its condition again (seconds): short beside any
#: bound in units, long enough not to steal the CPU the awaited work needs.
POLL_S = 0.02


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Return as soon as ``condition()`` holds; fail naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout_s:.1f} s waiting for {what}")
        time.sleep(POLL_S)


async def wait_until_async(
    condition: Callable[[], bool | Awaitable[bool]], timeout_s: float, what: str
) -> None:
    """:func:`wait_until` for a running event loop: other tasks run between looks."""
    deadline = time.monotonic() + timeout_s
    while True:
        outcome = condition()
        if not isinstance(outcome, bool):
            outcome = await outcome
        if outcome:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout_s:.1f} s waiting for {what}")
        await asyncio.sleep(POLL_S)


@contextmanager
def collector_frozen() -> Iterator[None]:
    """Keep the objects alive now out of the garbage collector while timing.

    The suite runs in one process, and a test that times a server in that
    process would time a full collection of every object the earlier tests
    left alive: 150 ms once in CI (a round trip of 258 ms against 100 ms
    asked), where the server, alone in its own process, holds a few
    thousand. Objects made inside the block are still collected.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
