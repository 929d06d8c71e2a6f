"""Every timing and sizing figure of the runtime, in one place, each with where it comes from.

The scheduler (:mod:`server.runtime.scheduler`) decides with these, the
asyncio adapter (:mod:`server.runtime.pool`) starts and reaps processes
with them, and the command line (``arena serve``) shows the defaults. A
front end that runs searches in worker processes takes them from here, so
that every front end keeps the same guarantees.
"""

from __future__ import annotations

from typing import Final

# ----------------------------------------------------------------------
# Deadlines: exactly one answer per think, on time.

#: The worker must finish this long before the deadline. It covers the
#: search's own overshoot (a limit check every 256 nodes, 4-13 ms at this
#: engine's speed) for most games, so that its result usually arrives
#: before the guard below fires; the rest is the guard's job. Measured hop
#: from the worker's result to the client's socket on loopback: under 1 ms.
DELIVERY_MARGIN_S: Final = 0.015
#: If a result is still missing this long before the deadline, the event
#: loop answers by itself. The answer takes two more turns of the loop to
#: reach the socket (the think's task, then the connection's writer); with
#: 100 clients on 2 workers a turn of the loop was late by up to 5 ms at
#: p99 (bench/load_bench.py), and a 5 ms lead let 0.4% of the answers be
#: up to 5 ms late. 8 ms keeps them on time there.
GUARD_LEAD_S: Final = 0.008
#: A think with less budget than this when it could go to a worker is not
#: searched: the delivery margin and the guard's lead leave the search no
#: time. It is answered at once with its fallback move, depth 0 (reason
#: ``time`` if it never waited, ``overloaded`` if waiting ate its budget).
MIN_WORKER_BUDGET_S: Final = DELIVERY_MARGIN_S + GUARD_LEAD_S

# ----------------------------------------------------------------------
# Stopping, and workers that do not stop.

#: After ``stop``, how long the scheduler waits for the worker before
#: answering from the best move so far. A healthy worker answers within one
#: limit check (well under 30 ms); this only fires for a frozen one.
STOP_GRACE_S: Final = 0.25
#: A stopped or overdue worker that has still not answered after this long
#: is considered frozen: it is killed and replaced. Longer than an external
#: engine's own stop grace (``server.external.STOP_GRACE_S``, 0.5 s), so
#: that a worker driving a slow program answers before it is given up on.
WORKER_GRACE_S: Final = 2.0

# ----------------------------------------------------------------------
# Admission and fairness.

#: Thinks that may wait for a worker, per worker, before new ones are
#: refused with ``overloaded`` (``arena serve --max-queue`` overrides the
#: product). Four per worker: a think at the back waits for about four
#: others per worker, already several times a typical budget; a longer
#: queue only turns more thinks into ``overloaded`` answers after a wait,
#: where a refusal at once lets the client retry later or go elsewhere.
QUEUE_PER_WORKER: Final = 4
#: An untimed think (analysis) that has run this long is preempted when
#: another think waits for a worker: long enough for any analysis a person
#: watches to reach a useful depth, short against the 10-minute cap.
PREEMPT_AFTER_S: Final = 10.0
#: A trace that has run this long is preempted (answered with the error
#: ``overloaded``) when another job waits for a worker. A trace has no best
#: move so far and cannot be stopped by its client, and the protocol lets it
#: run 10 s (``max_trace_ms``): two clients repeating 10 s traces left every
#: other think unsearched (issue 26). The largest trace that succeeds
#: (``max_trace_nodes``, 50,000 nodes) takes about 1 s in the pure-Python
#: build (a 17,513-node Connect Four trace: 1.2 s on a 2-core machine at
#: load 8), so 3 s lets every legal trace finish on a loaded server.
TRACE_PREEMPT_AFTER_S: Final = 3.0
#: Bounds of the retry hint sent with a refusal (50 ms: about one think's
#: turn on a loaded server; 30 s: past it a client should go elsewhere),
#: and the starting guess of how long a think holds a worker (a quarter
#: second, a typical blitz move), refined by a moving average whose weight
#: lets about the last ten thinks count.
MIN_RETRY_AFTER_MS: Final = 50
MAX_RETRY_AFTER_MS: Final = 30_000
INITIAL_SERVICE_S: Final = 0.25
SERVICE_AVERAGE_WEIGHT: Final = 0.1

# ----------------------------------------------------------------------
# Processes.

#: Niceness added to search processes. The event loop must run the moment
#: a frame or a deadline timer is due, while a search only loses a little
#: depth if it waits a few milliseconds; on a machine with no more cores
#: than workers, equal priority let the searches delay the loop by tens of
#: milliseconds (measured with ``arena loadtest``, docs/load.md).
WORKER_NICE: Final = 10
#: Seconds to wait for workers to start (imports; a compiled engine on a
#: cold disk took a few seconds, 60 leaves room for a loaded machine) and
#: to exit at shutdown (an exiting worker only closes its searchers).
START_TIMEOUT_S: Final = 60.0
EXIT_TIMEOUT_S: Final = 3.0
#: Workers that die before reporting ready, in a row, before the pool stops
#: replacing them (a broken installation would otherwise respawn forever;
#: thinks are then answered ``overloaded`` at their deadline).
MAX_START_FAILURES: Final = 3
