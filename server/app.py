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
import itertools
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from engine.search import Info
from engine.tt import DEFAULT_TT_SLOTS
from server.jobs import SearchAnswer, SearchJob
from server.pool import STOP_GRACE_S, WORKER_GRACE_S, Ticket, WorkerPool
from server.protocol import (
    Encoding,
    ErrorCode,
    ProtocolError,
    ServerLimits,
    decode,
    encode,
    error_message,
    parse_request,
    request_id_of,
)
from server.session import Session
from server.static import http_response

logger = logging.getLogger("server")

#: The WebSocket endpoint.
WS_PATH = "/ws"
#: Frames queued for one client before the server stops reading its
#: requests (and drops its progress reports) until it reads its replies.
OUTBOX_LIMIT = 256
#: At shutdown, how long to wait for running thinks to be answered and
#: their bestmove flushed before closing the connections anyway.
SHUTDOWN_FLUSH_S = 2.0


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = os.cpu_count() or 1
    tt_slots: int = DEFAULT_TT_SLOTS
    worker_grace_s: float = WORKER_GRACE_S
    limits: ServerLimits = field(default_factory=ServerLimits)


class ClientConnection:
    """One WebSocket client: its session, its running think and its ordered outbox."""

    def __init__(self, ws: ServerConnection, pool: WorkerPool, limits: ServerLimits,
                 number: int) -> None:
        self.ws = ws
        self.pool = pool
        self.number = number
        self.session = Session(limits)
        self.outbox: asyncio.Queue[bytes | str] = asyncio.Queue(OUTBOX_LIMIT)
        self.ticket: Ticket | None = None
        self.think_task: asyncio.Task[None] | None = None
        self.requests = 0
        self.thinks = 0

    async def run(self) -> None:
        opened = time.monotonic()
        peer = _peer(self.ws)
        logger.info("open conn=%d peer=%s", self.number, peer)
        writer = asyncio.create_task(self._write_loop())
        try:
            async for frame in self.ws:
                await self._on_frame(frame, time.monotonic())
        except ConnectionClosed:
            pass
        finally:
            self._abandon_think()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.outbox.join(), SHUTDOWN_FLUSH_S)
            writer.cancel()
            logger.info(
                "close conn=%d peer=%s client=%r code=%s requests=%d thinks=%d duration=%.1fs",
                self.number, peer, self.session.client, self.ws.close_code, self.requests,
                self.thinks,
                time.monotonic() - opened,
            )

    # ------------------------------------------------------------------
    # Incoming.

    async def _on_frame(self, frame: bytes | str, received_at: float) -> None:
        self.requests += 1
        encoding = Encoding.MSGPACK if isinstance(frame, bytes) else Encoding.JSON
        message: dict[str, Any] = {}
        try:
            encoding, message = decode(frame)
            request = parse_request(message)
            reaction = self.session.handle(request, received_at)
        except ProtocolError as error:
            await self._send(error_message(error), encoding)
            return
        except Exception:
            logger.exception("conn=%d: internal error handling a request", self.number)
            internal = ProtocolError(ErrorCode.INTERNAL, "internal server error",
                                     request_id_of(message))
            await self._send(error_message(internal), encoding)
            return
        for reply in reaction.replies:
            await self._send(reply, encoding)
        if reaction.stop and self.ticket is not None:
            self.ticket.stop()
        if reaction.start is not None:
            self._start_think(reaction.start, encoding)

    def _start_think(self, job: SearchJob, encoding: Encoding) -> None:
        self.thinks += 1

        def on_info(info: Info) -> None:
            self._send_nowait(self.session.info_message(info), encoding)

        self.ticket = self.pool.submit(job, on_info)
        self.think_task = asyncio.create_task(self._answer(job, self.ticket.answer, encoding))

    async def _answer(
        self, job: SearchJob, answer_future: asyncio.Future[SearchAnswer], encoding: Encoding
    ) -> None:
        answer = await answer_future
        self.ticket = None
        await self._send(self.session.finish_think(answer), encoding)
        late_ms = (time.monotonic() - job.deadline) * 1000
        logger.info(
            "think conn=%d game=%s limits=%s move=%s depth=%d nodes=%d reason=%s time_ms=%d "
            "deadline_margin_ms=%.1f",
            self.number, job.game.name, _format_limits(job), answer.move, answer.depth,
            answer.nodes, answer.reason, answer.time_ms, -late_ms,
        )

    def _abandon_think(self) -> None:
        """The client is gone: cancel its search so that its worker is freed now."""
        if self.ticket is not None:
            self.ticket.cancel()
            self.ticket = None
            self.session.abandon_think()
        if self.think_task is not None:
            self.think_task.cancel()

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

    async def _send(self, message: dict[str, Any], encoding: Encoding) -> None:
        await self.outbox.put(encode(message, encoding))

    def _send_nowait(self, message: dict[str, Any], encoding: Encoding) -> None:
        try:
            self.outbox.put_nowait(encode(message, encoding))
        except asyncio.QueueFull:
            logger.debug("conn=%d: outbox full, progress report dropped", self.number)

    async def _write_loop(self) -> None:
        while True:
            frame = await self.outbox.get()
            try:
                await self.ws.send(frame)
            except ConnectionClosed:
                pass  # keep draining so that join() returns
            finally:
                self.outbox.task_done()


class ArenaServer:
    """The WebSocket server and its worker pool; an async context manager."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.pool = WorkerPool(
            self.config.workers, self.config.tt_slots, self.config.worker_grace_s
        )
        self.connections: set[ClientConnection] = set()
        self._server: Server | None = None
        self._numbers = itertools.count(1)

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
        await self.pool.start()
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            max_size=self.config.limits.max_message_bytes,
            compression=None,  # frames are small; deflate costs latency and CPU
            process_request=_check_path,
        )
        logger.info(
            "listening on ws://%s:%d%s with %d workers",
            self.config.host, self.port, WS_PATH, self.config.workers,
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
        await self.pool.close()
        logger.info("stopped")

    async def _handle(self, ws: ServerConnection) -> None:
        connection = ClientConnection(ws, self.pool, self.config.limits, next(self._numbers))
        self.connections.add(connection)
        try:
            await connection.run()
        finally:
            self.connections.discard(connection)


def _check_path(connection: ServerConnection, request: Request) -> Response | None:
    if request.path.split("?", 1)[0] != WS_PATH:
        return http_response(request)  # the GUI's own files, or 404
    return None


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
            ("movetime_ms", limits.movetime_ms), ("depth", limits.depth), ("nodes", limits.nodes)
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
    parser.add_argument("--port", type=int, default=8765, help="port to bind (default 8765)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1,
        help="search worker processes (default: one per core)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"],
        help="logging level (default info)",
    )


def run_from_args(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise SystemExit("--workers must be at least 1")
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.log_level != "debug":
        # websockets logs every connection itself; ours already has one line each.
        logging.getLogger("websockets").setLevel(logging.WARNING)
    run(ServerConfig(host=args.host, port=args.port, workers=args.workers))
    return 0


def run(config: ServerConfig) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    asyncio.run(_serve_until_signalled(config))


async def _serve_until_signalled(config: ServerConfig) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    server = ArenaServer(config)
    await server.start()
    try:
        await stop.wait()
    finally:
        await server.shutdown()
