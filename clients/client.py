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

Every request waits for its reply; a rejected request raises an
:class:`EngineError` subclass whose ``code`` is the protocol error code.
Results are frozen dataclasses: :class:`GameState`, :class:`Info`,
:class:`BestMove`; scores are :class:`engine.score.Score`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from clients.codec import EncodingName, decode, encode
from engine.limits import Clock
from engine.score import Score

logger = logging.getLogger(__name__)

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
#: Largest frame the client accepts from a server (replies are small; a
#: ``welcome`` with every game is a few kilobytes).
MAX_SERVER_FRAME = 1 << 20


# ----------------------------------------------------------------------
# Results.


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended: ``winner`` is a player index, or ``None`` for a draw."""

    winner: int | None
    reason: str
    points: int = 1


@dataclass(frozen=True, slots=True)
class GameState:
    """The session's position, as the server reports it after each change."""

    game: str
    options: dict[str, Any]
    position: str
    to_move: int | str  # a player index, or "chance" when dice are to be rolled
    legal_moves: tuple[str, ...]
    history: tuple[str, ...]
    result: GameResult | None
    #: At a chance state: each roll (in the game's notation) with its probability.
    outcomes: tuple[tuple[str, float], ...] = ()
    #: The seed of the server's dice for this game (games of chance only).
    seed: int | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def is_chance(self) -> bool:
        """Whether dice are to be rolled: send :meth:`Engine.roll` or a roll as a move."""
        return self.to_move == "chance"

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> GameState:
        result = message.get("result")
        return cls(
            game=message["game"],
            options=dict(message.get("options") or {}),
            position=message["position"],
            to_move=message["to_move"],
            legal_moves=tuple(message["legal_moves"]),
            history=tuple(message.get("history") or ()),
            result=None
            if result is None
            else GameResult(result["winner"], result["reason"], int(result.get("points", 1))),
            outcomes=tuple(
                (str(item["move"]), float(item["probability"]))
                for item in message.get("outcomes") or ()
            ),
            seed=message.get("seed"),
        )


@dataclass(frozen=True, slots=True)
class Info:
    """Progress of a think: sent after each completed depth (and best-move changes)."""

    depth: int
    seldepth: int
    score: Score
    pv: tuple[str, ...]
    nodes: int
    nps: int
    time_ms: int
    tt_hit_rate: float = 0.0
    partial: bool = False

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Info:
        return cls(
            depth=message["depth"],
            seldepth=message.get("seldepth", message["depth"]),
            score=Score.from_dict(message["score"]),
            pv=tuple(message.get("pv") or ()),
            nodes=message.get("nodes", 0),
            nps=message.get("nps", 0),
            time_ms=message.get("time_ms", 0),
            tt_hit_rate=message.get("tt_hit_rate", 0.0),
            partial=bool(message.get("partial", False)),
        )


@dataclass(frozen=True, slots=True)
class BestMove:
    """The answer of a think; ``reason`` says why the search ended."""

    move: str
    score: Score
    depth: int
    seldepth: int
    pv: tuple[str, ...]
    nodes: int
    time_ms: int
    reason: str

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> BestMove:
        return cls(
            move=message["move"],
            score=Score.from_dict(message["score"]),
            depth=message.get("depth", 0),
            seldepth=message.get("seldepth", 0),
            pv=tuple(message.get("pv") or ()),
            nodes=message.get("nodes", 0),
            time_ms=message.get("time_ms", 0),
            reason=message.get("reason", ""),
        )


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the server said in ``welcome``."""

    protocol: int
    server: str
    games: tuple[dict[str, Any], ...]
    limits: dict[str, Any]

    def game(self, name: str) -> dict[str, Any] | None:
        return next((game for game in self.games if game["name"] == name), None)


# ----------------------------------------------------------------------
# Errors.


class EngineError(Exception):
    """The server rejected a request; ``code`` is the protocol error code."""

    code = "error"

    def __init__(self, message: str, code: str | None = None,
                 legal_moves: Sequence[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.legal_moves = list(legal_moves or ())


class BadMessageError(EngineError):
    code = "bad_message"


class UnknownGameError(EngineError):
    code = "unknown_game"


class BadOptionsError(EngineError):
    code = "bad_options"


class BadPositionError(EngineError):
    code = "bad_position"


class IllegalMoveError(EngineError):
    """The move was not legal; ``legal_moves`` lists the ones that are."""

    code = "illegal_move"


class GameOverError(EngineError):
    code = "game_over"


class NoGameError(EngineError):
    code = "no_game"


class BusyError(EngineError):
    code = "busy"


class LimitExceededError(EngineError):
    code = "limit_exceeded"


class EngineTerminatedError(EngineError):
    """The connection closed before the reply came."""

    code = "connection_closed"


class ProtocolViolationError(EngineError):
    """The server sent a frame that breaks the protocol (strict engines only).

    A strict :class:`Engine` closes the connection when it reads one, and
    every pending request fails with this error.
    """

    code = "protocol_violation"


_ERRORS: dict[str, type[EngineError]] = {
    cls.code: cls
    for cls in (
        BadMessageError, UnknownGameError, BadOptionsError, BadPositionError, IllegalMoveError,
        GameOverError, NoGameError, BusyError, LimitExceededError,
    )
}


def error_from_message(message: Mapping[str, Any]) -> EngineError:
    """The typed exception for an ``error`` message."""
    code = str(message.get("code", "error"))
    cls = _ERRORS.get(code, EngineError)
    return cls(str(message.get("message", code)), code, message.get("legal_moves"))


# ----------------------------------------------------------------------
# The engine.


class _Think:
    """Book-keeping of one running think: its info stream and its answer."""

    def __init__(self) -> None:
        self.infos: asyncio.Queue[Info | None] = asyncio.Queue()
        self.bestmove: asyncio.Future[BestMove] = asyncio.get_running_loop().create_future()
        self.on_info: Callable[[Info], None] | None = None


class Engine:
    """A connection to the engine server; create it with :func:`connect`."""

    def __init__(
        self, ws: ClientConnection, encoding: EncodingName = "msgpack", *, strict: bool = False
    ) -> None:
        self.ws = ws
        self.encoding: EncodingName = encoding
        #: Strict: a malformed frame is a protocol violation that ends the
        #: connection (a referee wants that); lenient: it is logged and skipped.
        self.strict = strict
        self.server: ServerInfo | None = None
        self.state: GameState | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._thinks: dict[int, _Think] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed_error: EngineError | None = None

    @property
    def is_closed(self) -> bool:
        """Whether the connection has ended (closed, lost or broken by the server)."""
        return self._closed_error is not None

    async def start(self, client_name: str = "arena-python") -> ServerInfo:
        """Start reading and say ``hello``; :func:`connect` does this for you."""
        self._reader = asyncio.create_task(self._read_loop())
        welcome = await self._request({"type": "hello", "protocol": 1, "client": client_name})
        self.server = ServerInfo(
            protocol=welcome["protocol"],
            server=welcome["server"],
            games=tuple(welcome.get("games") or ()),
            limits=dict(welcome.get("limits") or {}),
        )
        return self.server

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    # ------------------------------------------------------------------
    # Requests.

    async def new_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        position: str | None = None,
        moves: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> GameState:
        """Start a game (optionally from ``position``, then playing ``moves``).

        ``seed`` fixes the server's dice in a game of chance, to replay a game.
        """
        message: dict[str, Any] = {"type": "new_game", "game": game}
        if seed is not None:
            message["seed"] = seed
        if options:
            message["options"] = dict(options)
        if position is not None:
            message["position"] = position
        if moves:
            message["moves"] = list(moves)
        self.state = GameState.from_message(await self._request(message))
        return self.state

    async def move(self, move: str) -> GameState:
        """Play ``move`` in the session's game."""
        self.state = GameState.from_message(await self._request({"type": "move", "move": move}))
        return self.state

    async def roll(self) -> GameState:
        """Let the server roll the dice at a chance state (games of chance)."""
        self.state = GameState.from_message(await self._request({"type": "roll"}))
        return self.state

    async def think(
        self,
        movetime: float | None = None,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        clock: Clock | None = None,
        movetime_ms: int | None = None,
        on_info: Callable[[Info], None] | None = None,
    ) -> BestMove:
        """Search the current position and return the best move.

        ``movetime`` is in seconds (``movetime_ms`` in milliseconds); the
        search ends at whichever limit comes first. ``on_info`` receives
        each progress report. The position does not change: play the move
        with :meth:`move`.
        """
        think_id, think = await self._start_think(
            _limits(movetime, movetime_ms, depth, nodes, clock)
        )
        think.on_info = on_info
        try:
            return await think.bestmove
        finally:
            self._thinks.pop(think_id, None)

    def analysis(
        self,
        movetime: float | None = None,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        clock: Clock | None = None,
        movetime_ms: int | None = None,
    ) -> Analysis:
        """A think whose progress you iterate over; leaving the ``async with`` stops it.

        With no limits the search runs until stopped (or the server's
        maximum think time).
        """
        return Analysis(self, _limits(movetime, movetime_ms, depth, nodes, clock))

    async def stop(self) -> None:
        """Ask any running think to answer now (no reply of its own)."""
        await self._send({"type": "stop"})

    # ------------------------------------------------------------------
    # Plumbing.

    async def _start_think(self, limits: dict[str, Any]) -> tuple[int, _Think]:
        think_id = next(self._ids)
        think = _Think()
        self._thinks[think_id] = think
        await self._send({"type": "think", "id": think_id, "limits": limits})
        return think_id, think

    async def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        try:
            await self._send({**message, "id": request_id})
            return await future
        finally:
            self._replies.pop(request_id, None)

    async def _send(self, message: dict[str, Any]) -> None:
        if self._closed_error is not None:
            raise self._closed_error
        try:
            await self.ws.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            raise EngineTerminatedError(f"connection closed: {closed}") from closed

    async def _read_loop(self) -> None:
        error: EngineError
        try:
            async for frame in self.ws:
                try:
                    self._dispatch(decode(frame))
                except (ValueError, KeyError, TypeError) as bad:
                    if not self.strict:
                        logger.warning("ignoring a malformed frame from the server: %r", bad)
                        continue
                    error = ProtocolViolationError(f"malformed frame from the server: {bad!r}")
                    break
            else:
                error = EngineTerminatedError("connection closed")
        except ConnectionClosed as closed:
            error = EngineTerminatedError(f"connection closed: {closed}")
        self._closed_error = error
        for future in self._replies.values():
            if not future.done():
                future.set_exception(error)
        for think in self._thinks.values():
            if not think.bestmove.done():
                think.bestmove.set_exception(error)
            think.infos.put_nowait(None)
        if isinstance(error, ProtocolViolationError):
            await self.ws.close(1002, "protocol error")

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        request_id = message.get("id")
        think = self._thinks.get(request_id) if isinstance(request_id, int) else None
        if kind == "info" and think is not None:
            info = Info.from_message(message)
            think.infos.put_nowait(info)
            if think.on_info is not None:
                think.on_info(info)
        elif kind == "bestmove" and think is not None:
            if not think.bestmove.done():
                think.bestmove.set_result(BestMove.from_message(message))
            think.infos.put_nowait(None)
        elif kind == "error" and think is not None:
            if not think.bestmove.done():
                think.bestmove.set_exception(error_from_message(message))
            think.infos.put_nowait(None)
        elif isinstance(request_id, int) and request_id in self._replies:
            future = self._replies[request_id]
            if future.done():
                return
            if kind == "error":
                future.set_exception(error_from_message(message))
            else:
                future.set_result(message)
        elif kind == "error":
            logger.warning("server error: %s: %s", message.get("code"), message.get("message"))


class Analysis:
    """A running think you iterate over (``async for info in analysis``).

    Iteration ends when the ``bestmove`` arrives; leaving the ``async with``
    block stops the search and waits for it, and :attr:`bestmove` holds it.
    """

    def __init__(self, engine: Engine, limits: dict[str, Any]) -> None:
        self._engine = engine
        self._limits = limits
        self._id = 0
        self._think: _Think | None = None
        self.info: Info | None = None
        self.bestmove: BestMove | None = None

    async def __aenter__(self) -> Analysis:
        self._id, self._think = await self._engine._start_think(self._limits)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        think = self._think
        if think is None:
            return
        try:
            if not think.bestmove.done():
                with contextlib.suppress(EngineTerminatedError):
                    await self.stop()
            with contextlib.suppress(EngineTerminatedError):
                await self.wait()
        finally:
            self._engine._thinks.pop(self._id, None)

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
        await self._engine._send({"type": "stop", "id": self._id})

    async def wait(self) -> BestMove:
        """Wait for the ``bestmove`` (after the limits end or :meth:`stop`)."""
        if self._think is None:
            raise RuntimeError("use the analysis inside 'async with'")
        self.bestmove = await self._think.bestmove
        return self.bestmove


def _limits(
    movetime: float | None,
    movetime_ms: int | None,
    depth: int | None,
    nodes: int | None,
    clock: Clock | None,
) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    if movetime is not None:
        limits["movetime_ms"] = max(1, round(movetime * 1000))
    if movetime_ms is not None:
        limits["movetime_ms"] = movetime_ms
    if depth is not None:
        limits["depth"] = depth
    if nodes is not None:
        limits["nodes"] = nodes
    if clock is not None:
        clock_map: dict[str, Any] = {"time_ms": clock.time_ms, "inc_ms": clock.inc_ms}
        if clock.moves_to_go is not None:
            clock_map["moves_to_go"] = clock.moves_to_go
        limits["clock"] = clock_map
    return limits


@contextlib.asynccontextmanager
async def connect(
    url: str = DEFAULT_URL,
    *,
    encoding: EncodingName = "msgpack",
    client_name: str = "arena-python",
    open_timeout: float = 10.0,
    strict: bool = False,
    token: str | None = None,
) -> AsyncIterator[Engine]:
    """Connect, say hello, and yield an :class:`Engine`; the connection closes on exit.

    ``strict`` treats a malformed frame from the server as a protocol
    violation that ends the connection (see :class:`ProtocolViolationError`).
    ``token`` is the server's shared secret (``arena serve --token``), sent
    as ``Authorization: Bearer`` with the handshake.
    """
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with ws_connect(
        url, max_size=MAX_SERVER_FRAME, compression=None, open_timeout=open_timeout,
        additional_headers=headers,
    ) as ws:
        engine = Engine(ws, encoding, strict=strict)
        await engine.start(client_name)
        try:
            yield engine
        finally:
            await engine.close()
