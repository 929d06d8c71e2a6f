"""The code that runs inside a search worker process.

A worker is started once (``spawn`` context) and serves searches one after
another over a duplex pipe:

* parent -> worker: a :class:`WorkerJob`, or ``None`` to exit;
* worker -> parent: ``("ready",)`` once imports are done, then per job
  ``("info", seq, Info)`` as each report happens, and finally
  ``("done", seq, SearchResult)`` or ``("failed", seq, traceback_text)``.
  A trace job (:class:`TraceTask`) reports no progress and ends with
  ``("done", seq, TraceReply)``: its reply already encoded, so that the
  parent's event loop only forwards the bytes.

The stop signal is a :class:`StopFlag` in shared memory that the search
polls; the parent sets it and never has to wait for the worker to do so.
The worker keeps a small cache of searchers (:func:`engine.searchers.searcher_for`)
per (game, options, algorithm), so successive searches of a game reuse the
transposition table, and Monte Carlo searches reuse their tree when the
next position follows from the last one searched.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext
from typing import Any

from engine.errors import GameError
from engine.registry import create_game
from engine.search.limits import Deadlines, Limits
from engine.search.request import SearchRequest
from engine.search.results import Info
from engine.search.trace import trace
from engine.searchers import GameSearcher, searcher_for
from protocol.codec import Encoding, encode
from protocol.errors import RequestId, from_game_error
from protocol.records import TraceReply as TraceMessage
from server.external import (
    STARTUP_WAIT_S,
    ExternalEngine,
    ProgramSearcher,
    find_external,
    program_searcher,
)
from server.runtime.memory import TreeBudget, fit_trees, release_trees

#: Searchers kept per worker. Each holds a transposition table of up to
#: ``tt_slots`` entries (about 30 MB at the default 2**18 when full), so a
#: handful bounds memory while covering a server that runs a few games.
MAX_CACHED_SEARCHERS = 4


class StopFlag:
    """A lock-free shared boolean with ``is_set()``, ``set()`` and ``clear()``.

    A ``multiprocessing.Event`` takes a lock inside ``is_set()``; a worker
    killed or frozen while holding it would block the parent's ``set()``
    forever. A raw shared byte cannot deadlock: one writer (the parent) and
    one reader (the worker) of a single byte need no lock.
    """

    def __init__(self, context: SpawnContext) -> None:
        self._value = context.RawValue(ctypes.c_bool, False)

    def is_set(self) -> bool:
        return bool(self._value.value)

    def set(self) -> None:
        self._value.value = True

    def clear(self) -> None:
        self._value.value = False


@dataclass(frozen=True, slots=True)
class TraceTask:
    """What makes a job a trace: its bounds, and how to write the reply."""

    depth: int
    max_nodes: int
    playouts: int
    seed: int
    request_id: RequestId
    encoding: Encoding


@dataclass(frozen=True, slots=True)
class TraceReply:
    """A trace's reply, encoded: the ``trace`` message, or the ``error`` that refused it.

    ``error_code`` is ``None`` for a trace (the parent counts messages by kind).
    """

    frame: bytes | str
    error_code: str | None


@dataclass(frozen=True, slots=True)
class WorkerJob:
    """One search as sent to a worker; ``seq`` tells its messages from stale ones.

    ``deadlines`` are the search's own: the think's, ended early by the
    pool's delivery margin. ``trace`` makes the job a trace instead of a
    think (``limits`` is then unused).
    """

    seq: int
    game: str
    options: dict[str, Any]
    state: Any
    limits: Limits
    deadlines: Deadlines
    algorithm: str
    trace: TraceTask | None = None


def worker_main(
    conn: Connection,
    stop: StopFlag,
    tt_slots: int,
    nice: int = 0,
    externals: tuple[ExternalEngine, ...] = (),
    budget: TreeBudget | None = None,
) -> None:
    """Serve jobs from ``conn`` until ``None`` arrives or the parent goes away.

    ``nice`` is added to the process's niceness first (the event loop in
    the parent should win the CPU over searches). ``budget`` bounds the
    memory of the Monte Carlo trees kept (:mod:`server.runtime.memory`).
    """
    budget = budget or TreeBudget()
    # Ctrl-C in a terminal reaches the whole process group; the parent
    # shuts down gracefully and tells the workers when to exit.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    searchers: OrderedDict[str, GameSearcher] = OrderedDict()
    try:
        _start_externals(searchers, externals)
        conn.send(("ready",))
        while True:
            if not conn.poll(budget.idle_release_s):
                release_trees(searchers.values())  # idle: a closed session's tree goes too
                continue
            job = conn.recv()
            if job is None:
                return
            _run(conn, stop, job, searchers, tt_slots, externals, budget)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent is gone: nothing left to serve
    finally:
        for searcher in searchers.values():
            _close(searcher)


def _run(
    conn: Connection,
    stop: StopFlag,
    job: WorkerJob,
    searchers: OrderedDict[str, GameSearcher],
    tt_slots: int,
    externals: tuple[ExternalEngine, ...] = (),
    budget: TreeBudget | None = None,
) -> None:
    seq = job.seq

    def report(info: Info) -> None:
        conn.send(("info", seq, info))

    try:
        if job.trace is not None:
            conn.send(("done", seq, _trace(job, job.trace, stop)))
            return
        searcher = _searcher(searchers, job, tt_slots, externals)
        fit_trees(searchers, searcher, budget or TreeBudget())
        result = searcher.think(SearchRequest(job.state, job.limits, job.deadlines, stop, report))
    except (BrokenPipeError, ConnectionResetError):
        raise
    except Exception:
        conn.send(("failed", seq, traceback.format_exc()))
        return
    conn.send(("done", seq, result))


def _trace(job: WorkerJob, task: TraceTask, stop: StopFlag) -> TraceReply:
    """Run the trace and encode its reply, or the error a rejected trace gets."""
    game = create_game(job.game, job.options)
    try:
        result = trace(
            game,
            job.state,
            job.algorithm,
            task.depth,
            task.max_nodes,
            job.deadlines.hard,
            stop,
            task.playouts,
            task.seed,
        )
    except GameError as error:
        refusal = from_game_error(error, task.request_id)
        return TraceReply(encode(refusal.to_record().to_wire(), task.encoding), str(refusal.code))
    message = TraceMessage(result, task.request_id)
    return TraceReply(encode(message.to_wire(), task.encoding), None)


def _start_externals(
    searchers: OrderedDict[str, GameSearcher], externals: tuple[ExternalEngine, ...]
) -> None:
    """Start the external engines in the background before reporting ready.

    Their handshakes get STARTUP_WAIT_S in all, so that a first think keeps
    its whole time; one that takes longer (or hangs) goes on in the
    background, and a think waits for it only until its own deadline.
    """
    started = []
    for external in externals[:MAX_CACHED_SEARCHERS]:
        searcher = program_searcher(external, create_game(external.game))
        searchers[_searcher_key(external.game, {}, external.name)] = searcher
        searcher.start()
        started.append(searcher)
    deadline = time.monotonic() + STARTUP_WAIT_S
    for searcher in started:
        searcher.wait_started(deadline)


def _searcher_key(game: str, options: dict[str, Any], algorithm: str) -> str:
    return json.dumps([game, options, algorithm], sort_keys=True, default=list)


def _searcher(
    searchers: OrderedDict[str, GameSearcher],
    job: WorkerJob,
    tt_slots: int,
    externals: tuple[ExternalEngine, ...],
) -> GameSearcher:
    key = _searcher_key(job.game, job.options, job.algorithm)
    searcher = searchers.get(key)
    if searcher is None:
        game = create_game(job.game, job.options)
        external = find_external(externals, job.game, job.algorithm)
        if external is not None:
            searcher = program_searcher(external, game)
        else:
            searcher = searcher_for(game, job.algorithm, tt_slots)
        searchers[key] = searcher
        while len(searchers) > MAX_CACHED_SEARCHERS:
            _close(searchers.popitem(last=False)[1])
    else:
        searchers.move_to_end(key)
    return searcher


def _close(searcher: GameSearcher) -> None:
    """End what a searcher holds outside this process (an external engine's program)."""
    if isinstance(searcher, ProgramSearcher):
        searcher.close()
