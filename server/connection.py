"""The per-connection pump: one WebSocket client's frames in, its session's replies out.

:class:`ClientConnection` reads one frame at a time, hands it to its
:class:`~server.session.Session`, queues the replies in its
:class:`~server.outbox.Outbox`, and carries out what the session asks for:
submit a think or a trace to the :class:`~server.runtime.pool.WorkerPool`, stop it,
close the connection. One writer task sends the outbox in order.
:class:`~server.app.ArenaServer` creates one per accepted connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from engine.search.results import Info, SearchResult
from protocol.codec import Encoding, decode, encode, request_id_of
from protocol.errors import Internal, LimitExceeded, Overloaded, ProtocolError
from protocol.limits import ServerLimits
from protocol.records import ErrorMessage, Hello, Reply, Request, Stop, Think, parse_request
from server.external import ExternalEngine
from server.guard import AuthFailures
from server.jobs import SearchJob, TraceJob
from server.metrics import ServerMetrics
from server.outbox import Frame, OnSent, Outbox
from server.programs.health import ProgramHealth
from server.runtime.constants import STOP_GRACE_S
from server.runtime.pool import QueueFull, Ticket, WorkerPool
from server.runtime.worker import TraceReply
from server.session import CLOSE_POLICY_VIOLATION, Reaction, Session

logger = logging.getLogger("server")

#: What encoding a message can raise: a number beyond msgpack's 64 bits
#: (OverflowError), NaN in JSON (ValueError), a value of no wire type (TypeError).
UNENCODABLE = (OverflowError, ValueError, TypeError)
#: Frames, and bytes beyond the first frame, queued for one client before
#: the server stops reading its requests (and drops its progress reports)
#: until it reads its replies. 256 KiB is a few hundred replies; with
#: websockets' own 32 KiB write buffer it bounds what a client that never
#: reads can make the server hold.
OUTBOX_LIMIT = 256
OUTBOX_BYTES = 256 * 1024
#: How long a closing handshake may take before the socket is dropped; a
#: client that never reads cannot hold up shutdown longer than this.
CLOSE_TIMEOUT_S = 2.0
#: At shutdown, how long to wait for running thinks to be answered and
#: their bestmove flushed before closing the connections anyway.
SHUTDOWN_FLUSH_S = 2.0
#: WebSocket close code 1001 (going away, RFC 6455 section 7.4.1): what a
#: server shutting down or draining closes its sessions with.
CLOSE_GOING_AWAY = 1001
#: A draining server closes a session only once it has sent nothing for
#: this long (and has no think running): a client that answers a bestmove
#: with its next think at once is not cut between the two; one that
#: never pauses keeps its session until the grace period ends.
DRAIN_QUIET_S = 0.25


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
        health: ProgramHealth | None = None,
    ) -> None:
        self.ws = ws
        self.pool = pool
        self.number = number
        self.metrics = metrics
        self.limits = limits
        self.executor = executor
        self.session = Session(limits, hello_token, externals, health)
        self.outbox = Outbox(OUTBOX_LIMIT, OUTBOX_BYTES)
        self.auth_failures = auth_failures
        self.ticket: Ticket[SearchResult] | None = None
        self.think_task: asyncio.Task[None] | None = None
        self.trace_ticket: Ticket[TraceReply] | None = None
        self.trace_task: asyncio.Task[None] | None = None
        self.requests = 0
        self.thinks = 0
        self.peer = peer_label(ws)
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
            request = parse_request(message, self.limits)
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
            await self._send(error.to_record(), encoding)
            return
        except Exception:
            logger.exception("conn=%d: internal error handling a request", self.number)
            internal = Internal("internal server error", request_id_of(message))
            await self._send(internal.to_record(), encoding)
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
        frames = [encode(reply.to_wire(), encoding) for reply in reaction.replies]
        if not isinstance(request, Hello | Stop | Think):
            self._costly = time.monotonic() - started > OFF_LOOP_AFTER_S
        return reaction, frames

    async def _refuse_token(self, reason: str) -> None:
        """Close for a wrong or missing token in hello, slowed for a peer that keeps guessing."""
        self.metrics.closed_by_server.inc("unauthorized")
        if self.auth_failures is not None:
            delay = self.auth_failures.record(peer_address(self.ws))
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
            self.ticket = self.pool.submit(job, on_info, client=self.number)
        except QueueFull as full:
            self.session.abandon_think()
            refusal = Overloaded(str(full), job.think_id, retry_after_ms=full.retry_after_ms)
            await self._send(refusal.to_record(), encoding)
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

        answer = self.session.finish_think(result, ticket.queued_ms)
        try:
            frame = encode(answer.to_wire(), encoding)
        except UNENCODABLE as error:
            # Exactly one bestmove per think, whatever a searcher returned.
            logger.error("conn=%d: bestmove cannot be encoded (%s): %r", self.number, error, answer)
            answer = self.session.fallback_bestmove(answer, job.fallback_move)
            frame = encode(answer.to_wire(), encoding)
        self._count_sent(answer)
        await self.outbox.put(frame, on_sent)
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
            ticket = self.pool.submit_trace(job, encoding, client=self.number)
        except LimitExceeded as too_costly:
            self.session.finish_trace()
            await self._send(too_costly.to_record(), encoding)
            return
        except QueueFull as full:
            self.session.finish_trace()
            refusal = Overloaded(str(full), job.trace_id, retry_after_ms=full.retry_after_ms)
            await self._send(refusal.to_record(), encoding)
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

    def _count_sent(self, message: Reply) -> None:
        self.metrics.messages_out.inc(message.type)
        if isinstance(message, ErrorMessage):
            self.metrics.errors.inc(str(message.code))

    async def _send(self, message: Reply, encoding: Encoding, on_sent: OnSent = None) -> None:
        self._count_sent(message)
        await self.outbox.put(encode(message.to_wire(), encoding), on_sent)

    def _send_nowait(self, message: Reply, encoding: Encoding) -> None:
        try:
            frame = encode(message.to_wire(), encoding)
        except UNENCODABLE as error:
            logger.error("conn=%d: %r cannot be encoded (%s): dropped", self.number, message, error)
            return
        if self.outbox.offer(frame):
            self.metrics.messages_out.inc(message.type)
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


def peer_address(ws: ServerConnection) -> str:
    """The peer's address without its port: what token failures are counted by."""
    address = ws.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address)


def peer_label(ws: ServerConnection) -> str:
    """The peer's address and port, as the log shows it."""
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
