"""The runtime: searches in worker processes, with exactly one answer per think, on time.

* :mod:`server.runtime.constants` holds every timing and sizing figure, with
  where it comes from;
* :mod:`server.runtime.scheduler` makes every decision (queue, tickets, the
  deadline guard, stop, preemption, fallbacks, worker replacement) as a
  sans-I/O state machine: events in, commands out;
* :mod:`server.runtime.records` holds what it exchanges with its owner: the
  commands, the enum states of workers and tickets;
* :mod:`server.runtime.answers` builds the answers the scheduler gives;
* :mod:`server.runtime.pool` is the thin asyncio adapter (``WorkerPool``)
  that owns the processes, pipes and the timer;
* :mod:`server.runtime.worker` is the code that runs inside a worker
  process, and its stop flag;
* :mod:`server.runtime.memory` is a worker's memory budget (its Monte
  Carlo trees and transposition tables);
* :mod:`server.runtime.trace_cost` keeps the speed of Monte Carlo traces,
  to refuse one that cannot finish before a worker is taken.
"""
