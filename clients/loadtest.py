"""Load testing: many scripted clients against one server, with latency figures and a verdict.

``arena loadtest`` runs a *scenario* on WebSocket connections in one of two
models (:mod:`clients.load_config`): *closed* (``connections`` sessions,
each running the scenario over and over, their number following stages:
by default a ramp over ``ramp_s`` and a hold until ``duration_s``) or
*arrival-rate* (scenario runs started ``rate`` times a second on a pool of
connections; a run due while every pooled connection is busy is dropped
and counted). The run stops by itself at the stages' end or once
``iterations`` runs have started. The tester then prints and (optionally)
writes a JSON report: connect time, request round trips, think -> first
``info``, ``bestmove`` lateness against the think's deadline, stop ->
``bestmove``, the time each think waited in the server's queue
(``queued_ms``), each as count/min/avg/med/p90/p95/p99/max in
milliseconds; thinks per second, answers by ``reason`` (the share answered
``overloaded``: no search process got to them), the depths reached, thinks
refused at once (``overloaded`` errors, after which the session waits the
server's ``retry_after_ms``), other errors by code, and lost answers (a
think that never got its ``bestmove``). When the server's ``/metrics`` is
reachable, the report adds the server's own view of the run (event-loop
lag, bestmove lateness and queue waits, from the histogram deltas). With
``--out`` it also writes a time series, one row per interval
(:func:`series_row`).

Every run ends with its checks: no answer lost, no connection failed, no
malformed answer (each fails the run), and the thresholds
(:class:`~clients.load_config.Threshold`): by default a run with more than
25% of its answers unsearched or half its thinks refused FAILS, one with
more than 5% (10% refused) is DEGRADED; ``--max-overloaded``,
``--max-refused``, ``--max-late-p99-ms`` and a ``--config`` file set
others. ``arena loadtest`` exits with 0 (passed), 1 (failed), 3 (degraded)
(:func:`exit_status`), 2 for bad options.

A scenario is a plain async function; write your own and pass it as
``--scenario package.module:function``::

    async def my_scenario(session: LoadSession) -> None:
        await session.new_game("connect4")
        while session.running and not session.game_over:
            best = await session.think(movetime_ms=200)
            if best is None:          # lost, or the connection closed
                return
            await session.move(best.move)

A scenario may give a session a :attr:`LoadSession.group` (a name): its
round trips are then also reported under ``<name>[<group>]`` and its thinks
counted per group, to compare well-behaved clients with abusive ones in
one run (:attr:`LoadSession.index` is the connection's number).

:class:`LoadSession` speaks the protocol and times everything it does; a
scenario never needs to measure anything itself. Use ``session.rng`` (seeded
per connection) for random choices so that runs are repeatable. The built-in
scenarios are in :data:`SCENARIOS`.

Only loopback targets are accepted: this tool is for testing a server on
the same machine, and its load is bounded in connections and time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import importlib
import ipaddress
import json
import math
import os
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

from clients.client import DEFAULT_URL
from clients.load_config import (
    DEFAULT_THRESHOLDS,
    MAX_RATE,
    MODES,
    SHARE_METRICS,
    Mode,
    Stage,
    Threshold,
    check_stages,
    merge_thresholds,
    parse_stage,
    read_config_file,
    target_at,
    thresholds_from_tables,
)
from engine.search.limits import Limits
from protocol.codec import EncodingName, decode_reply, encode
from protocol.errors import ErrorCode, ProtocolViolation
from protocol.records import (
    BestMove,
    ErrorMessage,
    GameState,
    Hello,
    Move,
    NewGame,
    Stop,
    Think,
    Welcome,
)

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
#: Percentiles of the server's histograms in the report.
PERCENTILES = (50, 95, 99)
#: Percentiles of the tester's own latency summaries (with min, avg and max).
SUMMARY_PERCENTILES = (50, 90, 95, 99)
#: After an ``overloaded`` refusal without a usable ``retry_after_ms``, the
#: session waits this long before its next think; and never longer than
#: :data:`MAX_RETRY_WAIT_MS`, whatever the server says.
DEFAULT_RETRY_AFTER_MS = 100
MAX_RETRY_WAIT_MS = 30_000
#: Exit statuses of ``arena loadtest``.
EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_DEGRADED = 3
EXIT_INTERRUPTED = 130
#: How often the run's controller looks at the clock to follow its stages.
TICK_S = 0.01
#: The time series' default interval (``--interval``).
DEFAULT_INTERVAL_S = 1.0

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
    #: Depth reached by each answered think (``bestmove.depth``).
    depths: Counter[int] = field(default_factory=Counter)
    #: The reasons of the answers at depth 0 (nothing searched to completion).
    depth0_reasons: Counter[str] = field(default_factory=Counter)
    #: Per :attr:`LoadSession.group`: thinks answered, lost, refused, and
    #: answers by reason (``reason:<reason>``).
    groups: dict[str, Counter[str]] = field(default_factory=dict)

    def sample(self, name: str, seconds: float, group: str | None = None) -> None:
        self.sample_ms(name, seconds * 1000, group)

    def sample_ms(self, name: str, milliseconds: float, group: str | None = None) -> None:
        self.samples.setdefault(name, []).append(milliseconds)
        if group is not None:
            self.samples.setdefault(f"{name}[{group}]", []).append(milliseconds)

    def count(self, name: str, amount: int = 1, group: str | None = None) -> None:
        self.counts[name] += amount
        if group is not None:
            self.groups.setdefault(group, Counter())[name] += amount


def percentiles(values: list[float]) -> dict[str, float]:
    """The summary of ``values`` the report gives for every latency.

    ``count``, ``min``, ``avg``, ``med``, ``p90``, ``p95``, ``p99`` and
    ``max`` (the figures k6 prints), percentiles by nearest rank; ``p50``
    and ``mean`` repeat ``med`` and ``avg`` under the names earlier reports
    used, so that scripts reading them keep working.
    """
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    summary: dict[str, float] = {"count": len(ordered), "min": round(ordered[0], 2)}
    mean = round(sum(ordered) / len(ordered), 2)
    summary["avg"] = mean
    ranked = {
        percent: round(ordered[max(1, math.ceil(percent / 100 * len(ordered))) - 1], 2)
        for percent in SUMMARY_PERCENTILES
    }
    summary["med"] = ranked[50]
    for percent in SUMMARY_PERCENTILES:
        summary[f"p{percent}"] = ranked[percent]
    summary["max"] = round(ordered[-1], 2)
    summary["mean"] = mean
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
        index: int = 0,
    ) -> None:
        self.ws = ws
        #: The run's ``--movetime``, for scenarios that think at a fixed budget.
        self.movetime_ms = movetime_ms
        #: The connection's number in the run (0 .. connections - 1).
        self.index = index
        #: Set by a scenario to report this session's figures apart too.
        self.group: str | None = None
        #: Monotonic time before which no think is sent (after a refusal).
        self.retry_at = 0.0
        #: Monotonic time the run ends (no waiting for a retry beyond it).
        self.run_ends_at = math.inf
        #: Whether the last think was refused as ``overloaded`` (the next
        #: one waits the server's ``retry_after_ms``): a scenario may retry.
        self.refused = False
        self.recorder = recorder
        self.encoding: EncodingName = encoding
        self.rng = rng
        self._running = running
        self._ids = 0
        self.closed = False
        self.state: GameState | None = None
        self.welcome: Welcome | None = None

    @property
    def running(self) -> bool:
        """False once the run is over: scenarios should finish what they are doing."""
        return self._running() and not self.closed

    @property
    def game_over(self) -> bool:
        return self.state is None or self.state.is_over

    @property
    def legal_moves(self) -> list[str]:
        return list(self.state.legal_moves) if self.state is not None else []

    # ------------------------------------------------------------------
    # Requests.

    async def hello(self, client: str = "arena-loadtest") -> dict[str, Any] | None:
        reply = await self.request(Hello(client=client).to_wire())
        if reply is not None and reply.get("type") == "welcome":
            try:
                self.welcome = Welcome.from_wire(reply)
            except ProtocolViolation as violation:
                self._note_malformed("welcome", violation)
        return reply

    async def new_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        position: str | None = None,
        moves: list[str] | None = None,
    ) -> dict[str, Any] | None:
        request = NewGame(game, None, dict(options or {}), position, tuple(moves or ()))
        return self._keep_state(await self.request(request.to_wire()))

    async def move(self, move: str) -> dict[str, Any] | None:
        return self._keep_state(await self.request(Move(move).to_wire()))

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
        self.recorder.sample(f"{message['type']}_rtt", time.monotonic() - sent, self.group)
        self._note_error(reply)
        return reply

    async def think(
        self,
        movetime_ms: int | None = None,
        *,
        depth: int | None = None,
        stop_after_ms: float | None = None,
        abort_after_ms: float | None = None,
    ) -> BestMove | None:
        """Think and return the ``bestmove`` (``None`` if lost, rejected, aborted or malformed).

        ``stop_after_ms`` sends ``stop`` that long after the think (timing
        stop -> bestmove); ``abort_after_ms`` drops the connection abruptly
        instead, mid-think (the think is then not counted as lost).
        Records think -> first info, and, with ``movetime_ms``, the
        bestmove's lateness against send time + movetime.

        A think the server refuses as ``overloaded`` returns ``None`` and is
        counted as refused, not as an error; the session's next think then
        waits the server's ``retry_after_ms`` first (no busy retrying).
        """
        if not await self._wait_for_retry():
            return None
        self.refused = False
        limits = Limits(movetime_ms=movetime_ms, depth=depth)
        think_id = self._next_id()
        sent = time.monotonic()
        deadline = None if movetime_ms is None else sent + movetime_ms / 1000
        try:
            await self._send(Think(limits, think_id).to_wire())
        except SessionClosed:
            return None
        self.recorder.count("thinks_sent", group=self.group)
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
                        await self._send(Stop(think_id).to_wire())
                        continue
                    self.recorder.count("lost_answers", group=self.group)
                    return None
                if message.get("id") != think_id:
                    continue  # a late reply to something earlier: ignore
                kind = message.get("type")
                if kind == "info":
                    if first_info:
                        first_info = False
                        self.recorder.sample("think_first_info", now - sent, self.group)
                    continue
                if kind == "error":
                    self._note_think_error(message, now)
                    return None
                if kind == "bestmove":
                    return self._note_bestmove(message, sent, now, deadline, stopped_at)
        except SessionClosed:
            if abort_after_ms is None:
                self.recorder.count("lost_answers", group=self.group)
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
            try:
                self.state = GameState.from_wire(reply)
            except ProtocolViolation as violation:
                self._note_malformed("state", violation)
                self.state = None
        return reply

    def _note_malformed(self, kind: str, violation: ProtocolViolation) -> None:
        self.recorder.count("malformed_answers")
        self.recorder.errors[f"malformed_{kind}: {violation.message}"[:120]] += 1

    def _note_error(self, reply: Mapping[str, Any]) -> None:
        if reply.get("type") == "error":
            self.recorder.errors[str(reply.get("code"))] += 1

    def _note_think_error(self, reply: Mapping[str, Any], now: float) -> None:
        error = ErrorMessage.from_wire(reply)
        if error.code != ErrorCode.OVERLOADED:
            self.recorder.count("thinks_rejected", group=self.group)
            self._note_error(reply)
            return
        self.recorder.count("thinks_refused", group=self.group)
        self.refused = True
        retry = error.retry_after_ms
        if retry is None:
            self.recorder.count("refusals_without_retry_hint")
            retry = DEFAULT_RETRY_AFTER_MS
        self.retry_at = now + min(retry, MAX_RETRY_WAIT_MS) / 1000

    async def _wait_for_retry(self) -> bool:
        """Sleep until :attr:`retry_at`; false if the run ends first."""
        wait = self.retry_at - time.monotonic()
        if wait <= 0:
            return True
        self.recorder.count("retry_waits", group=self.group)
        if self.retry_at > self.run_ends_at:
            await asyncio.sleep(max(0.0, self.run_ends_at - time.monotonic()))
            return False
        await asyncio.sleep(wait)
        return not self.closed

    def _note_bestmove(
        self,
        message: Mapping[str, Any],
        sent: float,
        now: float,
        deadline: float | None,
        stopped_at: float | None,
    ) -> BestMove | None:
        recorder, group = self.recorder, self.group
        recorder.count("thinks_answered", group=group)
        recorder.sample("think_rtt", now - sent, group)
        if stopped_at is not None:
            recorder.sample("stop_to_bestmove", now - stopped_at, group)
        elif deadline is not None:
            recorder.sample("bestmove_lateness", now - deadline, group)
        try:
            best = BestMove.from_wire(message)
        except ProtocolViolation as violation:
            self._note_malformed("bestmove", violation)
            return None
        recorder.reasons[best.reason] += 1
        if group is not None:
            recorder.groups.setdefault(group, Counter())[f"reason:{best.reason}"] += 1
        recorder.depths[best.depth] += 1
        if best.depth == 0:
            recorder.depth0_reasons[best.reason] += 1
        if "queued_ms" in message:
            recorder.sample_ms("think_queued", best.queued_ms, group)
        return best

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
            return decode_reply(frame)
        except ProtocolViolation:
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
        if best is None and session.refused:
            continue  # the next think waits the server's retry_after_ms first
        if best is None or await session.move(best.move) is None:
            return


async def think(session: LoadSession) -> None:
    """Engine against itself at movetime ``--movetime`` ms: think, play the answer, repeat.

    The opening is four random moves, so that sessions search different
    positions. A refused think is sent again after the server's
    ``retry_after_ms``.
    """
    if await session.new_game("connect4") is None:
        return
    for _ in range(4):
        if await session.random_move() is None:
            return
    while session.running and not session.game_over:
        best = await session.think(session.movetime_ms)
        if best is None and session.refused:
            continue  # the next think waits the server's retry_after_ms first
        if best is None or await session.move(best.move) is None:
            return


async def single(session: LoadSession) -> None:
    """One think of ``--movetime`` ms on a fresh Connect Four position: the unit for ``--rate``.

    New game, two random moves, one think (sent again after the server's
    ``retry_after_ms`` if refused, while the run lasts): in the arrival-rate
    mode each arrival is then exactly one think.
    """
    if await session.new_game("connect4") is None:
        return
    for _ in range(2):
        if await session.random_move() is None:
            return
    while True:
        best = await session.think(session.movetime_ms)
        if best is not None or not session.refused or not session.running:
            return


async def idle(session: LoadSession) -> None:
    """Say hello, then hold the connection open, doing nothing, until the run ends."""
    while session.running:
        await asyncio.sleep(0.2)


SCENARIOS: dict[str, Scenario] = {"mixed": mixed, "think": think, "single": single, "idle": idle}


def _import_from_cwd(module_name: str) -> Any:
    """Import ``module_name``, also looking in the current directory (as ``python -m`` does).

    ``arena`` is an installed script, so its ``sys.path`` does not hold the
    directory it was started in: ``--scenario mymod:run`` with ``mymod.py``
    there would not be found without this. The directory is looked in last,
    so it cannot shadow an installed module.
    """
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.append(cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise ValueError(
                f"no module {module_name!r} (looked in the current directory and on sys.path)"
            ) from None
        raise
    finally:
        if added:
            sys.path.remove(cwd)


def load_scenario(name: str) -> Scenario:
    """A built-in scenario by name, or ``module:function`` (looked up in the current
    directory too)."""
    if name in SCENARIOS:
        return SCENARIOS[name]
    module_name, sep, function_name = name.partition(":")
    if not sep:
        raise ValueError(
            f"unknown scenario {name!r}: use one of {', '.join(SCENARIOS)} "
            "or package.module:function"
        )
    function = getattr(_import_from_cwd(module_name), function_name, None)
    if not callable(function):
        raise ValueError(f"{name!r} is not a function")
    scenario: Scenario = function
    return scenario


# ----------------------------------------------------------------------
# The run.


@dataclass(frozen=True, slots=True)
class LoadConfig:
    """What to run, and the thresholds that fail the run or mark it degraded.

    ``mode`` is ``closed`` (``connections`` sessions, each running the
    scenario over and over) or ``arrival-rate`` (scenario runs started
    ``rate`` times a second on a pool of at most ``connections``).
    ``stages`` (:class:`~clients.load_config.Stage`) make the target move
    over the run; without them a closed run ramps up to ``connections`` over
    ``ramp_s`` and holds until ``duration_s``, and an arrival-rate run holds
    ``rate`` for ``duration_s``.

    ``thresholds`` (default :data:`~clients.load_config.DEFAULT_THRESHOLDS`)
    are checked at the end. ``max_overloaded``: the largest share (0..1) of
    answered thinks that may be answered ``overloaded``; ``max_refused``: the
    largest share of thinks sent that may be refused with an ``overloaded``
    error; ``max_late_p99_ms``: the largest allowed p99 of ``bestmove``
    lateness against the deadline, as this tester measures it. Each, when
    given, replaces every threshold on its metric.
    """

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
    max_overloaded: float | None = None
    max_refused: float | None = None
    max_late_p99_ms: float | None = None
    mode: Mode = "closed"
    #: Scenario runs started per second (arrival-rate mode without stages).
    rate: float | None = None
    stages: tuple[Stage, ...] = ()
    thresholds: tuple[Threshold, ...] = DEFAULT_THRESHOLDS
    #: Seconds between two rows of the time series.
    interval_s: float = DEFAULT_INTERVAL_S

    def plan(self) -> tuple[Stage, ...]:
        """The stages the run follows (derived from the options when none are given)."""
        if self.stages:
            return self.stages
        if self.mode == "arrival-rate":
            return (Stage(0.0, self.rate or 0.0), Stage(self.duration_s, self.rate or 0.0))
        ramp = min(self.ramp_s, self.duration_s)
        return (
            Stage(ramp, float(self.connections)),
            Stage(self.duration_s - ramp, float(self.connections)),
        )

    @property
    def total_s(self) -> float:
        """How long the run starts scenario runs."""
        return sum(stage.duration_s for stage in self.plan())

    def sessions(self) -> int:
        """The most connections the run opens."""
        if self.mode == "closed":
            return math.ceil(max((stage.target for stage in self.plan()), default=0.0))
        return self.connections

    def checked_thresholds(self) -> tuple[Threshold, ...]:
        """:attr:`thresholds` with the ``max_*`` options in place of their metrics' own."""
        named: dict[str, list[Threshold]] = {}
        if self.max_overloaded is not None:
            named["overloaded_share"] = [Threshold("overloaded_share", "<=", self.max_overloaded)]
        if self.max_refused is not None:
            named["refused_share"] = [Threshold("refused_share", "<=", self.max_refused)]
        if self.max_late_p99_ms is not None:
            named["bestmove_lateness"] = [
                Threshold("bestmove_lateness", "<=", self.max_late_p99_ms, "p99")
            ]
        return merge_thresholds(self.thresholds, named)

    def check(self) -> None:
        """Raise ``ValueError`` unless the run is bounded and aimed at loopback."""
        if not 1 <= self.connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1..{MAX_CONNECTIONS}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if not self.stages:
            if not 0 < self.duration_s <= MAX_DURATION_S:
                raise ValueError(f"duration must be in (0, {MAX_DURATION_S:g}] seconds")
            if self.mode == "closed" and (self.ramp_s < 0 or self.ramp_s > self.duration_s):
                raise ValueError("ramp-up must be between 0 and the duration")
        if self.mode == "arrival-rate":
            if not self.stages and (self.rate is None or not 0 < self.rate <= MAX_RATE):
                raise ValueError(
                    f"the arrival-rate mode needs --rate (runs per second, at most {MAX_RATE:g}) "
                    "or stages"
                )
            check_stages(self.stages, MAX_RATE, "runs per second")
        else:
            check_stages(self.stages, MAX_CONNECTIONS, "connections")
        if self.stages and not 0 < self.total_s <= MAX_DURATION_S:
            raise ValueError(f"the stages must last (0, {MAX_DURATION_S:g}] seconds in all")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")
        if self.movetime_ms < 1:
            raise ValueError("movetime must be at least 1 ms")
        if not 0.05 <= self.interval_s <= 60:
            raise ValueError("the time series' interval must be 0.05..60 seconds")
        for name in ("max_overloaded", "max_refused"):
            share = getattr(self, name)
            if share is not None and not 0 <= share <= 1:
                raise ValueError(f"{name} must be a share between 0 and 1 (0% and 100%)")
        if self.max_late_p99_ms is not None and not math.isfinite(self.max_late_p99_ms):
            raise ValueError("max_late_p99_ms must be a number of milliseconds")
        require_loopback(self.url)


def parse_share(text: str) -> float:
    """A share written ``5%`` or ``0.05`` -> ``0.05``; ``ValueError`` otherwise."""
    stripped = text.strip()
    try:
        share = float(stripped[:-1]) / 100 if stripped.endswith("%") else float(stripped)
    except ValueError:
        raise ValueError(f"{text!r} is not a share: write 5% or 0.05") from None
    if not math.isfinite(share) or not 0 <= share <= 1:
        raise ValueError(f"{text!r} is not a share between 0% and 100% (write 5% or 0.05)")
    return share


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
        if before is not None and after is not None:
            report["server"] = server_view(before, after)
        report["checks"] = run_checks(report, self.config)
        report["status"] = run_status(report["checks"])
        report["passed"] = report["status"] == "passed"
        return report


def run_status(checks: list[dict[str, Any]]) -> str:
    """``failed`` if a fail-level check failed, ``degraded`` if only degraded-level ones did,
    else ``passed``."""
    crossed = {check.get("level", "fail") for check in checks if not check["ok"]}
    if "fail" in crossed:
        return "failed"
    return "degraded" if crossed else "passed"


def series_row(run: LoadRun, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the time series: the interval's counts and latencies, and where the stages are.

    ``t_s`` is the row's end (seconds into the run); counts are over the
    interval; ``*_p50``/``*_p95``/``*_p99`` (ms) summarise the interval's
    samples only (empty when it had none).
    """
    row: dict[str, Any] = {
        "t_s": round(time.monotonic() - run.started, 3),
        "target": round(run.target, 3),
        "connections": run.connected,
    }
    for key in (
        "iterations",
        "thinks_sent",
        "thinks_answered",
        "overloaded",
        "refused",
        "lost",
        "errors",
        "dropped",
    ):
        row[key] = after[key] - before.get(key, 0)
    for name in SERIES_LATENCIES:
        values = run.recorder.samples.get(name, [])
        start = before.get("samples", {}).get(name, 0)
        summary = percentiles(values[start : after["samples"].get(name, 0)])
        for stat in ("p50", "p95", "p99"):
            row[f"{name}_{stat}"] = summary.get(stat, "")
    return row


#: Latencies the time series summarises per interval.
SERIES_LATENCIES = ("think_rtt", "bestmove_lateness")
SERIES_FORMATS = ("csv", "json")


def series_target(out: str) -> tuple[str, str]:
    """``(format, path)`` of ``--out``: ``csv=FILE`` / ``json=FILE`` (as k6 writes it), or a
    path ending ``.csv`` or ``.json``; ``ValueError`` otherwise."""
    kind, sep, path = out.partition("=")
    if sep and kind in SERIES_FORMATS and path:
        return kind, path
    for kind in SERIES_FORMATS:
        if out.endswith(f".{kind}"):
            return kind, out
    raise ValueError(f"--out {out!r}: write csv=FILE, json=FILE, or a .csv or .json path")


def write_series(rows: list[dict[str, Any]], out: str, interval_s: float) -> None:
    """Write the time series to ``out`` (see :func:`series_target`)."""
    kind, path = series_target(out)
    with open(path, "w", encoding="utf-8", newline="") as file:
        if kind == "json":
            json.dump({"interval_s": interval_s, "rows": rows}, file, indent=1)
            file.write("\n")
            return
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else ["t_s"])
        writer.writeheader()
        writer.writerows(rows)


def thinks_summary(
    counts: Counter[str], reasons: Mapping[str, int], elapsed: float
) -> dict[str, Any]:
    """Thinks sent, answered, lost, refused, ..., and the answers by reason."""
    answered, sent = counts["thinks_answered"], counts["thinks_sent"]
    overloaded = reasons.get("overloaded", 0)
    return {
        "sent": sent,
        "answered": answered,
        "lost": counts["lost_answers"],
        "refused": counts["thinks_refused"],
        "rejected": counts["thinks_rejected"],
        "aborted_on_purpose": counts["aborts"],
        "malformed": counts["malformed_answers"],
        "per_s": round(answered / elapsed, 1) if elapsed else 0.0,
        "reasons": dict(sorted(reasons.items())),
        "overloaded": overloaded,
        "overloaded_share": round(overloaded / answered, 5) if answered else 0.0,
        "refused_share": round(counts["thinks_refused"] / sent, 5) if sent else 0.0,
    }


# ----------------------------------------------------------------------
# Pass or fail.


def _check(name: str, ok: bool, detail: str, level: str = "fail") -> dict[str, Any]:
    return {"check": name, "ok": ok, "detail": detail, "level": level}


def run_checks(report: Mapping[str, Any], config: LoadConfig) -> list[dict[str, Any]]:
    """Every check of a run: ``{"check", "ok", "detail"}``, the detail in plain words."""
    thinks = report["thinks"]
    checks = [
        _check(
            "no lost answers",
            thinks["lost"] == 0 and report["lost_replies"] == 0,
            f"{thinks['lost']} thinks got no bestmove, {report['lost_replies']} other "
            "requests got no reply",
        ),
    ]
    failed = {
        key: count
        for key, count in report["connections"].items()
        if count and (key.startswith("connect_failed") or key.startswith("closed_by"))
    }
    checks.append(
        _check(
            "no failed connections",
            not failed,
            "none failed"
            if not failed
            else "failed: " + ", ".join(f"{key} x{count}" for key, count in sorted(failed.items())),
        )
    )
    checks.append(
        _check(
            "no malformed answers",
            thinks["malformed"] == 0,
            f"{thinks['malformed']} bestmoves broke the protocol",
        )
    )
    by_name: dict[str, list[dict[str, Any]]] = {}
    for threshold in config.checked_thresholds():
        check = threshold_check(report, threshold)
        if check is not None:
            by_name.setdefault(check["check"], []).append(check)
    checks.extend(_merge_levels(group) for group in by_name.values())
    return checks


def _merge_levels(group: list[dict[str, Any]]) -> dict[str, Any]:
    """One check per metric: the worst level crossed, every limit in the detail.

    A metric with a ``degraded`` and a ``fail`` limit (the defaults) is one
    line: ``67.14% of ... (degraded above 5.00%, fails above 25.00%)``.
    """
    if len(group) == 1:
        return group[0]
    crossed = [check for check in group if not check["ok"]]
    worst = next((c for c in crossed if c["level"] == "fail"), crossed[0] if crossed else None)
    figure = group[0]["detail"].rpartition(" (limit ")[0] or group[0]["detail"]
    limits = []
    for check in sorted(group, key=lambda check: check["level"] == "fail"):
        limit = check["detail"].rpartition(" (limit ")[2].rstrip(")")
        word = "fails" if check["level"] == "fail" else "degraded"
        limits.append(f"{word} beyond {limit}")
    return {
        "check": group[0]["check"],
        "ok": worst is None,
        "detail": f"{figure} ({', '.join(limits)})",
        "level": worst["level"] if worst is not None else "fail",
    }


def threshold_check(report: Mapping[str, Any], threshold: Threshold) -> dict[str, Any] | None:
    """The check of one threshold against the report (``None``: not measured in this mode)."""
    level = threshold.level
    if threshold.stat is None:
        section, key = SHARE_METRICS[threshold.metric]
        figures = report.get(section)
        if figures is None:
            return None  # dropped runs exist in the arrival-rate mode only
        share = figures[key]
        if threshold.metric == "overloaded_share":
            detail = (
                f"{share:.2%} of {figures['answered']} answered thinks were answered overloaded"
            )
        elif threshold.metric == "refused_share":
            detail = f"{share:.2%} of {figures['sent']} thinks sent were refused as overloaded"
        else:
            detail = f"{share:.2%} of {figures['due']} scenario runs due were dropped"
        limit = f"{threshold.limit:.2%}"
        if threshold.op != "<=":
            limit = f"{threshold.op} {limit}"
        return _check(threshold.name, threshold.holds(share), f"{detail} (limit {limit})", level)
    summary = report["latency_ms"].get(threshold.metric, {"count": 0})
    if threshold.stat != "count" and not summary.get("count"):
        what = (
            "no timed think was answered, so lateness could not be measured"
            if threshold.metric == "bestmove_lateness"
            else f"no {threshold.metric} sample, so it could not be measured"
        )
        return _check(threshold.name, False, what, level)
    value = float(summary.get(threshold.stat, 0))
    if threshold.metric == "bestmove_lateness" and threshold.stat != "count":
        detail = (
            f"{threshold.stat} {value:.1f} ms after the deadline over {summary['count']} timed "
            "thinks"
        )
    elif threshold.stat == "count":
        detail = f"{value:g} samples"
    else:
        detail = f"{threshold.stat} {value:.1f} ms over {summary['count']} samples"
    limit_text = f"{threshold.limit:g}" + ("" if threshold.stat == "count" else " ms")
    if threshold.op != "<=":
        limit_text = f"{threshold.op} {limit_text}"
    return _check(threshold.name, threshold.holds(value), f"{detail} (limit {limit_text})", level)


def exit_status(report: Mapping[str, Any]) -> int:
    """``arena loadtest``'s exit status: 0 passed, 3 degraded, 1 failed (see docs/load.md)."""
    status = report.get("status") or ("passed" if report.get("passed") else "failed")
    return {"passed": EXIT_OK, "degraded": EXIT_DEGRADED}.get(status, EXIT_CHECK_FAILED)


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


def histogram_share_at_most(
    before: Mapping[str, float], after: Mapping[str, float], name: str, bound: float
) -> float | None:
    """Share of the observations between scrapes that were at most ``bound``.

    Exact when ``bound`` is one of the histogram's bucket bounds (otherwise
    the largest bucket bound below it is used); ``None`` with no observations.
    """
    total = after.get(f"{name}_count", 0.0) - before.get(f"{name}_count", 0.0)
    if total <= 0:
        return None
    below = 0.0
    for key, value in after.items():
        match = re.fullmatch(rf'{re.escape(name)}_bucket\{{le="([^"]+)"\}}', key)
        if match and match.group(1) != "+Inf" and float(match.group(1)) <= bound:
            below = max(below, value - before.get(key, 0.0))
    return below / total


def _labelled_deltas(
    before: Mapping[str, float], after: Mapping[str, float], name: str
) -> dict[str, int]:
    """``{label value: increase}`` of a counter with one label, e.g. errors by code."""
    deltas: dict[str, int] = {}
    for key, value in after.items():
        if key.startswith(f"{name}{{") and '"' in key:
            increase = int(value - before.get(key, 0.0))
            if increase:
                deltas[key.split('"')[1]] = increase
    return dict(sorted(deltas.items()))


def server_view(before: Mapping[str, float], after: Mapping[str, float]) -> dict[str, Any]:
    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    view: dict[str, Any] = {}
    for label, name in (
        ("event_loop_lag", "arena_event_loop_lag_seconds"),
        ("bestmove_lateness", "arena_bestmove_lateness_seconds"),
        ("think_queue", "arena_think_queue_seconds"),
    ):
        count = delta(f"{name}_count")
        view[label] = {
            "count": int(count),
            "mean_ms": round(delta(f"{name}_sum") / count * 1000, 2) if count else None,
            **{
                f"p{percent}_le_ms": _ms(
                    histogram_quantile_bound(before, after, name, percent / 100)
                )
                for percent in PERCENTILES
            },
            "max_le_ms": _ms(histogram_quantile_bound(before, after, name, 1.0)),
        }
    lateness = "arena_bestmove_lateness_seconds"
    for label, bound in (("on_time_share", 0.0), ("within_10ms_share", 0.010)):
        share = histogram_share_at_most(before, after, lateness, bound)
        view["bestmove_lateness"][label] = None if share is None else round(share, 5)
    view["errors"] = _labelled_deltas(before, after, "arena_errors_total")
    view["bestmoves"] = _labelled_deltas(before, after, "arena_bestmoves_total")
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
    """A short human summary of a report, ending with its checks."""
    thinks = report["thinks"]
    config = report["config"]
    lines = [
        f"{report['elapsed_s']} s, {config['connections']} connections, "
        f"scenario {config['scenario']}: {thinks['answered']} thinks answered "
        f"({thinks['per_s']}/s), {thinks['lost']} lost, "
        f"{thinks['aborted_on_purpose']} aborted on purpose",
        f"answers by reason: {_counts(thinks['reasons'])}; "
        f"{thinks['overloaded_share']:.2%} answered overloaded "
        "(no search process reached them in time: a fallback move)",
        f"depth reached (depth: answers): {_counts(thinks['depths'], sep=': ')}"
        + (
            f"; at depth 0: {_counts(thinks['depth0_reasons'])}" if thinks["depth0_reasons"] else ""
        ),
        f"refused at once (server queue full): {thinks['refused']} of {thinks['sent']} "
        f"thinks sent ({thinks['refused_share']:.2%}); sessions waited the server's "
        f"retry_after_ms before thinking again ({thinks['retry_waits']} waits)",
        f"other errors: {_counts(report['errors'])}; connections: {_counts(report['connections'])}",
    ]
    arrivals = report.get("arrivals")
    if arrivals:
        lines.append(
            f"arrival rate: {arrivals['started']} scenario runs started of {arrivals['due']} due; "
            f"{arrivals['dropped']} dropped ({arrivals['dropped_share']:.2%}: every pooled "
            f"connection was busy), {arrivals['failed_to_connect']} failed to connect"
        )
    lines.append(
        f"{'latency (ms)':<24}{'count':>8}" + "".join(f"{stat:>9}" for stat in TABLE_STATS)
    )
    for name, summary in report["latency_ms"].items():
        if summary.get("count"):
            lines.append(
                f"{name:<24}{summary['count']:>8}"
                + "".join(f"{summary.get(stat, math.nan):>9.1f}" for stat in TABLE_STATS)
            )
    for group, summary in report.get("groups", {}).items():
        lines.append(
            f"group {group}: {summary['answered']} answered, {summary['lost']} lost, "
            f"{summary['refused']} refused, {summary['overloaded_share']:.2%} overloaded; "
            f"reasons {_counts(summary['reasons'])}"
        )
    server = report.get("server")
    if server:
        lag, late, queue = (
            server["event_loop_lag"],
            server["bestmove_lateness"],
            server.get("think_queue", {}),
        )
        lines.append(
            f"server: event-loop lag p99 <= {lag['p99_le_ms']} ms (max <= "
            f"{lag.get('max_le_ms')} ms); queue wait p99 <= {queue.get('p99_le_ms')} ms; "
            f"worker restarts {server['worker_restarts']}; errors {_counts(server['errors'])}"
        )
        lines.append(
            f"server: {late['count']} timed bestmoves, handed to the socket by the deadline: "
            f"{_share(late.get('on_time_share'))}, within 10 ms of it: "
            f"{_share(late.get('within_10ms_share'))}, lateness p99 <= {late['p99_le_ms']} ms"
            f"; answers by reason {_counts(server.get('bestmoves', {}))}"
        )
    checks = report.get("checks", ())
    for check in checks:
        verdict = "ok" if check["ok"] else CROSSED[check.get("level", "fail")]
        lines.append(f"{verdict:<7} {check['check']}: {check['detail']}")
    if "passed" in report:
        status = report.get("status") or ("passed" if report["passed"] else "failed")
        failed = [c for c in checks if not c["ok"] and c.get("level", "fail") == "fail"]
        degraded = [c for c in checks if not c["ok"] and c.get("level") == "degraded"]
        if status == "passed":
            lines.append("PASSED")
        elif status == "degraded":
            lines.append(
                f"DEGRADED: {len(degraded)} threshold{'s' if len(degraded) != 1 else ''} "
                f"crossed (exit status {EXIT_DEGRADED})"
            )
        else:
            lines.append(f"FAILED: {len(failed)} check{'s' if len(failed) != 1 else ''} failed")
    return "\n".join(lines)


#: The latency table's columns.
TABLE_STATS = ("min", "avg", "med", "p90", "p95", "p99", "max")
#: How a crossed check is printed, by its level.
CROSSED = {"fail": "FAILED", "degraded": "DEGRADED"}


def _counts(counts: Mapping[str, Any], sep: str = " ") -> str:
    return ", ".join(f"{key}{sep}{value}" for key, value in counts.items()) or "none"


def _share(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.2%}"


def run_load(
    config: LoadConfig, scenario: Scenario | None = None, progress: TextIO | None = sys.stderr
) -> dict[str, Any]:
    """Run a load test to its end and return its report."""
    return asyncio.run(LoadRun(config, scenario, progress).run())


# ----------------------------------------------------------------------
# The command line (``arena loadtest``).


def _share_argument(text: str) -> float:
    try:
        return parse_share(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _stage_argument(text: str) -> Stage:
    try:
        return parse_stage(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


#: Defaults of the options a config file may also set (the command line wins
#: over the file, the file over these).
OPTION_DEFAULTS: dict[str, Any] = {
    "url": DEFAULT_URL,
    "connections": 10,
    "ramp": 1.0,
    "duration": 10.0,
    "iterations": None,
    "scenario": "mixed",
    "movetime": 100,
    "json": False,
    "seed": 1,
    "mode": "closed",
    "rate": None,
    "stages": [],
    "out": None,
    "report": None,
    "interval": DEFAULT_INTERVAL_S,
    "max_overloaded": None,
    "max_refused": None,
    "max_late_p99_ms": None,
}


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``arena loadtest``'s options to ``parser``.

    Options a config file may set default to ``None`` here, so that
    :func:`settings_from_args` can tell a given option from an absent one.
    """
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="read options, stages and thresholds from a TOML or JSON file "
        "(options given here win over it); see docs/load.md",
    )
    parser.add_argument(
        "--url", default=None, help=f"server URL, loopback only (default {DEFAULT_URL})"
    )
    parser.add_argument(
        "--connections",
        "-c",
        type=int,
        default=None,
        metavar="N",
        help="concurrent connections; in the arrival-rate mode the most that may be open "
        f"(default 10, at most {MAX_CONNECTIONS})",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=None,
        metavar="SECONDS",
        help="open the connections evenly over this long (default 1)",
    )
    parser.add_argument(
        "--duration",
        "-d",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop starting scenario runs after this long (default 10; with --stage: their sum)",
    )
    parser.add_argument(
        "--stage",
        "-s",
        dest="stages",
        action="append",
        type=_stage_argument,
        default=None,
        metavar="DURATION:TARGET",
        help="a stage: move the target (connections, or runs per second with --rate) "
        "linearly to TARGET over DURATION (10s:20); repeat for ramp up, hold, ramp down",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        metavar="PER_S",
        help="arrival-rate (open model) mode: start this many scenario runs a second "
        "whatever the server's speed, on at most --connections connections",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="closed (default; arrival-rate when --rate is given)",
    )
    parser.add_argument(
        "--iterations",
        "-n",
        type=int,
        default=None,
        metavar="N",
        help="also stop once this many scenario runs have started",
    )
    parser.add_argument(
        "--scenario",
        default=None,
        metavar="SCENARIO",
        help=f"{', '.join(SCENARIOS)}, or module:function, the module "
        "looked up in the current directory too (default mixed)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=None,
        metavar="MS",
        help="think budget of the 'think' and 'single' scenarios (default 100)",
    )
    parser.add_argument(
        "--json", action="store_true", default=None, help="speak JSON instead of msgpack"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN") or None,
        metavar="TOKEN",
        help="the server's shared secret (default: $ARENA_TOKEN; none: no token)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N", help="random seed (default 1)"
    )
    parser.add_argument("--report", metavar="FILE", help="write the JSON report here")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write a time series, one row per --interval: csv=FILE, json=FILE, "
        "or a .csv or .json path",
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"the time series' interval (default {DEFAULT_INTERVAL_S:g})",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no live progress line")
    checks = parser.add_argument_group(
        "thresholds",
        "by default a run FAILS (exit status 1) when more than 25% of its answers were "
        "unsearched ('overloaded') or 50% of its thinks were refused, and is DEGRADED "
        "(exit status 3) above 5% and 10%; an option here replaces its metric's defaults. "
        "Any metric and statistic can be limited in a --config file. Lost answers, failed "
        "connections and malformed answers always fail the run",
    )
    checks.add_argument(
        "--max-overloaded",
        type=_share_argument,
        metavar="SHARE",
        help="largest share of answered thinks answered 'overloaded' (5%% or 0.05)",
    )
    checks.add_argument(
        "--max-refused",
        type=_share_argument,
        metavar="SHARE",
        help="largest share of thinks sent that may be refused at once with an "
        "'overloaded' error (5%% or 0.05)",
    )
    checks.add_argument(
        "--max-late-p99-ms",
        type=float,
        metavar="MS",
        help="largest p99 of bestmove lateness against the think's deadline, "
        "as measured by the tester",
    )


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings: the defaults, then the config file's, then the command line's.

    ``ValueError`` for an unreadable or unknown config file or setting.
    """
    settings = dict(OPTION_DEFAULTS)
    settings["thresholds"] = None
    settings["degraded"] = None
    from_file = read_config_file(args.config) if getattr(args, "config", None) else {}
    settings.update(from_file)
    for key in OPTION_DEFAULTS:
        value = getattr(args, key, None)
        if value is not None:
            settings[key] = value
    if settings["rate"] is not None and getattr(args, "mode", None) is None:
        # a rate means the open model, unless the config file names a mode
        settings["mode"] = from_file.get("mode", "arrival-rate")
    return settings


def config_from_settings(settings: Mapping[str, Any], token: str | None) -> LoadConfig:
    """A :class:`LoadConfig` from :func:`settings_from_args`' map (``ValueError`` if bad)."""
    named = thresholds_from_tables(settings.get("thresholds"), settings.get("degraded"))
    shares = {}
    for key in ("max_overloaded", "max_refused"):
        value = settings.get(key)
        shares[key] = parse_share(value) if isinstance(value, str) else value
    stages = tuple(settings.get("stages") or ())
    mode: Mode = "arrival-rate" if settings.get("mode") == "arrival-rate" else "closed"
    connections = settings["connections"]
    if mode == "closed" and stages:  # the stages' targets are the connections
        connections = max(1, math.ceil(max(stage.target for stage in stages)))
    try:
        return LoadConfig(
            url=settings["url"],
            connections=int(connections),
            ramp_s=float(settings["ramp"]),
            duration_s=float(settings["duration"]),
            iterations=settings["iterations"],
            scenario=str(settings["scenario"]),
            movetime_ms=int(settings["movetime"]),
            encoding="json" if settings["json"] else "msgpack",
            token=token,
            seed=int(settings["seed"]),
            max_overloaded=shares["max_overloaded"],
            max_refused=shares["max_refused"],
            max_late_p99_ms=settings["max_late_p99_ms"],
            mode=mode,
            rate=None if settings["rate"] is None else float(settings["rate"]),
            stages=stages,
            thresholds=merge_thresholds(DEFAULT_THRESHOLDS, named),
            interval_s=float(settings["interval"]),
        )
    except (TypeError, KeyError) as error:
        raise ValueError(f"a setting has the wrong type: {error}") from None


def config_from_args(args: argparse.Namespace) -> LoadConfig:
    settings = settings_from_args(args)
    return config_from_settings(settings, args.token)


def run(args: argparse.Namespace) -> int:
    """Run ``arena loadtest``; the exit status (0 passed, 1 failed, 2 bad options, 3 degraded)."""
    try:
        settings = settings_from_args(args)
        config = config_from_settings(settings, args.token)
        config.check()
        if settings["out"]:
            series_target(settings["out"])
        scenario = load_scenario(config.scenario)
    except (ValueError, ImportError) as error:
        print(f"arena loadtest: {error}", file=sys.stderr)
        return EXIT_USAGE
    load = LoadRun(config, scenario, progress=None if args.quiet else sys.stderr)
    try:
        report = asyncio.run(load.run())
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    print(format_report(report))
    connections = report.get("connections", {})
    if connections.get("connect_failed_401"):
        print(
            "arena loadtest: "
            + (
                "the server refused the token: check --token or ARENA_TOKEN"
                if args.token
                else "the server needs a token: use --token or ARENA_TOKEN"
            ),
            file=sys.stderr,
        )
    if settings["report"]:
        with open(settings["report"], "w", encoding="utf-8") as file:
            json.dump(report, file, indent=2)
            file.write("\n")
    if settings["out"]:
        write_series(load.series, settings["out"], config.interval_s)
    return exit_status(report)
