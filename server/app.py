"""The asyncio layer: WebSocket connections, the worker pool, logging, shutdown.

:class:`ArenaServer` ties a ``websockets`` server to a :class:`WorkerPool`;
each connection gets a :class:`ClientConnection` that feeds frames to its
:class:`~server.session.Session` and carries out the reactions. Run it with
:func:`run` (what ``arena serve`` and ``python -m server`` do), or embed it::

    async with ArenaServer(ServerConfig(port=0, workers=2)) as server:
        print(server.port)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import itertools
import json
import logging
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from engine import ENGINE_BUILD, ENGINE_BUILD_NOTE
from engine.search.results import Info, SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS
from server.agent import AgentServer, Capacity, agent_line
from server.external import ExternalEngine, check_externals, parse_external
from server.guard import AccessPolicy, Admission, AuthFailures
from server.jobs import SearchJob, TraceJob
from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import LoopLagMonitor, ServerMetrics
from server.outbox import Frame, OnSent, Outbox
from server.pool import (
    DELIVERY_MARGIN_S,
    PREEMPT_AFTER_S,
    QUEUE_PER_WORKER,
    STOP_GRACE_S,
    WORKER_GRACE_S,
    WORKER_NICE,
    QueueFull,
    Ticket,
    WorkerPool,
)
from server.protocol import (
    Encoding,
    ErrorCode,
    Hello,
    ProtocolError,
    Request,
    ServerLimits,
    Stop,
    Think,
    decode,
    encode,
    error_message,
    parse_request,
    request_id_of,
)
from server.session import CLOSE_POLICY_VIOLATION, Reaction, Session
from server.static import http_response
from server.worker import TraceReply

logger = logging.getLogger("server")

#: The WebSocket endpoint.
WS_PATH = "/ws"
#: Plain HTTP endpoints on the same port: Prometheus metrics and a health check.
METRICS_PATH = "/metrics"
HEALTH_PATH = "/healthz"
#: Frames, and bytes beyond the first frame, queued for one client before
#: the server stops reading its requests (and drops its progress reports)
#: until it reads its replies. 256 KiB is a few hundred replies; with
#: websockets' own 32 KiB write buffer it bounds what a client that never
#: reads can make the server hold.
OUTBOX_LIMIT = 256
OUTBOX_BYTES = 256 * 1024
#: Open connections beyond which new ones are closed at once with 1013
#: (try again later). Each idle connection costs some tens of kilobytes and
#: a file descriptor (docs/load.md).
DEFAULT_MAX_CONNECTIONS = 2000
CLOSE_TRY_AGAIN_LATER = 1013
#: How long a closing handshake may take before the socket is dropped; a
#: client that never reads cannot hold up shutdown longer than this.
CLOSE_TIMEOUT_S = 2.0
#: At shutdown, how long to wait for running thinks to be answered and
#: their bestmove flushed before closing the connections anyway.
SHUTDOWN_FLUSH_S = 2.0
#: WebSocket close code 1001 (going away, RFC 6455 section 7.4.1): what a
#: server shutting down or draining closes its sessions with.
CLOSE_GOING_AWAY = 1001
#: With ``--agent-port`` (behind HAProxy), how long SIGTERM lets sessions
#: finish their thinks before the usual shutdown: long enough for the
#: thinks of a game at a few seconds a move, short enough for systemd's
#: default stop timeout of 90 s. Without an agent port a SIGTERM shuts down
#: at once, as before (no proxy is told to stop sending clients).
DEFAULT_DRAIN_GRACE_S = 30.0
#: How long a draining server keeps its idle sessions open after it starts
#: answering ``drain``: the proxy asks the agent every ``agent-inter`` (500 ms
#: in deploy/haproxy.cfg; this leaves room for a 1 s one), so after this it
#: sends no new clients here.
DEFAULT_DRAIN_NOTICE_S = 1.5
#: How often a draining server looks for sessions between two thinks.
DRAIN_POLL_S = 0.05
#: A draining server closes a session only once it has sent nothing for
#: this long (and has no think running): a client that answers a bestmove
#: with its next think at once is not cut between the two; one that
#: never pauses keeps its session until the grace period ends.
DRAIN_QUIET_S = 0.25


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = os.cpu_count() or 1
    tt_slots: int = DEFAULT_TT_SLOTS
    worker_grace_s: float = WORKER_GRACE_S
    limits: ServerLimits = field(default_factory=ServerLimits)
    #: Shared secret clients must present (``None``: anyone may connect).
    token: str | None = None
    #: Browser origins allowed besides the server's own (``"*"``: any).
    allowed_origins: tuple[str, ...] = ()
    #: Host names browsers may use to reach this server, besides IP
    #: addresses, ``localhost`` and ``host`` (``"*"``: any; DNS rebinding).
    allowed_hosts: tuple[str, ...] = ()
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    #: Niceness added to the search processes (0: same priority as the loop).
    worker_nice: int = WORKER_NICE
    #: An untimed think that has searched this long gives way to waiting thinks.
    preempt_after_s: float = PREEMPT_AFTER_S
    #: Engine programs offered besides our own searches (``--external``).
    externals: tuple[ExternalEngine, ...] = ()
    #: TCP port of HAProxy's agent check (server/agent.py); ``None``: no agent.
    agent_port: int | None = None
    #: On SIGTERM, how long sessions may finish their thinks (0: shut down at once).
    drain_grace_s: float = 0.0
    #: On SIGTERM, how long idle sessions stay open after the agent says ``drain``.
    drain_notice_s: float = DEFAULT_DRAIN_NOTICE_S


#: Handling a request costs from microseconds (a move in tic-tac-toe) to tens
#: of milliseconds (a ``new_game`` replaying 2,000 chess moves, a ``state``
#: listing the 16,000 moves of a large Nim position). The costly ones run,
#: with the encoding of their replies, in one thread beside the event loop,
#: which then keeps serving every other connection: the GIL hands the loop
#: back at least every ``sys.getswitchinterval()`` (set to
#: GIL_SWITCH_INTERVAL_S while the server runs). A thread hop costs
#: about 0.1 ms of loop time and some GIL contention, more than a cheap
#: request itself, so only these go: every ``new_game`` (its cost depends on
#: the game, options and moves, and it comes once per game), and ``move`` or
#: ``roll`` in a session whose last request took longer than this (measured:
#: such positions stay large). ``hello``, ``stop`` and ``think`` are constant
#: work and stay on the loop.
OFF_LOOP_AFTER_S = 0.001
#: How long the session thread may hold the GIL while the event loop waits
#: for it (CPython's default is 5 ms). A round trip needs the GIL back
#: several times, so the interval adds up: with a costly request beside the
#: loop, other clients' median round trip was 4.3 ms at the default, 3.7 ms
#: at 1 ms and 1.1 ms at 0.2 ms (tests/server/test_overload.py, two cores).
#: The server sets it while it runs; the cost is more thread switches while
#: a costly request runs.
GIL_SWITCH_INTERVAL_S = 0.0002


class ClientConnection:
    """One WebSocket client: its session, its running think and its ordered outbox.

    Flow control: the connection reads one request, handles it, queues its
    replies, and only then reads the next; while the outbox is full (the
    client does not read its replies) it reads nothing. A client that sends
    faster than it reads is slowed by TCP, never refused.
    """

    def __init__(
        self,
        ws: ServerConnection,
        pool: WorkerPool,
        limits: ServerLimits,
        number: int,
        metrics: ServerMetrics,
        executor: ThreadPoolExecutor,
        hello_token: Callable[[str | None], bool] | None = None,
        auth_failures: AuthFailures | None = None,
        externals: tuple[ExternalEngine, ...] = (),
    ) -> None:
        self.ws = ws
        self.pool = pool
        self.number = number
        self.metrics = metrics
        self.limits = limits
        self.executor = executor
        self.session = Session(limits, hello_token, externals)
        self.outbox = Outbox(OUTBOX_LIMIT, OUTBOX_BYTES)
        self.auth_failures = auth_failures
        self.ticket: Ticket[SearchResult] | None = None
        self.think_task: asyncio.Task[None] | None = None
        self.trace_ticket: Ticket[TraceReply] | None = None
        self.trace_task: asyncio.Task[None] | None = None
        self.requests = 0
        self.thinks = 0
        self.peer = _peer(ws)
        #: Whether this session's last game request was costly (see OFF_LOOP_AFTER_S).
        self._costly = False
        self._greeted = False
        self._closing: asyncio.Task[None] | None = None
        #: When the last frame came in (monotonic): a draining server's quiet test.
        self.last_frame_at = time.monotonic()

    async def run(self) -> None:
        opened = time.monotonic()
        logger.info("open conn=%d peer=%s", self.number, self.peer)
        writer = asyncio.create_task(self._write_loop())
        hello_timer = asyncio.get_running_loop().call_later(
            self.limits.hello_timeout_ms / 1000, self._on_hello_timeout
        )
        try:
            async for frame in self.ws:
                await self._on_frame(frame, time.monotonic())
                # Let other connections run between two frames of this one:
                # a client with many frames queued cannot hold the loop.
                await asyncio.sleep(0)
        except ConnectionClosed:
            pass
        finally:
            hello_timer.cancel()
            self._abandon_think()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.outbox.join(), SHUTDOWN_FLUSH_S)
            writer.cancel()
            logger.info(
                "close conn=%d peer=%s client=%r code=%s requests=%d thinks=%d duration=%.1fs",
                self.number,
                self.peer,
                self.session.client,
                self.ws.close_code,
                self.requests,
                self.thinks,
                time.monotonic() - opened,
            )

    # ------------------------------------------------------------------
    # Incoming.

    async def _on_frame(self, frame: bytes | str, received_at: float) -> None:
        self.requests += 1
        self.last_frame_at = received_at
        encoding = Encoding.MSGPACK if isinstance(frame, bytes) else Encoding.JSON
        if self._closing is not None:
            # Closing on purpose: no more answers. Logged, so that a client
            # whose request crossed the close can be told from a lost answer.
            logger.info("conn=%d: frame after the close began, not answered", self.number)
            return
        message: dict[str, Any] = {}
        request_type = "invalid"
        try:
            encoding, message = decode(frame)
            request = parse_request(message)
            request_type = str(message["type"])
            if request_type == "new_game" or (request_type in ("move", "roll") and self._costly):
                reaction, frames = await asyncio.get_running_loop().run_in_executor(
                    self.executor, self._react, request, received_at, encoding
                )
            else:
                reaction, frames = self._react(request, received_at, encoding)
        except ProtocolError as error:
            if not self.session.authenticated:
                # A browser owes its token in hello before anything else.
                await self._refuse_token("unauthorized: send hello with the token first")
                return
            self._greeted = self._greeted or request_type != "invalid"
            self.metrics.messages_in.inc(request_type)
            await self._send(error_message(error), encoding)
            return
        except Exception:
            logger.exception("conn=%d: internal error handling a request", self.number)
            internal = ProtocolError(
                ErrorCode.INTERNAL, "internal server error", request_id_of(message)
            )
            await self._send(error_message(internal), encoding)
            return
        self.metrics.messages_in.inc(request_type)
        if self.session.authenticated:
            self._greeted = True
        for reply, reply_frame in zip(reaction.replies, frames, strict=True):
            self._count_sent(reply)
            await self.outbox.put(reply_frame)
        if reaction.close is not None:
            await self._refuse_token(reaction.close[1])
            return
        if reaction.stop and self.ticket is not None:
            self.ticket.stop()
        if reaction.start is not None:
            await self._start_think(reaction.start, encoding)
        if reaction.trace is not None:
            await self._start_trace(reaction.trace, encoding)

    def _react(
        self, request: Request, received_at: float, encoding: Encoding
    ) -> tuple[Reaction, list[Frame]]:
        """Handle ``request`` and encode its replies (on the loop, or in the session thread)."""
        started = time.monotonic()
        reaction = self.session.handle(request, received_at)
        frames = [encode(reply, encoding) for reply in reaction.replies]
        if not isinstance(request, Hello | Stop | Think):
            self._costly = time.monotonic() - started > OFF_LOOP_AFTER_S
        return reaction, frames

    async def _refuse_token(self, reason: str) -> None:
        """Close for a wrong or missing token in hello, slowed for a peer that keeps guessing."""
        self.metrics.closed_by_server.inc("unauthorized")
        if self.auth_failures is not None:
            delay = self.auth_failures.record(_peer_address(self.ws))
            if delay > 0:
                logger.warning(
                    "conn=%d peer=%s: token failures, refusal delayed %.2fs",
                    self.number,
                    self.peer,
                    delay,
                )
                await asyncio.sleep(delay)
        self._close_soon(CLOSE_POLICY_VIOLATION, reason)

    def _on_hello_timeout(self) -> None:
        if not self._greeted and self._closing is None:
            self.metrics.closed_by_server.inc("hello_timeout")
            seconds = self.limits.hello_timeout_ms / 1000
            self._close_soon(CLOSE_POLICY_VIOLATION, f"no valid request within {seconds:g} s")

    def _close_soon(self, code: int, reason: str) -> None:
        """Flush what is queued (briefly), then close; reading stops meanwhile."""
        if self._closing is None:
            self._closing = asyncio.create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.join(), CLOSE_TIMEOUT_S)
        await self.ws.close(code, reason)

    async def _start_think(self, job: SearchJob, encoding: Encoding) -> None:
        def on_info(info: Info) -> None:
            self._send_nowait(self.session.info_message(info), encoding)

        try:
            self.ticket = self.pool.submit(job, on_info)
        except QueueFull as full:
            self.session.abandon_think()
            refusal = ProtocolError(
                ErrorCode.OVERLOADED, str(full), job.think_id, retry_after_ms=full.retry_after_ms
            )
            await self._send(error_message(refusal), encoding)
            return
        self.thinks += 1
        self.think_task = asyncio.create_task(self._answer(job, self.ticket, encoding))

    async def _answer(
        self, job: SearchJob, ticket: Ticket[SearchResult], encoding: Encoding
    ) -> None:
        result = await ticket.answer
        self.ticket = None
        self.metrics.bestmoves.inc(result.reason)
        self.metrics.queue_wait.observe(ticket.queued_ms / 1000)
        on_sent: OnSent = None
        if not job.untimed:

            def on_sent() -> None:
                self.metrics.lateness.observe(time.monotonic() - job.deadline)

        await self._send(self.session.finish_think(result, ticket.queued_ms), encoding, on_sent)
        late_ms = (time.monotonic() - job.deadline) * 1000
        logger.info(
            "think conn=%d game=%s limits=%s move=%s depth=%d nodes=%d reason=%s time_ms=%d "
            "queued_ms=%d deadline_margin_ms=%.1f",
            self.number,
            job.game.name,
            _format_limits(job),
            result.move,
            result.info.depth,
            result.info.nodes,
            result.reason,
            result.info.time_ms,
            ticket.queued_ms,
            -late_ms,
        )

    async def _start_trace(self, job: TraceJob, encoding: Encoding) -> None:
        try:
            ticket = self.pool.submit_trace(job, encoding)
        except QueueFull as full:
            self.session.finish_trace()
            refusal = ProtocolError(
                ErrorCode.OVERLOADED, str(full), job.trace_id, retry_after_ms=full.retry_after_ms
            )
            await self._send(error_message(refusal), encoding)
            return
        self.trace_ticket = ticket
        self.trace_task = asyncio.create_task(self._answer_trace(job, ticket))

    async def _answer_trace(self, job: TraceJob, ticket: Ticket[TraceReply]) -> None:
        """Forward the worker's encoded reply as it is: the loop never builds a trace."""
        reply = await ticket.answer
        self.trace_ticket = None
        self.session.finish_trace()
        if reply.error_code is None:
            self.metrics.messages_out.inc("trace")
        else:
            self.metrics.messages_out.inc("error")
            self.metrics.errors.inc(reply.error_code)
        await self.outbox.put(reply.frame)
        logger.info(
            "trace conn=%d game=%s algorithm=%s depth=%d bytes=%d error=%s queued_ms=%d",
            self.number,
            job.game.name,
            job.algorithm,
            job.depth,
            len(reply.frame),
            reply.error_code or "-",
            ticket.queued_ms,
        )

    def _abandon_think(self) -> None:
        """The client is gone: cancel its search and trace so that their workers are freed now."""
        if self.ticket is not None:
            self.ticket.cancel()
            self.ticket = None
            self.session.abandon_think()
        if self.think_task is not None:
            self.think_task.cancel()
        if self.trace_ticket is not None:
            self.trace_ticket.cancel()
            self.trace_ticket = None
            self.session.finish_trace()
        if self.trace_task is not None:
            self.trace_task.cancel()

    def quiet(self, now: float) -> bool:
        """No think or trace runs or waits for this session, and it sent nothing lately."""
        return (
            self.ticket is None
            and self.trace_ticket is None
            and now - self.last_frame_at >= DRAIN_QUIET_S
        )

    def go_away(self, reason: str) -> None:
        """Close with 1001 once what is queued is sent (a draining server's idle session)."""
        self._close_soon(CLOSE_GOING_AWAY, reason)

    async def stop_thinking(self) -> None:
        """Stop the running think and wait until its bestmove is queued and sent."""
        if self.ticket is not None:
            self.ticket.stop()
        if self.think_task is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.think_task), STOP_GRACE_S * 4)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.join(), SHUTDOWN_FLUSH_S)

    # ------------------------------------------------------------------
    # Outgoing: one writer task keeps replies, progress and answers in order.

    def _count_sent(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        self.metrics.messages_out.inc(kind)
        if kind == "error":
            self.metrics.errors.inc(message["code"])

    async def _send(
        self, message: dict[str, Any], encoding: Encoding, on_sent: OnSent = None
    ) -> None:
        self._count_sent(message)
        await self.outbox.put(encode(message, encoding), on_sent)

    def _send_nowait(self, message: dict[str, Any], encoding: Encoding) -> None:
        if self.outbox.offer(encode(message, encoding)):
            self.metrics.messages_out.inc(message["type"])
        else:
            self.metrics.info_dropped.inc()
            logger.debug("conn=%d: outbox full, progress report dropped", self.number)

    async def _write_loop(self) -> None:
        while True:
            frame, on_sent = await self.outbox.get()
            try:
                await self.ws.send(frame)
                if on_sent is not None:
                    on_sent()
            except ConnectionClosed:
                pass  # keep draining so that join() returns
            finally:
                self.outbox.task_done()


class ArenaServer:
    """The WebSocket server and its worker pool; an async context manager."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.pool = WorkerPool(
            self.config.workers,
            self.config.tt_slots,
            self.config.worker_grace_s,
            self.config.worker_nice,
            self.config.limits.max_queue,
            self.config.preempt_after_s,
            self.config.externals,
        )
        #: The limits in force, as ``welcome`` announces them.
        self.limits = dataclasses.replace(
            self.config.limits,
            max_queue=self.pool.max_queue,
            delivery_margin_ms=round(DELIVERY_MARGIN_S * 1000),
        )
        self.connections: set[ClientConnection] = set()
        self._server: Server | None = None
        self._numbers = itertools.count(1)
        self.policy = AccessPolicy.create(
            self.config.token,
            self.config.allowed_origins,
            (self.config.host, *self.config.allowed_hosts),
        )
        self.auth_failures = AuthFailures()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="arena-session")
        self._previous_switch_interval = sys.getswitchinterval()
        self.metrics = ServerMetrics(
            sessions_open=lambda: len(self.connections),
            thinks_running=lambda: len(self.pool.busy_worker_pids()),
            thinks_queued=lambda: self.pool.queued,
            worker_restarts=lambda: self.pool.replaced,
        )
        self._loop_lag = LoopLagMonitor(self.metrics.loop_lag)
        #: Set on SIGTERM behind a proxy: the agent says ``drain``, /healthz 503.
        self.draining = False
        self.agent: AgentServer | None = None
        if self.config.agent_port is not None:
            self.agent = AgentServer(self.config.host, self.config.agent_port, self.agent_line)

    async def __aenter__(self) -> ArenaServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.shutdown()

    @property
    def port(self) -> int:
        """The port actually bound (useful with ``port=0``)."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        port: int = next(iter(self._server.sockets)).getsockname()[1]
        return port

    async def start(self) -> None:
        self._previous_switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        await self.pool.start()
        self._loop_lag.start()
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            max_size=self.config.limits.max_message_bytes,
            compression=None,  # frames are small; deflate costs latency and CPU
            process_request=self._process_request,
            close_timeout=CLOSE_TIMEOUT_S,
        )
        if self.agent is not None:
            await self.agent.start()
        logger.info(
            "listening on ws://%s:%d%s with %d workers; engine: %s (%s)",
            self.config.host,
            self.port,
            WS_PATH,
            self.config.workers,
            ENGINE_BUILD,
            ENGINE_BUILD_NOTE,
        )

    async def shutdown(self) -> None:
        """Stop accepting, answer running thinks, close with 1001, stop the workers."""
        if self._server is None:
            return
        server, self._server = self._server, None
        logger.info("shutting down")
        server.server.close()  # stop accepting; open connections carry on for now
        await asyncio.gather(*(conn.stop_thinking() for conn in list(self.connections)))
        server.close()  # closes every connection with 1001 (going away)
        await server.wait_closed()
        if self.agent is not None:
            await self.agent.close()
        await self.pool.close()
        await self._loop_lag.stop()
        self._executor.shutdown(wait=True)
        sys.setswitchinterval(self._previous_switch_interval)
        logger.info("stopped")

    def agent_line(self) -> str:
        """HAProxy's agent-check answer: ``drain`` while draining, else the free capacity."""
        capacity = Capacity(
            workers=len(self.pool.worker_pids()),
            busy=len(self.pool.busy_worker_pids()),
            queued=self.pool.queued,
            max_queue=self.pool.max_queue,
        )
        return agent_line(capacity, self.draining or self._server is None)

    async def drain(self) -> None:
        """Report down, then close each session with 1001 between two of its thinks.

        The agent answers ``drain`` and ``/healthz`` 503 at once, so the
        proxy sends no new clients; after ``drain_notice_s`` (the proxy has
        read that by then) every session that is not thinking and has sent
        nothing for DRAIN_QUIET_S is closed with 1001 (a thinking one once
        its ``bestmove`` is sent and it pauses). Returns when no session is
        left or after ``drain_grace_s``, the bound; :meth:`shutdown` then
        stops whatever still runs, as always.
        """
        if self._server is None or self.draining:
            return
        self.draining = True
        grace_s = self.config.drain_grace_s
        logger.info(
            "draining: %d sessions, %d thinks running; at most %.1fs",
            len(self.connections),
            len(self.pool.busy_worker_pids()),
            grace_s,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        await asyncio.sleep(min(self.config.drain_notice_s, grace_s))
        while self.connections and loop.time() < deadline:
            now = time.monotonic()
            for connection in list(self.connections):
                if connection.quiet(now):
                    connection.go_away("server draining: reconnect")
            await asyncio.sleep(DRAIN_POLL_S)
        logger.info("drained; %d sessions left", len(self.connections))

    async def _handle(self, ws: ServerConnection) -> None:
        if len(self.connections) >= self.config.max_connections:
            self.metrics.refused.inc("full")
            await ws.close(CLOSE_TRY_AGAIN_LATER, "server full: try again later")
            return
        self.metrics.connections.inc()
        hello_token = None
        if ws.request is not None and self._admission(ws.request) is Admission.ACCEPT_HELLO_TOKEN:
            hello_token = self.policy.token_matches
        connection = ClientConnection(
            ws,
            self.pool,
            self.limits,
            next(self._numbers),
            self.metrics,
            self._executor,
            hello_token,
            self.auth_failures,
            self.config.externals,
        )
        self.connections.add(connection)
        try:
            await connection.run()
        finally:
            self.connections.discard(connection)

    # ------------------------------------------------------------------
    # The handshake: HTTP endpoints, then who may open a WebSocket.

    async def _process_request(
        self, connection: ServerConnection, request: HttpRequest
    ) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == METRICS_PATH:
            return self._metrics_response(connection, request)
        if path == HEALTH_PATH:
            return self._health_response(connection)
        if path != WS_PATH:
            return http_response(request)  # the GUI's own files, or 404
        try:
            admission = self._admission(request)
        except ValueError as error:
            return connection.respond(HTTPStatus.BAD_REQUEST, f"{error}\n")
        if admission is Admission.BAD_ORIGIN:
            self.metrics.refused.inc("origin")
            return connection.respond(
                HTTPStatus.FORBIDDEN,
                "this Origin may not open a WebSocket here (see arena serve --allow-origin)\n",
            )
        if admission is Admission.BAD_HOST:
            self.metrics.refused.inc("host")
            return connection.respond(
                HTTPStatus.FORBIDDEN,
                "this Host is not a name of this server; a browser reaching it by a name other "
                "than an IP address or localhost needs 'arena serve --allow-host NAME'\n",
            )
        if admission is Admission.UNAUTHORIZED:
            self.metrics.refused.inc("unauthorized")
            delay = self.auth_failures.record(_peer_address(connection))
            if delay > 0:
                logger.warning(
                    "peer=%s: repeated token failures, refusal delayed %.2fs",
                    _peer(connection),
                    delay,
                )
                await asyncio.sleep(delay)
            return _unauthorized(connection)
        return None

    def _admission(self, request: HttpRequest) -> Admission:
        headers = request.headers
        return self.policy.admit(
            _single_header(headers, "Origin"),
            _single_header(headers, "Host"),
            _single_header(headers, "Authorization"),
        )

    def _metrics_response(self, connection: ServerConnection, request: HttpRequest) -> Response:
        if self.policy.token is not None:
            authorization = request.headers.get_all("Authorization")
            if (
                len(authorization) != 1
                or self.policy.admit(None, None, authorization[0]) is not Admission.ACCEPT
            ):
                return _unauthorized(connection)
        response = connection.respond(HTTPStatus.OK, self.metrics.render())
        del response.headers["Content-Type"]  # Headers are multi-valued: replace, not add
        response.headers["Content-Type"] = METRICS_CONTENT_TYPE
        return response

    def _health_response(self, connection: ServerConnection) -> Response:
        workers = len(self.pool.worker_pids())
        healthy = self._server is not None and workers > 0 and not self.draining
        status_text = "draining" if self.draining else "ok" if healthy else "unavailable"
        body = {
            "status": status_text,
            "workers": workers,
            "sessions": len(self.connections),
        }
        status = HTTPStatus.OK if healthy else HTTPStatus.SERVICE_UNAVAILABLE
        response = connection.respond(status, json.dumps(body) + "\n")
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "application/json"
        return response


def _single_header(headers: Headers, name: str) -> str | None:
    """The header's value, ``None`` if absent; a repeated one is refused (``ValueError``)."""
    values = headers.get_all(name)
    if len(values) > 1:
        raise ValueError(f"more than one {name} header")
    return values[0] if values else None


def _unauthorized(connection: ServerConnection) -> Response:
    response = connection.respond(
        HTTPStatus.UNAUTHORIZED,
        "a token is required: send 'Authorization: Bearer <token>'\n",
    )
    response.headers["WWW-Authenticate"] = 'Bearer realm="alphabeta-arena"'
    return response


def _peer_address(ws: ServerConnection) -> str:
    """The peer's address without its port: what token failures are counted by."""
    address = ws.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address)


def _peer(ws: ServerConnection) -> str:
    address = ws.remote_address
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


def _format_limits(job: SearchJob) -> str:
    limits = job.limits
    parts = [
        f"{name}={value}"
        for name, value in (
            ("movetime_ms", limits.movetime_ms),
            ("depth", limits.depth),
            ("nodes", limits.nodes),
        )
        if value is not None
    ]
    if limits.clock is not None:
        parts.append(f"clock={limits.clock.time_ms}+{limits.clock.inc_ms}")
    return ",".join(parts) or "none"


# ----------------------------------------------------------------------
# Command line.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options, shared by ``arena serve`` and ``python -m server``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="GAME[:NAME]=uci|gtp:COMMAND[?Option=Value&...]",
        help="offer an external engine program for a game (repeatable): a UCI engine for "
        "chess, a GTP engine for go. Without NAME it becomes the game's default search under "
        "the program's name, with NAME one more algorithm a think can ask for; UCI options "
        "go to setoption, e.g. chess:sf5=uci:/usr/games/stockfish?Skill Level=5, "
        "'go=gtp:/usr/games/gnugo --mode gtp --level 5'",
    )
    parser.add_argument(
        "--port",
        type=port_argument,
        default=8765,
        metavar="PORT",
        help="port to bind, 1-65535, or 0 for any free port (default 8765)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int_argument,
        default=os.cpu_count() or 1,
        metavar="N",
        help="search worker processes (default: one per core)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="logging level (default info)",
    )
    defaults = ServerLimits()
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=WORKER_NICE,
        metavar="N",
        help=f"niceness added to search processes so that the event loop comes first "
        f"(default {WORKER_NICE}; 0 for equal priority)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN") or None,
        metavar="TOKEN",
        help="shared secret clients must present: 'Authorization: Bearer TOKEN' at the "
        "handshake, or 'token' in hello from a browser (default: $ARENA_TOKEN; none: open)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept browser connections from this origin, e.g. https://example.org "
        "(repeatable; '*' accepts any). Default: the server's own origin only",
    )
    parser.add_argument(
        "--max-connections",
        type=positive_int_argument,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help=f"open connections beyond which new ones are closed with 1013 "
        f"(default {DEFAULT_MAX_CONNECTIONS})",
    )
    parser.add_argument(
        "--max-movetime-ms",
        type=positive_int_argument,
        default=defaults.max_movetime_ms,
        metavar="MS",
        help=f"longest think; longer budgets are clamped (default {defaults.max_movetime_ms})",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name browsers may use to reach this server, besides IP addresses, "
        "localhost and --host (repeatable; '*' accepts any, which allows DNS rebinding)",
    )
    parser.add_argument(
        "--max-queue",
        type=count_argument,
        default=None,
        metavar="N",
        help=f"thinks that may wait for a worker before new ones are refused with "
        f"'overloaded' (default {QUEUE_PER_WORKER} per worker)",
    )
    parser.add_argument(
        "--hello-timeout-ms",
        type=positive_int_argument,
        default=defaults.hello_timeout_ms,
        metavar="MS",
        help=f"close a connection that made no valid request in this time "
        f"(default {defaults.hello_timeout_ms})",
    )
    parser.add_argument(
        "--agent-port",
        type=port_argument,
        default=None,
        metavar="PORT",
        help="also listen on this TCP port (same --host) for HAProxy's agent-check: each "
        "connection reads one line, 'up ready N%%' (N: free workers and queue) or 'drain' "
        "while shutting down (see deploy/haproxy.cfg; default: no agent)",
    )
    parser.add_argument(
        "--drain-grace-s",
        type=seconds_argument,
        default=None,
        metavar="S",
        help=f"on SIGTERM, first report down (agent 'drain', /healthz 503) and close each "
        f"session with 1001 between two of its thinks, for at most S seconds; then shut down "
        f"(thinks still running are stopped and answered). A second signal, or SIGINT, "
        f"shuts down at once (default {DEFAULT_DRAIN_GRACE_S:g} with --agent-port, else 0)",
    )


def _int_argument(text: str, low: int, high: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"{value} is not {what}")
    return value


def port_argument(text: str) -> int:
    """An argparse type: a TCP port, 1-65535, or 0 for any free port."""
    return _int_argument(text, 0, 65535, "a port (1-65535, or 0 for any)")


def positive_int_argument(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _int_argument(text, 1, None, "at least 1")


def count_argument(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _int_argument(text, 0, None, "at least 0")


def seconds_argument(text: str) -> float:
    """An argparse type: a finite number of seconds, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number of seconds >= 0")
    return value


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """The server configuration the ``serve`` options describe; ``ValueError`` on bad values."""
    for name in ("workers", "max_connections", "max_movetime_ms", "hello_timeout_ms"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.max_queue is not None and args.max_queue < 0:
        raise ValueError("--max-queue must be at least 0")
    if not 0 <= args.port <= 65535:
        raise ValueError("--port must be 1-65535, or 0 for any free port")
    agent_port: int | None = args.agent_port
    drain_grace_s: float | None = args.drain_grace_s
    if drain_grace_s is None:
        drain_grace_s = DEFAULT_DRAIN_GRACE_S if agent_port is not None else 0.0
    limits = ServerLimits(
        max_movetime_ms=args.max_movetime_ms,
        hello_timeout_ms=args.hello_timeout_ms,
        max_queue=args.max_queue,
    )
    return ServerConfig(
        host=args.host,
        port=args.port,
        workers=args.workers,
        limits=limits,
        token=args.token,
        allowed_origins=tuple(args.allow_origin),
        allowed_hosts=tuple(args.allow_host),
        max_connections=args.max_connections,
        worker_nice=max(0, args.worker_nice),
        externals=_externals(args.external),
        agent_port=agent_port,
        drain_grace_s=drain_grace_s,
    )


def _externals(specs: list[str]) -> tuple[ExternalEngine, ...]:
    """``--external`` specs, each checked, and their program found on this machine."""
    engines = [parse_external(spec) for spec in specs]
    for engine in engines:
        if shutil.which(engine.argv[0]) is None:
            raise ValueError(f"--external: cannot find the program {engine.argv[0]!r}")
    return check_externals(engines)


def run_from_args(args: argparse.Namespace, prog: str = "arena serve") -> int:
    """Serve as the options say; the exit status (0 after a signal, 1 when it cannot serve).

    A configuration the server cannot run with (a port in use, a host it
    cannot bind) is reported as one line on stderr, ``prog: ...``, with the
    traceback only under ``--log-level debug``.
    """
    try:
        config = config_from_args(args)
    except ValueError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.log_level != "debug":
        # websockets logs every connection itself; ours already has one line each.
        logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        run(config)
    except OSError as error:
        if args.log_level == "debug":
            raise
        print(f"{prog}: {_listen_error(config, error)}", file=sys.stderr)
        return 1
    return 0


def _listen_error(config: ServerConfig, error: OSError) -> str:
    where = f"{config.host}:{config.port}"
    if error.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the address is already in use"
    if error.errno == errno.EACCES:
        return f"cannot listen on {where}: permission denied (ports below 1024 need privileges)"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: {config.host} is not an address of this machine"
    if isinstance(error, socket.gaierror):
        return f"cannot listen on {where}: unknown host {config.host!r}"
    return f"cannot listen on {where}: {error.strerror or error}"


def server_urls(host: str, port: int) -> tuple[str, str]:
    """The WebSocket URL and the browser GUI's URL of a server bound to ``host:port``."""
    if host in ("", "0.0.0.0", "::"):
        shown = "127.0.0.1" if host != "::" else "[::1]"
    else:
        shown = f"[{host}]" if ":" in host else host
    return f"ws://{shown}:{port}{WS_PATH}", f"http://{shown}:{port}/"


def run(config: ServerConfig) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    asyncio.run(_serve_until_signalled(config))


async def _serve_until_signalled(config: ServerConfig) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    #: Set by SIGINT, or by a second signal: skip (or cut short) the drain.
    hurry = asyncio.Event()

    def on_signal(signum: signal.Signals) -> None:
        if stop.is_set() or signum == signal.SIGINT:
            hurry.set()
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    server = ArenaServer(config)
    try:
        await server.start()
    except BaseException:
        await server.pool.close()  # the workers started before the bind failed
        raise
    ws_url, gui_url = server_urls(config.host, server.port)
    print(f"serving on {ws_url}; GUI at {gui_url}", flush=True)
    try:
        await stop.wait()
        if config.drain_grace_s > 0 and not hurry.is_set():
            await _drain_unless_hurried(server, hurry)
    finally:
        await server.shutdown()


async def _drain_unless_hurried(server: ArenaServer, hurry: asyncio.Event) -> None:
    """Drain the server; a further signal (``hurry``) ends the drain at once."""
    drain = asyncio.create_task(server.drain())
    hurried = asyncio.create_task(hurry.wait())
    try:
        await asyncio.wait({drain, hurried}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (drain, hurried):
            task.cancel()
        await asyncio.gather(drain, hurried, return_exceptions=True)
