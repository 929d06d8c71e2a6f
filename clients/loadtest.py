"""Load testing: many scripted clients against one server, with latency figures and a report.

``arena loadtest`` opens ``connections`` WebSocket connections, ramped up
over ``ramp_s`` seconds; each runs a *scenario* over and over until the run
ends (after ``duration_s``, or once ``iterations`` scenario runs have
started, whichever comes first), and the whole run stops by itself. The
tester then prints and (optionally) writes a JSON report: connect time,
request round trips, think -> first ``info``, ``bestmove`` lateness against
the think's deadline, stop -> ``bestmove``, thinks per second, errors by
code, and lost answers (a think that never got its ``bestmove``), each as
p50/p95/p99/max in milliseconds. When the server's ``/metrics`` is
reachable, the report adds the server's own view of the run (event-loop lag
and bestmove lateness, from the histogram deltas).

A scenario is a plain async function; write your own and pass it as
``--scenario package.module:function``::

    async def my_scenario(session: LoadSession) -> None:
        await session.new_game("connect4")
        while session.running and not session.game_over:
            best = await session.think(movetime_ms=200)
            if best is None:          # lost, or the connection closed
                return
            await session.move(best["move"])

:class:`LoadSession` speaks the protocol and times everything it does; a
scenario never needs to measure anything itself. Use ``session.rng`` (seeded
per connection) for random choices so that runs are repeatable. The built-in
scenarios are in :data:`SCENARIOS`.

Only loopback targets are accepted: this tool is for testing a server on
the same machine, and its load is bounded in connections and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import ipaddress
import math
import random
import re
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from clients.codec import EncodingName, decode, encode

#: Hard bounds on a run, whatever the options say.
MAX_CONNECTIONS = 5000
MAX_DURATION_S = 3600.0
#: A think with no ``bestmove`` this long after its deadline (or after its
#: ``stop``) is counted as lost; the protocol promises it by the deadline.
LOST_AFTER_S = 5.0
#: How long any other reply may take before the request counts as lost.
REPLY_TIMEOUT_S = 10.0
#: After the run's end, how long in-flight scenarios may take to finish.
WIND_DOWN_S = 5.0
#: Pause before a connection retries after failing to connect.
RECONNECT_PAUSE_S = 0.5
#: Percentiles in the report.
PERCENTILES = (50, 95, 99)

Scenario = Callable[["LoadSession"], Awaitable[None]]


# ----------------------------------------------------------------------
# Recording.


@dataclass(slots=True)
class Recorder:
    """Every sample and count of a run (all sessions share one)."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)

    def sample(self, name: str, seconds: float) -> None:
        self.samples.setdefault(name, []).append(seconds * 1000)

    def count(self, name: str, amount: int = 1) -> None:
        self.counts[name] += amount


def percentiles(values: list[float]) -> dict[str, float]:
    """count, p50/p95/p99 (nearest rank), max and mean of ``values``."""
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    summary: dict[str, float] = {"count": len(ordered)}
    for percent in PERCENTILES:
        rank = max(1, math.ceil(percent / 100 * len(ordered)))
        summary[f"p{percent}"] = round(ordered[rank - 1], 2)
    summary["max"] = round(ordered[-1], 2)
    summary["mean"] = round(sum(ordered) / len(ordered), 2)
    return summary


# ----------------------------------------------------------------------
# One scripted client.


class SessionClosed(Exception):
    """The connection closed (by the server, or by :meth:`LoadSession.abort`)."""


class LoadSession:
    """One connection, timed: every request records its round trip in the shared recorder.

    Requests are sequential (one at a time per session), as in a real
    client. Replies come back as protocol maps; an ``error`` reply is
    counted under its code and returned as is. When the connection closes,
    methods return ``None`` and :attr:`closed` is true; the runner opens a
    new session for the next scenario run.
    """

    def __init__(
        self,
        ws: ClientConnection,
        recorder: Recorder,
        encoding: EncodingName,
        rng: random.Random,
        running: Callable[[], bool],
        movetime_ms: int = 100,
    ) -> None:
        self.ws = ws
        #: The run's ``--movetime``, for scenarios that think at a fixed budget.
        self.movetime_ms = movetime_ms
        self.recorder = recorder
        self.encoding: EncodingName = encoding
        self.rng = rng
        self._running = running
        self._ids = 0
        self.closed = False
        self.state: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None

    @property
    def running(self) -> bool:
        """False once the run is over: scenarios should finish what they are doing."""
        return self._running() and not self.closed

    @property
    def game_over(self) -> bool:
        return self.state is None or self.state.get("result") is not None

    @property
    def legal_moves(self) -> list[str]:
        return list(self.state["legal_moves"]) if self.state is not None else []

    # ------------------------------------------------------------------
    # Requests.

    async def hello(self, client: str = "arena-loadtest") -> dict[str, Any] | None:
        reply = await self.request({"type": "hello", "protocol": 1, "client": client})
        if reply is not None and reply.get("type") == "welcome":
            self.welcome = reply
        return reply

    async def new_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        position: str | None = None,
        moves: list[str] | None = None,
    ) -> dict[str, Any] | None:
        message: dict[str, Any] = {"type": "new_game", "game": game}
        if options:
            message["options"] = dict(options)
        if position is not None:
            message["position"] = position
        if moves:
            message["moves"] = moves
        return self._keep_state(await self.request(message))

    async def move(self, move: str) -> dict[str, Any] | None:
        return self._keep_state(await self.request({"type": "move", "move": move}))

    async def random_move(self) -> dict[str, Any] | None:
        """Play a random legal move (from :attr:`rng`)."""
        return await self.move(self.rng.choice(self.legal_moves))

    async def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request with a fresh ``id``; its reply, timed as ``<type>_rtt``."""
        request_id = self._next_id()
        sent = time.monotonic()
        try:
            await self._send({**message, "id": request_id})
            reply = await self._receive_for(request_id, sent + REPLY_TIMEOUT_S)
        except SessionClosed:
            return None
        if reply is None:
            self.recorder.count("lost_replies")
            return None
        self.recorder.sample(f"{message['type']}_rtt", time.monotonic() - sent)
        self._note_error(reply)
        return reply

    async def think(
        self,
        movetime_ms: int | None = None,
        *,
        depth: int | None = None,
        stop_after_ms: float | None = None,
        abort_after_ms: float | None = None,
    ) -> dict[str, Any] | None:
        """Think and return the ``bestmove`` (``None`` if lost, rejected or aborted).

        ``stop_after_ms`` sends ``stop`` that long after the think (timing
        stop -> bestmove); ``abort_after_ms`` drops the connection abruptly
        instead, mid-think (the think is then not counted as lost).
        Records think -> first info, and, with ``movetime_ms``, the
        bestmove's lateness against send time + movetime.
        """
        limits: dict[str, Any] = {}
        if movetime_ms is not None:
            limits["movetime_ms"] = movetime_ms
        if depth is not None:
            limits["depth"] = depth
        think_id = self._next_id()
        sent = time.monotonic()
        deadline = None if movetime_ms is None else sent + movetime_ms / 1000
        try:
            await self._send({"type": "think", "id": think_id, "limits": limits})
        except SessionClosed:
            return None
        self.recorder.count("thinks_sent")
        action_at: float | None = None
        if stop_after_ms is not None:
            action_at = sent + stop_after_ms / 1000
        elif abort_after_ms is not None:
            action_at = sent + abort_after_ms / 1000
        stopped_at: float | None = None
        give_up = (deadline if deadline is not None else sent + REPLY_TIMEOUT_S) + LOST_AFTER_S
        first_info = True
        try:
            while True:
                wake = give_up if action_at is None else min(give_up, action_at)
                message = await self._receive(wake)
                now = time.monotonic()
                if message is None:
                    if action_at is not None and now >= action_at:
                        action_at = None
                        if abort_after_ms is not None:
                            self.recorder.count("aborts")
                            self.abort()
                            return None
                        stopped_at = now
                        give_up = now + LOST_AFTER_S
                        await self._send({"type": "stop", "id": think_id})
                        continue
                    self.recorder.count("lost_answers")
                    return None
                if message.get("id") != think_id:
                    continue  # a late reply to something earlier: ignore
                kind = message.get("type")
                if kind == "info":
                    if first_info:
                        first_info = False
                        self.recorder.sample("think_first_info", now - sent)
                    continue
                if kind == "error":
                    self._note_error(message)
                    return None
                if kind == "bestmove":
                    self._note_bestmove(message, sent, now, deadline, stopped_at)
                    return message
        except SessionClosed:
            if abort_after_ms is None:
                self.recorder.count("lost_answers")
            return None

    def abort(self) -> None:
        """Drop the connection without a closing handshake (as a crashed client would)."""
        self.closed = True
        self.ws.transport.abort()

    # ------------------------------------------------------------------
    # Plumbing.

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _keep_state(self, reply: dict[str, Any] | None) -> dict[str, Any] | None:
        if reply is not None and reply.get("type") == "state":
            self.state = reply
        return reply

    def _note_error(self, reply: Mapping[str, Any]) -> None:
        if reply.get("type") == "error":
            self.recorder.errors[str(reply.get("code"))] += 1

    def _note_bestmove(
        self,
        message: Mapping[str, Any],
        sent: float,
        now: float,
        deadline: float | None,
        stopped_at: float | None,
    ) -> None:
        recorder = self.recorder
        recorder.count("thinks_answered")
        recorder.reasons[str(message.get("reason"))] += 1
        recorder.sample("think_rtt", now - sent)
        if stopped_at is not None:
            recorder.sample("stop_to_bestmove", now - stopped_at)
        elif deadline is not None:
            recorder.sample("bestmove_lateness", now - deadline)

    async def _send(self, message: dict[str, Any]) -> None:
        if self.closed:
            raise SessionClosed
        try:
            await self.ws.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            self._on_closed(closed)
            raise SessionClosed from closed
        self.recorder.count("messages_sent")

    async def _receive(self, until: float) -> dict[str, Any] | None:
        """The next message, or ``None`` if none came by ``until`` (monotonic seconds)."""
        if self.closed:
            raise SessionClosed
        try:
            frame = await asyncio.wait_for(self.ws.recv(), max(0.0, until - time.monotonic()))
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            self._on_closed(closed)
            raise SessionClosed from closed
        self.recorder.count("messages_received")
        try:
            return decode(frame)
        except ValueError:
            self.recorder.errors["undecodable_frame"] += 1
            return {}

    async def _receive_for(self, request_id: int, until: float) -> dict[str, Any] | None:
        while True:
            message = await self._receive(until)
            if message is None or message.get("id") == request_id:
                return message

    def _on_closed(self, closed: ConnectionClosed) -> None:
        if not self.closed:
            self.closed = True
            code = closed.rcvd.code if closed.rcvd is not None else "none"
            self.recorder.closes[f"closed_by_server_{code}"] += 1


# ----------------------------------------------------------------------
# Built-in scenarios.


async def mixed(session: LoadSession) -> None:
    """A game of Connect Four with everything a client does, some of it rudely.

    new_game, then moves alternating with thinks (movetime 50-300 ms);
    one think in eight is stopped mid-way, one game in twenty-five ends
    with an abrupt disconnect in the middle of a think.
    """
    rng = session.rng
    if await session.new_game("connect4") is None:
        return
    abort_this_game = rng.random() < 0.04
    while session.running and not session.game_over:
        if rng.random() < 0.5:
            if await session.random_move() is None:
                return
            continue
        movetime = rng.choice((50, 100, 200, 300))
        if abort_this_game and rng.random() < 0.3:
            await session.think(movetime, abort_after_ms=rng.uniform(5, movetime))
            return
        if rng.random() < 0.125:
            best = await session.think(None, stop_after_ms=rng.uniform(5, 150))
        else:
            best = await session.think(movetime)
        if best is None or await session.move(best["move"]) is None:
            return


async def think(session: LoadSession) -> None:
    """Engine against itself at movetime ``--movetime`` ms: think, play the answer, repeat.

    The opening is four random moves, so that sessions search different
    positions.
    """
    if await session.new_game("connect4") is None:
        return
    for _ in range(4):
        if await session.random_move() is None:
            return
    while session.running and not session.game_over:
        best = await session.think(session.movetime_ms)
        if best is None or await session.move(best["move"]) is None:
            return


async def idle(session: LoadSession) -> None:
    """Say hello, then hold the connection open, doing nothing, until the run ends."""
    while session.running:
        await asyncio.sleep(0.2)


SCENARIOS: dict[str, Scenario] = {"mixed": mixed, "think": think, "idle": idle}


def load_scenario(name: str) -> Scenario:
    """A built-in scenario by name, or ``package.module:function``."""
    if name in SCENARIOS:
        return SCENARIOS[name]
    module_name, sep, function_name = name.partition(":")
    if not sep:
        raise ValueError(
            f"unknown scenario {name!r}: use one of {', '.join(SCENARIOS)} "
            "or package.module:function"
        )
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not callable(function):
        raise ValueError(f"{name!r} is not a function")
    scenario: Scenario = function
    return scenario


# ----------------------------------------------------------------------
# The run.


@dataclass(frozen=True, slots=True)
class LoadConfig:
    url: str
    connections: int = 10
    ramp_s: float = 1.0
    duration_s: float = 10.0
    #: Stop once this many scenario runs have started (``None``: no count bound).
    iterations: int | None = None
    scenario: str = "mixed"
    movetime_ms: int = 100
    encoding: EncodingName = "msgpack"
    token: str | None = None
    seed: int = 1

    def check(self) -> None:
        """Raise ``ValueError`` unless the run is bounded and aimed at loopback."""
        if not 1 <= self.connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1..{MAX_CONNECTIONS}")
        if not 0 < self.duration_s <= MAX_DURATION_S:
            raise ValueError(f"duration must be in (0, {MAX_DURATION_S:g}] seconds")
        if self.ramp_s < 0 or self.ramp_s > self.duration_s:
            raise ValueError("ramp-up must be between 0 and the duration")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")
        if self.movetime_ms < 1:
            raise ValueError("movetime must be at least 1 ms")
        require_loopback(self.url)


def require_loopback(url: str) -> None:
    """Refuse any target but this machine (``ValueError``)."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        raise ValueError(f"{url!r} is not a ws:// or wss:// URL")
    host = parts.hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ValueError(f"the load tester only targets loopback (127.0.0.1, ::1), not {host!r}")


class LoadRun:
    """One bounded run; :meth:`run` returns the report as a JSON-ready map."""

    def __init__(self, config: LoadConfig, scenario: Scenario | None = None,
                 progress: TextIO | None = None) -> None:
        config.check()
        self.config = config
        self.scenario = scenario or load_scenario(config.scenario)
        self.progress = progress
        self.recorder = Recorder()
        self.started = 0.0
        self.ends_at = 0.0
        self.iterations_started = 0
        self.connected = 0
        self._stopping = False

    def running(self) -> bool:
        if self._stopping or time.monotonic() >= self.ends_at:
            return False
        limit = self.config.iterations
        return limit is None or self.iterations_started < limit

    async def run(self) -> dict[str, Any]:
        config = self.config
        before = await scrape_metrics(config.url, config.token)
        self.started = time.monotonic()
        self.ends_at = self.started + config.duration_s
        clients = [
            asyncio.create_task(self._client(index)) for index in range(config.connections)
        ]
        reporter = asyncio.create_task(self._report_progress()) if self.progress else None
        try:
            _, pending = await asyncio.wait(clients, timeout=config.duration_s + WIND_DOWN_S)
            self._stopping = True
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            self.recorder.count("clients_cancelled_at_wind_down", len(pending))
        finally:
            if reporter is not None:
                reporter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reporter
            if self.progress:
                self._print_progress(final=True)
        elapsed = time.monotonic() - self.started
        after = await scrape_metrics(config.url, config.token)
        return self._report(elapsed, before, after)

    async def _client(self, index: int) -> None:
        config = self.config
        await asyncio.sleep(index * config.ramp_s / config.connections)
        rng = random.Random(config.seed * 100_003 + index)
        headers = {"Authorization": f"Bearer {config.token}"} if config.token else {}
        while self.running():
            opened = time.monotonic()
            try:
                ws = await connect(
                    config.url, compression=None, additional_headers=headers,
                    open_timeout=REPLY_TIMEOUT_S, max_size=1 << 20,
                )
            except (OSError, InvalidHandshake, TimeoutError) as error:
                status = error.response.status_code if isinstance(error, InvalidStatus) else None
                self.recorder.closes[f"connect_failed_{status or type(error).__name__}"] += 1
                await asyncio.sleep(RECONNECT_PAUSE_S)
                continue
            self.recorder.sample("connect", time.monotonic() - opened)
            self.connected += 1
            session = LoadSession(
                ws, self.recorder, config.encoding, rng, self.running, config.movetime_ms
            )
            try:
                if await session.hello() is None:
                    continue
                while self.running() and not session.closed:
                    self.iterations_started += 1
                    await self.scenario(session)
            finally:
                self.connected -= 1
                if not session.closed:
                    with contextlib.suppress(Exception):
                        await ws.close()
                else:
                    ws.transport.abort()

    async def _report_progress(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self._print_progress()

    def _print_progress(self, final: bool = False) -> None:
        assert self.progress is not None
        counts = self.recorder.counts
        elapsed = max(1e-9, time.monotonic() - self.started)
        late = self.recorder.samples.get("bestmove_lateness", [])
        late_p99 = percentiles(late[-2000:]).get("p99", float("nan"))
        line = (
            f"[{elapsed:6.1f}s] conns {self.connected:>4}/{self.config.connections} "
            f"thinks {counts['thinks_answered']:>6} ({counts['thinks_answered'] / elapsed:6.1f}/s) "
            f"lost {counts['lost_answers']} errors {sum(self.recorder.errors.values())} "
            f"late p99 {late_p99:6.1f} ms"
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
            "thinks": {
                "sent": counts["thinks_sent"],
                "answered": counts["thinks_answered"],
                "lost": counts["lost_answers"],
                "aborted_on_purpose": counts["aborts"],
                "per_s": round(counts["thinks_answered"] / elapsed, 1) if elapsed else 0.0,
                "reasons": dict(recorder.reasons),
            },
            "lost_replies": counts["lost_replies"],
            "errors": dict(recorder.errors),
            "connections": dict(recorder.closes) | {
                "clients_cancelled_at_wind_down": counts["clients_cancelled_at_wind_down"],
            },
            "messages": {"sent": counts["messages_sent"], "received": counts["messages_received"]},
            "latency_ms": {
                name: percentiles(values) for name, values in sorted(recorder.samples.items())
            },
        }
        if before is not None and after is not None:
            report["server"] = server_view(before, after)
        return report


# ----------------------------------------------------------------------
# The server's own view, from /metrics.


def metrics_url(ws_url: str) -> str:
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urlunsplit((scheme, parts.netloc, "/metrics", "", ""))


async def scrape_metrics(ws_url: str, token: str | None) -> dict[str, float] | None:
    """The server's metric samples by full name (with labels), or ``None`` if unreachable."""
    request = urllib.request.Request(
        metrics_url(ws_url), headers={"Authorization": f"Bearer {token}"} if token else {}
    )

    def fetch() -> str:
        with urllib.request.urlopen(request, timeout=5) as response:
            text: str = response.read().decode()
            return text

    try:
        text = await asyncio.to_thread(fetch)
    except (OSError, urllib.error.URLError):
        return None
    return parse_metrics(text)


def parse_metrics(text: str) -> dict[str, float]:
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        with contextlib.suppress(ValueError):
            samples[name] = float(value)
    return samples


def histogram_quantile_bound(
    before: Mapping[str, float], after: Mapping[str, float], name: str, quantile: float
) -> float | None:
    """Upper bound (a bucket's ``le``) of ``quantile`` over the observations between scrapes."""
    buckets: list[tuple[float, float]] = []
    for key, value in after.items():
        match = re.fullmatch(rf'{re.escape(name)}_bucket\{{le="([^"]+)"\}}', key)
        if match:
            bound = math.inf if match.group(1) == "+Inf" else float(match.group(1))
            buckets.append((bound, value - before.get(key, 0.0)))
    buckets.sort()
    if not buckets or buckets[-1][1] <= 0:
        return None
    total = buckets[-1][1]
    for bound, cumulative in buckets:
        if cumulative >= quantile * total:
            return bound
    return math.inf


def server_view(before: Mapping[str, float], after: Mapping[str, float]) -> dict[str, Any]:
    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    view: dict[str, Any] = {}
    for label, name in (
        ("event_loop_lag", "arena_event_loop_lag_seconds"),
        ("bestmove_lateness", "arena_bestmove_lateness_seconds"),
    ):
        count = delta(f"{name}_count")
        view[label] = {
            "count": int(count),
            "mean_ms": round(delta(f"{name}_sum") / count * 1000, 2) if count else None,
            **{
                f"p{percent}_le_ms": _ms(histogram_quantile_bound(before, after, name,
                                                                  percent / 100))
                for percent in PERCENTILES
            },
        }
    view["errors"] = {
        key.split('"')[1]: int(delta(key))
        for key in after if key.startswith("arena_errors_total{") and delta(key)
    }
    view["worker_restarts"] = int(delta("arena_worker_restarts_total"))
    view["info_dropped"] = int(delta("arena_info_dropped_total"))
    return view


def _ms(seconds: float | None) -> float | str | None:
    if seconds is None:
        return None
    if math.isinf(seconds):
        return "+Inf"
    return round(seconds * 1000, 3)


def format_report(report: Mapping[str, Any]) -> str:
    """A short human summary of a report."""
    thinks = report["thinks"]
    lines = [
        f"{report['elapsed_s']} s, {report['config']['connections']} connections, "
        f"scenario {report['config']['scenario']}: {thinks['answered']} thinks answered "
        f"({thinks['per_s']}/s), {thinks['lost']} lost, "
        f"{thinks['aborted_on_purpose']} aborted on purpose",
        f"errors: {report['errors'] or 'none'}; connections: {report['connections']}",
        f"{'latency (ms)':<22}{'count':>8}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}",
    ]
    for name, summary in report["latency_ms"].items():
        if summary.get("count"):
            lines.append(
                f"{name:<22}{summary['count']:>8}"
                + "".join(f"{summary[key]:>9.1f}" for key in ("p50", "p95", "p99", "max"))
            )
    server = report.get("server")
    if server:
        lag, late = server["event_loop_lag"], server["bestmove_lateness"]
        lines.append(
            f"server: event-loop lag p99 <= {lag['p99_le_ms']} ms; "
            f"bestmove lateness p99 <= {late['p99_le_ms']} ms ({late['count']} timed thinks); "
            f"worker restarts {server['worker_restarts']}; errors {server['errors'] or 'none'}"
        )
    return "\n".join(lines)


def run_load(config: LoadConfig, scenario: Scenario | None = None,
             progress: TextIO | None = sys.stderr) -> dict[str, Any]:
    """Run a load test to its end and return its report."""
    return asyncio.run(LoadRun(config, scenario, progress).run())
