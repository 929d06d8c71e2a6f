"""The worker pool: searches in processes, with exactly one answer per think, on time.

:meth:`WorkerPool.submit` queues a :class:`~server.jobs.SearchJob` and
returns a :class:`Ticket` (or raises :class:`QueueFull` when the queue is at
its bound: admission control); awaiting ``ticket.answer`` always gives one
:class:`~engine.search.results.SearchResult` with a legal move, whatever happens to
the worker. :meth:`WorkerPool.submit_trace` does the same for a
:class:`~server.jobs.TraceJob`: its answer is the encoded reply, the trace or
an error, by the trace's deadline. Traces share the queue, its bound and
its order with thinks. The event loop, not the worker, owns the deadline, and it never
searches itself: every answer it makes without a worker costs a few
attribute reads.

* the worker is told to finish :data:`DELIVERY_MARGIN_S` before the
  deadline, leaving time for the result to cross the pipe and the socket;
* if no result has arrived :data:`GUARD_LEAD_S` before the deadline (a slow,
  frozen or dead worker), the loop answers from the last progress report
  (the best move so far) or, if there was none, with the job's
  ``fallback_move`` at depth 0, stops the worker, and replaces it if it
  does not come back within :data:`WORKER_GRACE_S`;
* a think that waited in the queue until its budget was (nearly) gone is
  answered at once with its ``fallback_move`` and reason ``overloaded``: no
  worker searched it, and the answer says so;
* ``stop`` sets the worker's shared flag and answers at once from the best
  move reported so far (what the stopped search would answer); before the
  first completed depth it waits for the worker's own answer, and if that
  has not come :data:`STOP_GRACE_S` later, answers as above;
* fairness: a think without a time limit (an analysis) that has run for
  :data:`PREEMPT_AFTER_S` while other thinks wait for a worker is stopped
  and answered with reason ``preempted``, so that one analysis cannot keep
  a worker from everybody else.

Workers are ``spawn``-ed once (forking a process that runs an event loop
and threads is unsafe) and reused; a worker that dies, even by SIGKILL, is
noticed by end-of-file on its pipe and replaced, and its think is answered
from the best move so far (reason ``worker_lost``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import multiprocessing
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from engine.search.limits import Limits
from engine.search.results import Info, SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS
from server.external import ExternalEngine
from server.jobs import Job, SearchJob, TraceJob
from server.protocol import Encoding, encode, error_message
from server.worker import StopFlag, TraceReply, TraceTask, WorkerJob, worker_main

logger = logging.getLogger(__name__)

#: The worker must finish this long before the deadline. It covers the
#: search's own overshoot (a limit check every 256 nodes, 4-13 ms at this
#: engine's speed) for most games, so that its result usually arrives
#: before the guard below fires; the rest is the guard's job. Measured hop
#: from the worker's result to the client's socket on loopback: under 1 ms.
DELIVERY_MARGIN_S = 0.015
#: If a result is still missing this long before the deadline, the event
#: loop answers by itself. The answer takes two more turns of the loop to
#: reach the socket (the think's task, then the connection's writer); with
#: 100 clients on 2 workers a turn of the loop was late by up to 5 ms at
#: p99 (bench/load_bench.py), and a 5 ms lead let 0.4% of the answers be
#: up to 5 ms late. 8 ms keeps them on time there.
GUARD_LEAD_S = 0.008
#: A think with less budget than this when it could go to a worker is not
#: searched: the delivery margin and the guard's lead leave the search no
#: time. It is answered at once with its fallback move, depth 0 (reason
#: ``time`` if it never waited, ``overloaded`` if waiting ate its budget).
MIN_WORKER_BUDGET_S = DELIVERY_MARGIN_S + GUARD_LEAD_S
#: After ``stop``, how long the loop waits for the worker before answering
#: from the best move so far. A healthy worker answers within one limit
#: check (well under 30 ms); this only fires for a frozen one.
STOP_GRACE_S = 0.25
#: A stopped or overdue worker that has still not answered after this long
#: is considered frozen: it is killed and replaced.
WORKER_GRACE_S = 2.0
#: Thinks that may wait for a worker, per worker, before new ones are
#: refused with ``overloaded`` (``arena serve --max-queue`` overrides the
#: product). Four per worker: a think at the back waits for about four
#: others per worker, already several times a typical budget; a longer
#: queue only turns more thinks into ``overloaded`` answers after a wait,
#: where a refusal at once lets the client retry later or go elsewhere.
QUEUE_PER_WORKER = 4
#: An untimed think (analysis) that has run this long is preempted when
#: another think waits for a worker: long enough for any analysis a person
#: watches to reach a useful depth, short against the 10-minute cap.
PREEMPT_AFTER_S = 10.0
#: Bounds of the retry hint sent with a refusal, and the starting guess of
#: how long a think holds a worker (refined by a moving average).
MIN_RETRY_AFTER_MS = 50
MAX_RETRY_AFTER_MS = 30_000
INITIAL_SERVICE_S = 0.25
SERVICE_AVERAGE_WEIGHT = 0.1
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
#: thinks are then answered ``overloaded`` at their deadline).
MAX_START_FAILURES = 3


class QueueFull(Exception):
    """The think was refused: ``max_queue`` thinks already wait for a worker.

    ``retry_after_ms`` estimates when a worker may be free; tell the client.
    """

    def __init__(self, retry_after_ms: int, max_queue: int) -> None:
        super().__init__(
            f"the server is overloaded: {max_queue} thinks already wait for a search process; "
            f"retry in about {retry_after_ms} ms or use another server"
        )
        self.retry_after_ms = retry_after_ms


#: What a ticket's answer is: a SearchResult for a think, a TraceReply for a trace.
A = TypeVar("A")


class Ticket(Generic[A]):
    """A submitted job: await :attr:`answer`, or call :meth:`stop` / :meth:`cancel`.

    ``on_info`` is called from the event loop with each progress report, as
    soon as it arrives from the worker, until the answer is set.
    :attr:`queued_ms` says how long the job waited for a worker (until it
    was answered, if it never got one). ``encoding`` is a trace's reply
    encoding (``None`` for a think).
    """

    def __init__(
        self,
        pool: WorkerPool,
        job: Job,
        on_info: Callable[[Info], None] | None,
        encoding: Encoding | None = None,
    ) -> None:
        self.job = job
        self.encoding = encoding
        self.answer: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self._pool = pool
        self._on_info = on_info
        self.worker: _Worker | None = None
        self.last_info: Info | None = None
        self.completed_depth = 0
        #: Set by stop or preemption: the reason the answer will carry.
        self.stop_reason: str | None = None
        self.dispatched_at: float | None = None
        self.queued_ms = 0
        self.timers: list[asyncio.TimerHandle] = []

    @property
    def done(self) -> bool:
        return self.answer.done()

    def stop(self) -> None:
        """Ask for the answer now (best move so far); idempotent."""
        self._pool._stop(self, "stopped")

    def cancel(self) -> None:
        """Drop the think: no answer is wanted, and its worker is freed at once."""
        self._pool._cancel(self)

    def report(self, info: Info) -> None:
        if self.done:
            return
        if info.pv:  # a report without a move cannot answer for the search
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

    def __init__(self, number: int, process: BaseProcess, conn: Connection, flag: StopFlag) -> None:
        self.number = number
        self.process = process
        self.conn = conn
        self.flag = flag
        self.state = "starting"  # starting | idle | busy | draining | retired
        self.ticket: Ticket[Any] | None = None
        self.seq = 0
        self.grace: asyncio.TimerHandle | None = None


class WorkerPool:
    """``size`` search processes, a bounded fair FIFO queue, and the guarantees above."""

    def __init__(
        self,
        size: int,
        tt_slots: int = DEFAULT_TT_SLOTS,
        worker_grace_s: float = WORKER_GRACE_S,
        worker_nice: int = WORKER_NICE,
        max_queue: int | None = None,
        preempt_after_s: float = PREEMPT_AFTER_S,
        externals: tuple[ExternalEngine, ...] = (),
    ) -> None:
        """``externals`` are the engine programs the workers run for their games' thinks."""
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        self.size = size
        self.tt_slots = tt_slots
        self.worker_grace_s = worker_grace_s
        self.worker_nice = worker_nice
        self.max_queue = QUEUE_PER_WORKER * size if max_queue is None else max_queue
        self.preempt_after_s = preempt_after_s
        self.externals = externals
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._queue: deque[Ticket[Any]] = deque()
        self._spawned = 0
        self._closing = False
        self._reapers: set[asyncio.Task[None]] = set()
        self.replaced = 0
        self._start_failures = 0
        self._service_s = INITIAL_SERVICE_S
        self._preempt_timer: asyncio.TimerHandle | None = None

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
        if self._preempt_timer is not None:
            self._preempt_timer.cancel()
        while self._queue:
            self._answer_unsearched(self._queue.popleft(), "stopped")
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
            w.process.pid
            for w in self._workers
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
            args=(child_conn, flag, self.tt_slots, self.worker_nice, self.externals),
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
                logger.error(
                    "search worker %d died while starting (%s); not replacing it",
                    worker.number,
                    why,
                )
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

    def submit(
        self, job: SearchJob, on_info: Callable[[Info], None] | None = None
    ) -> Ticket[SearchResult]:
        """Queue ``job``; the ticket's answer arrives by ``job.deadline`` at the latest.

        Raises :class:`QueueFull` (and queues nothing) when ``max_queue``
        jobs already wait and no worker is free: refuse the think.
        """
        ticket: Ticket[SearchResult] = Ticket(self, job, on_info)
        self._admit(ticket)
        return ticket

    def submit_trace(self, job: TraceJob, encoding: Encoding) -> Ticket[TraceReply]:
        """Queue a trace; its answer (the reply, encoded) arrives by ``job.deadline``.

        Raises :class:`QueueFull` as :meth:`submit` does.
        """
        ticket: Ticket[TraceReply] = Ticket(self, job, None, encoding)
        self._admit(ticket)
        return ticket

    def _admit(self, ticket: Ticket[Any]) -> None:
        job = ticket.job
        if self._closing:
            self._answer_unsearched(ticket, "stopped")
            return
        if len(self._queue) >= self.max_queue and self.idle_workers == 0:
            raise QueueFull(self.retry_after_ms(), self.max_queue)
        if job.deadline - time.monotonic() < MIN_WORKER_BUDGET_S:
            self._answer_unsearched(ticket, "time")  # too short to search, not overloaded
            return
        ticket.timers.append(self._call_at(job.deadline - GUARD_LEAD_S, self._on_deadline, ticket))
        self._queue.append(ticket)
        self._dispatch()

    def retry_after_ms(self) -> int:
        """When a refused think might find a worker: the queue's length in think times."""
        waits = (len(self._queue) + 1) / max(1, len(self._workers))
        estimate = math.ceil(waits * self._service_s * 1000)
        return max(MIN_RETRY_AFTER_MS, min(MAX_RETRY_AFTER_MS, estimate))

    def _stop(self, ticket: Ticket[Any], reason: str) -> None:
        if ticket.done or ticket.stop_reason is not None:
            return
        ticket.stop_reason = reason
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._answer_unsearched(ticket, reason)
        elif ticket.worker is not None and ticket.worker.ticket is ticket:
            worker = ticket.worker
            if ticket.completed_depth > 0 and ticket.last_info is not None:
                # A stopped search answers with its best move so far, which
                # it has already reported: answering now saves waiting for
                # its next limit check. The worker is freed when it stops.
                self._drain(worker)
                self._answer_without_worker(ticket, reason)
                return
            worker.flag.set()  # nothing reported yet: the worker's own answer is needed
            ticket.timers.append(
                self._call_at(time.monotonic() + STOP_GRACE_S, self._on_stop_overdue, ticket)
            )

    def _cancel(self, ticket: Ticket[Any]) -> None:
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
                self._schedule_preemption()
                return
            ticket = self._queue.popleft()
            if ticket.job.deadline - time.monotonic() < MIN_WORKER_BUDGET_S:
                self._answer_unsearched(ticket, "overloaded")
                continue
            self._send(worker, ticket)

    def _send(self, worker: _Worker, ticket: Ticket[Any]) -> None:
        job = ticket.job
        worker.seq += 1
        worker.flag.clear()
        task = None
        if isinstance(job, TraceJob):
            assert ticket.encoding is not None  # submit_trace sets it
            task = TraceTask(
                job.depth, job.max_nodes, job.playouts, job.seed, job.trace_id, ticket.encoding
            )
        # The search ends a delivery margin early; the job's own deadline is unchanged.
        message = WorkerJob(
            worker.seq,
            job.game.name,
            dict(job.game.options),
            job.state,
            job.limits if isinstance(job, SearchJob) else Limits(),
            job.deadlines.capped(job.deadline - DELIVERY_MARGIN_S),
            job.algorithm,
            task,
        )
        try:
            worker.conn.send(message)
        except OSError:
            self._queue.appendleft(ticket)
            self._retire(worker, "its pipe is broken")
            return
        now = time.monotonic()
        worker.state = "busy"
        worker.ticket = ticket
        ticket.worker = worker
        ticket.dispatched_at = now
        ticket.queued_ms = int((now - job.received_at) * 1000)

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
        if ticket.dispatched_at is not None:
            served = time.monotonic() - ticket.dispatched_at
            self._service_s += SERVICE_AVERAGE_WEIGHT * (served - self._service_s)
        if kind == "done":
            if not ticket.done:
                self._answer_from_result(ticket, message[2])
        else:
            logger.error("search failed in worker %d:\n%s", worker.number, message[2])
            if not ticket.done:
                self._answer_without_worker(ticket, "worker_lost")
        self._dispatch()

    # ------------------------------------------------------------------
    # Guards.

    def _on_deadline(self, ticket: Ticket[Any]) -> None:
        if ticket.done:
            return
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._answer_unsearched(ticket, "overloaded")
            return
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker)
        self._answer_without_worker(ticket, ticket.stop_reason or "time")

    def _on_stop_overdue(self, ticket: Ticket[Any]) -> None:
        if ticket.done:
            return
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker)
        self._answer_without_worker(ticket, ticket.stop_reason or "stopped")

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
    # Fairness: an analysis gives way to waiting thinks after a while.

    def _analyses(self) -> list[Ticket[Any]]:
        """The untimed thinks searching now (not already being stopped), oldest first."""
        running = [
            w.ticket
            for w in self._workers
            if w.state == "busy"
            and w.ticket is not None
            and w.ticket.job.untimed
            and w.ticket.dispatched_at is not None
            and w.ticket.stop_reason is None
        ]
        return sorted(running, key=lambda ticket: ticket.dispatched_at or 0.0)

    def _schedule_preemption(self) -> None:
        """While thinks wait, preempt the oldest analysis once it has run long enough."""
        if self._preempt_timer is not None or not self._queue:
            return
        analyses = self._analyses()
        if analyses:
            due = (analyses[0].dispatched_at or 0.0) + self.preempt_after_s
            self._preempt_timer = self._call_at(due, self._preempt)

    def _preempt(self) -> None:
        self._preempt_timer = None
        if not self._queue or self.idle_workers > 0:
            return
        analyses = self._analyses()
        now = time.monotonic()
        if analyses and now - (analyses[0].dispatched_at or now) >= self.preempt_after_s:
            logger.info(
                "preempting an analysis after %.0f s: %d thinks wait for a worker",
                now - (analyses[0].dispatched_at or now),
                len(self._queue),
            )
            self._stop(analyses[0], "preempted")
        self._schedule_preemption()

    # ------------------------------------------------------------------
    # Answers.

    def _finish(self, ticket: Ticket[Any]) -> None:
        for timer in ticket.timers:
            timer.cancel()
        ticket.timers.clear()

    def _set_answer(self, ticket: Ticket[A], result: A) -> None:
        self._finish(ticket)
        if ticket.dispatched_at is None:
            ticket.queued_ms = self._elapsed_ms(ticket)
        if not ticket.answer.done():
            ticket.answer.set_result(result)

    def _elapsed_ms(self, ticket: Ticket[Any]) -> int:
        return int((time.monotonic() - ticket.job.received_at) * 1000)

    def _answer_from_result(self, ticket: Ticket[Any], result: Any) -> None:
        if isinstance(ticket.job, TraceJob):
            self._set_answer(ticket, result)
            return
        if result.move is None:  # cannot happen: the session never sends a finished game
            self._answer_without_worker(ticket, result.reason)
            return
        reason = result.reason
        if ticket.stop_reason is not None and reason in ("time", "stopped"):
            reason = ticket.stop_reason
        self._set_answer(
            ticket,
            dataclasses.replace(
                result,
                reason=reason,
                info=dataclasses.replace(result.info, time_ms=self._elapsed_ms(ticket)),
            ),
        )

    def _answer_without_worker(self, ticket: Ticket[Any], reason: str) -> None:
        """Answer from the last progress report, or unsearched if there was none."""
        info = ticket.last_info
        if info is None:
            self._answer_unsearched(ticket, reason)
            return
        self._set_answer(
            ticket,
            SearchResult.from_progress(
                info, ticket.completed_depth, reason, self._elapsed_ms(ticket)
            ),
        )

    def _answer_unsearched(self, ticket: Ticket[Any], reason: str) -> None:
        """Answer with the job's fallback move, depth 0: no search result exists.

        A trace has no fallback: it is answered with the error ``reason`` calls for.
        """
        job = ticket.job
        if isinstance(job, TraceJob):
            assert ticket.encoding is not None  # submit_trace sets it
            refusal = job.unanswered(reason)
            frame = encode(error_message(refusal), ticket.encoding)
            self._set_answer(ticket, TraceReply(frame, refusal.code.value))
            return
        self._set_answer(
            ticket,
            SearchResult.unsearched(job.fallback_move, reason, self._elapsed_ms(ticket)),
        )

    @staticmethod
    def _call_at(when: float, callback: Callable[..., Any], *args: Any) -> asyncio.TimerHandle:
        """Schedule at ``when`` in ``time.monotonic()`` seconds, whatever the loop's clock."""
        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + (when - time.monotonic()), callback, *args)
