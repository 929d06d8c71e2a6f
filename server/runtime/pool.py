"""The worker pool: searches in processes, with exactly one answer per think, on time.

This module is the thin asyncio side of the pool. Every decision (queue,
guard, stop, preemption, fallbacks, replacement) is made by the sans-I/O
:class:`~server.runtime.scheduler.Scheduler`; :class:`WorkerPool` owns what
the scheduler cannot: the worker processes, their pipes and stop flags,
the one timer, and the futures the sessions await. It turns pipe messages,
end-of-file and the timer into the scheduler's events, and carries out the
commands it returns.

:meth:`WorkerPool.submit` queues a :class:`~server.jobs.SearchJob` and
returns a :class:`Ticket` (or raises :class:`QueueFull` when the queue is at
its bound: admission control); awaiting ``ticket.answer`` always gives one
:class:`~engine.search.results.SearchResult` with a legal move, whatever happens to
the worker. :meth:`WorkerPool.submit_trace` does the same for a
:class:`~server.jobs.TraceJob`: its answer is the encoded reply, the trace or
an error, by the trace's deadline. Traces share the queue, its bound and
its order with thinks. The guarantees are listed in
:mod:`server.runtime.scheduler`, their figures in :mod:`server.runtime.constants`.

Workers are ``spawn``-ed once (forking a process that runs an event loop
and threads is unsafe) and reused; a worker that dies, even by SIGKILL, is
noticed by end-of-file on its pipe and replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from engine.search.limits import Limits
from engine.search.results import Info, SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS
from protocol.codec import Encoding
from server.external import STARTUP_WAIT_S, ExternalEngine
from server.jobs import Job, SearchJob, TraceJob
from server.runtime.constants import (
    DELIVERY_MARGIN_S,
    EXIT_TIMEOUT_S,
    MAX_START_FAILURES,
    PREEMPT_AFTER_S,
    START_TIMEOUT_S,
    TRACE_PREEMPT_AFTER_S,
    WORKER_GRACE_S,
    WORKER_NICE,
)
from server.runtime.memory import TreeBudget
from server.runtime.scheduler import (
    ArmTimer,
    Command,
    Deliver,
    ExitWorker,
    Kill,
    QueueFull,
    ReportInfo,
    Scheduler,
    SendJob,
    SetStopFlag,
    Spawn,
    TicketId,
    WorkerId,
    WorkerState,
)
from server.runtime.trace_cost import TraceRates
from server.runtime.worker import StopFlag, TraceReply, TraceTask, WorkerJob, worker_main

__all__ = ["QueueFull", "Ticket", "WorkerPool"]

logger = logging.getLogger(__name__)

#: What a ticket's answer is: a SearchResult for a think, a TraceReply for a trace.
A = TypeVar("A")


class Ticket(Generic[A]):
    """A submitted job: await :attr:`answer`, or call :meth:`stop` / :meth:`cancel`.

    ``on_info`` is called from the event loop with each progress report, as
    soon as it arrives from the worker, until the answer is set.
    :attr:`queued_ms` says how long the job waited for a worker (until it
    was answered, if it never got one); it is set with the answer.
    ``encoding`` is a trace's reply encoding (``None`` for a think).
    """

    def __init__(
        self,
        pool: WorkerPool,
        number: TicketId,
        job: Job,
        on_info: Callable[[Info], None] | None,
        encoding: Encoding | None = None,
        client: Hashable | None = None,
    ) -> None:
        self.job = job
        self.encoding = encoding
        self.client = client
        self.number = number
        self.answer: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self.queued_ms = 0
        self._pool = pool
        self._on_info = on_info

    @property
    def done(self) -> bool:
        return self.answer.done()

    def stop(self) -> None:
        """Ask for the answer now (best move so far); idempotent."""
        self._pool._stop(self)

    def cancel(self) -> None:
        """Drop the job: no answer is wanted, and its worker is freed at once."""
        self._pool._cancel(self)

    def _report(self, info: Info) -> None:
        if self._on_info is None or self.done:
            return
        try:
            self._on_info(info)
        except Exception:
            logger.exception("progress callback failed")


@dataclass(slots=True)
class _Process:
    """The parent's handle on one worker process."""

    process: BaseProcess
    conn: Connection
    flag: StopFlag


class WorkerPool:
    """``size`` search processes, a bounded fair FIFO queue, and the scheduler's guarantees."""

    def __init__(
        self,
        size: int,
        tt_slots: int = DEFAULT_TT_SLOTS,
        worker_grace_s: float = WORKER_GRACE_S,
        worker_nice: int = WORKER_NICE,
        max_queue: int | None = None,
        preempt_after_s: float = PREEMPT_AFTER_S,
        externals: tuple[ExternalEngine, ...] = (),
        trace_preempt_after_s: float = TRACE_PREEMPT_AFTER_S,
        tree_budget: TreeBudget | None = None,
        program_wait_s: float = STARTUP_WAIT_S,
    ) -> None:
        """``externals`` are the engine programs the workers run for their games' thinks.

        A starting worker waits up to ``program_wait_s`` for their handshakes.
        """
        self.scheduler = Scheduler(
            size,
            max_queue=max_queue,
            worker_grace_s=worker_grace_s,
            preempt_after_s=preempt_after_s,
            trace_preempt_after_s=trace_preempt_after_s,
        )
        self.size = size
        self.tt_slots = tt_slots
        self.worker_grace_s = worker_grace_s
        self.worker_nice = worker_nice
        self.max_queue = self.scheduler.max_queue
        self.preempt_after_s = preempt_after_s
        self.externals = externals
        self.program_wait_s = program_wait_s
        #: Each worker's bound on its Monte Carlo trees (server/runtime/memory.py).
        self.tree_budget = tree_budget or TreeBudget()
        #: Measured speeds of Monte Carlo traces, to refuse impossible ones early.
        self.trace_rates = TraceRates()
        self._context = multiprocessing.get_context("spawn")
        self._processes: dict[WorkerId, _Process] = {}
        self._tickets: dict[TicketId, Ticket[Any]] = {}
        self._numbers = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None
        self._pending: deque[Command] = deque()
        self._executing = False
        self._reapers: set[asyncio.Task[None]] = set()
        #: Set, and replaced by a new one, after the scheduler has handled
        #: an event (:meth:`_execute`): what :meth:`wait_until` waits on.
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------
    # Life cycle.

    async def start(self) -> None:
        """Start the workers and wait until each has imported the engine."""
        self._execute(self.scheduler.start())
        scheduler = self.scheduler
        settled = await self.wait_until(
            lambda: not scheduler.starting or scheduler.start_failures >= MAX_START_FAILURES,
            START_TIMEOUT_S,
        )
        if not settled:
            raise RuntimeError("search workers did not start in time")
        if scheduler.start_failures >= MAX_START_FAILURES:
            raise RuntimeError("search workers die as they start; see the log")

    async def wait_until(self, condition: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``condition()`` holds; False if it still does not after ``timeout_s``.

        The condition is read again after every event the scheduler handles
        (a worker ready, a result, a death, a timer), the only times the
        pool's state changes: no polling.
        """
        deadline = time.monotonic() + timeout_s
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return True

    async def close(self) -> None:
        """Answer what is queued, ask every worker to exit, kill stragglers, reap all."""
        self._execute(self.scheduler.close(time.monotonic()))
        workers = list(self._processes.items())
        await asyncio.gather(*(self._reap(handle.process) for _, handle in workers))
        for number, _ in workers:
            now = time.monotonic()
            self._execute(self.scheduler.worker_died(number, "server shutting down", now))
        if self._reapers:
            await asyncio.gather(*self._reapers)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for tests and monitoring)."""
        return [h.process.pid for h in self._processes.values() if h.process.pid is not None]

    def busy_worker_pids(self) -> list[int]:
        """Process ids of the workers searching right now."""
        busy = (WorkerState.BUSY, WorkerState.DRAINING)
        pids = []
        for worker in self.scheduler.workers():
            handle = self._processes.get(worker.id)
            if worker.state in busy and handle is not None and handle.process.pid is not None:
                pids.append(handle.process.pid)
        return pids

    @property
    def idle_workers(self) -> int:
        return self.scheduler.idle_workers

    @property
    def queued(self) -> int:
        return self.scheduler.queued

    @property
    def replaced(self) -> int:
        """Workers replaced after dying or freezing."""
        return self.scheduler.replaced

    def retry_after_ms(self) -> int:
        """When a refused think might find a worker: the queue's length in think times."""
        return self.scheduler.retry_after_ms()

    # ------------------------------------------------------------------
    # Submitting, stopping, cancelling.

    def submit(
        self,
        job: SearchJob,
        on_info: Callable[[Info], None] | None = None,
        client: Hashable | None = None,
    ) -> Ticket[SearchResult]:
        """Queue ``job``; the ticket's answer arrives by ``job.deadline`` at the latest.

        Raises :class:`QueueFull` (and queues nothing) when ``max_queue``
        jobs already wait and no worker is free: refuse the think.
        ``client`` names who asks (a connection) for per-client fairness.
        """
        ticket: Ticket[SearchResult] = Ticket(
            self, next(self._numbers), job, on_info, client=client
        )
        self._admit(ticket)
        return ticket

    def submit_trace(
        self, job: TraceJob, encoding: Encoding, client: Hashable | None = None
    ) -> Ticket[TraceReply]:
        """Queue a trace; its answer (the reply, encoded) arrives by ``job.deadline``.

        Raises :class:`QueueFull` as :meth:`submit` does, and
        :class:`~protocol.errors.LimitExceeded` at once for an ``mcts``
        trace that cannot finish at the speed this pool measured
        (:mod:`server.runtime.trace_cost`).
        """
        self.trace_rates.check(job)
        ticket: Ticket[TraceReply] = Ticket(self, next(self._numbers), job, None, encoding, client)
        self._admit(ticket)
        return ticket

    def _admit(self, ticket: Ticket[Any]) -> None:
        commands = self.scheduler.submit(
            ticket.number, ticket.job, time.monotonic(), ticket.encoding, ticket.client
        )  # raises QueueFull before anything is recorded
        self._tickets[ticket.number] = ticket
        self._execute(commands)

    def _stop(self, ticket: Ticket[Any]) -> None:
        self._execute(self.scheduler.stop(ticket.number, time.monotonic()))

    def _cancel(self, ticket: Ticket[Any]) -> None:
        self._tickets.pop(ticket.number, None)
        self._execute(self.scheduler.cancel(ticket.number, time.monotonic()))
        ticket.answer.cancel()

    # ------------------------------------------------------------------
    # Carrying out the scheduler's commands.

    def _execute(self, commands: list[Command]) -> None:
        """Carry out ``commands`` in order, and those of any event they cause after them."""
        self._pending.extend(commands)
        if self._executing:
            return  # an outer call is running the queue: keep the scheduler's order
        self._executing = True
        try:
            while self._pending:
                self._carry_out(self._pending.popleft())
        finally:
            self._executing = False
            # Wake every waiter; later waiters wait for the next change.
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()

    def _carry_out(self, command: Command) -> None:
        if isinstance(command, Deliver):
            ticket = self._tickets.pop(command.ticket, None)
            if ticket is not None:
                ticket.queued_ms = command.queued_ms
                answer = command.answer
                if isinstance(answer, TraceReply) and isinstance(ticket.job, TraceJob):
                    self.trace_rates.note(ticket.job, answer.playouts, answer.seconds)
                if not ticket.answer.done():
                    ticket.answer.set_result(command.answer)
        elif isinstance(command, ReportInfo):
            reported = self._tickets.get(command.ticket)
            if reported is not None:
                reported._report(command.info)
        elif isinstance(command, ArmTimer):
            self._arm(command.when)
        elif isinstance(command, Spawn):
            self._spawn(command.worker)
        elif isinstance(command, SendJob):
            self._send(command)
        elif isinstance(command, SetStopFlag):
            handle = self._processes.get(command.worker)
            if handle is not None:
                handle.flag.set()
        elif isinstance(command, ExitWorker):
            handle = self._processes.get(command.worker)
            if handle is not None:
                with contextlib.suppress(OSError):
                    handle.conn.send(None)
        elif isinstance(command, Kill):
            self._kill(command.worker)

    def _spawn(self, number: WorkerId) -> None:
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        flag = StopFlag(self._context)
        process = self._context.Process(
            target=worker_main,
            args=(
                child_conn,
                flag,
                self.tt_slots,
                self.worker_nice,
                self.externals,
                self.tree_budget,
                self.program_wait_s,
            ),
            name=f"arena-worker-{number}",
            daemon=True,
        )
        process.start()
        child_conn.close()  # else end-of-file never comes when the worker dies
        self._processes[number] = _Process(process, parent_conn, flag)
        asyncio.get_running_loop().add_reader(parent_conn.fileno(), self._on_readable, number)

    def _send(self, command: SendJob) -> None:
        handle = self._processes.get(command.worker)
        ticket = self._tickets.get(command.ticket)
        if handle is None or ticket is None:
            return
        handle.flag.clear()
        try:
            handle.conn.send(_worker_job(ticket, command.seq))
        except OSError:
            self._execute(self.scheduler.send_failed(command.worker, time.monotonic()))

    def _kill(self, number: WorkerId) -> None:
        handle = self._processes.pop(number, None)
        if handle is None:
            return
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(handle.conn.fileno())
        handle.conn.close()
        if handle.process.is_alive():
            handle.process.kill()
        reaper = loop.create_task(self._reap(handle.process))
        self._reapers.add(reaper)
        reaper.add_done_callback(self._reapers.discard)

    async def _reap(self, process: BaseProcess) -> None:
        """Wait for ``process`` to exit without blocking the loop; kill it if it will not."""
        deadline = time.monotonic() + EXIT_TIMEOUT_S
        while process.is_alive():  # is_alive() also reaps the zombie
            if time.monotonic() > deadline:
                process.kill()
                deadline = time.monotonic() + EXIT_TIMEOUT_S
            await asyncio.sleep(0.01)  # polling: a process has no awaitable exit here

    def _arm(self, when: float | None) -> None:
        """Arm the one timer at ``when`` (``time.monotonic()`` seconds, not the loop's clock)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if when is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_at(loop.time() + (when - time.monotonic()), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._execute(self.scheduler.timer_fired(time.monotonic()))

    # ------------------------------------------------------------------
    # Messages from workers.

    def _on_readable(self, number: WorkerId) -> None:
        handle = self._processes.get(number)
        if handle is None:
            return
        try:
            while number in self._processes and handle.conn.poll():
                self._on_message(number, handle.conn.recv())
        except (EOFError, OSError):
            why = f"process exited (code {handle.process.exitcode})"
            self._execute(self.scheduler.worker_died(number, why, time.monotonic()))

    def _on_message(self, number: WorkerId, message: tuple[Any, ...]) -> None:
        now = time.monotonic()
        kind = message[0]
        if kind == "ready":
            self._execute(self.scheduler.worker_ready(number, now))
        elif kind == "info":
            self._execute(self.scheduler.worker_info(number, message[1], message[2], now))
        elif kind == "done":
            self._execute(self.scheduler.worker_result(number, message[1], message[2], now))
        else:
            self._execute(self.scheduler.worker_failed(number, message[1], message[2], now))


def _worker_job(ticket: Ticket[Any], seq: int) -> WorkerJob:
    """``ticket``'s job as its worker gets it: the search ends a delivery margin early."""
    job = ticket.job
    task = None
    if isinstance(job, TraceJob):
        assert ticket.encoding is not None  # submit_trace sets it
        task = TraceTask(
            job.depth, job.max_nodes, job.playouts, job.seed, job.trace_id, ticket.encoding
        )
    # The job's own deadline is unchanged: only the search's is earlier.
    return WorkerJob(
        seq,
        job.game.name,
        dict(job.game.options),
        job.state,
        job.limits if isinstance(job, SearchJob) else Limits(),
        job.deadlines.capped(job.deadline - DELIVERY_MARGIN_S),
        job.algorithm,
        task,
        isinstance(job, SearchJob) and job.cleanup,
        job.multipv if isinstance(job, SearchJob) else 1,
        job.searchmoves if isinstance(job, SearchJob) else (),
        job.line if isinstance(job, SearchJob) else None,
    )
