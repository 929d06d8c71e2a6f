"""Where the worker pool used to live: it is :mod:`server.runtime.pool` now.

Kept so that ``from server.pool import WorkerPool`` goes on working; new
code imports from :mod:`server.runtime.pool` and :mod:`server.runtime.constants`.
"""

from server.runtime.constants import (
    DELIVERY_MARGIN_S,
    GUARD_LEAD_S,
    MIN_WORKER_BUDGET_S,
    PREEMPT_AFTER_S,
    QUEUE_PER_WORKER,
    STOP_GRACE_S,
    WORKER_GRACE_S,
    WORKER_NICE,
)
from server.runtime.pool import QueueFull, Ticket, WorkerPool

__all__ = [
    "DELIVERY_MARGIN_S",
    "GUARD_LEAD_S",
    "MIN_WORKER_BUDGET_S",
    "PREEMPT_AFTER_S",
    "QUEUE_PER_WORKER",
    "STOP_GRACE_S",
    "WORKER_GRACE_S",
    "WORKER_NICE",
    "QueueFull",
    "Ticket",
    "WorkerPool",
]
