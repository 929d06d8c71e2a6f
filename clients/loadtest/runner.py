"""One bounded load run (:class:`LoadRun`): sessions following the stages, then the report."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import asdict
from typing import Any, TextIO

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake, InvalidStatus

from clients.load_config import target_at
from clients.loadtest.checks import run_checks, run_status
from clients.loadtest.config import MAX_CONNECTIONS, LoadConfig
from clients.loadtest.metrics import readings_differ, scrape_metrics, server_view
from clients.loadtest.scenarios import Scenario, load_scenario
from clients.loadtest.series import series_row
from clients.loadtest.session import REPLY_TIMEOUT_S, LoadSession
from clients.loadtest.summary import Recorder, percentiles, thinks_summary

#: After the run's end, how long in-flight scenarios may take to finish.
WIND_DOWN_S = 5.0


#: Pause before a connection retries after failing to connect.
RECONNECT_PAUSE_S = 0.5


#: How often the run's controller looks at the clock to follow its stages.
TICK_S = 0.01


class LoadRun:
    """One bounded run; :meth:`run` returns the report as a JSON-ready map.

    While it runs, :attr:`series` gets one row per ``interval_s`` (see
    :func:`series_row`), for ``--out``.
    """

    def __init__(
        self, config: LoadConfig, scenario: Scenario | None = None, progress: TextIO | None = None
    ) -> None:
        config.check()
        self.config = config
        self.scenario = scenario or load_scenario(config.scenario)
        self.progress = progress
        self.recorder = Recorder()
        self.plan = config.plan()
        self.started = 0.0
        self.ends_at = 0.0
        self.iterations_started = 0
        self.connected = 0
        #: Where the stages are now: connections (closed) or runs per second.
        self.target = 0.0
        self.series: list[dict[str, Any]] = []
        self._stopping = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_row: dict[str, Any] = {}

    def running(self) -> bool:
        if self._stopping or time.monotonic() >= self.ends_at:
            return False
        limit = self.config.iterations
        return limit is None or self.iterations_started < limit

    async def run(self) -> dict[str, Any]:
        config = self.config
        before = await scrape_metrics(config.url, config.token)
        self.started = time.monotonic()
        self.ends_at = self.started + config.total_s
        self._last_row = self._totals()
        ticker = asyncio.create_task(self._tick())
        try:
            if config.mode == "closed":
                await self._closed_model()
            else:
                await self._open_model()
            if self._tasks:
                _, pending = await asyncio.wait(self._tasks, timeout=WIND_DOWN_S)
            else:
                pending = set()
            self._stopping = True
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            self.recorder.count("clients_cancelled_at_wind_down", len(pending))
        finally:
            self._stopping = True
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            self._add_row()
            if self.progress:
                self._print_progress(final=True)
        elapsed = time.monotonic() - self.started
        after = await scrape_metrics(config.url, config.token)
        return self._report(elapsed, before, after)

    def _spawn(self, work: Awaitable[None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _follow_stages(self) -> float:
        self.target = target_at(self.plan, time.monotonic() - self.started)
        return self.target

    async def _closed_model(self) -> None:
        """Keep connection ``i`` running its scenario while ``i`` is below the stages' target."""
        clients: dict[int, asyncio.Task[None]] = {}
        while self.running():
            target = self._follow_stages()
            for index in range(min(math.ceil(target), MAX_CONNECTIONS)):
                task = clients.get(index)
                if task is None or task.done():
                    clients[index] = self._spawn(self._client(index))
            await asyncio.sleep(TICK_S)

    async def _open_model(self) -> None:
        """Start scenario runs at the stages' rate on pooled connections; drop what cannot start."""
        idle: list[LoadSession] = []
        opened = 0
        due = 0.0
        last = time.monotonic()
        while self.running():
            now = time.monotonic()
            rate = self._follow_stages()
            due += rate * (now - last)
            last = now
            while due >= 1 and self.running():
                due -= 1
                self.recorder.count("iterations_due")
                if idle:
                    self._spawn(self._pooled_run(idle.pop(), idle))
                elif opened < self.config.connections:
                    self._spawn(self._open_and_run(opened, idle))
                    opened += 1
                else:
                    self.recorder.count("iterations_dropped")
            await asyncio.sleep(TICK_S)
        for session in idle:
            await self._close(session)

    async def _open_and_run(self, index: int, idle: list[LoadSession]) -> None:
        session = await self._open(index, random.Random(self.config.seed * 100_003 + index))
        if session is None:
            self.recorder.count("iterations_failed")
            return
        await self._pooled_run(session, idle)

    async def _pooled_run(self, session: LoadSession, idle: list[LoadSession]) -> None:
        try:
            self.iterations_started += 1
            await self.scenario(session)
        finally:
            if session.closed or not self.running():
                await self._close(session)
            else:
                idle.append(session)

    async def _open(self, index: int, rng: random.Random) -> LoadSession | None:
        """A connected session that said hello, or ``None`` (the failure counted)."""
        config = self.config
        headers = {"Authorization": f"Bearer {config.token}"} if config.token else {}
        opened = time.monotonic()
        try:
            ws = await connect(
                config.url,
                compression=None,
                additional_headers=headers,
                open_timeout=REPLY_TIMEOUT_S,
                max_size=1 << 20,
            )
        except (OSError, InvalidHandshake, TimeoutError) as error:
            status = error.response.status_code if isinstance(error, InvalidStatus) else None
            self.recorder.closes[f"connect_failed_{status or type(error).__name__}"] += 1
            return None
        self.recorder.sample("connect", time.monotonic() - opened)
        self.connected += 1
        if config.mode == "closed":

            def running() -> bool:
                return self.running() and index < self.target

        else:
            running = self.running
        session = LoadSession(
            ws, self.recorder, config.encoding, rng, running, config.movetime_ms, index=index
        )
        session.run_ends_at = self.ends_at
        if await session.hello() is None:
            await self._close(session)
            return None
        return session

    async def _close(self, session: LoadSession) -> None:
        self.connected -= 1
        if not session.closed:
            session.closed = True
            with contextlib.suppress(Exception):
                await session.ws.close()
        else:
            session.ws.transport.abort()

    async def _client(self, index: int) -> None:
        """Closed model: connection ``index`` runs the scenario until the run or its stage ends."""
        rng = random.Random(self.config.seed * 100_003 + index)
        while self.running() and index < self.target:
            session = await self._open(index, rng)
            if session is None:
                await asyncio.sleep(RECONNECT_PAUSE_S)
                continue
            try:
                while session.running:
                    self.iterations_started += 1
                    await self.scenario(session)
            finally:
                await self._close(session)

    async def _tick(self) -> None:
        """Every ``interval_s``: a row of the time series, and the progress line."""
        since_progress = 0.0
        while True:
            await asyncio.sleep(self.config.interval_s)
            self._add_row()
            since_progress += self.config.interval_s
            if self.progress and since_progress >= 1.0:
                since_progress = 0.0
                self._print_progress()

    def _totals(self) -> dict[str, Any]:
        counts = self.recorder.counts
        return {
            "iterations": self.iterations_started,
            "thinks_sent": counts["thinks_sent"],
            "thinks_answered": counts["thinks_answered"],
            "overloaded": self.recorder.reasons["overloaded"],
            "refused": counts["thinks_refused"],
            "lost": counts["lost_answers"] + counts["lost_replies"],
            "errors": sum(self.recorder.errors.values()),
            "dropped": counts["iterations_dropped"],
            "samples": {name: len(values) for name, values in self.recorder.samples.items()},
        }

    def _add_row(self) -> None:
        totals = self._totals()
        self.series.append(series_row(self, self._last_row, totals))
        self._last_row = totals

    def _print_progress(self, final: bool = False) -> None:
        assert self.progress is not None
        counts = self.recorder.counts
        elapsed = max(1e-9, time.monotonic() - self.started)
        late = self.recorder.samples.get("bestmove_lateness", [])
        late_p99 = percentiles(late[-2000:]).get("p99", float("nan"))
        target = (
            f"conns {self.connected:>4}/{math.ceil(self.target)}"
            if self.config.mode == "closed"
            else f"rate {self.target:6.1f}/s conns {self.connected:>4} "
            f"dropped {counts['iterations_dropped']}"
        )
        line = (
            f"[{elapsed:6.1f}s] {target} "
            f"thinks {counts['thinks_answered']:>6} ({counts['thinks_answered'] / elapsed:6.1f}/s) "
            f"overloaded {self.recorder.reasons['overloaded']} "
            f"refused {counts['thinks_refused']} lost {counts['lost_answers']} "
            f"errors {sum(self.recorder.errors.values())} late p99 {late_p99:6.1f} ms"
        )
        end = "\n" if final or not self.progress.isatty() else ""
        self.progress.write(("\r" if self.progress.isatty() else "") + line + end)
        self.progress.flush()

    def _report(
        self, elapsed: float, before: dict[str, float] | None, after: dict[str, float] | None
    ) -> dict[str, Any]:
        recorder = self.recorder
        counts = recorder.counts
        report: dict[str, Any] = {
            "config": asdict(self.config) | {"token": bool(self.config.token)},
            "elapsed_s": round(elapsed, 2),
            "iterations": self.iterations_started,
            "thinks": thinks_summary(counts, recorder.reasons, elapsed)
            | {
                "depths": {str(depth): count for depth, count in sorted(recorder.depths.items())},
                "depth0_reasons": dict(recorder.depth0_reasons),
                "retry_waits": counts["retry_waits"],
                "refusals_without_retry_hint": counts["refusals_without_retry_hint"],
            },
            "groups": {
                group: thinks_summary(
                    group_counts,
                    Counter(
                        {key[7:]: n for key, n in group_counts.items() if key.startswith("reason:")}
                    ),
                    elapsed,
                )
                for group, group_counts in sorted(recorder.groups.items())
            },
            "lost_replies": counts["lost_replies"],
            "errors": dict(recorder.errors),
            "connections": dict(recorder.closes)
            | {
                "clients_cancelled_at_wind_down": counts["clients_cancelled_at_wind_down"],
            },
            "messages": {"sent": counts["messages_sent"], "received": counts["messages_received"]},
            "latency_ms": {
                name: percentiles(values) for name, values in sorted(recorder.samples.items())
            },
        }
        if self.config.mode == "arrival-rate":
            due, dropped = counts["iterations_due"], counts["iterations_dropped"]
            report["arrivals"] = {
                "due": due,
                "started": self.iterations_started,
                "dropped": dropped,
                "failed_to_connect": counts["iterations_failed"],
                "dropped_share": round(dropped / due, 5) if due else 0.0,
            }
        report["plan"] = [asdict(stage) for stage in self.plan]
        note = _server_note(before, after)
        if note is None and before is not None and after is not None:
            report["server"] = server_view(before, after)
            counted = sum(report["server"]["bestmoves"].values())
            answered = report["thinks"]["answered"]
            if counted < answered:
                note = (
                    f"partial: the server counted {counted} bestmoves of the {answered} "
                    "answered (another instance behind a proxy?)"
                )
        if note is not None:
            report["server_note"] = note
        report["checks"] = run_checks(report, self.config)
        report["status"] = run_status(report["checks"])
        report["passed"] = report["status"] == "passed"
        return report


def _server_note(before: dict[str, float] | None, after: dict[str, float] | None) -> str | None:
    """Why the server's own figures are left out of the report, else ``None``."""
    if before is None or after is None:
        return "unavailable: the server's /metrics could not be read"
    why = readings_differ(before, after)
    return None if why is None else f"unavailable: {why}"


def run_load(
    config: LoadConfig, scenario: Scenario | None = None, progress: TextIO | None = sys.stderr
) -> dict[str, Any]:
    """Run a load test to its end and return its report."""
    return asyncio.run(LoadRun(config, scenario, progress).run())
