"""What the scheduler and its owner exchange: the commands, the states, and the refusal.

:class:`~server.runtime.scheduler.Scheduler` returns :data:`Command` lists;
the asyncio adapter (:mod:`server.runtime.pool`) carries them out. The
enums name where a worker and a ticket are in their lives; the slots are
the scheduler's books on each (read-only for everybody else).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import Enum

from engine.search.results import Info
from protocol.codec import Encoding
from server.jobs import Job
from server.runtime.answers import Answer

#: A worker's number (1, 2, ... in order of spawning; never reused).
WorkerId = int
#: A ticket's number, chosen by the caller of :meth:`Scheduler.submit`.
TicketId = int


class QueueFull(Exception):
    """The job was refused: ``max_queue`` jobs already wait for a worker.

    ``retry_after_ms`` estimates when a worker may be free; tell the client.
    """

    def __init__(self, retry_after_ms: int, max_queue: int) -> None:
        super().__init__(
            f"the server is overloaded: {max_queue} thinks already wait for a search process; "
            f"retry in about {retry_after_ms} ms or use another server"
        )
        self.retry_after_ms = retry_after_ms


class WorkerState(Enum):
    """Where a worker is in its life."""

    #: Spawned; importing the engine. Becomes IDLE on ``worker_ready``.
    STARTING = "starting"
    #: Waiting for a job.
    IDLE = "idle"
    #: Searching a ticket whose answer is still wanted from it.
    BUSY = "busy"
    #: Told to stop a search whose answer is no longer wanted; killed if
    #: it does not answer within the worker grace.
    DRAINING = "draining"
    #: Out of service for good (dead, killed, or exited at shutdown).
    RETIRED = "retired"


class TicketState(Enum):
    """Where a ticket is: waiting, searched, or done."""

    #: In the queue, waiting for a worker.
    QUEUED = "queued"
    #: A worker searches it.
    RUNNING = "running"
    #: Stopped before any completed depth: the worker's own answer is
    #: awaited until the stop grace runs out.
    STOPPING = "stopping"
    #: Answered (one :class:`Deliver` was issued).
    ANSWERED = "answered"
    #: Dropped by its submitter: no answer is wanted.
    CANCELLED = "cancelled"


# ----------------------------------------------------------------------
# Commands: what the caller must do.


@dataclass(frozen=True, slots=True)
class Spawn:
    """Start worker process ``worker``; it reports ``worker_ready`` when it can search."""

    worker: WorkerId


@dataclass(frozen=True, slots=True)
class SendJob:
    """Clear ``worker``'s stop flag and send it ``ticket``'s job, numbered ``seq``.

    If the pipe is broken, report :meth:`Scheduler.send_failed`.
    """

    worker: WorkerId
    ticket: TicketId
    seq: int


@dataclass(frozen=True, slots=True)
class SetStopFlag:
    """Set ``worker``'s stop flag: its search ends at its next limit check."""

    worker: WorkerId


@dataclass(frozen=True, slots=True)
class Kill:
    """``worker`` is out of service: close its pipe, kill it if alive, and reap it."""

    worker: WorkerId


@dataclass(frozen=True, slots=True)
class ExitWorker:
    """Ask ``worker`` to exit after its current job (shutdown); report ``worker_died``."""

    worker: WorkerId


@dataclass(frozen=True, slots=True)
class Deliver:
    """``ticket``'s one answer; ``queued_ms``: how long it waited for a worker."""

    ticket: TicketId
    answer: Answer
    queued_ms: int


@dataclass(frozen=True, slots=True)
class ReportInfo:
    """A progress report of ``ticket``'s search, for its submitter."""

    ticket: TicketId
    info: Info


@dataclass(frozen=True, slots=True)
class ArmTimer:
    """Call :meth:`Scheduler.timer_fired` at ``when`` (replacing any earlier timer).

    ``None``: nothing is due; cancel the timer.
    """

    when: float | None


Command = Spawn | SendJob | SetStopFlag | Kill | ExitWorker | Deliver | ReportInfo | ArmTimer


# ----------------------------------------------------------------------
# State.


@dataclass(eq=False, slots=True)
class TicketSlot:
    """What the scheduler knows of one submitted job."""

    id: TicketId
    job: Job
    #: A trace's reply encoding (``None`` for a think).
    encoding: Encoding | None
    #: Who submitted it (a connection), for fairness; ``None``: nobody in particular.
    client: Hashable | None
    #: When the guard answers if no result has come.
    guard_at: float
    state: TicketState = TicketState.QUEUED
    worker: WorkerSlot | None = None
    #: The last progress report with a move: what a fallback answers with.
    last_info: Info | None = None
    completed_depth: int = 0
    #: Set by stop or preemption: the reason the answer will carry.
    stop_reason: str | None = None
    #: When the stop grace runs out (a ticket STOPPING).
    overdue_at: float | None = None
    dispatched_at: float | None = None
    #: How long the job waited for a worker (until it was answered, if it never got one).
    queued_ms: int = 0

    @property
    def done(self) -> bool:
        return self.state in (TicketState.ANSWERED, TicketState.CANCELLED)


@dataclass(eq=False, slots=True)
class WorkerSlot:
    """What the scheduler knows of one worker process."""

    id: WorkerId
    state: WorkerState = WorkerState.STARTING
    #: The ticket it searches; kept while DRAINING (its answer may still come).
    ticket: TicketSlot | None = None
    #: The number of the last job sent: tells its messages from stale ones.
    seq: int = 0
    #: When a DRAINING worker is given up on.
    grace_at: float | None = None
