"""The wire protocol without I/O: decoding, validation, encoding, error codes, limits.

Everything a connection receives goes through :func:`decode` (bytes or text
to a map) and :func:`parse_request` (a map to a typed request); both raise
:class:`ProtocolError` with a protocol error code on bad input, so the
caller answers with :func:`error_message` and never crashes. Outgoing maps
are turned into frames by :func:`encode`. ``protocol.md`` at the repository
root is the contract this module implements.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NoReturn

import msgpack  # type: ignore[import-untyped]

from engine.search.limits import MAX_DEPTH, Clock, Limits
from engine.search.trace import MAX_TRACE_DEPTH, MAX_TRACE_NODES, MAX_TRACE_PLAYOUTS
from server.guard import DEFAULT_HELLO_TIMEOUT_MS

PROTOCOL_VERSION = 1

#: Largest frame accepted; a bigger one closes the connection with 1009
#: (websockets enforces it). Every valid request is far smaller: the biggest
#: is a ``new_game`` with a long move list (MAX_MOVES moves of a few bytes).
MAX_MESSAGE_BYTES = 64 * 1024
#: Longest ``position`` string (a chess FEN is under 100 characters).
MAX_POSITION_CHARS = 4096
#: Longest move string (the longest notation, a checkers multi-jump, is short).
MAX_MOVE_CHARS = 128
#: Longest algorithm name accepted (the names are short words).
MAX_ALGORITHM_CHARS = 32
#: Most moves a ``new_game`` may replay from its start position.
MAX_MOVES = 2000
#: Longest string ``id`` echoed back to the client.
MAX_ID_CHARS = 64
#: Longest free-text field (``client`` in ``hello``, a game name).
MAX_NAME_CHARS = 200
#: Server caps on search limits: larger requests are clamped, not refused.
#: Ten minutes bounds what one request can hold a worker for; it is also the
#: budget of a think that has no time limit (analysis until ``stop``).
MAX_MOVETIME_MS = 600_000
MAX_NODES = 1_000_000_000
MAX_CLOCK_MS = 24 * 3600 * 1000
#: Deepest nesting of maps and lists in a message. The deepest valid request
#: is a ``new_game`` with a list option (message > options > list: 3).
MAX_NESTING = 16
#: Largest dice ``seed`` in ``new_game`` (exact in JSON numbers).
MAX_SEED = 2**53
#: Longest ``token`` accepted in ``hello``.
MAX_TOKEN_CHARS = 512
#: Longest a ``trace`` may hold a worker. A trace is bounded in nodes
#: (max_nodes recorded, then counted on to engine.search.trace.COUNT_LIMIT
#: to tell the full size); ten seconds covers chess in pure Python there.
MAX_TRACE_MS = 10_000


class ErrorCode(StrEnum):
    """Every error code the server sends, as written on the wire."""

    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTIONS = "bad_options"
    BAD_POSITION = "bad_position"
    ILLEGAL_MOVE = "illegal_move"
    GAME_OVER = "game_over"
    NO_GAME = "no_game"
    BUSY = "busy"
    LIMIT_EXCEEDED = "limit_exceeded"
    CHANCE_STATE = "chance_state"
    UNKNOWN_ALGORITHM = "unknown_algorithm"
    OVERLOADED = "overloaded"
    INTERNAL = "internal"


class Encoding(StrEnum):
    """How a frame was encoded; replies use the encoding of their request."""

    MSGPACK = "msgpack"
    JSON = "json"


RequestId = int | str | None


class ProtocolError(Exception):
    """A request was rejected; becomes an ``error`` message.

    ``request_id`` is the offending request's ``id`` when it could be read,
    ``legal_moves`` is set for ``illegal_move``, ``retry_after_ms`` for
    ``overloaded``.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        request_id: RequestId = None,
        legal_moves: Sequence[str] | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after_ms = retry_after_ms
        self.code = code
        self.message = message
        self.request_id = request_id
        self.legal_moves = list(legal_moves) if legal_moves is not None else None


# ----------------------------------------------------------------------
# Frames <-> maps.


def _reject_extension(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack extension type {code} is not allowed")


def decode(frame: bytes | str) -> tuple[Encoding, dict[str, Any]]:
    """Decode one frame: ``bytes`` is msgpack, ``str`` is JSON.

    Safe on untrusted input: the frame size is already bounded by the
    transport; msgpack's declared lengths may not exceed the frame's size (a
    few bytes cannot claim a gigabyte string), its extension types are
    refused; nesting deeper than :data:`MAX_NESTING` is refused, and every map
    key at any depth must be a string. Nothing is ever evaluated or
    unpickled. Raises :class:`ProtocolError` (``bad_message``)
    unless the frame holds exactly one map.
    """
    if isinstance(frame, bytes | bytearray | memoryview):
        encoding = Encoding.MSGPACK
        size = len(frame)
        try:
            value = msgpack.unpackb(
                frame,
                raw=False,
                strict_map_key=True,
                use_list=True,
                ext_hook=_reject_extension,
                max_ext_len=0,
                max_str_len=size,
                max_bin_len=size,
                max_array_len=size,
                max_map_len=size,
            )
        except Exception as error:  # msgpack raises many types on garbage
            detail = str(error) or type(error).__name__
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"binary frame is not one msgpack value: {detail}"
            ) from None
    else:
        encoding = Encoding.JSON
        try:
            value = json.loads(frame, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as error:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"text frame is not one JSON value: {error}"
            ) from None
    if not isinstance(value, dict):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"a message is a map, got {type(value).__name__}"
        )
    _check_structure(value, encoding)
    return encoding, value


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


def _check_structure(value: Any, encoding: Encoding) -> None:
    """Every map key is a string, nesting is at most :data:`MAX_NESTING` deep,
    and (JSON) no string holds a lone surrogate.

    Iterative, so a hostile nesting depth cannot exhaust the Python stack.
    JSON may spell half a UTF-16 pair (``"\\ud83d"``); such a string cannot
    be written back in UTF-8, so echoing it (an ``id``, a move in an error
    message) would break the reply. msgpack strings are UTF-8 already.
    """
    check_text = encoding is Encoding.JSON
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
            for key in item:
                if not isinstance(key, str):
                    raise ProtocolError(
                        ErrorCode.BAD_MESSAGE, f"map key {key!r:.40} is not a string"
                    )
                if check_text and not _is_unicode(key):
                    raise ProtocolError(
                        ErrorCode.BAD_MESSAGE,
                        "a map key holds a lone surrogate (\\ud800-\\udfff)",
                        request_id_of(value),
                    )
        elif isinstance(item, list):
            children = item
        else:
            if check_text and isinstance(item, str) and not _is_unicode(item):
                raise ProtocolError(
                    ErrorCode.BAD_MESSAGE,
                    "a string holds a lone surrogate (\\ud800-\\udfff): not valid Unicode text",
                    request_id_of(value),
                )
            continue
        if depth > MAX_NESTING:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"message nested deeper than {MAX_NESTING} levels"
            )
        pending.extend((child, depth + 1) for child in children)


def _is_unicode(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8 (it holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encode(message: Mapping[str, Any], encoding: Encoding) -> bytes | str:
    """One frame for ``message``: msgpack bytes or compact JSON text."""
    if encoding is Encoding.MSGPACK:
        frame: bytes = msgpack.packb(message, use_bin_type=True)
        return frame
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# ----------------------------------------------------------------------
# Typed requests.


@dataclass(frozen=True, slots=True)
class Hello:
    id: RequestId = None
    protocol: int = PROTOCOL_VERSION
    client: str = ""
    token: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    game: str
    id: RequestId = None
    options: dict[str, Any] = field(default_factory=dict)
    position: str | None = None
    moves: tuple[str, ...] = ()
    #: Seed of the server's dice for this game (games of chance); None: random.
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Move:
    move: str
    id: RequestId = None


@dataclass(frozen=True, slots=True)
class Think:
    limits: Limits
    id: RequestId = None
    #: The search to use ("alphabeta", "expectiminimax", "mcts"); None: the
    #: game's default. Checked against the game by the session.
    algorithm: str | None = None


@dataclass(frozen=True, slots=True)
class TraceRequest:
    """Trace a search of the current position (``trace``); see :mod:`engine.search.trace`.

    ``None`` fields take the session's defaults: the game's textbook
    algorithm, the whole tree for an exercise tree (else 2 plies), 5,000 nodes;
    for ``mcts``, 100 playouts and a fixed seed.
    """

    id: RequestId = None
    algorithm: str | None = None
    depth: int | None = None
    max_nodes: int | None = None
    playouts: int | None = None
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Stop:
    id: RequestId = None


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll the dice with the server's generator (at a chance state)."""

    id: RequestId = None


Request = Hello | NewGame | Move | Think | Stop | Roll | TraceRequest


def request_id_of(message: Mapping[str, Any]) -> RequestId:
    """The message's ``id`` if it is a valid one, else ``None`` (for error replies)."""
    value: RequestId = message.get("id")
    if _is_valid_id(value):
        return value
    return None


def _is_valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -(2**53) <= value <= 2**53
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS and _is_unicode(value)


def parse_request(message: Mapping[str, Any]) -> Request:
    """Validate a decoded map and return the typed request.

    Unknown extra fields are ignored (room for later protocol additions);
    missing or mistyped fields raise ``bad_message``, an unknown ``type``
    raises ``unknown_type`` and out-of-range limits ``limit_exceeded``.
    """
    raw_id = message.get("id")
    if raw_id is not None and not _is_valid_id(raw_id):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"'id' must be an integer within ±2**53 or a string of at most {MAX_ID_CHARS} "
            "characters",
        )
    request_id: RequestId = raw_id
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "missing string field 'type'", request_id)
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {kind[:MAX_NAME_CHARS]!r} (types: {', '.join(_PARSERS)})",
            request_id,
        )
    return parser(message, request_id)


def _parse_hello(message: Mapping[str, Any], request_id: RequestId) -> Hello:
    protocol = _optional_int(message, "protocol", request_id)
    client = _optional_str(message, "client", MAX_NAME_CHARS, request_id)
    token = _optional_str(message, "token", MAX_TOKEN_CHARS, request_id)
    if protocol is not None and protocol != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.UNSUPPORTED_PROTOCOL,
            f"this server speaks protocol {PROTOCOL_VERSION}, not {protocol}",
            request_id,
        )
    return Hello(request_id, PROTOCOL_VERSION, client or "", token)


def _parse_new_game(message: Mapping[str, Any], request_id: RequestId) -> NewGame:
    game = _optional_str(message, "game", MAX_NAME_CHARS, request_id)
    if game is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "missing string field 'game'", request_id)
    options = message.get("options")
    if options is None:
        options = {}
    elif not isinstance(options, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'options' must be a map", request_id)
    position = _optional_str(message, "position", MAX_POSITION_CHARS, request_id)
    moves = message.get("moves")
    if moves is None:
        moves = []
    if not isinstance(moves, list) or not all(isinstance(move, str) for move in moves):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, "'moves' must be a list of move strings", request_id
        )
    if len(moves) > MAX_MOVES:
        raise ProtocolError(
            ErrorCode.LIMIT_EXCEEDED, f"'moves' holds at most {MAX_MOVES} moves", request_id
        )
    if any(len(move) > MAX_MOVE_CHARS for move in moves):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"a move is at most {MAX_MOVE_CHARS} characters", request_id
        )
    return NewGame(
        game, request_id, dict(options), position, tuple(moves), _seed(message, request_id)
    )


def _parse_move(message: Mapping[str, Any], request_id: RequestId) -> Move:
    move = _optional_str(message, "move", MAX_MOVE_CHARS, request_id)
    if move is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "missing string field 'move'", request_id)
    return Move(move, request_id)


def _parse_think(message: Mapping[str, Any], request_id: RequestId) -> Think:
    raw = message.get("limits")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'limits' must be a map", request_id)
    unknown = set(raw) - {"movetime_ms", "depth", "nodes", "clock"}
    if unknown:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"unknown limit {sorted(unknown)[0]!r} (limits: movetime_ms, depth, nodes, clock)",
            request_id,
        )
    movetime = _limit(raw, "movetime_ms", 1, MAX_MOVETIME_MS, request_id)
    depth = _limit(raw, "depth", 1, MAX_DEPTH, request_id)
    nodes = _limit(raw, "nodes", 1, MAX_NODES, request_id)
    clock = _parse_clock(raw.get("clock"), request_id)
    algorithm = _optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
    return Think(Limits(movetime, depth, nodes, clock), request_id, algorithm)


def _parse_clock(raw: Any, request_id: RequestId) -> Clock | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'clock' must be a map", request_id)
    unknown = set(raw) - {"time_ms", "inc_ms", "moves_to_go"}
    if unknown:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"unknown clock field {sorted(unknown)[0]!r} (fields: time_ms, inc_ms, moves_to_go)",
            request_id,
        )
    time_ms = _limit(raw, "time_ms", 0, MAX_CLOCK_MS, request_id)
    if time_ms is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'clock' needs an integer 'time_ms'", request_id)
    inc_ms = _limit(raw, "inc_ms", 0, MAX_CLOCK_MS, request_id) or 0
    moves_to_go = _limit(raw, "moves_to_go", 1, 10_000, request_id)
    return Clock(time_ms, inc_ms, moves_to_go)


def _limit(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer limit: below ``low`` is refused, above ``high`` is clamped."""
    value = _optional_int(raw, name, request_id)
    if value is None:
        return None
    if value < low:
        raise ProtocolError(
            ErrorCode.LIMIT_EXCEEDED, f"'{name}' must be at least {low}, got {value}", request_id
        )
    return min(value, high)


def _optional_int(raw: Mapping[str, Any], name: str, request_id: RequestId) -> int | None:
    value = raw.get(name)
    if value is None:
        return None
    # JSON clients may send 100.0 for 100; a fractional or infinite number is an error.
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"'{name}' must be an integer, got {value!r:.40}", request_id
        )
    return value


def _optional_str(
    raw: Mapping[str, Any], name: str, max_chars: int, request_id: RequestId
) -> str | None:
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"'{name}' must be a string, got {value!r:.40}", request_id
        )
    if len(value) > max_chars:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE if name != "position" else ErrorCode.LIMIT_EXCEEDED,
            f"'{name}' is at most {max_chars} characters",
            request_id,
        )
    return value


def _parse_trace(message: Mapping[str, Any], request_id: RequestId) -> TraceRequest:
    algorithm = _optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
    depth = _bounded(message, "depth", 1, MAX_TRACE_DEPTH, request_id)
    max_nodes = _bounded(message, "max_nodes", 1, MAX_TRACE_NODES, request_id)
    playouts = _bounded(message, "playouts", 1, MAX_TRACE_PLAYOUTS, request_id)
    return TraceRequest(
        request_id, algorithm, depth, max_nodes, playouts, _seed(message, request_id)
    )


def _seed(raw: Mapping[str, Any], request_id: RequestId) -> int | None:
    seed = _optional_int(raw, "seed", request_id)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, "'seed' must be an integer from 0 to 2**53", request_id
        )
    return seed


def _bounded(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer that must lie in ``low..high``: outside is ``limit_exceeded``, not clamped."""
    value = _optional_int(raw, name, request_id)
    if value is not None and not low <= value <= high:
        raise ProtocolError(
            ErrorCode.LIMIT_EXCEEDED,
            f"'{name}' must be between {low} and {high}, got {value}",
            request_id,
        )
    return value


def _parse_stop(message: Mapping[str, Any], request_id: RequestId) -> Stop:
    return Stop(request_id)


def _parse_roll(message: Mapping[str, Any], request_id: RequestId) -> Roll:
    return Roll(request_id)


_PARSERS: dict[str, Callable[[Mapping[str, Any], RequestId], Request]] = {
    "hello": _parse_hello,
    "new_game": _parse_new_game,
    "move": _parse_move,
    "think": _parse_think,
    "stop": _parse_stop,
    "roll": _parse_roll,
    "trace": _parse_trace,
}


# ----------------------------------------------------------------------
# Outgoing messages.


def with_id(message: dict[str, Any], request_id: RequestId) -> dict[str, Any]:
    """``message`` with the request's ``id`` added when the request had one."""
    if request_id is not None:
        message["id"] = request_id
    return message


def error_message(error: ProtocolError) -> dict[str, Any]:
    """The ``error`` map for a rejected request."""
    message: dict[str, Any] = {"type": "error", "code": error.code.value, "message": error.message}
    if error.legal_moves is not None:
        message["legal_moves"] = error.legal_moves
    if error.retry_after_ms is not None:
        message["retry_after_ms"] = error.retry_after_ms
    return with_id(message, error.request_id)


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The limits announced in ``welcome``; the defaults are the module constants."""

    max_movetime_ms: int = MAX_MOVETIME_MS
    max_depth: int = MAX_DEPTH
    max_nodes: int = MAX_NODES
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_moves: int = MAX_MOVES
    max_position_chars: int = MAX_POSITION_CHARS
    #: The pool's DELIVERY_MARGIN_S (the server fills it in; informational).
    delivery_margin_ms: int = 15
    hello_timeout_ms: int = DEFAULT_HELLO_TIMEOUT_MS
    max_trace_nodes: int = MAX_TRACE_NODES
    max_trace_ms: int = MAX_TRACE_MS
    #: Thinks that may wait for a worker before new ones are refused
    #: (``overloaded``); ``None`` until the server derives it from its
    #: worker count (``welcome`` always shows a number).
    max_queue: int | None = None

    def to_dict(self) -> dict[str, int]:
        """The map sent in ``welcome.limits``."""
        return {
            "max_movetime_ms": self.max_movetime_ms,
            "max_depth": self.max_depth,
            "max_nodes": self.max_nodes,
            "max_message_bytes": self.max_message_bytes,
            "max_moves": self.max_moves,
            "max_position_chars": self.max_position_chars,
            "delivery_margin_ms": self.delivery_margin_ms,
            "hello_timeout_ms": self.hello_timeout_ms,
            "max_queue": self.max_queue or 0,
            "max_trace_nodes": self.max_trace_nodes,
            "max_trace_ms": self.max_trace_ms,
        }
