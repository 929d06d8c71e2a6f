"""The server: a WebSocket endpoint over the worker pool, its HTTP policy, health and drain.

:class:`ArenaServer` ties a ``websockets`` server to a :class:`WorkerPool`;
each connection gets a :class:`~server.connection.ClientConnection` (the
per-connection pump). The server decides who may open a WebSocket
(:mod:`server.guard`), answers ``/metrics`` and ``/healthz``, serves the
GUI's files, answers HAProxy's agent check and drains on request. The
command line (:mod:`server.cli`) builds its :class:`~server.config.ServerConfig`
and runs it; embed it as::

    async with ArenaServer(ServerConfig(port=0, workers=2)) as server:
        print(server.port)
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from types import TracebackType

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from engine import ENGINE_BUILD, ENGINE_BUILD_NOTE
from server.agent import AgentServer, Capacity, agent_line
from server.config import ServerConfig
from server.connection import CLOSE_TIMEOUT_S, ClientConnection, peer_address, peer_label
from server.guard import AccessPolicy, Admission, AuthFailures
from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import LoopLagMonitor, ServerMetrics
from server.programs.health import ProgramHealth
from server.runtime.constants import DELIVERY_MARGIN_S
from server.runtime.pool import WorkerPool
from server.static import http_response

logger = logging.getLogger("server")

#: The WebSocket endpoint.
WS_PATH = "/ws"
#: Plain HTTP endpoints on the same port: Prometheus metrics and a health check.
METRICS_PATH = "/metrics"
HEALTH_PATH = "/healthz"
CLOSE_TRY_AGAIN_LATER = 1013
#: How often a draining server looks for sessions between two thinks.
DRAIN_POLL_S = 0.05
#: How long the session thread may hold the GIL while the event loop waits
#: for it (CPython's default is 5 ms). A round trip needs the GIL back
#: several times, so the interval adds up: with a costly request beside the
#: loop, other clients' median round trip was 4.3 ms at the default, 3.7 ms
#: at 1 ms and 1.1 ms at 0.2 ms (tests/server/test_overload.py, two cores).
#: The server sets it while it runs; the cost is more thread switches while
#: a costly request runs.
GIL_SWITCH_INTERVAL_S = 0.0002


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
            tree_budget=self.config.tree_budget,
            program_wait_s=self.config.program_wait_s,
        )
        #: Which external engines can be used (probed in the background at start).
        self.health = ProgramHealth(self.config.externals)
        #: The one set of limits in force: the configured ones with what the
        #: pool derived filled in. Every session validates against it,
        #: ``welcome`` announces it and the WebSocket layer caps frames by it.
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
        self.health.start()
        await self.pool.start()
        self._loop_lag.start()
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            max_size=self.limits.max_message_bytes,
            compression=None,  # frames are small; deflate costs latency and CPU
            process_request=self._process_request,
            close_timeout=CLOSE_TIMEOUT_S,
        )
        if self.agent is not None:
            await self.agent.start()
        logger.info(
            "listening on ws://%s:%d%s with %d worker%s; engine: %s (%s)",
            self.config.host,
            self.port,
            WS_PATH,
            self.config.workers,
            "" if self.config.workers == 1 else "s",
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
            self.health,
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
            delay = self.auth_failures.record(peer_address(connection))
            if delay > 0:
                logger.warning(
                    "peer=%s: repeated token failures, refusal delayed %.2fs",
                    peer_label(connection),
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
        if self.health.engines:
            body["externals"] = self.health.to_dict()
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
