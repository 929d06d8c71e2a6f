"""Server metrics in the Prometheus text exposition format (version 0.0.4), without a dependency.

Three kinds of metric, enough for this server: :class:`Counter` (only goes
up), :class:`Gauge` (a value read when scraped) and :class:`Histogram`
(cumulative buckets, sum and count). Label values must come from the
server's own vocabularies (message types, error codes, reasons), never from
raw client input, so that a client cannot grow the label space.

:class:`ServerMetrics` holds every metric the server exports and renders them
for ``GET /metrics``; :class:`LoopLagMonitor` measures how late the event
loop runs a timer, the best single sign that the server is overloaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Iterable, Sequence

#: Content type of the text exposition format.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: Bestmove lateness buckets, in seconds; negative = early. The protocol's
#: promise is "by the deadline" (0); the load target is p99 <= +50 ms.
LATENESS_BUCKETS_S = (
    -0.1,
    -0.05,
    -0.02,
    -0.01,
    -0.005,
    -0.002,
    0.0,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.5,
)
#: Event-loop lag buckets, in seconds; the load target is p99 <= 20 ms.
LOOP_LAG_BUCKETS_S = (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.05, 0.1, 0.25, 1.0)
#: Buckets of the time a think waited for a worker, in seconds.
QUEUE_WAIT_BUCKETS_S = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
#: How often the loop-lag monitor wakes up: often enough to catch short
#: stalls, rare enough to cost nothing (one timer every 50 ms).
LOOP_LAG_INTERVAL_S = 0.05

Labels = tuple[tuple[str, str], ...]


def _format_value(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _format_labels(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{name}="{_escape(value)}"' for name, value in labels) + "}"


class Metric:
    """A named metric; subclasses produce their sample lines."""

    kind = "untyped"

    def __init__(self, name: str, help_text: str) -> None:
        self.name = name
        self.help = help_text

    def samples(self) -> Iterable[tuple[str, Labels, float]]:
        raise NotImplementedError

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]
        for name, labels, value in self.samples():
            lines.append(f"{name}{_format_labels(labels)} {_format_value(value)}")
        return lines


class Counter(Metric):
    """A monotonically increasing count, optionally split by one label."""

    kind = "counter"

    def __init__(self, name: str, help_text: str, label: str | None = None) -> None:
        super().__init__(name, help_text)
        self.label = label
        self._values: dict[str, float] = {}

    def inc(self, label_value: str = "", amount: float = 1.0) -> None:
        self._values[label_value] = self._values.get(label_value, 0.0) + amount

    def value(self, label_value: str = "") -> float:
        return self._values.get(label_value, 0.0)

    def samples(self) -> Iterable[tuple[str, Labels, float]]:
        if self.label is None:
            yield self.name, (), self._values.get("", 0.0)
            return
        for label_value in sorted(self._values):
            yield self.name, ((self.label, label_value),), self._values[label_value]


class Gauge(Metric):
    """A value read from ``read`` at scrape time (never stale, nothing to update)."""

    kind = "gauge"

    def __init__(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        super().__init__(name, help_text)
        self.read = read

    def samples(self) -> Iterable[tuple[str, Labels, float]]:
        yield self.name, (), float(self.read())


class CounterFunction(Gauge):
    """A counter kept elsewhere (e.g. the pool's restart count), read at scrape time."""

    kind = "counter"


class Histogram(Metric):
    """Observations counted into cumulative buckets (upper bounds, ascending)."""

    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: Sequence[float]) -> None:
        super().__init__(name, help_text)
        if list(buckets) != sorted(buckets):
            raise ValueError("histogram buckets must be ascending")
        self.bounds = (*buckets, math.inf)
        self.counts = [0] * len(self.bounds)
        self.sum = 0.0
        self.count = 0
        self.max = -math.inf

    def observe(self, value: float) -> None:
        for index, bound in enumerate(self.bounds):
            if value <= bound:
                self.counts[index] += 1
                break
        self.sum += value
        self.count += 1
        self.max = max(self.max, value)

    def quantile_bound(self, quantile: float) -> float:
        """The smallest bucket bound that holds at least ``quantile`` of the observations.

        An upper bound on the true quantile (exact enough to check a target
        that is itself a bucket bound); ``nan`` before any observation.
        """
        if self.count == 0:
            return math.nan
        needed = quantile * self.count
        seen = 0
        for bound, count in zip(self.bounds, self.counts, strict=True):
            seen += count
            if seen >= needed:
                return bound
        return math.inf

    def samples(self) -> Iterable[tuple[str, Labels, float]]:
        cumulative = 0
        for bound, count in zip(self.bounds, self.counts, strict=True):
            cumulative += count
            yield f"{self.name}_bucket", (("le", _format_value(bound)),), cumulative
        yield f"{self.name}_sum", (), self.sum
        yield f"{self.name}_count", (), self.count


class ServerMetrics:
    """Every metric the server exports; the server updates them, ``/metrics`` renders them.

    Gauges read live values through the callables given here, so the
    numbers on a scrape are those of that instant.
    """

    def __init__(
        self,
        sessions_open: Callable[[], float],
        thinks_running: Callable[[], float],
        thinks_queued: Callable[[], float],
        worker_restarts: Callable[[], float],
    ) -> None:
        started = time.time()
        self.connections = Counter("arena_connections_total", "WebSocket connections accepted.")
        self.refused = Counter(
            "arena_connections_refused_total",
            "Connections refused, by reason (full, unauthorized, origin, host).",
            "reason",
        )
        self.closed_by_server = Counter(
            "arena_connections_closed_total",
            "Connections the server closed on purpose, by reason (hello_timeout, unauthorized).",
            "reason",
        )
        self.messages_in = Counter(
            "arena_messages_received_total",
            "Frames received, by request type (invalid: not a valid request).",
            "type",
        )
        self.messages_out = Counter(
            "arena_messages_sent_total", "Frames sent, by message type.", "type"
        )
        self.info_dropped = Counter(
            "arena_info_dropped_total",
            "Progress reports dropped because a client did not read its messages.",
        )
        self.errors = Counter("arena_errors_total", "error replies, by error code.", "code")
        self.bestmoves = Counter("arena_bestmoves_total", "Thinks answered, by reason.", "reason")
        self.lateness = Histogram(
            "arena_bestmove_lateness_seconds",
            "When a timed think's bestmove was written to the socket, relative to its "
            "deadline (negative: early).",
            LATENESS_BUCKETS_S,
        )
        self.queue_wait = Histogram(
            "arena_think_queue_seconds",
            "How long a think waited for a worker (until answered, if it never got one).",
            QUEUE_WAIT_BUCKETS_S,
        )
        self.loop_lag = Histogram(
            "arena_event_loop_lag_seconds",
            f"How late the event loop ran a timer due every {LOOP_LAG_INTERVAL_S:g} s.",
            LOOP_LAG_BUCKETS_S,
        )
        self._metrics: list[Metric] = [
            Gauge("arena_sessions_open", "Open WebSocket sessions.", sessions_open),
            Gauge("arena_thinks_running", "Thinks being searched by a worker.", thinks_running),
            Gauge("arena_thinks_queued", "Thinks waiting for a free worker.", thinks_queued),
            CounterFunction(
                "arena_worker_restarts_total",
                "Search processes replaced after dying or hanging.",
                worker_restarts,
            ),
            Gauge(
                "arena_start_time_seconds",
                "Start time of the server (Unix time).",
                lambda: started,
            ),
            self.connections,
            self.refused,
            self.closed_by_server,
            self.messages_in,
            self.messages_out,
            self.info_dropped,
            self.errors,
            self.bestmoves,
            self.lateness,
            self.queue_wait,
            self.loop_lag,
        ]

    def render(self) -> str:
        """The whole exposition, one metric family after another."""
        lines: list[str] = []
        for metric in self._metrics:
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"


class LoopLagMonitor:
    """A task that sleeps :data:`LOOP_LAG_INTERVAL_S` and records how late it woke up.

    Call :meth:`start` from the running loop and :meth:`stop` (await it) at
    shutdown; the task is owned here and never left behind.
    """

    def __init__(self, histogram: Histogram, interval_s: float = LOOP_LAG_INTERVAL_S) -> None:
        self.histogram = histogram
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.interval_s)
            self.histogram.observe(max(0.0, time.monotonic() - before - self.interval_s))
