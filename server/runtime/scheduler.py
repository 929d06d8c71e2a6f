"""The worker pool's decisions as a sans-I/O state machine: events in, commands out.

:class:`Scheduler` owns the queue, the tickets (one per submitted job) and
the state of every worker, and guarantees exactly one answer per ticket by
its deadline, whatever the workers do. It does no I/O, starts no process,
reads no clock and knows nothing of asyncio: every event carries ``now``
(``time.monotonic()`` seconds, the engine's clock), and every method
returns the :data:`Command` list the caller must carry out, in order. The
asyncio adapter (:mod:`server.runtime.pool`) turns pipes, processes and
timers into these events and commands; the unit tests
(``tests/server/test_scheduler.py``) drive it with plain calls.

Events: :meth:`~Scheduler.start`, :meth:`~Scheduler.submit`,
:meth:`~Scheduler.stop`, :meth:`~Scheduler.cancel`, :meth:`~Scheduler.close`,
:meth:`~Scheduler.worker_ready`, :meth:`~Scheduler.worker_info`,
:meth:`~Scheduler.worker_result`, :meth:`~Scheduler.worker_failed`,
:meth:`~Scheduler.worker_died`, :meth:`~Scheduler.send_failed` and
:meth:`~Scheduler.timer_fired`. Commands: :class:`Spawn`, :class:`SendJob`,
:class:`SetStopFlag`, :class:`Kill`, :class:`ExitWorker`, :class:`Deliver`,
:class:`ReportInfo` and :class:`ArmTimer` (one timer: the next moment
anything is due); they and the states are in :mod:`server.runtime.records`.

The guarantees (the figures are in :mod:`server.runtime.constants`):

* the worker is told to finish ``DELIVERY_MARGIN_S`` before the deadline
  (the adapter ends the job's deadlines early by that much);
* the guard: if no result has arrived ``GUARD_LEAD_S`` before the
  deadline (a slow, frozen or dead worker), the ticket is answered from the
  last progress report (the best move so far) or, if there was none, with
  the job's ``fallback_move`` at depth 0; the worker is stopped, and killed
  and replaced if it does not come back within the worker grace;
* a think that waited in the queue until its budget was (nearly) gone is
  answered at once with its ``fallback_move`` and reason ``overloaded``: no
  worker searched it, and the answer says so;
* ``stop`` sets the worker's stop flag and answers at once from the best
  move reported so far (what the stopped search would answer); before the
  first completed depth it waits for the worker's own answer, and if that
  has not come ``STOP_GRACE_S`` later, answers as above;
* preemption: a think without a time limit (an analysis) that has run for
  the preemption delay while other jobs wait for a worker is stopped and
  answered with reason ``preempted``, so that one analysis cannot keep a
  worker from everybody else; a trace likewise gives way after
  ``TRACE_PREEMPT_AFTER_S`` (answered with the error ``overloaded``);
* per-client fairness: each ticket names its client (a connection); a
  freed worker goes to the oldest waiting job of the client that holds the
  fewest workers, and a client holding more than its share of the workers
  (``ceil(size / clients with work)``) while another client waits below
  its share has its preemptible jobs (analyses, traces) preempted at once;
* a worker that dies is replaced, and its think is answered from the best
  move so far (reason ``worker_lost``); workers that die while starting, a
  few in a row, are not replaced (a broken installation).

A trace has no best move so far: every fallback of a trace is the error
:meth:`server.jobs.TraceJob.unanswered` gives.

(A little over 600 lines: the guarantees all read and write the same books
of tickets and workers, and are easier to check side by side than split.)

Why one module: one state machine: every transition is read against the
others to check the one-answer guarantee, so they stay in one class; its
records are in :mod:`server.runtime.records`. Hence the length (over 600
lines).
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.search.results import Info
from protocol.codec import Encoding
from server.jobs import Job, TraceJob
from server.runtime import answers
from server.runtime.answers import Answer
from server.runtime.constants import (
    GUARD_LEAD_S,
    INITIAL_SERVICE_S,
    MAX_RETRY_AFTER_MS,
    MAX_START_FAILURES,
    MIN_RETRY_AFTER_MS,
    MIN_WORKER_BUDGET_S,
    PREEMPT_AFTER_S,
    QUEUE_PER_WORKER,
    SERVICE_AVERAGE_WEIGHT,
    STOP_GRACE_S,
    TRACE_PREEMPT_AFTER_S,
    WORKER_GRACE_S,
)
from server.runtime.records import (
    ArmTimer,
    Command,
    Deliver,
    ExitWorker,
    Kill,
    QueueFull,
    ReportInfo,
    SendJob,
    SetStopFlag,
    Spawn,
    TicketId,
    TicketSlot,
    TicketState,
    WorkerId,
    WorkerSlot,
    WorkerState,
)

__all__ = [
    "ArmTimer",
    "Command",
    "Deliver",
    "ExitWorker",
    "Kill",
    "QueueFull",
    "ReportInfo",
    "Scheduler",
    "SendJob",
    "SetStopFlag",
    "Spawn",
    "TicketId",
    "TicketSlot",
    "TicketState",
    "WorkerId",
    "WorkerSlot",
    "WorkerState",
]

logger = logging.getLogger(__name__)

#: Where the timer is "armed" once it has fired: unequal to every time and
#: to ``None`` (NaN equals nothing), so that the next :class:`ArmTimer` is
#: always sent.
_SPENT = math.nan


@dataclass(slots=True)
class _Due:
    """The earliest timed event: when, and what."""

    when: float
    kind: str
    ticket: TicketSlot | None = None
    worker: WorkerSlot | None = None


class Scheduler:
    """``size`` workers, a bounded FIFO queue of tickets, and the guarantees above."""

    def __init__(
        self,
        size: int,
        *,
        max_queue: int | None = None,
        worker_grace_s: float = WORKER_GRACE_S,
        preempt_after_s: float = PREEMPT_AFTER_S,
        trace_preempt_after_s: float = TRACE_PREEMPT_AFTER_S,
    ) -> None:
        if size < 1:
            raise ValueError("a worker pool needs at least one worker")
        self.size = size
        self.max_queue = QUEUE_PER_WORKER * size if max_queue is None else max_queue
        self.worker_grace_s = worker_grace_s
        self.preempt_after_s = preempt_after_s
        self.trace_preempt_after_s = trace_preempt_after_s
        #: Live workers (not RETIRED), in order of spawning.
        self._workers: dict[WorkerId, WorkerSlot] = {}
        #: Tickets not yet done, by id.
        self._tickets: dict[TicketId, TicketSlot] = {}
        self._queue: deque[TicketSlot] = deque()
        self._spawned = 0
        self._closing = False
        #: Workers replaced after dying or freezing (not counting start failures).
        self.replaced = 0
        #: Workers that died before reporting ready, in a row.
        self.start_failures = 0
        self._service_s = INITIAL_SERVICE_S
        self._armed: float | None = None
        self._out: list[Command] = []

    # ------------------------------------------------------------------
    # Queries.

    def workers(self) -> Iterator[WorkerSlot]:
        """The live workers, oldest first."""
        return iter(list(self._workers.values()))

    def worker(self, worker: WorkerId) -> WorkerSlot | None:
        """Live worker ``worker``, or ``None`` once it is retired."""
        return self._workers.get(worker)

    def ticket(self, ticket: TicketId) -> TicketSlot | None:
        """Ticket ``ticket`` while it is not done."""
        return self._tickets.get(ticket)

    @property
    def idle_workers(self) -> int:
        return sum(1 for worker in self._workers.values() if worker.state is WorkerState.IDLE)

    @property
    def starting(self) -> bool:
        """Whether some worker has not reported ready yet."""
        return any(w.state is WorkerState.STARTING for w in self._workers.values())

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def closing(self) -> bool:
        return self._closing

    def retry_after_ms(self) -> int:
        """When a refused job might find a worker: the queue's length in think times."""
        waits = (len(self._queue) + 1) / max(1, len(self._workers))
        estimate = math.ceil(waits * self._service_s * 1000)
        return max(MIN_RETRY_AFTER_MS, min(MAX_RETRY_AFTER_MS, estimate))

    # ------------------------------------------------------------------
    # Events from the owner.

    def start(self) -> list[Command]:
        """Spawn the workers."""
        for _ in range(self.size):
            self._spawn()
        return self._flush()

    def submit(
        self,
        ticket: TicketId,
        job: Job,
        now: float,
        encoding: Encoding | None = None,
        client: Hashable | None = None,
    ) -> list[Command]:
        """Queue ``job`` as ``ticket``; it is answered by ``job.deadline`` at the latest.

        Raises :class:`QueueFull` (and changes nothing) when ``max_queue``
        jobs already wait and no worker is free. ``encoding`` is a trace's
        reply encoding; ``client`` who asks (a connection), for fairness.
        """
        if ticket in self._tickets:
            raise ValueError(f"ticket {ticket} was already submitted")
        if not self._closing and len(self._queue) >= self.max_queue and self.idle_workers == 0:
            raise QueueFull(self.retry_after_ms(), self.max_queue)
        slot = TicketSlot(ticket, job, encoding, client, guard_at=job.deadline - GUARD_LEAD_S)
        self._tickets[ticket] = slot
        if self._closing:
            self._answer_unsearched(slot, "stopped", now)
        elif job.deadline - now < MIN_WORKER_BUDGET_S:
            self._answer_unsearched(slot, "time", now)  # too short to search, not overloaded
        else:
            self._queue.append(slot)
            self._dispatch(now)
        return self._flush()

    def stop(self, ticket: TicketId, now: float, reason: str = "stopped") -> list[Command]:
        """Ask for ``ticket``'s answer now (best move so far); idempotent."""
        slot = self._tickets.get(ticket)
        if slot is not None:
            self._stop(slot, reason, now)
        return self._flush()

    def cancel(self, ticket: TicketId, now: float) -> list[Command]:
        """Drop ``ticket``: no answer is wanted, and its worker is told to stop at once."""
        slot = self._tickets.pop(ticket, None)
        if slot is not None:
            if slot.state is TicketState.QUEUED:
                self._queue.remove(slot)
            worker = slot.worker
            if worker is not None and worker.ticket is slot and worker.state is WorkerState.BUSY:
                self._drain(worker, now)
            slot.state = TicketState.CANCELLED
        return self._flush()

    def close(self, now: float) -> list[Command]:
        """Shut down: answer what is queued, stop the searches, ask every worker to exit.

        The owner reports each worker's exit with :meth:`worker_died`; no
        worker is replaced from now on.
        """
        self._closing = True
        while self._queue:
            self._answer_unsearched(self._queue.popleft(), "stopped", now)
        for worker in self._workers.values():
            if worker.state in (WorkerState.BUSY, WorkerState.DRAINING):
                self._emit(SetStopFlag(worker.id))
            self._emit(ExitWorker(worker.id))
        return self._flush()

    def timer_fired(self, now: float) -> list[Command]:
        """Handle everything due at ``now``: guards, stop graces, frozen workers, preemption."""
        self._armed = _SPENT  # the timer is spent: say what is due next, even nothing
        while (due := self._next_due()) is not None and due.when <= now:
            if due.kind == "guard":
                assert due.ticket is not None
                self._on_deadline(due.ticket, now)
            elif due.kind == "overdue":
                assert due.ticket is not None
                self._on_stop_overdue(due.ticket, now)
            elif due.kind == "grace":
                assert due.worker is not None
                self._retire(
                    due.worker, f"no answer {self.worker_grace_s:g} s after being stopped", now
                )
            else:
                assert due.ticket is not None
                self._preempt(due.ticket, now)
        return self._flush()

    # ------------------------------------------------------------------
    # Events from workers.

    def worker_ready(self, worker: WorkerId, now: float) -> list[Command]:
        """``worker`` has started and waits for jobs."""
        slot = self._workers.get(worker)
        if slot is not None and slot.state is WorkerState.STARTING:
            slot.state = WorkerState.IDLE
            self.start_failures = 0
            self._dispatch(now)
        return self._flush()

    def worker_info(self, worker: WorkerId, seq: int, info: Info, now: float) -> list[Command]:
        """A progress report of ``worker``'s job number ``seq``."""
        ticket = self._current(worker, seq)
        if ticket is not None and not ticket.done:
            # A report without a move cannot answer for the search, nor can
            # a later line of a multi-line think (its move is not the best).
            if info.pv and info.multipv == 1:
                ticket.last_info = info
            if not info.partial and info.multipv == 1:
                ticket.completed_depth = info.depth
            self._emit(ReportInfo(ticket.id, info))
        return self._flush()

    def worker_result(self, worker: WorkerId, seq: int, result: Any, now: float) -> list[Command]:
        """``worker`` finished job ``seq`` with ``result`` (a SearchResult or a TraceReply)."""
        ticket = self._finished(worker, seq, now)
        if ticket is not None and not ticket.done:
            self._deliver(
                ticket,
                answers.from_worker(
                    ticket.job,
                    ticket.encoding,
                    result,
                    ticket.stop_reason,
                    ticket.last_info,
                    ticket.completed_depth,
                    self._elapsed_ms(ticket, now),
                ),
                now,
            )
        self._dispatch(now)
        return self._flush()

    def worker_failed(self, worker: WorkerId, seq: int, why: str, now: float) -> list[Command]:
        """Job ``seq`` raised in ``worker`` (``why``: the traceback); the worker lives on."""
        slot = self._workers.get(worker)
        ticket = self._finished(worker, seq, now)
        if slot is not None and ticket is not None:
            logger.error("search failed in worker %d:\n%s", worker, why)
            if not ticket.done:
                self._answer_without_worker(ticket, "worker_lost", now)
        self._dispatch(now)
        return self._flush()

    def worker_died(self, worker: WorkerId, why: str, now: float) -> list[Command]:
        """``worker``'s process is gone (end of file on its pipe, or exited at shutdown)."""
        slot = self._workers.get(worker)
        if slot is not None:
            self._retire(slot, why, now)
        return self._flush()

    def send_failed(self, worker: WorkerId, now: float) -> list[Command]:
        """Sending a job to ``worker`` failed (a broken pipe): requeue the job, replace it."""
        slot = self._workers.get(worker)
        if slot is not None:
            ticket = slot.ticket
            if ticket is not None and not ticket.done:
                slot.ticket = None
                ticket.worker = None
                ticket.dispatched_at = None
                ticket.state = TicketState.QUEUED
                self._queue.appendleft(ticket)
            self._retire(slot, "its pipe is broken", now)
            self._dispatch(now)
        return self._flush()

    # ------------------------------------------------------------------
    # Workers.

    def _emit(self, command: Command) -> None:
        self._out.append(command)

    def _flush(self) -> list[Command]:
        """The commands of this event, with the timer re-armed if what is due next changed."""
        due = self._next_due()
        when = None if due is None else due.when
        if when != self._armed:
            self._armed = when
            self._emit(ArmTimer(when))
        out, self._out = self._out, []
        return out

    def _spawn(self) -> None:
        self._spawned += 1
        self._workers[self._spawned] = WorkerSlot(self._spawned)
        self._emit(Spawn(self._spawned))

    def _current(self, worker: WorkerId, seq: int) -> TicketSlot | None:
        """The ticket job ``seq`` of ``worker`` is for, unless the message is stale."""
        slot = self._workers.get(worker)
        if slot is None or seq != slot.seq:
            return None
        return slot.ticket

    def _finished(self, worker: WorkerId, seq: int, now: float) -> TicketSlot | None:
        """``worker`` is done with job ``seq``: it is idle again; its ticket, if current."""
        ticket = self._current(worker, seq)
        slot = self._workers.get(worker)
        if ticket is None or slot is None:
            return None
        slot.ticket = None
        slot.state = WorkerState.IDLE
        slot.grace_at = None
        if ticket.dispatched_at is not None:
            served = now - ticket.dispatched_at
            self._service_s += SERVICE_AVERAGE_WEIGHT * (served - self._service_s)
        return ticket

    def _retire(self, worker: WorkerSlot, why: str, now: float) -> None:
        """Take ``worker`` out of service for good; answer its think; replace it."""
        if worker.state is WorkerState.RETIRED:
            return
        was_starting = worker.state is WorkerState.STARTING
        worker.state = WorkerState.RETIRED
        worker.grace_at = None
        self._workers.pop(worker.id, None)
        self._emit(Kill(worker.id))
        ticket = worker.ticket
        worker.ticket = None
        if ticket is not None and not ticket.done:
            self._answer_without_worker(ticket, "worker_lost", now)
        if self._closing:
            return
        if was_starting:
            self.start_failures += 1
            if self.start_failures >= MAX_START_FAILURES:
                logger.error(
                    "search worker %d died while starting (%s); not replacing it", worker.id, why
                )
                return
        logger.warning("search worker %d replaced: %s", worker.id, why)
        self.replaced += 1
        self._spawn()

    def _drain(self, worker: WorkerSlot, now: float) -> None:
        """Stop ``worker``'s search, whose answer is no longer wanted; give up on it if it hangs."""
        self._emit(SetStopFlag(worker.id))
        if worker.state is WorkerState.BUSY:
            worker.state = WorkerState.DRAINING
            worker.grace_at = now + self.worker_grace_s

    # ------------------------------------------------------------------
    # Dispatching.

    def _dispatch(self, now: float) -> None:
        while self._queue:
            worker = next((w for w in self._workers.values() if w.state is WorkerState.IDLE), None)
            if worker is None:
                return
            ticket = self._next_in_queue()
            self._queue.remove(ticket)
            if ticket.job.deadline - now < MIN_WORKER_BUDGET_S:
                self._answer_unsearched(ticket, "overloaded", now)
                continue
            worker.seq += 1
            worker.state = WorkerState.BUSY
            worker.ticket = ticket
            ticket.worker = worker
            ticket.state = TicketState.RUNNING
            ticket.dispatched_at = now
            ticket.queued_ms = int((now - ticket.job.received_at) * 1000)
            self._emit(SendJob(worker.id, ticket.id, worker.seq))

    # ------------------------------------------------------------------
    # Stopping, deadlines and preemption.

    def _stop(self, ticket: TicketSlot, reason: str, now: float) -> None:
        if ticket.done or ticket.stop_reason is not None:
            return
        ticket.stop_reason = reason
        if ticket.state is TicketState.QUEUED:
            self._queue.remove(ticket)
            self._answer_unsearched(ticket, reason, now)
            return
        worker = ticket.worker
        if worker is None or worker.ticket is not ticket:
            return
        if isinstance(ticket.job, TraceJob):
            # A trace has nothing to answer with but an error, which needs
            # no worker: answer now, free the worker when it stops.
            self._drain(worker, now)
            self._answer_unsearched(ticket, reason, now)
            return
        if ticket.completed_depth > 0 and ticket.last_info is not None:
            # A stopped search answers with its best move so far, which it
            # has already reported: answering now saves waiting for its
            # next limit check. The worker is freed when it stops.
            self._drain(worker, now)
            self._answer_without_worker(ticket, reason, now)
            return
        self._emit(SetStopFlag(worker.id))  # nothing reported yet: the worker's answer is needed
        ticket.state = TicketState.STOPPING
        ticket.overdue_at = now + STOP_GRACE_S

    def _on_deadline(self, ticket: TicketSlot, now: float) -> None:
        if ticket.state is TicketState.QUEUED:
            self._queue.remove(ticket)
            self._answer_unsearched(ticket, "overloaded", now)
            return
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker, now)
        self._answer_without_worker(ticket, ticket.stop_reason or "time", now)

    def _on_stop_overdue(self, ticket: TicketSlot, now: float) -> None:
        worker = ticket.worker
        if worker is not None and worker.ticket is ticket:
            self._drain(worker, now)
        self._answer_without_worker(ticket, ticket.stop_reason or "stopped", now)

    def _running(self) -> list[TicketSlot]:
        """The tickets searched now whose answer is still wanted from their worker."""
        return [
            w.ticket
            for w in self._workers.values()
            if w.state is WorkerState.BUSY and w.ticket is not None
        ]

    def _holding(self, client: Hashable | None) -> int:
        """How many workers ``client`` holds (an anonymous ticket holds none)."""
        if client is None:
            return 0
        return sum(1 for ticket in self._running() if ticket.client == client)

    def _share(self) -> int:
        """Each client's share of the workers: the pool split among clients with work."""
        clients: set[Hashable] = set()
        anonymous = 0
        for ticket in [*self._running(), *self._queue]:
            if ticket.client is None:
                anonymous += 1
            else:
                clients.add(ticket.client)
        return max(1, math.ceil(self.size / max(1, len(clients) + anonymous)))

    def _next_in_queue(self) -> TicketSlot:
        """The oldest waiting job of the client that holds the fewest workers.

        With one job per client at a time (a connection runs one think or
        trace) this is the plain first-in first-out order.
        """
        return min(self._queue, key=lambda ticket: self._holding(ticket.client))

    def _hold_limit(self, ticket: TicketSlot) -> float | None:
        """How long ``ticket`` may hold a worker while others wait (``None``: until done)."""
        if isinstance(ticket.job, TraceJob):
            return self.trace_preempt_after_s
        if ticket.job.untimed:
            return self.preempt_after_s
        return None

    def _preemption_due(self) -> tuple[float, TicketSlot] | None:
        """While jobs wait and no worker is idle: when which preemptible job gives way.

        A job of a client over its share gives way at once if a waiting
        client is below its share; any other after its hold limit.
        """
        if not self._queue or self.idle_workers > 0:
            return None
        share = self._share()
        starved = any(self._holding(ticket.client) < share for ticket in self._queue)
        due: tuple[float, TicketSlot] | None = None
        for ticket in self._running():
            limit = self._hold_limit(ticket)
            if limit is None or ticket.state is not TicketState.RUNNING:
                continue
            if ticket.stop_reason is not None or ticket.dispatched_at is None:
                continue
            when = ticket.dispatched_at + limit
            if starved and ticket.client is not None and self._holding(ticket.client) > share:
                when = ticket.dispatched_at  # over its share while another waits: now
            if due is None or when < due[0]:
                due = (when, ticket)
        return due

    def _preempt(self, ticket: TicketSlot, now: float) -> None:
        logger.info(
            "preempting %s after %.1f s: %d jobs wait for a worker",
            "a trace" if isinstance(ticket.job, TraceJob) else "an analysis",
            now - (ticket.dispatched_at or now),
            len(self._queue),
        )
        self._stop(ticket, "preempted", now)

    def _next_due(self) -> _Due | None:
        """The earliest of every guard, stop grace, worker grace and the preemption."""
        due: _Due | None = None
        for ticket in self._tickets.values():
            if due is None or ticket.guard_at < due.when:
                due = _Due(ticket.guard_at, "guard", ticket=ticket)
            if ticket.overdue_at is not None and ticket.overdue_at < due.when:
                due = _Due(ticket.overdue_at, "overdue", ticket=ticket)
        for worker in self._workers.values():
            if worker.grace_at is not None and (due is None or worker.grace_at < due.when):
                due = _Due(worker.grace_at, "grace", worker=worker)
        preemption = self._preemption_due()
        if preemption is not None and (due is None or preemption[0] < due.when):
            due = _Due(preemption[0], "preempt", ticket=preemption[1])
        return due

    # ------------------------------------------------------------------
    # Answers.

    def _elapsed_ms(self, ticket: TicketSlot, now: float) -> int:
        return int((now - ticket.job.received_at) * 1000)

    def _deliver(self, ticket: TicketSlot, answer: Answer, now: float) -> None:
        """Give ``ticket`` its one answer; it leaves the scheduler's books."""
        if ticket.dispatched_at is None:
            ticket.queued_ms = self._elapsed_ms(ticket, now)
        answer = answers.with_the_wait_named(answer, ticket.queued_ms, ticket.job)
        ticket.state = TicketState.ANSWERED
        ticket.overdue_at = None
        self._tickets.pop(ticket.id, None)
        self._emit(Deliver(ticket.id, answer, ticket.queued_ms))

    def _answer_without_worker(self, ticket: TicketSlot, reason: str, now: float) -> None:
        self._deliver(
            ticket,
            answers.without_worker(
                ticket.job,
                ticket.encoding,
                reason,
                ticket.last_info,
                ticket.completed_depth,
                self._elapsed_ms(ticket, now),
            ),
            now,
        )

    def _answer_unsearched(self, ticket: TicketSlot, reason: str, now: float) -> None:
        self._deliver(
            ticket,
            answers.unsearched(ticket.job, ticket.encoding, reason, self._elapsed_ms(ticket, now)),
            now,
        )
