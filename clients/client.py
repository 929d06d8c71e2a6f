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

Results are frozen dataclasses: :class:`GameState`, :class:`Info`,
:class:`BestMove`; scores are :class:`engine.search.score.Score`.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
import math
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, NoReturn, TypeGuard, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from clients.codec import EncodingName, decode, encode
from engine.search.limits import Clock
from engine.search.score import Score
from engine.search.trace import Trace

logger = logging.getLogger(__name__)

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
#: Whole numbers from the server must fit in an IEEE double exactly (the
#: protocol's range for ids, and what a JSON reader elsewhere can hold).
MAX_WHOLE = 2**53


# ----------------------------------------------------------------------
# Errors.


class EngineError(Exception):
    """The server rejected a request; ``code`` is the protocol error code.

    The session is unchanged (the server did nothing with the request) and
    the connection stays open, unless a subclass says otherwise.
    """

    code = "error"

    def __init__(
        self, message: str, code: str | None = None, legal_moves: Sequence[str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.legal_moves = list(legal_moves or ())


class BadMessageError(EngineError):
    """The server could not read the request (a bug in the caller or in this library)."""

    code = "bad_message"


class UnknownTypeError(EngineError):
    """The server does not know this request type (an older server?)."""

    code = "unknown_type"


class UnsupportedProtocolError(EngineError):
    """The server does not speak the protocol version asked for in ``hello``."""

    code = "unsupported_protocol"


class UnknownGameError(EngineError):
    """No game of that name: ``engine.server.games`` lists the ones offered."""

    code = "unknown_game"


class BadOptionsError(EngineError):
    """An unknown game option, or a value of the wrong type or out of range."""

    code = "bad_options"


class BadPositionError(EngineError):
    """The position string cannot be parsed, or the position is impossible."""

    code = "bad_position"


class IllegalMoveError(EngineError):
    """The move was not legal; ``legal_moves`` lists the ones that are."""

    code = "illegal_move"


class GameOverError(EngineError):
    """The game has ended: start another with :meth:`Engine.new_game`."""

    code = "game_over"


class NoGameError(EngineError):
    """No game yet on this connection: call :meth:`Engine.new_game` first."""

    code = "no_game"


class ChanceStateError(EngineError):
    """Dice are to be rolled (``state.is_chance``): play a roll with
    :meth:`Engine.move`, or let the server roll with :meth:`Engine.roll`, then think."""

    code = "chance_state"


class UnknownAlgorithmError(EngineError):
    """The game does not offer that search: pick one of its ``algorithms`` in ``welcome``."""

    code = "unknown_algorithm"


class BusyError(EngineError):
    """A think is running on this connection: wait for its ``bestmove`` or stop it first."""

    code = "busy"


class LimitExceededError(EngineError):
    """A limit below its minimum (zero budget, depth or nodes) or a list too long."""

    code = "limit_exceeded"


class OverloadedError(EngineError):
    """The server refused the think at once: its queue of thinks is full.

    Nothing was searched and the connection is free. Wait
    ``retry_after_ms`` (the server's estimate of when a search process may
    be free; ``None`` if it gave none) and send the think again, or send it
    to another server. Do not retry at once in a loop: that only adds load.
    """

    code = "overloaded"

    def __init__(
        self,
        message: str,
        code: str | None = None,
        legal_moves: Sequence[str] | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message, code, legal_moves)
        self.retry_after_ms = retry_after_ms


class InternalError(EngineError):
    """A bug in the server; the request had no effect. Retrying may work; report it."""

    code = "internal"


class EngineTerminatedError(EngineError):
    """The connection closed before the reply came.

    Every pending request fails with it at once, and so does every later
    one: open a new connection with :func:`connect` (the server forgets a
    closed connection's game, so start the game again).
    """

    code = "connection_closed"


class ProtocolViolationError(EngineError):
    """The server sent something that breaks the protocol.

    The request it answered fails with this error. A strict :class:`Engine`
    (``connect(strict=True)``, what a referee wants) also closes the
    connection, and every other pending request fails with it too; a
    lenient one keeps the connection (the server considers the request
    answered). Either way, do not trust this server's answer: report the
    message, and use another server or connection.
    """

    code = "protocol_violation"


class EngineTimeoutError(EngineError, TimeoutError):
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


_ERRORS: dict[str, type[EngineError]] = {
    cls.code: cls
    for cls in (
        BadMessageError,
        UnknownTypeError,
        UnsupportedProtocolError,
        UnknownGameError,
        BadOptionsError,
        BadPositionError,
        IllegalMoveError,
        GameOverError,
        NoGameError,
        ChanceStateError,
        UnknownAlgorithmError,
        BusyError,
        LimitExceededError,
        OverloadedError,
        InternalError,
    )
}


def error_from_message(message: Mapping[str, Any]) -> EngineError:
    """The typed exception for an ``error`` message (unknown codes give :class:`EngineError`)."""
    raw_code = message.get("code")
    code = raw_code if isinstance(raw_code, str) and raw_code else "error"
    text = message.get("message")
    text = text if isinstance(text, str) else code
    legal = message.get("legal_moves")
    legal_moves = legal if _is_str_list(legal) else None
    cls = _ERRORS.get(code, EngineError)
    if cls is OverloadedError:
        retry = message.get("retry_after_ms")
        retry_after_ms = retry if _is_whole(retry) and retry >= 0 else None
        return OverloadedError(text, code, legal_moves, retry_after_ms=retry_after_ms)
    return cls(text, code, legal_moves)


# ----------------------------------------------------------------------
# Checking what the server sends.


def _violation(text: str) -> NoReturn:
    raise ProtocolViolationError(text)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _whole(value: Any, name: str, minimum: int | None = 0) -> int:
    """``value`` if it is a whole number (not a bool) in range, else a protocol violation."""
    if not _is_whole(value):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not a whole number")
    if minimum == 0 and value < 0:
        _violation(f"{name} is negative ({value})")
    if minimum is not None and value < minimum:
        _violation(f"{name} is {value}, below {minimum}")
    if abs(value) > MAX_WHOLE:
        _violation(f"{name} is too large ({_show(value)})")
    result: int = value
    return result


def _optional_whole(value: Any, name: str) -> int | None:
    """``None`` for a field the server left out, else :func:`_whole`."""
    return None if value is None else _whole(value, name)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not a string")
    return value


def _moves(value: Any, name: str) -> tuple[str, ...]:
    if not _is_str_list(value):
        _violation(f"{name} is {_show(value)}, not a list of strings")
    return tuple(value)


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not a number")
    if not math.isfinite(value) or not low <= value <= high:
        _violation(f"{name} is {_show(value)}, not within {low:g}..{high:g}")
    return float(value)


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not true or false")
    return value


def _map(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not a map")
    return value


def _required(message: Mapping[str, Any], key: str, kind: str) -> Any:
    if key not in message:
        _violation(f"{kind} has no {key!r}")
    return message[key]


def parse_score(value: Any, name: str = "score") -> Score:
    """A protocol score (a map with exactly one of its four keys), checked."""
    if not isinstance(value, Mapping) or len(value) != 1:
        _violation(f"{name} is {_show(value)}, not a map with exactly one key")
    ((key, item),) = value.items()
    if key == "value":
        return Score(value=_whole(item, f"{name} value", minimum=None))
    if key == "win_in":
        return Score(win_in=_whole(item, f"{name} win_in"))
    if key == "loss_in":
        return Score(loss_in=_whole(item, f"{name} loss_in"))
    if key == "draw":
        if item is not True:
            _violation(f"{name} draw is {_show(item)}, not true")
        return Score(draw=True)
    _violation(f"{name} has the unknown key {_show(key)}")


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
    #: GNU Backgammon's ``PositionID:MatchID`` (backgammon only; ``None`` at the opening roll
    #: and in other games).
    gnubg_id: str | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def is_chance(self) -> bool:
        """Whether dice are to be rolled: send :meth:`Engine.roll` or a roll as a move."""
        return self.to_move == "chance"

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> GameState:
        """The state in a ``state`` message; :class:`ProtocolViolationError` if malformed."""
        to_move = _required(message, "to_move", "state")
        if to_move != "chance":
            to_move = _whole(to_move, "to_move")
        raw_result = message.get("result")
        result = None
        if raw_result is not None:
            raw_result = _map(raw_result, "result")
            winner = _required(raw_result, "winner", "result")
            result = GameResult(
                winner=None if winner is None else _whole(winner, "result winner"),
                reason=_text(_required(raw_result, "reason", "result"), "result reason"),
                points=_whole(raw_result.get("points", 1), "result points"),
            )
        raw_outcomes = message.get("outcomes")
        if raw_outcomes is None:
            raw_outcomes = []
        elif not isinstance(raw_outcomes, list):
            _violation(f"outcomes is {_show(raw_outcomes)}, not a list")
        outcomes = []
        for raw in raw_outcomes:
            item = _map(raw, "outcome")
            outcomes.append(
                (
                    _text(_required(item, "move", "outcome"), "outcome move"),
                    _number(_required(item, "probability", "outcome"), "outcome probability", 0, 1),
                )
            )
        raw_options = message.get("options")
        options = {} if raw_options is None else dict(_map(raw_options, "options"))
        seed = message.get("seed")
        gnubg_id = message.get("gnubg_id")
        return cls(
            game=_text(_required(message, "game", "state"), "game"),
            options=options,
            position=_text(_required(message, "position", "state"), "position"),
            to_move=to_move,
            legal_moves=_moves(_required(message, "legal_moves", "state"), "legal_moves"),
            history=_moves(message.get("history", []), "history"),
            result=result,
            outcomes=tuple(outcomes),
            seed=None if seed is None else _whole(seed, "seed"),
            gnubg_id=None if gnubg_id is None else _text(gnubg_id, "gnubg_id"),
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
    #: Monte Carlo searches only: playouts so far (``None`` from the others).
    playouts: int | None = None

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Info:
        """The report in an ``info`` message; :class:`ProtocolViolationError` if malformed."""
        depth = _whole(_required(message, "depth", "info"), "depth")
        return cls(
            depth=depth,
            seldepth=_whole(message.get("seldepth", depth), "seldepth"),
            score=parse_score(_required(message, "score", "info")),
            pv=_moves(message.get("pv", []), "pv"),
            nodes=_whole(message.get("nodes", 0), "nodes"),
            nps=_whole(message.get("nps", 0), "nps"),
            time_ms=_whole(message.get("time_ms", 0), "time_ms"),
            tt_hit_rate=_number(message.get("tt_hit_rate", 0.0), "tt_hit_rate", 0, 1),
            partial=_flag(message.get("partial", False), "partial"),
            playouts=_optional_whole(message.get("playouts"), "playouts"),
        )


@dataclass(frozen=True, slots=True)
class BestMove:
    """The answer of a think; ``reason`` says why the search ended.

    ``reason`` ``"overloaded"`` means no search process searched this think
    in time (the server was overloaded): ``move`` is a legal fallback at
    depth 0, not a considered choice. ``"preempted"``: an analysis without
    a time limit was stopped after a long run because other thinks waited.
    ``queued_ms`` is how long the think waited for a search process (0 from
    servers that do not report it). ``algorithm`` names the search that
    answered (empty from servers before 0.3); ``playouts`` is set by Monte
    Carlo searches.
    """

    move: str
    score: Score
    depth: int
    seldepth: int
    pv: tuple[str, ...]
    nodes: int
    time_ms: int
    reason: str
    queued_ms: int = 0
    algorithm: str = ""
    playouts: int | None = None

    @property
    def overloaded(self) -> bool:
        """Whether the server answered without searching because it was overloaded."""
        return self.reason == "overloaded"

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> BestMove:
        """The answer in a ``bestmove`` message; :class:`ProtocolViolationError` if malformed."""
        move = _text(_required(message, "move", "bestmove"), "move")
        if not move:
            _violation("move is the empty string")
        depth = _whole(message.get("depth", 0), "depth")
        return cls(
            move=move,
            score=parse_score(_required(message, "score", "bestmove")),
            depth=depth,
            seldepth=_whole(message.get("seldepth", depth), "seldepth"),
            pv=_moves(message.get("pv", []), "pv"),
            nodes=_whole(message.get("nodes", 0), "nodes"),
            time_ms=_whole(message.get("time_ms", 0), "time_ms"),
            reason=_text(message.get("reason", ""), "reason"),
            queued_ms=_whole(message.get("queued_ms", 0), "queued_ms"),
            algorithm=_text(message.get("algorithm", ""), "algorithm"),
            playouts=_optional_whole(message.get("playouts"), "playouts"),
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

    @property
    def max_think_s(self) -> float:
        """The longest think the server allows (``limits.max_movetime_ms``), in seconds."""
        limit = self.limits.get("max_movetime_ms")
        if _is_whole(limit) and limit > 0:
            return float(limit) / 1000
        return DEFAULT_MAX_THINK_S

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> ServerInfo:
        """The server in a ``welcome`` message; :class:`ProtocolViolationError` if malformed."""
        games = message.get("games", [])
        if not isinstance(games, list):
            _violation(f"games is {_show(games)}, not a list")
        for game in games:
            if not isinstance(game, Mapping) or not isinstance(game.get("name"), str):
                _violation(f"a game in welcome is {_show(game)}, not a map with a name")
        return cls(
            protocol=_whole(_required(message, "protocol", "welcome"), "protocol"),
            server=_text(message.get("server", ""), "server"),
            games=tuple(dict(game) for game in games),
            limits=dict(_map(message.get("limits", {}), "limits")),
        )


def _expect(kind: str, parse: Callable[[Mapping[str, Any]], T]) -> Callable[[Mapping[str, Any]], T]:
    """A reply parser that first checks the reply's ``type``."""

    def parse_reply(message: Mapping[str, Any]) -> T:
        if message.get("type") != kind:
            _violation(f"expected {kind!r}, got a {_show(message.get('type'))} message")
        return parse(message)

    return parse_reply


_parse_state = _expect("state", GameState.from_message)


def _trace_from_message(message: Mapping[str, Any]) -> Trace:
    try:
        return Trace.from_dict(dict(message))
    except (KeyError, TypeError, ValueError) as error:
        _violation(f"malformed trace reply ({type(error).__name__}: {error})")


_parse_trace = _expect("trace", _trace_from_message)
_parse_welcome = _expect("welcome", ServerInfo.from_message)


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
            {"type": "hello", "protocol": 1, "client": client_name}, _parse_welcome, timeout
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
        message: dict[str, Any] = {"type": "new_game", "game": game}
        if seed is not None:
            message["seed"] = seed
        if options:
            message["options"] = dict(options)
        if position is not None:
            message["position"] = position
        if moves:
            message["moves"] = list(moves)
        self.state = await self._request(message, _parse_state, timeout)
        return self.state

    async def move(self, move: str, *, timeout: float | None = None) -> GameState:
        """Play ``move`` in the session's game."""
        self.state = await self._request({"type": "move", "move": move}, _parse_state, timeout)
        return self.state

    async def roll(self, *, timeout: float | None = None) -> GameState:
        """Let the server roll the dice at a chance state (games of chance)."""
        self.state = await self._request({"type": "roll"}, _parse_state, timeout)
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
        message: dict[str, Any] = {"type": "trace"}
        fields = {
            "algorithm": algorithm,
            "depth": depth,
            "max_nodes": max_nodes,
            "playouts": playouts,
            "seed": seed,
        }
        for key, value in fields.items():
            if value is not None:
                message[key] = value
        if timeout is None:
            limits = self.server.limits if self.server is not None else {}
            server_limit_s = limits.get("max_trace_ms", 10_000) / 1000
            timeout = max(self.request_timeout, server_limit_s + TRACE_TIMEOUT_MARGIN_S)
        return await self._request(message, _parse_trace, timeout)

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
        to be captured before passing (protocol.md, ``think``).
        """
        limits = _limits(movetime, movetime_ms, depth, nodes, clock)
        think = await self._start_think(
            limits, self.think_timeout(limits, timeout), algorithm, cleanup
        )
        think.on_info = on_info
        try:
            return await think.bestmove
        except asyncio.CancelledError:
            if not think.finished:  # the caller gave up: free the server's worker
                self._spawn(self._send_quietly({"type": "stop", "id": think.id}))
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
    ) -> Analysis:
        """A think whose progress you iterate over; leaving the ``async with`` stops it.

        With no limits the search runs until stopped (or the server's
        maximum think time). The same timeout as :meth:`think` applies; after
        :meth:`Analysis.stop` the answer may take at most
        :data:`THINK_TIMEOUT_MARGIN_S`.
        """
        limits = _limits(movetime, movetime_ms, depth, nodes, clock)
        return Analysis(self, limits, self.think_timeout(limits, timeout), algorithm)

    async def stop(self, *, timeout: float | None = None) -> None:
        """Ask any running think to answer now (no reply of its own)."""
        for think in self._thinks.values():
            self._shorten(think, THINK_TIMEOUT_MARGIN_S)
        await self._send_within({"type": "stop"}, timeout)

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
        limits: dict[str, Any],
        timeout_s: float,
        algorithm: str | None = None,
        cleanup: bool = False,
    ) -> _Think:
        """Send a think; its timer runs from now (the send included)."""
        think = _Think(next(self._ids), timeout_s)
        self._thinks[think.id] = think
        think.timer = asyncio.get_running_loop().call_later(timeout_s, self._think_timed_out, think)
        try:
            async with asyncio.timeout(timeout_s):
                request: dict[str, Any] = {"type": "think", "id": think.id, "limits": limits}
                if algorithm is not None:
                    request["algorithm"] = algorithm
                if cleanup:
                    request["cleanup"] = True
                await self._send(request)
        except TimeoutError:
            self._think_timed_out(think)  # the caller finds the error in think.bestmove
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):  # it may have gone out: stop it
                self._spawn(self._send_quietly({"type": "stop", "id": think.id}))
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
        self._spawn(self._send_quietly({"type": "stop", "id": think.id}))

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
                    self._dispatch(decode(frame))
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
            _violation(f"a message without a type: {_show(message)}")
        request_id = message.get("id")
        think = self._thinks.get(request_id) if _is_whole(request_id) else None
        if think is not None:
            self._dispatch_think(think, kind, message)
            return
        reply = self._replies.get(request_id) if _is_whole(request_id) else None
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
            info = Info.from_message(message)  # a violation: strict closes, lenient drops it
            think.infos.put_nowait(info)
            if think.on_info is not None:
                try:
                    think.on_info(info)
                except Exception:
                    logger.exception("the on_info callback failed")
        elif kind == "bestmove":
            try:
                best = BestMove.from_message(message)
            except ProtocolViolationError as violation:
                think.fail(violation)  # this think fails whatever the mode
                raise
            think.resolve(best)
        elif kind == "error":
            think.fail(error_from_message(message))
        else:
            _violation(f"a {_show(kind)} message for think {think.id}")


class Analysis:
    """A running think you iterate over (``async for info in analysis``).

    Iteration ends when the ``bestmove`` arrives; leaving the ``async with``
    block stops the search and waits for it, and :attr:`bestmove` holds it.
    """

    def __init__(
        self,
        engine: Engine,
        limits: dict[str, Any],
        timeout_s: float = DEFAULT_MAX_THINK_S + THINK_TIMEOUT_MARGIN_S,
        algorithm: str | None = None,
    ) -> None:
        self._engine = engine
        self._limits = limits
        self._timeout_s = timeout_s
        self._algorithm = algorithm
        self._think: _Think | None = None
        self.info: Info | None = None
        self.bestmove: BestMove | None = None

    async def __aenter__(self) -> Analysis:
        self._think = await self._engine._start_think(
            self._limits, self._timeout_s, self._algorithm
        )
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
        await self._engine._send_within({"type": "stop", "id": self._think.id}, None)

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
