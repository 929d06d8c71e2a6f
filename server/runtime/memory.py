"""A search worker's memory budget (trees and tables), and releasing trees.

Each worker keeps up to ``MAX_CACHED_SEARCHERS`` searchers; an MCTS
searcher keeps its tree between thinks (:mod:`engine.search.mcts`), an
alpha-beta or expectiminimax searcher its transposition table
(:mod:`engine.search.tt`). Left alone, four cached Go trees reached
690-850 MB per worker and stayed after the client left. :class:`TreeBudget`
bounds them:

* the tables of one worker share ``table_bytes``: each searcher's table
  gets at most a ``MAX_CACHED_SEARCHERS``-th of it, sized when the searcher
  is made (:meth:`TreeBudget.table_slots`, slots times the measured
  :data:`~engine.search.tt.ENTRY_BYTES`); a full table replaces entries,
  it never grows;

* the trees of one worker share ``tree_bytes`` (estimated by
  :meth:`~engine.search.mcts.MctsSearcher.tree_bytes`): before a think, the
  least recently used other trees are dropped until they hold at most half
  of it, and the thinking searcher may grow its tree into what is left;
* a worker idle for ``idle_release_s`` drops every tree (a closed session's
  tree goes this way: the worker never hears of sessions), then hands the
  freed memory back to the system.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.search.mcts import MctsSearcher
from engine.search.tt import slots_for_bytes
from engine.searchers import GameSearcher

#: Searchers kept per worker (each with a tree or a table, or neither).
MAX_CACHED_SEARCHERS = 4
#: Bytes of MCTS trees per worker. A 10 s 9x9 Go think of the compiled
#: build grew a worker by about 130 MB (issue 26): 192 MiB keeps such a
#: tree whole, with room for a smaller one of another session. With the
#: worker's own ~50 MB and its tables (DEFAULT_TABLE_BYTES) a worker stays
#: under about 370 MB (docs/load.md).
DEFAULT_TREE_BYTES = 192 * 1024 * 1024
#: Bytes of transposition tables per worker: 32 MiB for each of the four
#: cached searchers, about 168,000 slots each (before, 2**18 slots each,
#: up to about 50 MiB full). The tables' share of the 370 MB documented
#: per worker; a larger table gains little at the server's think times.
DEFAULT_TABLE_BYTES = 128 * 1024 * 1024
#: Seconds without a job after which a worker drops its trees: longer than a
#: client's pause between two moves of a game (so that a game keeps reusing
#: its tree), short enough that a closed session's memory comes back soon.
DEFAULT_IDLE_RELEASE_S = 30.0
#: Share of the budget other searchers' trees may keep during a think.
OTHERS_SHARE = 0.5


#: A worker's own memory beside its trees and tables: the interpreter with
#: the engine imported, about 50 MB (docs/load.md).
WORKER_BASE_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class TreeBudget:
    """How much memory one worker's MCTS trees and tables may hold, and when idle trees go."""

    tree_bytes: int = DEFAULT_TREE_BYTES
    idle_release_s: float = DEFAULT_IDLE_RELEASE_S
    table_bytes: int = DEFAULT_TABLE_BYTES

    def table_slots(self, wanted: int) -> int:
        """Slots of one searcher's table: ``wanted``, or fewer to keep its share of the budget."""
        return min(wanted, slots_for_bytes(self.table_bytes // MAX_CACHED_SEARCHERS))


#: How long a worker waits for its next job before it runs the cyclic
#: garbage collector: idle time, not a search's.
IDLE_COLLECT_S = 0.25
#: How long a busy worker, never idle that long, runs before it collects
#: anyway (after a job, delaying the next by as long as a collection takes).
BUSY_COLLECT_S = 60.0


class Collector:
    """When a search process runs Python's cyclic garbage collector: between searches.

    Left automatic, a full collection ran inside searches: with a worker's
    tables and trees it took 9-39 ms (measured on Connect Four, alpha-beta
    and MCTS in turn at 35 ms a move), and 10 of 210 MCTS thinks of 50 ms
    through the server made no playout at all, answered depth 0 at their
    deadline (a review, 2026-12-07; bench/short_thinks.py). Collected
    between searches: 0 of 399. The searches' own structures hold no
    reference cycles (trees without parent links, tables of tuples): they
    are freed as they go, and the collector has only the odd cycle to find.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.jobs_since = 0
        self.collected_at = clock()

    def start(self) -> None:
        gc.disable()

    def after_job(self) -> bool:
        """After a job: whether to collect now (a busy worker's rare collection)."""
        self.jobs_since += 1
        return self.clock() - self.collected_at >= BUSY_COLLECT_S

    def wait_s(self, idle_release_s: float) -> float:
        """How long to wait for a job before :meth:`idle` is due."""
        return IDLE_COLLECT_S if self.jobs_since else idle_release_s

    def collect(self) -> None:
        gc.collect()
        self.jobs_since = 0
        self.collected_at = self.clock()


def worker_bound_bytes(budget: TreeBudget) -> int:
    """The most memory one worker holds under ``budget``: its trees, its tables, itself."""
    return WORKER_BASE_BYTES + budget.tree_bytes + budget.table_bytes


def physical_memory_bytes() -> int | None:
    """This machine's physical memory, or ``None`` where the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def fit_trees(
    searchers: OrderedDict[str, GameSearcher], current: GameSearcher, budget: TreeBudget
) -> None:
    """Make room for ``current``'s think: drop LRU trees of others, bound ``current``'s tree.

    ``searchers`` is ordered least recently used first.
    """
    others = [s for s in searchers.values() if isinstance(s, MctsSearcher) and s is not current]
    kept = sum(s.tree_bytes() for s in others)
    for searcher in others:  # least recently used first
        if kept <= budget.tree_bytes * OTHERS_SHARE:
            break
        kept -= searcher.tree_bytes()
        searcher.release()
    if isinstance(current, MctsSearcher):
        current.max_tree_bytes = max(0, budget.tree_bytes - kept)


def release_trees(searchers: Iterable[GameSearcher]) -> bool:
    """Drop every kept MCTS tree and return the memory to the system; whether any was kept."""
    released = False
    for searcher in searchers:
        if isinstance(searcher, MctsSearcher) and searcher.tree_bytes() > 0:
            searcher.release()
            released = True
    if released:
        gc.collect()
        _trim_heap()
    return released


def _trim_heap() -> None:
    """Ask the C allocator to give its free pages back (glibc only; elsewhere nothing)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
