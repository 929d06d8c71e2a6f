"""What ``arena uci`` and ``arena gtp`` share: the server's worker pool, lines in, jobs out.

A front end serves one controller (a GUI, a tournament manager) on stdin
and stdout, one search at a time, on the same runtime as ``arena serve``:
a :class:`~server.pool.WorkerPool` with its worker process and stop flag,
its deadline guard, its answers from the best move so far, and its
replacement of a worker that dies or freezes. One set of guarantees and
constants; this module only holds what a stdin/stdout front end needs
around the pool:

* :class:`FrontendPool`: a one-worker pool, started in the background,
  waited on, restarted with a new table size;
* :func:`search_job`: the :class:`~server.jobs.SearchJob` for a position
  and the controller's limits;
* :func:`read_lines`: the controller's lines, read by a thread so that the
  event loop keeps answering while it waits for the next one;
* :func:`protocol_stdout`: stdout kept for the protocol alone.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import dataclasses
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Final, TextIO

from engine.game import Game
from engine.search.limits import Limits, plan_deadlines
from engine.search.results import Info, SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS, ENTRY_BYTES
from server.jobs import SearchJob
from server.runtime.constants import DELIVERY_MARGIN_S, START_TIMEOUT_S
from server.runtime.memory import MAX_CACHED_SEARCHERS, TreeBudget
from server.runtime.pool import Ticket, WorkerPool

#: One controller, one search at a time: one worker.
WORKERS: Final = 1
#: A front end's worker runs at the front end's own priority. The server
#: nices its workers so that its event loop, serving many clients, comes
#: first; here the search is the only work, and a niced engine would lose
#: the CPU to its opponent in a match on the same machine.
FRONTEND_WORKER_NICE: Final = 0
#: A job needs a time by which its answer is due; UCI's ``go infinite`` and
#: searches bounded only by depth or nodes have none of their own (UCI: an
#: infinite search ends only on ``stop``). Theirs is this far off: a day,
#: which no analysis a person watches reaches.
UNTIMED_DUE_S: Final = 24 * 3600.0
#: The most a front end reads from its input at once (commands are short lines).
READ_BYTES: Final = 64 * 1024


class FrontendPool:
    """A one-worker :class:`~server.pool.WorkerPool` for one controller.

    :meth:`start` starts the worker in the background, so that the first
    commands (``uci``, ``protocol_version``) are answered while it imports
    the engine; :meth:`wait_ready` and :meth:`wait_idle` wait for it.
    """

    def __init__(self, tt_slots: int = DEFAULT_TT_SLOTS, workers: int = WORKERS) -> None:
        self.tt_slots = tt_slots
        #: Search processes: one, or a few for a search pooled over them
        #: (``arena gtp --threads``).
        self.workers = workers
        self.pool = self._new_pool(tt_slots)
        self._starting: asyncio.Task[None] | None = None

    def _new_pool(self, tt_slots: int) -> WorkerPool:
        # The front end's worker plays one game: its one table may have the
        # whole Hash the controller set (the budget gives each of the
        # MAX_CACHED_SEARCHERS a share).
        budget = TreeBudget(table_bytes=tt_slots * ENTRY_BYTES * MAX_CACHED_SEARCHERS)
        return WorkerPool(
            self.workers, tt_slots, worker_nice=FRONTEND_WORKER_NICE, tree_budget=budget
        )

    def start(self) -> None:
        """Start the worker; it imports the engine while commands are answered."""
        self._starting = asyncio.create_task(self.pool.start())

    async def resize(self, tt_slots: int) -> None:
        """A new worker with a table of ``tt_slots`` (its size is set when it starts)."""
        await self.close()
        self.tt_slots = tt_slots
        self.pool = self._new_pool(tt_slots)
        self.start()

    async def wait_ready(self) -> bool:
        """Wait until a worker has started (it may be searching); False after the time-out."""
        return await self._wait(
            lambda: self.pool.idle_workers > 0 or bool(self.pool.busy_worker_pids())
        )

    async def wait_idle(self, count: int = 1) -> bool:
        """Wait until ``count`` workers are free for a search; False after the time-out.

        A job's time starts when it is submitted: waiting here first keeps
        a replaced worker's start-up, or a stopped search's last limit
        check, out of the next search's time.
        """
        return await self._wait(lambda: self.pool.idle_workers >= min(count, self.workers))

    async def _wait(self, condition: Callable[[], bool]) -> bool:
        if self._starting is not None:
            with contextlib.suppress(RuntimeError):  # workers that will not start
                await self._starting
        return await self.pool.wait_until(condition, START_TIMEOUT_S)

    async def warm_up(self, jobs: list[SearchJob], timeout_s: float) -> bool:
        """Wait for the workers and run ``jobs``, tiny searches (one a worker), to their
        end or ``timeout_s``.

        A cold search process imports and builds what its search needs on
        its first search: done here, before the controller's clock runs,
        the first real search is charged for searching only. False when no
        worker started.
        """
        if not await self.wait_ready() or not await self.wait_idle(len(jobs)):
            return False
        tickets = [self.submit(job) for job in jobs]
        _, pending = await asyncio.wait({ticket.answer for ticket in tickets}, timeout=timeout_s)
        for ticket in tickets:
            if ticket.answer in pending:
                ticket.stop()  # answered at once by the pool; the next search waits for it
        return True

    def submit(
        self, job: SearchJob, on_info: Callable[[Info], None] | None = None
    ) -> Ticket[SearchResult]:
        """Queue ``job``; ``ticket.answer`` is its one answer, by ``job.deadline``."""
        return self.pool.submit(job, on_info)

    def still_searching(self) -> bool:
        """Whether the worker is still on a search: after an answer, it came without it."""
        return bool(self.pool.busy_worker_pids())

    async def close(self) -> None:
        """Stop the worker (a running search is dropped)."""
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await self._starting
            self._starting = None
        await self.pool.close()


def search_job(
    think_id: int,
    game: Game[Any, Any],
    state: Any,
    limits: Limits,
    algorithm: str,
    now: float,
    multipv: int = 1,
    searchmoves: tuple[str, ...] = (),
) -> SearchJob:
    """The job that searches ``state`` within ``limits``, planned at ``now``.

    ``multipv`` root lines are reported; ``searchmoves`` restricts the root
    (:class:`~engine.search.request.SearchRequest`).

    The search gets the whole time the limits allow, as it did in its own
    process; the answer is due the pool's delivery margin after that
    (within the time a front end keeps back, e.g. UCI's Move Overhead).
    ``state`` must have a legal move (its first is the fallback answer).
    """
    # The game's estimate of the moves to come: only for a clock to share out.
    moves_left = game.moves_left(state) if limits.clock is not None else None
    deadlines = plan_deadlines(limits, now, moves_left)
    search_ends = deadlines.hard if deadlines.hard is not None else now + UNTIMED_DUE_S
    due = dataclasses.replace(deadlines, hard=search_ends + DELIVERY_MARGIN_S)
    fallback = game.format_move(state, game.legal_moves(state)[0])
    return SearchJob(
        think_id, game, state, limits, due, fallback, algorithm, False, multipv, searchmoves
    )


async def read_lines(read: TextIO) -> AsyncIterator[str]:
    """The lines of ``read`` until its end, read by a thread (the loop never blocks on it)."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def deliver(line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody reads
            loop.call_soon_threadsafe(lines.put_nowait, line)

    def pump() -> None:
        try:
            for line in _lines(read):
                deliver(line)
        except (OSError, ValueError):
            pass  # stdin closed under us: the end of input
        finally:
            deliver(None)

    threading.Thread(target=pump, name="arena-frontend-input", daemon=True).start()
    while (line := await lines.get()) is not None:
        yield line


def _lines(read: TextIO) -> Iterator[str]:
    """The lines of ``read``; from its file descriptor when it has one.

    A thread blocked in a buffered file's read holds the file's lock; if
    the process exits meanwhile (after ``quit``), closing that file at
    interpreter shutdown cannot take the lock and aborts. Reading the
    descriptor itself holds no lock.
    """
    try:
        fd = read.fileno()
    except (AttributeError, OSError, ValueError):
        yield from read  # an in-memory file (tests)
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while chunk := os.read(fd, READ_BYTES):
        pending += decoder.decode(chunk).replace("\r\n", "\n")
        *complete, pending = pending.split("\n")
        yield from (line + "\n" for line in complete)
    pending += decoder.decode(b"", final=True)
    if pending:
        yield pending


@contextlib.contextmanager
def protocol_stdout() -> Iterator[TextIO]:
    """This process's stdout, for the protocol alone; file descriptor 1 is stderr meanwhile.

    The worker processes inherit descriptor 1: anything printed there, by
    them or by a library here, would reach the controller as a protocol
    line. Writes to the returned file go to the real stdout.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(saved, "w", encoding="utf-8", errors="replace")
    try:
        yield out
    finally:
        with contextlib.suppress(OSError, ValueError):
            out.flush()
        os.dup2(saved, 1)
        with contextlib.suppress(OSError):
            out.close()
