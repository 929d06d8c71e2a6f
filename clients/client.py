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
:class:`~protocol.errors.IllegalMove`, ...). The checks and the wire forms
live there, shared with the server; this module holds the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeGuard, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from engine.search.limits import Clock, Limits
from engine.search.trace import Trace
from protocol.codec import EncodingName, decode_reply, encode
from protocol.errors import (
    BadMessage,
    BadOptions,
    BadPosition,
    Busy,
    ChanceState,
    GameOver,
    IllegalMove,
    Internal,
    LimitExceeded,
    NoGame,
    Overloaded,
    ProtocolError,
    ProtocolViolation,
    UnknownAlgorithm,
    UnknownGame,
    UnknownType,
    UnsupportedProtocol,
)
from protocol.limits import MAX_TRACE_MS
from protocol.records import (
    BestMove,
    ErrorMessage,
    GameResult,
    GameState,
    Hello,
    Info,
    Move,
    NewGame,
    Roll,
    Stop,
    Think,
    TraceReply,
    TraceRequest,
    Welcome,
    limits_to_wire,
    score_from_wire,
)

logger = logging.getLogger(__name__)

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

T = TypeVar("T")

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
#: Largest frame the client accepts from a server. Most replies are small (a
#: ``welcome`` with every game is a few kilobytes); a ``trace`` of the most
#: nodes a server allows (50,000) is up to about 10 MB of JSON.
MAX_SERVER_FRAME = 16 << 20
#: Seconds a ``trace`` may take beyond the server's own limit for it
#: (``welcome.limits.max_trace_ms``) before the client gives up: the reply's
#: transfer of a few megabytes, and a queue ahead of it.
TRACE_TIMEOUT_MARGIN_S = 5.0
#: How long ``hello``, ``new_game``, ``move`` and ``roll`` may wait for their
#: reply by default (``connect(request_timeout=...)``). The server answers
#: them at once; ten seconds only passes when something is wrong.
DEFAULT_REQUEST_TIMEOUT_S = 10.0
#: A think may take its budget (movetime, or the clock's time left) plus
#: this long before it fails with :class:`EngineTimeoutError`; also how long
#: a ``bestmove`` may take after a ``stop``. The server promises the answer
#: by the deadline; the margin covers the network and a busy machine.
THINK_TIMEOUT_MARGIN_S = 5.0
#: The budget of a think without a time limit when the server did not say
#: its ``max_movetime_ms`` (the protocol's default cap: ten minutes).
DEFAULT_MAX_THINK_S = 600.0


# ----------------------------------------------------------------------
# Errors: the protocol's exception classes, under the names this library
# has always exported (protocol.errors has one class per wire code).

#: The server rejected a request; ``code`` is the protocol error code. The
#: session is unchanged (the server did nothing with the request) and the
#: connection stays open, unless a subclass says otherwise.
EngineError = ProtocolError
BadMessageError = BadMessage
UnknownTypeError = UnknownType
UnsupportedProtocolError = UnsupportedProtocol
UnknownGameError = UnknownGame
BadOptionsError = BadOptions
BadPositionError = BadPosition
IllegalMoveError = IllegalMove
GameOverError = GameOver
NoGameError = NoGame
ChanceStateError = ChanceState
UnknownAlgorithmError = UnknownAlgorithm
BusyError = Busy
LimitExceededError = LimitExceeded
OverloadedError = Overloaded
InternalError = Internal
#: The server sent something that breaks the protocol. The request it
#: answered fails with this error. A strict :class:`Engine`
#: (``connect(strict=True)``, what a referee wants) also closes the
#: connection, and every other pending request fails with it too; a lenient
#: one keeps the connection (the server considers the request answered).
#: Either way, do not trust this server's answer: report the message, and
#: use another server or connection.
ProtocolViolationError = ProtocolViolation
#: The client's name for :class:`protocol.records.Welcome`: what the server said.
ServerInfo = Welcome
#: Read a protocol score (kept under its old name).
parse_score = score_from_wire


class EngineTerminatedError(ProtocolError):
    """The connection closed before the reply came.

    Every pending request fails with it at once, and so does every later
    one: open a new connection with :func:`connect` (the server forgets a
    closed connection's game, so start the game again).
    """

    code = "connection_closed"


class EngineTimeoutError(ProtocolError, TimeoutError):
    """No reply within the time allowed (``request_timeout``, or a think's budget and margin).

    It is also a :class:`TimeoutError`. The server may still act on the
    request, and its late reply is ignored, so this connection's game may
    now differ from what you believe (a ``move`` may have been played): send
    :meth:`Engine.new_game` to set the position again, or close the
    connection and open a new one. A think that timed out was sent a
    ``stop``; until its ``bestmove`` comes, the server may answer the next
    request with :class:`BusyError`. Repeated timeouts mean the server or
    the network is stuck: reconnect, or use another server.
    """

    code = "timeout"


def error_from_message(message: Mapping[str, Any]) -> EngineError:
    """The typed exception for an ``error`` message (unknown codes give :class:`EngineError`)."""
    return ErrorMessage.from_wire(message).exception()


def _expect(kind: str, parse: Callable[[Mapping[str, Any]], T]) -> Callable[[Mapping[str, Any]], T]:
    """A reply reader that first checks the reply's ``type``."""

    def parse_reply(message: Mapping[str, Any]) -> T:
        if message.get("type") != kind:
            raise ProtocolViolation(
                f"expected {kind!r}, got a {_show(message.get('type'))} message"
            )
        return parse(message)

    return parse_reply


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_id(value: object) -> TypeGuard[int]:
    """Whether ``value`` can be one of this client's ids (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _trace_of(message: Mapping[str, Any]) -> Trace:
    return TraceReply.from_wire(message).trace


_parse_state = _expect("state", GameState.from_wire)
_parse_trace = _expect("trace", _trace_of)
_parse_welcome = _expect("welcome", Welcome.from_wire)


# ----------------------------------------------------------------------
# The engine.


class _Think:
    """Book-keeping of one think: its info stream, its answer and its timeout."""

    def __init__(self, think_id: int, timeout_s: float) -> None:
        self.id = think_id
        self.timeout_s = timeout_s
        self.infos: asyncio.Queue[Info | None] = asyncio.Queue()
        self.bestmove: asyncio.Future[BestMove] = asyncio.get_running_loop().create_future()
        self.on_info: Callable[[Info], None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        #: The latest complete report of each root line, by rank (``info.multipv``).
        self.lines: dict[int, Info] = {}
        #: Set once the think has its answer or its error (even if the
        #: future was cancelled by a caller that gave up).
        self.finished = False

    def resolve(self, best: BestMove) -> None:
        self._finish()
        if not self.bestmove.done():
            self.bestmove.set_result(best)

    def fail(self, error: EngineError) -> None:
        self._finish()
        if not self.bestmove.done():
            self.bestmove.set_exception(error)

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.infos.put_nowait(None)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@dataclass(slots=True)
class _Reply:
    future: asyncio.Future[Any]
    parse: Callable[[Mapping[str, Any]], Any]


class Engine:
    """A connection to the engine server; create it with :func:`connect`."""

    def __init__(
        self,
        ws: ClientConnection,
        encoding: EncodingName = "msgpack",
        *,
        strict: bool = False,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S,
    ) -> None:
        if not request_timeout > 0:
            raise ValueError("request_timeout must be positive")
        self.ws = ws
        self.encoding: EncodingName = encoding
        #: Strict: a malformed frame is a protocol violation that ends the
        #: connection (a referee wants that); lenient: it is logged and skipped.
        self.strict = strict
        #: Seconds ``hello``, ``new_game``, ``move``, ``roll`` and ``stop`` may take.
        self.request_timeout = request_timeout
        self.server: ServerInfo | None = None
        self.state: GameState | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, _Reply] = {}
        self._thinks: dict[int, _Think] = {}
        self._reader: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._closed_error: EngineError | None = None

    @property
    def is_closed(self) -> bool:
        """Whether the connection has ended (closed, lost or broken by the server)."""
        return self._closed_error is not None

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

    async def close(self) -> None:
        """Close the connection; pending requests fail with :class:`EngineTerminatedError`."""
        for task in list(self._background):
            task.cancel()
        await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._fail_everything(EngineTerminatedError("connection closed by the client"))
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

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
        :class:`EngineTimeoutError` raised. A think without a time limit may
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
            self._shorten(think, THINK_TIMEOUT_MARGIN_S)
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

    # ------------------------------------------------------------------
    # Plumbing.

    async def _start_think(
        self,
        limits: Limits,
        timeout_s: float,
        algorithm: str | None = None,
        cleanup: bool = False,
        multipv: int = 1,
    ) -> _Think:
        """Send a think; its timer runs from now (the send included)."""
        think = _Think(next(self._ids), timeout_s)
        self._thinks[think.id] = think
        think.timer = asyncio.get_running_loop().call_later(timeout_s, self._think_timed_out, think)
        try:
            async with asyncio.timeout(timeout_s):
                message = Think(limits, think.id, algorithm, cleanup, multipv).to_wire()
                await self._send(message)
        except TimeoutError:
            self._think_timed_out(think)  # the caller finds the error in think.bestmove
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):  # it may have gone out: stop it
                self._spawn(self._send_quietly(Stop(think.id).to_wire()))
            think.fail(EngineTerminatedError("the think was not sent"))
            self._forget_think(think)
            raise
        return think

    def _think_timed_out(self, think: _Think) -> None:
        if think.finished:
            return
        think.fail(
            EngineTimeoutError(
                f"no bestmove for think {think.id} within {think.timeout_s:g} s; stop sent"
            )
        )
        self._thinks.pop(think.id, None)
        self._spawn(self._send_quietly(Stop(think.id).to_wire()))

    def _shorten(self, think: _Think, seconds: float) -> None:
        """Let ``think`` wait at most ``seconds`` more (after a ``stop``)."""
        if think.finished or think.timer is None:
            return
        loop = asyncio.get_running_loop()
        if think.timer.when() > loop.time() + seconds:
            think.timer.cancel()
            think.timeout_s = seconds
            think.timer = loop.call_later(seconds, self._think_timed_out, think)

    def _forget_think(self, think: _Think) -> None:
        if think.timer is not None:
            think.timer.cancel()
            think.timer = None
        if self._thinks.get(think.id) is think:
            del self._thinks[think.id]
        future = think.bestmove
        if future.done() and not future.cancelled():
            future.exception()  # retrieved: nobody else will look at it

    async def _request(
        self,
        message: dict[str, Any],
        parse: Callable[[Mapping[str, Any]], T],
        timeout: float | None,
    ) -> T:
        limit = self.request_timeout if timeout is None else timeout
        if not limit > 0:
            raise ValueError("timeout must be positive")
        request_id = next(self._ids)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = _Reply(future, parse)
        try:
            async with asyncio.timeout(limit):
                await self._send({**message, "id": request_id})
                return await future
        except TimeoutError:
            raise EngineTimeoutError(f"no reply to {message['type']} within {limit:g} s") from None
        finally:
            self._replies.pop(request_id, None)

    async def _send_within(self, message: dict[str, Any], timeout: float | None) -> None:
        limit = self.request_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                await self._send(message)
        except TimeoutError:
            raise EngineTimeoutError(
                f"could not send {message['type']} within {limit:g} s"
            ) from None

    async def _send(self, message: dict[str, Any]) -> None:
        if self._closed_error is not None:
            raise copy.copy(self._closed_error)
        try:
            await self.ws.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            raise EngineTerminatedError(f"connection closed: {closed}") from closed

    async def _send_quietly(self, message: dict[str, Any]) -> None:
        """Best effort: send unless the connection is gone or stuck."""
        with contextlib.suppress(EngineError):
            await self._send_within(message, None)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _read_loop(self) -> None:
        error: EngineError = EngineTerminatedError("connection closed")
        try:
            async for frame in self.ws:
                try:
                    self._dispatch(decode_reply(frame))
                except ProtocolViolationError as violation:
                    if not self.strict:
                        logger.warning(
                            "ignoring a malformed message from the server: %s", violation.message
                        )
                        continue
                    error = violation
                    break
                except (ValueError, KeyError, TypeError) as bad:
                    if not self.strict:
                        logger.warning("ignoring a malformed frame from the server: %r", bad)
                        continue
                    error = ProtocolViolationError(f"malformed frame from the server: {bad!r}")
                    break
        except ConnectionClosed as closed:
            error = EngineTerminatedError(f"connection closed: {closed}")
        except asyncio.CancelledError:
            error = EngineTerminatedError("connection closed by the client")
            raise
        except Exception as bug:  # never leave a request waiting, whatever happened
            logger.exception("the client's reader failed")
            error = EngineTerminatedError(f"the client's reader failed: {bug!r}")
        finally:
            self._fail_everything(error)
        if isinstance(error, ProtocolViolationError):
            await self.ws.close(1002, "protocol error")

    def _fail_everything(self, error: EngineError) -> None:
        """The connection has ended: every pending request fails with ``error``."""
        if self._closed_error is None:
            self._closed_error = error
        for reply in list(self._replies.values()):
            if not reply.future.done():
                reply.future.set_exception(error)
        for think in list(self._thinks.values()):
            think.fail(error)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if not isinstance(kind, str):
            raise ProtocolViolation(f"a message without a type: {_show(message)}")
        request_id = message.get("id")
        think = self._thinks.get(request_id) if _is_id(request_id) else None
        if think is not None:
            self._dispatch_think(think, kind, message)
            return
        reply = self._replies.get(request_id) if _is_id(request_id) else None
        if reply is not None:
            if reply.future.done():
                return
            if kind == "error":
                reply.future.set_exception(error_from_message(message))
                return
            try:
                value = reply.parse(message)
            except ProtocolViolationError as violation:
                reply.future.set_exception(violation)
                raise
            reply.future.set_result(value)
        elif kind == "error":
            logger.warning("server error: %s: %s", message.get("code"), message.get("message"))
        else:
            logger.debug("ignoring a %s message for no pending request (id %r)", kind, request_id)

    def _dispatch_think(self, think: _Think, kind: str, message: dict[str, Any]) -> None:
        if kind == "info":
            if think.finished:
                return
            info = Info.from_wire(message)  # a violation: strict closes, lenient drops it
            if not info.partial and info.pv:
                think.lines[info.multipv or 1] = info
            think.infos.put_nowait(info)
            if think.on_info is not None:
                try:
                    think.on_info(info)
                except Exception:
                    logger.exception("the on_info callback failed")
        elif kind == "bestmove":
            try:
                best = BestMove.from_wire(message)
            except ProtocolViolationError as violation:
                think.fail(violation)  # this think fails whatever the mode
                raise
            think.resolve(best)
        elif kind == "error":
            think.fail(error_from_message(message))
        else:
            raise ProtocolViolation(f"a {_show(kind)} message for think {think.id}")


class Analysis:
    """A running think you iterate over (``async for info in analysis``).

    Iteration ends when the ``bestmove`` arrives; leaving the ``async with``
    block stops the search and waits for it, and :attr:`bestmove` holds it.
    """

    def __init__(
        self,
        engine: Engine,
        limits: Limits,
        timeout_s: float = DEFAULT_MAX_THINK_S + THINK_TIMEOUT_MARGIN_S,
        algorithm: str | None = None,
        multipv: int = 1,
    ) -> None:
        self._engine = engine
        self._limits = limits
        self._timeout_s = timeout_s
        self._algorithm = algorithm
        self._multipv = multipv
        self._think: _Think | None = None
        self.info: Info | None = None
        self.bestmove: BestMove | None = None

    async def __aenter__(self) -> Analysis:
        self._think = await self._engine._start_think(
            self._limits, self._timeout_s, self._algorithm, False, self._multipv
        )
        return self

    @property
    def lines(self) -> list[Info]:
        """The latest complete report of each root line received so far, best first
        (one line unless the analysis asked for ``multipv``)."""
        if self._think is None:
            return []
        return [info for _, info in sorted(self._think.lines.items())]

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        think = self._think
        if think is None:
            return
        # a failure of the body is the caller's news: then only make sure the think ends
        quiet: tuple[type[EngineError], ...] = (
            (EngineTerminatedError,) if exc is None else (EngineError,)
        )
        try:
            if not think.finished:
                with contextlib.suppress(*quiet):
                    await self.stop()
            with contextlib.suppress(*quiet):
                await self.wait()
        finally:
            self._engine._forget_think(think)

    def __aiter__(self) -> AsyncIterator[Info]:
        return self

    async def __anext__(self) -> Info:
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        info = await self._think.infos.get()
        if info is None:
            self._think.infos.put_nowait(None)  # later iterations end too
            raise StopAsyncIteration
        self.info = info
        return info

    async def stop(self) -> None:
        """Ask for the best move now; iteration ends when it arrives."""
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        self._engine._shorten(self._think, THINK_TIMEOUT_MARGIN_S)
        await self._engine._send_within(Stop(self._think.id).to_wire(), None)

    async def wait(self) -> BestMove:
        """Wait for the ``bestmove`` (after the limits end or :meth:`stop`).

        Raises :class:`EngineTimeoutError` if it does not come in time.
        """
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        self.bestmove = await asyncio.shield(self._think.bestmove)
        return self.bestmove


def _limits(
    movetime: float | None,
    movetime_ms: int | None,
    depth: int | None,
    nodes: int | None,
    clock: Clock | None,
) -> Limits:
    """The think's limits; ``movetime`` (seconds) is rounded to at least 1 ms."""
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
