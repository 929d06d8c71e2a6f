"""An asyncio client for the engine server, in the spirit of ``chess.engine``.

::

    async with connect("ws://127.0.0.1:8765/ws") as engine:
        state = await engine.new_game("connect4")
        state = await engine.move("4")
        best = await engine.think(movetime=0.5)
        async with engine.analysis(depth=12) as analysis:
            async for info in analysis:
                print(info.depth, info.score, info.pv)
        print(analysis.bestmove)

Every request waits for its reply, and every wait ends: with the reply,
with an :class:`EngineError` subclass whose ``code`` is the protocol error
code, or with :class:`EngineTimeoutError` after a time the caller can set
(``connect(request_timeout=...)``, or ``timeout=`` on each call). A closed
connection fails every pending request at once with
:class:`EngineTerminatedError`.

Everything the server sends is checked before it is believed: a reply that
breaks the protocol (a ``depth`` that is not a whole number, a score that
is not one of the four forms, a move that is not a string, ...) raises
:class:`ProtocolViolationError` for the request it answers, never a
``TypeError`` or a silently wrong value.

Results are the protocol's records (:mod:`protocol.records`), frozen
dataclasses: :class:`GameState`, :class:`Info`, :class:`BestMove`, and
:class:`ServerInfo` (the ``welcome`` record); scores are
:class:`engine.search.score.Score`. Errors are the classes of
:mod:`protocol.errors` under this module's names (:class:`EngineError` is
:class:`~protocol.errors.ProtocolError`, :class:`IllegalMoveError` is
:class:`~protocol.errors.IllegalMove`, ...: :mod:`clients.errors`). The
checks and the wire forms live in :mod:`protocol`, shared with the server.
This module holds the requests (:class:`Engine`) and :func:`connect`; the
transport under them (ids, replies, timeouts, the reader) is
:mod:`clients.connection`, and an iterated think :mod:`clients.analysis`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from websockets.asyncio.client import connect as ws_connect

from clients.analysis import Analysis
from clients.connection import (
    DEFAULT_MAX_THINK_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    THINK_TIMEOUT_MARGIN_S,
    Connection,
    expect_reply,
)
from clients.errors import (
    BadMessageError,
    BadOptionsError,
    BadPositionError,
    BusyError,
    ChanceStateError,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GameOverError,
    IllegalMoveError,
    InternalError,
    LimitExceededError,
    NoGameError,
    OverloadedError,
    ProtocolViolationError,
    UnknownAlgorithmError,
    UnknownGameError,
    UnknownTypeError,
    UnsupportedProtocolError,
    error_from_message,
)
from engine.search.limits import Clock, Limits
from engine.search.trace import Trace
from protocol.codec import EncodingName
from protocol.limits import MAX_TRACE_MS
from protocol.records import (
    BestMove,
    GameResult,
    GameState,
    Hello,
    Info,
    Move,
    NewGame,
    Roll,
    Stop,
    TraceReply,
    TraceRequest,
    Welcome,
    limits_to_wire,
    score_from_wire,
)

__all__ = [
    "DEFAULT_URL",
    "Analysis",
    "BadMessageError",
    "BadOptionsError",
    "BadPositionError",
    "BestMove",
    "BusyError",
    "ChanceStateError",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GameOverError",
    "GameResult",
    "GameState",
    "IllegalMoveError",
    "Info",
    "InternalError",
    "LimitExceededError",
    "NoGameError",
    "OverloadedError",
    "ProtocolViolationError",
    "ServerInfo",
    "UnknownAlgorithmError",
    "UnknownGameError",
    "UnknownTypeError",
    "UnsupportedProtocolError",
    "connect",
    "error_from_message",
    "parse_score",
]

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
#: Largest frame the client accepts from a server. Most replies are small (a
#: ``welcome`` with every game is a few kilobytes); a ``trace`` of the most
#: nodes a server allows (50,000) is up to about 10 MB of JSON.
MAX_SERVER_FRAME = 16 << 20
#: Seconds a ``trace`` may take beyond the server's own limit for it
#: (``welcome.limits.max_trace_ms``) before the client gives up: the reply's
#: transfer of a few megabytes, and a queue ahead of it.
TRACE_TIMEOUT_MARGIN_S = 5.0

#: The client's name for :class:`protocol.records.Welcome`: what the server said.
ServerInfo = Welcome
#: Read a protocol score (kept under its old name).
parse_score = score_from_wire


def _trace_of(message: Mapping[str, Any]) -> Trace:
    return TraceReply.from_wire(message).trace


_parse_state = expect_reply("state", GameState.from_wire)
_parse_trace = expect_reply("trace", _trace_of)
_parse_welcome = expect_reply("welcome", Welcome.from_wire)


class Engine(Connection):
    """A connection to the engine server; create it with :func:`connect`."""

    #: What the server said (its ``welcome``), once :meth:`start` has said hello.
    server: ServerInfo | None = None
    #: The session's game as the last ``state`` reply gave it.
    state: GameState | None = None

    async def start(
        self, client_name: str = "arena-python", *, timeout: float | None = None
    ) -> ServerInfo:
        """Start reading and say ``hello``; :func:`connect` does this for you."""
        if self._reader is None:
            self._reader = asyncio.create_task(self._read_loop())
        self.server = await self._request(
            Hello(client=client_name).to_wire(), _parse_welcome, timeout
        )
        return self.server

    # ------------------------------------------------------------------
    # Requests.

    async def new_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        position: str | None = None,
        moves: Sequence[str] | None = None,
        seed: int | None = None,
        *,
        timeout: float | None = None,
    ) -> GameState:
        """Start a game (optionally from ``position``, then playing ``moves``).

        ``seed`` fixes the server's dice in a game of chance, to replay a game.
        ``timeout`` overrides the engine's ``request_timeout`` for this call.
        """
        request = NewGame(game, None, dict(options or {}), position, tuple(moves or ()), seed)
        self.state = await self._request(request.to_wire(), _parse_state, timeout)
        return self.state

    async def move(self, move: str, *, timeout: float | None = None) -> GameState:
        """Play ``move`` in the session's game."""
        self.state = await self._request(Move(move).to_wire(), _parse_state, timeout)
        return self.state

    async def roll(self, *, timeout: float | None = None) -> GameState:
        """Let the server roll the dice at a chance state (games of chance)."""
        self.state = await self._request(Roll().to_wire(), _parse_state, timeout)
        return self.state

    async def trace(
        self,
        algorithm: str | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        *,
        playouts: int | None = None,
        seed: int | None = None,
        timeout: float | None = None,
    ) -> Trace:
        """Trace a search of the current position, node by node (:mod:`engine.search.trace`).

        ``algorithm`` is one of ``minimax``, ``alphabeta``, ``alphabeta_ordered``,
        ``negamax``, ``expectiminimax``, ``mcts`` (the server picks alpha-beta, or
        expectiminimax where the game has chance nodes); ``depth`` defaults
        to the whole tree of a ``tree`` game and to 2 plies elsewhere;
        ``max_nodes`` to 5,000. ``mcts`` takes ``playouts`` (default 100)
        and ``seed`` instead of a depth. A trace larger than ``max_nodes`` raises
        :class:`LimitExceededError`, whose message says how many nodes it
        would take when the server could count them.
        """
        request = TraceRequest(None, algorithm, depth, max_nodes, playouts, seed)
        if timeout is None:
            limit_ms = self.server.limits.max_trace_ms if self.server is not None else MAX_TRACE_MS
            timeout = max(self.request_timeout, limit_ms / 1000 + TRACE_TIMEOUT_MARGIN_S)
        return await self._request(request.to_wire(), _parse_trace, timeout)

    async def think(
        self,
        movetime: float | None = None,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        clock: Clock | None = None,
        movetime_ms: int | None = None,
        algorithm: str | None = None,
        on_info: Callable[[Info], None] | None = None,
        timeout: float | None = None,
        cleanup: bool = False,
        multipv: int = 1,
    ) -> BestMove:
        """Search the current position and return the best move.

        ``movetime`` is in seconds (``movetime_ms`` in milliseconds); the
        search ends at whichever limit comes first. ``algorithm`` picks the
        search (one of the game's ``algorithms`` in :attr:`server`; ``None``:
        the game's default). ``on_info`` receives each progress report.
        The position does not change: play the move with :meth:`move`.

        The answer is due by the budget (``movetime``, or the clock's time
        left); after that plus :data:`THINK_TIMEOUT_MARGIN_S` (or after
        ``timeout`` seconds, if given) the think is stopped and
        :class:`EngineTimeoutError` raised once the server has answered the
        stop (at most ``STOPPED_ANSWER_WAIT_S`` later), so that the next
        request is not refused ``busy``. A think without a time limit may
        take the server's ``max_movetime_ms``. Check ``best.reason``: an
        ``"overloaded"`` answer is a fallback move nobody searched.
        Raises :class:`OverloadedError` if the server refused the think.
        ``cleanup`` (Go) asks for a move of a clean-up phase: dead stones are
        to be captured before passing (protocol.md, ``think``). ``multipv``
        asks for that many root lines: ``on_info`` then gets each line's
        report, with its rank in ``info.multipv`` (:meth:`analysis` keeps
        them in :attr:`Analysis.lines`).
        """
        limits = _limits(movetime, movetime_ms, depth, nodes, clock)
        timeout_s = self.think_timeout(limits_to_wire(limits), timeout)
        think = await self._start_think(limits, timeout_s, algorithm, cleanup, multipv)
        think.on_info = on_info
        try:
            return await think.bestmove
        except asyncio.CancelledError:
            if not think.finished:  # the caller gave up: free the server's worker
                self._spawn(self._send_quietly(Stop(think.id).to_wire()))
            raise
        finally:
            self._forget_think(think)

    def analysis(
        self,
        movetime: float | None = None,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        clock: Clock | None = None,
        movetime_ms: int | None = None,
        algorithm: str | None = None,
        timeout: float | None = None,
        multipv: int = 1,
    ) -> Analysis:
        """A think whose progress you iterate over; leaving the ``async with`` stops it.

        With no limits the search runs until stopped (or the server's
        maximum think time). The same timeout as :meth:`think` applies; after
        :meth:`Analysis.stop` the answer may take at most
        :data:`THINK_TIMEOUT_MARGIN_S`. ``multipv`` asks for that many root
        lines; :attr:`Analysis.lines` holds the latest of each, best first.
        """
        limits = _limits(movetime, movetime_ms, depth, nodes, clock)
        timeout_s = self.think_timeout(limits_to_wire(limits), timeout)
        return Analysis(self, limits, timeout_s, algorithm, multipv)

    async def stop(self, *, timeout: float | None = None) -> None:
        """Ask any running think to answer now (no reply of its own)."""
        for think in self._thinks.values():
            self._shorten(think)
        await self._send_within(Stop().to_wire(), timeout)

    def think_timeout(self, limits: Mapping[str, Any], timeout: float | None = None) -> float:
        """Seconds a think with these protocol ``limits`` may take before it times out.

        ``timeout`` if given; else its budget (``movetime_ms``, or the
        clock's ``time_ms``, whichever is less) plus
        :data:`THINK_TIMEOUT_MARGIN_S`; without a time limit, the server's
        ``max_movetime_ms`` (or :data:`DEFAULT_MAX_THINK_S`) plus the margin.
        """
        if timeout is not None:
            if not timeout > 0:
                raise ValueError("timeout must be positive")
            return timeout
        budgets: list[float] = []
        if isinstance(limits.get("movetime_ms"), int):
            budgets.append(limits["movetime_ms"] / 1000)
        clock = limits.get("clock")
        if isinstance(clock, Mapping) and isinstance(clock.get("time_ms"), int):
            budgets.append(clock["time_ms"] / 1000)
        if not budgets:
            budgets.append(self.server.max_think_s if self.server else DEFAULT_MAX_THINK_S)
        return max(0.0, min(budgets)) + THINK_TIMEOUT_MARGIN_S


def _limits(
    movetime: float | None,
    movetime_ms: int | None,
    depth: int | None,
    nodes: int | None,
    clock: Clock | None,
) -> Limits:
    """The think's limits; ``movetime`` (seconds) is rounded to at least 1 ms.

    A move time that is not positive is a ``ValueError``, as a depth of 0 is
    refused: ``movetime=-1`` was searched for 1 ms (a review, 2026-12-07).
    """
    if movetime is not None and not movetime > 0:
        raise ValueError(f"movetime must be positive, not {movetime!r}")
    if movetime_ms is None and movetime is not None:
        movetime_ms = max(1, round(movetime * 1000))
    return Limits(movetime_ms, depth, nodes, clock)


@contextlib.asynccontextmanager
async def connect(
    url: str = DEFAULT_URL,
    *,
    encoding: EncodingName = "msgpack",
    client_name: str = "arena-python",
    open_timeout: float = 10.0,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S,
    strict: bool = False,
    token: str | None = None,
) -> AsyncIterator[Engine]:
    """Connect, say hello, and yield an :class:`Engine`; the connection closes on exit.

    ``open_timeout`` bounds the WebSocket handshake and ``request_timeout``
    every request's wait for its reply (``hello`` included; each method
    also takes ``timeout=``). ``strict`` treats a malformed frame from the
    server as a protocol violation that ends the connection (see
    :class:`ProtocolViolationError`). ``token`` is the server's shared
    secret (``arena serve --token``), sent as ``Authorization: Bearer`` with
    the handshake.
    """
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with ws_connect(
        url,
        max_size=MAX_SERVER_FRAME,
        compression=None,
        open_timeout=open_timeout,
        additional_headers=headers,
    ) as ws:
        engine = Engine(ws, encoding, strict=strict, request_timeout=request_timeout)
        try:
            await engine.start(client_name)
            yield engine
        finally:
            await engine.close()
