"""The worker pool: searches in processes, with exactly one answer per think, on time.

:meth:`WorkerPool.submit` queues a :class:`~server.jobs.SearchJob` and
returns a :class:`Ticket`; awaiting ``ticket.answer`` always gives one
:class:`~server.jobs.SearchAnswer` with a legal move, whatever happens to
the worker. The event loop, not the worker, owns the deadline:

* the worker is told to finish :data:`DELIVERY_MARGIN_S` before the
  deadline, leaving time for the result to cross the pipe and the socket;
* if no result has arrived :data:`GUARD_LEAD_S` before the deadline (a slow,
  frozen or dead worker), the loop answers from the last progress report
  (the best move so far) or, if there was none, from a quick shallow search
  in-process, stops the worker, and replaces it if it does not come back
  within :data:`WORKER_GRACE_S`;
* a think that waited in the queue until its budget was nearly gone is
  answered by the quick search instead of a worker;
* ``stop`` sets the worker's shared flag and answers at once from the best
  move reported so far (what the stopped search would answer); before the
  first completed depth it waits for the worker's own answer, and if that
  has not come :data:`STOP_GRACE_S` later, answers as above.

Workers are ``spawn``-ed once (forking a process that runs an event loop
and threads is unsafe) and reused; a worker that dies, even by SIGKILL, is
noticed by end-of-file on its pipe and replaced, and its think is answered
from the best move so far (reason ``worker_lost``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from engine.game import Game
from engine.limits import Limits
from engine.results import Info
from engine.score import Score
from engine.searchers import GameSearcher, searcher_for
from engine.tt import DEFAULT_TT_SLOTS
from server.jobs import SearchAnswer, SearchJob
from server.worker import StopFlag, WorkerJob, WorkerResult, worker_main

logger = logging.getLogger(__name__)

#: The worker must finish this long before the deadline. It covers the
#: search's own overshoot (a limit check every 256 nodes, 4-13 ms at this
#: engine's speed) for most games; the rest is the guard's job. Measured hop
#: from the worker's result to the client's socket on loopback: under 1 ms.
DELIVERY_MARGIN_S = 0.010
#: If a result is still missing this long before the deadline, the event
#: loop answers by itself. It covers the hop from the loop to the client
#: (about 1.5-2 ms median on a loaded 2-core machine, bench/server_bench.py)
#: plus some scheduling jitter.
GUARD_LEAD_S = 0.005
#: A queued think with less budget left than this when a worker frees up
#: is answered by the quick in-process search: sending it to a worker would
#: cost about as much as the budget.
MIN_WORKER_BUDGET_S = 0.015
#: After ``stop``, how long the loop waits for the worker before answering
#: from the best move so far. A healthy worker answers within one limit
#: check (well under 30 ms); this only fires for a frozen one.
STOP_GRACE_S = 0.25
#: A stopped or overdue worker that has still not answered after this long
#: is considered frozen: it is killed and replaced.
WORKER_GRACE_S = 2.0
#: The quick search used when no worker result can be had in time: depth 1,
#: bounded in nodes so that even a game with quiescence answers in a few ms.
QUICK_NODES = 2_000
QUICK_TT_SLOTS = 1_024
#: Quick searchers kept (one per game and options, least recently used
#: dropped). Reusing one halves the cost of a quick answer (0.36 instead of
#: 0.70 ms for Connect Four: no new table and searcher per answer), which
#: matters when an overloaded pool answers most thinks this way.
MAX_QUICK_SEARCHERS = 8
#: Niceness added to search processes. The event loop must run the moment
#: a frame or a deadline timer is due, while a search only loses a little
#: depth if it waits a few milliseconds; on a machine with no more cores
#: than workers, equal priority let the searches delay the loop by tens of
#: milliseconds (measured with ``arena loadtest``, docs/load.md).
WORKER_NICE = 10
#: Seconds to wait for workers to start (imports) and to exit at shutdown.
START_TIMEOUT_S = 60.0
EXIT_TIMEOUT_S = 3.0
#: Workers that die before reporting ready, in a row, before the pool stops
#: replacing them (a broken installation would otherwise respawn forever;
#: thinks are then answered by the quick search at their deadline).
MAX_START_FAILURES = 3


class Ticket:
    """A submitted think: await :attr:`answer`, or call :meth:`stop` / :meth:`cancel`.

    ``on_info`` is called from the event loop with each progress report, as
    soon as it arrives from the worker, until the answer is set.
    """

    def __init__(
        self, pool: WorkerPool, job: SearchJob, on_info: Callable[[Info], None] | None
    ) -> None:
        self.job = job
        self.answer: asyncio.Future[SearchAnswer] = asyncio.get_running_loop().create_future()
        self._pool = pool
        self._on_info = on_info
        self.worker: _Worker | None = None
        self.last_info: Info | None = None
        self.completed_depth = 0
        self.stop_requested = False
        self.timers: list[asyncio.TimerHandle] = []

    @property
    def done(self) -> bool:
        return self.answer.done()

    def stop(self) -> None:
        """Ask for the answer now (best move so far); idempotent."""
        self._pool._stop(self)

    def cancel(self) -> None:
        """Drop the think: no answer is wanted, and its worker is freed at once."""
        self._pool._cancel(self)

    def report(self, info: Info) -> None:
        if self.done:
            return
        self.last_info = info
        if not info.partial:
            self.completed_depth = info.depth
        if self._on_info is not None:
            try:
                self._on_info(info)
            except Exception:
                logger.exception("progress callback failed")


class _Worker:
    """The parent's handle on one worker process."""

    def __init__(
        self, number: int, process: BaseProcess, conn: Connection, flag: StopFlag
    ) -> None:
        self.number = number
        self.process = process
        self.conn = conn
        self.flag = flag
        self.state = "starting"  # starting | idle | busy | draining | retired
        self.ticket: Ticket | None = None
        self.seq = 0
        self.grace: asyncio.TimerHandle | None = None


class WorkerPool:
    """``size`` search processes, a fair FIFO queue, and the timing guarantees above."""

    def __init__(
        self,
        size: int,
        tt_slots: int = DEFAULT_TT_SLOTS,
        worker_grace_s: float = WORKER_GRACE_S,
        worker_nice: int = WORKER_NICE,
    ) -> None:
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        self.size = size
        self.tt_slots = tt_slots
        self.worker_grace_s = worker_grace_s
        self.worker_nice = worker_nice
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._queue: deque[Ticket] = deque()
        self._spawned = 0
        self._closing = False
        self._reapers: set[asyncio.Task[None]] = set()
        self.replaced = 0
        self._start_failures = 0
        self._quick_searchers: OrderedDict[str, GameSearcher] = OrderedDict()

    # ------------------------------------------------------------------
    # Life cycle.

    async def start(self) -> None:
        """Start the workers and wait until each has imported the engine."""
        for _ in range(self.size):
            self._spawn()
        deadline = time.monotonic() + START_TIMEOUT_S
        while any(worker.state == "starting" for worker in self._workers):
            if self._start_failures >= MAX_START_FAILURES:
                raise RuntimeError("search workers die as they start; see the log")
            if time.monotonic() > deadline:
                raise RuntimeError("search workers did not start in time")
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        """Answer what is queued, ask every worker to exit, kill stragglers, reap all."""
        self._closing = True
        while self._queue:
            self._answer_quick(self._queue.popleft(), "stopped")
        workers = list(self._workers)
        for worker in workers:
            if worker.state in ("busy", "draining"):
                worker.flag.set()
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        await asyncio.gather(*(self._reap(worker.process) for worker in workers))
        for worker in workers:
            self._retire(worker, "server shutting down", kill=False)
        if self._reapers:
            await asyncio.gather(*self._reapers)

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for tests and monitoring)."""
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    def busy_worker_pids(self) -> list[int]:
        """Process ids of the workers searching right now."""
        return [
            w.process.pid for w in self._workers
            if w.state in ("busy", "draining") and w.process.pid is not None
        ]

    @property
    def idle_workers(self) -> int:
        return sum(1 for worker in self._workers if worker.state == "idle")

    @property
    def queued(self) -> int:
        return len(self._queue)

    def _spawn(self) -> None:
        self._spawned += 1
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        flag = StopFlag(self._context)
        process = self._context.Process(
            target=worker_main,
            args=(child_conn, flag, self.tt_slots, self.worker_nice),
            name=f"arena-worker-{self._spawned}",
            daemon=True,
        )
        process.start()
        child_conn.close()  # else end-of-file never comes when the worker dies
        worker = _Worker(self._spawned, process, parent_conn, flag)
        self._workers.append(worker)
        asyncio.get_running_loop().add_reader(parent_conn.fileno(), self._on_readable, worker)

    def _retire(self, worker: _Worker, why: str, kill: bool = True) -> None:
        """Take ``worker`` out of service for good; answer its think; replace it."""
        if worker.state == "retired":
            return
        was_starting = worker.state == "starting"
        worker.state = "retired"
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(worker.conn.fileno())
        worker.conn.close()
        if worker.grace is not None:
            worker.grace.cancel()
        if kill and worker.process.is_alive():
            worker.process.kill()
        if worker in self._workers:
            self._workers.remove(worker)
        reaper = loop.create_task(self._reap(worker.process))
        self._reapers.add(reaper)
        reaper.add_done_callback(self._reapers.discard)
        ticket = worker.ticket
        worker.ticket = None
        if ticket is not None and not ticket.done:
            self._answer_without_worker(ticket, "worker_lost")
        if self._closing:
            return
        if was_starting:
            self._start_failures += 1
            if self._start_failures >= MAX_START_FAILURES:
                logger.error("search worker %d died while starting (%s); not replacing it",
                             worker.number, why)
                return
        logger.warning("search worker %d replaced: %s", worker.number, why)
        self.replaced += 1
        self._spawn()

    async def _reap(self, process: BaseProcess) -> None:
        """Wait for ``process`` to exit without blocking the loop; kill it if it will not."""
        deadline = time.monotonic() + EXIT_TIMEOUT_S
        while process.is_alive():  # is_alive() also reaps the zombie
            if time.monotonic() > deadline:
                process.kill()
                deadline = time.monotonic() + EXIT_TIMEOUT_S
            await asyncio.sleep(0.01)

    # ------------------------------------------------------------------
    # Submitting, stopping, cancelling.

    def submit(self, job: SearchJob, on_info: Callable[[Info], None] | None = None) -> Ticket:
        """Queue ``job``; the ticket's answer arrives by ``job.deadline`` at the latest."""
        ticket = Ticket(self, job, on_info)
        if self._closing:
            self._answer_quick(ticket, "stopped")
            return ticket
        ticket.timers.append(self._call_at(job.deadline - GUARD_LEAD_S, self._on_deadline, ticket))
        self._queue.append(ticket)
        self._dispatch()
        return ticket

    def _stop(self, ticket: Ticket) -> None:
        if ticket.done or ticket.stop_requested:
            return
        ticket.stop_requested = True
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._answer_quick(ticket, "stopped")
        elif ticket.worker is not None and ticket.worker.ticket is ticket:
            worker = ticket.worker
            if ticket.completed_depth > 0 and ticket.last_info is not None:
                # A stopped search answers with its best move so far, which
                # it has already reported: answering now saves waiting for
                # its next limit check. The worker is freed when it stops.
                self._drain(worker)
                self._answer_without_worker(ticket, "stopped")
                return
            worker.flag.set()  # nothing reported yet: the worker's own answer is needed
            ticket.timers.append(
                self._call_at(time.monotonic() + STOP_GRACE_S, self._on_stop_overdue, ticket)
            )

    def _cancel(self, ticket: Ticket) -> None:
        if ticket in self._queue:
            self._queue.remove(ticket)
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket and worker.state == "busy":
            self._drain(worker)
        self._finish(ticket)
        ticket.answer.cancel()

    # ------------------------------------------------------------------
    # Dispatching.

    def _dispatch(self) -> None:
        while self._queue:
            worker = next((w for w in self._workers if w.state == "idle"), None)
            if worker is None:
                return
            ticket = self._queue.popleft()
            if ticket.job.deadline - time.monotonic() < MIN_WORKER_BUDGET_S:
                self._answer_quick(ticket, "time")
                continue
            self._send(worker, ticket)

    def _send(self, worker: _Worker, ticket: Ticket) -> None:
        job = ticket.job
        worker.seq += 1
        worker.flag.clear()
        message = WorkerJob(
            worker.seq,
            job.game.name,
            dict(job.game.options),
            job.state,
            job.limits,
            job.received_at,
            job.deadline - DELIVERY_MARGIN_S,
        )
        try:
            worker.conn.send(message)
        except OSError:
            self._queue.appendleft(ticket)
            self._retire(worker, "its pipe is broken")
            return
        worker.state = "busy"
        worker.ticket = ticket
        ticket.worker = worker

    # ------------------------------------------------------------------
    # Messages from workers.

    def _on_readable(self, worker: _Worker) -> None:
        try:
            while worker.state != "retired" and worker.conn.poll():
                self._on_message(worker, worker.conn.recv())
        except (EOFError, OSError):
            self._retire(worker, f"process exited (code {worker.process.exitcode})")

    def _on_message(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "ready":
            worker.state = "idle"
            self._start_failures = 0
            self._dispatch()
            return
        if message[1] != worker.seq or worker.ticket is None:
            return  # a report of a job already retired with its worker
        ticket = worker.ticket
        if kind == "info":
            ticket.report(message[2])
            return
        worker.ticket = None
        worker.state = "idle"
        if worker.grace is not None:
            worker.grace.cancel()
            worker.grace = None
        if kind == "done":
            if not ticket.done:
                self._answer_from_result(ticket, message[2])
        else:
            logger.error("search failed in worker %d:\n%s", worker.number, message[2])
            if not ticket.done:
                self._answer_without_worker(ticket, "stopped")
        self._dispatch()

    # ------------------------------------------------------------------
    # Guards.

    def _on_deadline(self, ticket: Ticket) -> None:
        if ticket.done:
            return
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._answer_quick(ticket, "time")
            return
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker)
        self._answer_without_worker(ticket, "time")

    def _on_stop_overdue(self, ticket: Ticket) -> None:
        if ticket.done:
            return
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker)
        self._answer_without_worker(ticket, "stopped")

    def _drain(self, worker: _Worker) -> None:
        """Stop ``worker``'s search, whose answer is no longer wanted; replace it if it hangs."""
        worker.flag.set()
        if worker.state == "busy":
            worker.state = "draining"
            worker.grace = self._call_at(
                time.monotonic() + self.worker_grace_s,
                self._retire,
                worker,
                f"no answer {self.worker_grace_s:g} s after being stopped",
            )

    # ------------------------------------------------------------------
    # Answers.

    def _finish(self, ticket: Ticket) -> None:
        for timer in ticket.timers:
            timer.cancel()
        ticket.timers.clear()

    def _set_answer(self, ticket: Ticket, answer: SearchAnswer) -> None:
        self._finish(ticket)
        if not ticket.answer.done():
            ticket.answer.set_result(answer)

    def _elapsed_ms(self, ticket: Ticket) -> int:
        return int((time.monotonic() - ticket.job.received_at) * 1000)

    def _answer_from_result(self, ticket: Ticket, result: WorkerResult) -> None:
        if result.move is None:  # cannot happen: the session never sends a finished game
            self._answer_without_worker(ticket, result.reason)
            return
        self._set_answer(
            ticket,
            SearchAnswer(
                result.move,
                result.score,
                result.depth,
                result.seldepth,
                result.pv,
                result.nodes,
                self._elapsed_ms(ticket),
                "stopped" if ticket.stop_requested and result.reason == "time" else result.reason,
            ),
        )

    def _answer_without_worker(self, ticket: Ticket, reason: str) -> None:
        """Answer from the last progress report, or from a quick search if there was none."""
        info = ticket.last_info
        if info is None or not info.pv:
            self._answer_quick(ticket, reason)
            return
        self._set_answer(
            ticket,
            SearchAnswer(
                info.pv[0],
                info.score,
                ticket.completed_depth,
                info.seldepth,
                info.pv,
                info.nodes,
                self._elapsed_ms(ticket),
                reason,
            ),
        )

    def _answer_quick(self, ticket: Ticket, reason: str) -> None:
        """Answer from a depth-1 search in this process (a few milliseconds at most)."""
        job = ticket.job
        move: str | None = None
        score, depth, nodes = Score(value=0), 0, 0
        pv: tuple[str, ...] = ()
        try:
            quick = Limits(depth=1, nodes=QUICK_NODES)
            result = self._quick_searcher(job.game).think(job.state, quick)
            move, score, depth, pv, nodes = (
                result.move, result.score, result.depth, result.pv, result.nodes
            )
        except Exception:
            logger.exception("quick search failed; answering with the first legal move")
        if move is None:
            legal = job.game.legal_moves(job.state)
            move = job.game.format_move(job.state, legal[0])
            pv = (move,)
        self._set_answer(
            ticket,
            SearchAnswer(move, score, depth, depth, pv, nodes, self._elapsed_ms(ticket), reason),
        )

    def _quick_searcher(self, game: Game[Any, Any]) -> GameSearcher:
        """The in-process searcher for quick answers in ``game`` (same name and options)."""
        key = json.dumps([game.name, game.options], sort_keys=True, default=list)
        searcher = self._quick_searchers.get(key)
        if searcher is None:
            searcher = searcher_for(game, QUICK_TT_SLOTS)
            self._quick_searchers[key] = searcher
            while len(self._quick_searchers) > MAX_QUICK_SEARCHERS:
                self._quick_searchers.popitem(last=False)
        else:
            self._quick_searchers.move_to_end(key)
        return searcher

    @staticmethod
    def _call_at(when: float, callback: Callable[..., Any], *args: Any) -> asyncio.TimerHandle:
        """Schedule at ``when`` in ``time.monotonic()`` seconds, whatever the loop's clock."""
        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + (when - time.monotonic()), callback, *args)
