"""One record per protocol message, with its wire form.

Each message of ``protocol.md`` section 4 is a frozen dataclass here:
requests (:class:`Hello`, :class:`NewGame`, :class:`Move`, :class:`Roll`,
:class:`Think`, :class:`TraceRequest`, :class:`Stop`) and what the server
sends (:class:`Welcome`, :class:`GameState`, :class:`Info`,
:class:`BestMove`, :class:`TraceReply`, :class:`ErrorMessage`).
``to_wire()`` gives the map to encode (:mod:`protocol.codec`) and the
classmethod ``from_wire(map)`` reads and checks one:

* a request's ``from_wire(map, limits)`` raises the protocol error the
  server answers with (:mod:`protocol.errors`: ``bad_message``,
  ``limit_exceeded``, ...), and clamps or refuses against ``limits``, the
  :class:`~protocol.limits.ServerLimits` the server announces;
* a reply's ``from_wire(map)`` raises
  :class:`~protocol.errors.ProtocolViolation`, naming the field, for a
  message that breaks the protocol, and fills in the defaults of fields an
  older server leaves out.

Unknown fields are ignored both ways (room for later additions). ``id`` is
the request's ``id`` (``protocol.md`` section 3): written last, and only
when set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn, TypeGuard

from engine.search.limits import Clock, Limits
from engine.search.score import Score
from engine.search.trace import MAX_TRACE_DEPTH, MAX_TRACE_PLAYOUTS, Trace
from protocol.codec import MAX_EXACT_INT, MAX_ID_CHARS, is_valid_id, with_id
from protocol.errors import (
    BadMessage,
    ErrorCode,
    LimitExceeded,
    ProtocolError,
    ProtocolViolation,
    RequestId,
    UnknownType,
    UnsupportedProtocol,
    error_for,
)
from protocol.limits import (
    MAX_ALGORITHM_CHARS,
    MAX_CLOCK_MS,
    MAX_MOVE_CHARS,
    MAX_MOVES_TO_GO,
    MAX_MOVETIME_MS,
    MAX_NAME_CHARS,
    MAX_SEED,
    MAX_TOKEN_CHARS,
    ServerLimits,
)

#: The protocol version this package speaks (``protocol.md`` section 2).
PROTOCOL_VERSION = 1
#: The ``to_move`` of a state where dice are to be rolled.
CHANCE = "chance"
#: Games whose ``state`` carries ``gnubg_id`` (protocol.md section 9), null
#: at the opening roll: absent and null differ on the wire.
GNUBG_ID_GAMES = frozenset({"backgammon"})
#: The limits a ``think`` may carry (a misspelt one is refused, not ignored).
LIMIT_NAMES = ("movetime_ms", "depth", "nodes", "clock")
#: The fields of a ``clock``.
CLOCK_NAMES = ("time_ms", "inc_ms", "moves_to_go")

_DEFAULT_LIMITS = ServerLimits()


# ----------------------------------------------------------------------
# Reading requests: errors the server answers with.


def _request_id(message: Mapping[str, Any]) -> RequestId:
    """The request's ``id``; ``bad_message`` if present and not a valid one."""
    raw_id = message.get("id")
    if raw_id is not None and not is_valid_id(raw_id):
        raise BadMessage(
            f"'id' must be an integer within ±2**53 or a string of at most {MAX_ID_CHARS} "
            "characters"
        )
    request_id: RequestId = raw_id
    return request_id


def _optional_int(raw: Mapping[str, Any], name: str, request_id: RequestId) -> int | None:
    value = raw.get(name)
    if value is None:
        return None
    # JSON clients may send 100.0 for 100; a fractional or infinite number is an error.
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadMessage(f"'{name}' must be an integer, got {value!r:.40}", request_id)
    return value


def _optional_str(
    raw: Mapping[str, Any], name: str, max_chars: int, request_id: RequestId
) -> str | None:
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadMessage(f"'{name}' must be a string, got {value!r:.40}", request_id)
    if len(value) > max_chars:
        error = LimitExceeded if name == "position" else BadMessage
        raise error(f"'{name}' is at most {max_chars} characters", request_id)
    return value


def _clamped(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer limit: below ``low`` is refused, above ``high`` is clamped."""
    value = _optional_int(raw, name, request_id)
    if value is None:
        return None
    if value < low:
        raise LimitExceeded(f"'{name}' must be at least {low}, got {value}", request_id)
    return min(value, high)


def _bounded(
    raw: Mapping[str, Any], name: str, low: int, high: int, request_id: RequestId
) -> int | None:
    """An integer that must lie in ``low..high``: outside is ``limit_exceeded``, not clamped."""
    value = _optional_int(raw, name, request_id)
    if value is not None and not low <= value <= high:
        raise LimitExceeded(f"'{name}' must be between {low} and {high}, got {value}", request_id)
    return value


def _seed(raw: Mapping[str, Any], request_id: RequestId) -> int | None:
    seed = _optional_int(raw, "seed", request_id)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise BadMessage("'seed' must be an integer from 0 to 2**53", request_id)
    return seed


# ----------------------------------------------------------------------
# Reading replies: violations a client reports.


def _violation(text: str) -> NoReturn:
    raise ProtocolViolation(text)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_list(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _whole(value: Any, name: str, minimum: int | None = 0) -> int:
    """``value`` if it is a whole number (not a bool) in range, else a protocol violation."""
    if not _is_whole(value):
        _violation(f"{name} is {_show(value)} (a {type(value).__name__}), not a whole number")
    if minimum == 0 and value < 0:
        _violation(f"{name} is negative ({value})")
    if minimum is not None and value < minimum:
        _violation(f"{name} is {value}, below {minimum}")
    if abs(value) > MAX_EXACT_INT:
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


def _strings(value: Any, name: str) -> tuple[str, ...]:
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


def _reply_id(message: Mapping[str, Any]) -> RequestId:
    """The ``id`` a reply echoes (``None`` when it has none or an unusable one)."""
    value = message.get("id")
    return value if is_valid_id(value) else None


def score_from_wire(value: Any, name: str = "score") -> Score:
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
# Requests.


@dataclass(frozen=True, slots=True)
class Hello:
    """``hello``: say who you are; answered with :class:`Welcome`."""

    type: ClassVar[str] = "hello"

    id: RequestId = None
    """The request's ``id``, echoed in the reply."""
    protocol: int = PROTOCOL_VERSION
    """The protocol version the client speaks; only 1 is accepted."""
    client: str = ""
    """The client's name and version, logged by the server (at most 200 characters)."""
    token: str | None = None
    """The server's shared secret, for browsers that cannot send it with the handshake."""

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": self.type, "protocol": self.protocol}
        message["client"] = self.client
        if self.token is not None:
            message["token"] = self.token
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Hello:
        request_id = _request_id(message)
        protocol = _optional_int(message, "protocol", request_id)
        client = _optional_str(message, "client", MAX_NAME_CHARS, request_id)
        token = _optional_str(message, "token", MAX_TOKEN_CHARS, request_id)
        if protocol is not None and protocol != PROTOCOL_VERSION:
            raise UnsupportedProtocol(
                f"this server speaks protocol {PROTOCOL_VERSION}, not {protocol}", request_id
            )
        return cls(request_id, PROTOCOL_VERSION, client or "", token)


@dataclass(frozen=True, slots=True)
class NewGame:
    """``new_game``: start a game, optionally from a position and moves; answered with
    :class:`GameState`."""

    type: ClassVar[str] = "new_game"

    game: str
    """A game's name from ``welcome.games``."""
    id: RequestId = None
    """The request's ``id``, echoed in the reply."""
    options: dict[str, Any] = field(default_factory=dict)
    """Option values; the options left out take their defaults."""
    position: str | None = None
    """The start position in the game's notation; ``None``: the initial position."""
    moves: tuple[str, ...] = ()
    """Moves played from ``position`` (at most ``max_moves``): the start of the history."""
    seed: int | None = None
    """Seed of the server's dice for this game (games of chance); ``None``: random."""

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": self.type, "game": self.game}
        if self.seed is not None:
            message["seed"] = self.seed
        if self.options:
            message["options"] = dict(self.options)
        if self.position is not None:
            message["position"] = self.position
        if self.moves:
            message["moves"] = list(self.moves)
        return with_id(message, self.id)

    @classmethod
    def from_wire(
        cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS
    ) -> NewGame:
        request_id = _request_id(message)
        game = _optional_str(message, "game", MAX_NAME_CHARS, request_id)
        if game is None:
            raise BadMessage("missing string field 'game'", request_id)
        options = message.get("options")
        if options is None:
            options = {}
        elif not isinstance(options, dict):
            raise BadMessage("'options' must be a map", request_id)
        position = _optional_str(message, "position", limits.max_position_chars, request_id)
        moves = message.get("moves")
        if moves is None:
            moves = []
        if not isinstance(moves, list) or not all(isinstance(move, str) for move in moves):
            raise BadMessage("'moves' must be a list of move strings", request_id)
        if len(moves) > limits.max_moves:
            raise LimitExceeded(f"'moves' holds at most {limits.max_moves} moves", request_id)
        if any(len(move) > MAX_MOVE_CHARS for move in moves):
            raise BadMessage(f"a move is at most {MAX_MOVE_CHARS} characters", request_id)
        return cls(
            game, request_id, dict(options), position, tuple(moves), _seed(message, request_id)
        )


@dataclass(frozen=True, slots=True)
class Move:
    """``move``: play a move (at a chance state: a roll); answered with :class:`GameState`."""

    type: ClassVar[str] = "move"

    move: str
    """The move in the game's notation (at most 128 characters)."""
    id: RequestId = None
    """The request's ``id``, echoed in the reply."""

    def to_wire(self) -> dict[str, Any]:
        return with_id({"type": self.type, "move": self.move}, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Move:
        request_id = _request_id(message)
        move = _optional_str(message, "move", MAX_MOVE_CHARS, request_id)
        if move is None:
            raise BadMessage("missing string field 'move'", request_id)
        return cls(move, request_id)


@dataclass(frozen=True, slots=True)
class Roll:
    """``roll``: roll the dice with the server's generator (at a chance state)."""

    type: ClassVar[str] = "roll"

    id: RequestId = None
    """The request's ``id``, echoed in the reply."""

    def to_wire(self) -> dict[str, Any]:
        return with_id({"type": self.type}, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Roll:
        return cls(_request_id(message))


def limits_to_wire(limits: Limits) -> dict[str, Any]:
    """``think.limits``: the limits that are set (``clock.moves_to_go`` when known)."""
    wire: dict[str, Any] = {}
    if limits.movetime_ms is not None:
        wire["movetime_ms"] = limits.movetime_ms
    if limits.depth is not None:
        wire["depth"] = limits.depth
    if limits.nodes is not None:
        wire["nodes"] = limits.nodes
    clock = limits.clock
    if clock is not None:
        clock_wire: dict[str, Any] = {"time_ms": clock.time_ms, "inc_ms": clock.inc_ms}
        if clock.moves_to_go is not None:
            clock_wire["moves_to_go"] = clock.moves_to_go
        wire["clock"] = clock_wire
    return wire


def limits_from_wire(
    raw: Any, limits: ServerLimits = _DEFAULT_LIMITS, request_id: RequestId = None
) -> Limits:
    """``think.limits`` checked: a limit below its minimum is ``limit_exceeded``, one
    above the server's cap (``limits``) is clamped, an unknown one is ``bad_message``."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadMessage("'limits' must be a map", request_id)
    unknown = set(raw) - set(LIMIT_NAMES)
    if unknown:
        raise BadMessage(
            f"unknown limit {sorted(unknown)[0]!r} (limits: {', '.join(LIMIT_NAMES)})",
            request_id,
        )
    movetime = _clamped(raw, "movetime_ms", 1, limits.max_movetime_ms, request_id)
    depth = _clamped(raw, "depth", 1, limits.max_depth, request_id)
    nodes = _clamped(raw, "nodes", 1, limits.max_nodes, request_id)
    clock = _clock_from_wire(raw.get("clock"), request_id)
    return Limits(movetime, depth, nodes, clock)


def _clock_from_wire(raw: Any, request_id: RequestId) -> Clock | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise BadMessage("'clock' must be a map", request_id)
    unknown = set(raw) - set(CLOCK_NAMES)
    if unknown:
        raise BadMessage(
            f"unknown clock field {sorted(unknown)[0]!r} (fields: {', '.join(CLOCK_NAMES)})",
            request_id,
        )
    time_ms = _clamped(raw, "time_ms", 0, MAX_CLOCK_MS, request_id)
    if time_ms is None:
        raise BadMessage("'clock' needs an integer 'time_ms'", request_id)
    inc_ms = _clamped(raw, "inc_ms", 0, MAX_CLOCK_MS, request_id) or 0
    moves_to_go = _clamped(raw, "moves_to_go", 1, MAX_MOVES_TO_GO, request_id)
    return Clock(time_ms, inc_ms, moves_to_go)


@dataclass(frozen=True, slots=True)
class Think:
    """``think``: search the current position; answered with :class:`Info` reports and
    one :class:`BestMove` (or an :class:`ErrorMessage`)."""

    type: ClassVar[str] = "think"

    limits: Limits
    """Which limits end the search (``movetime_ms``, ``depth``, ``nodes``, ``clock``);
    none at all: until ``stop``, capped at ``max_movetime_ms``."""
    id: RequestId = None
    """The request's ``id``, echoed in every ``info`` and the ``bestmove``."""
    algorithm: str | None = None
    """The search to use (``alphabeta``, ``expectiminimax``, ``mcts`` or an external
    engine's name); ``None``: the game's default. Checked against the game by the session."""

    def to_wire(self) -> dict[str, Any]:
        # the id before the limits: as clients have always written a think
        message: dict[str, Any] = {"type": self.type}
        if self.id is not None:
            message["id"] = self.id
        message["limits"] = limits_to_wire(self.limits)
        if self.algorithm is not None:
            message["algorithm"] = self.algorithm
        return message

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Think:
        request_id = _request_id(message)
        search_limits = limits_from_wire(message.get("limits"), limits, request_id)
        algorithm = _optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
        return cls(search_limits, request_id, algorithm)


@dataclass(frozen=True, slots=True)
class TraceRequest:
    """``trace``: trace a search of the current position, node by node; answered with
    :class:`TraceReply`. ``None`` fields take the session's defaults: the game's textbook
    algorithm, the whole tree for an exercise tree (else 2 plies), 5,000 nodes; for
    ``mcts``, 100 playouts and a fixed seed."""

    type: ClassVar[str] = "trace"

    id: RequestId = None
    """The request's ``id``, echoed in the reply."""
    algorithm: str | None = None
    """``minimax``, ``alphabeta``, ``alphabeta_ordered``, ``negamax``, ``expectiminimax``
    or ``mcts``."""
    depth: int | None = None
    """Plies searched (1-30); ``mcts`` ignores it."""
    max_nodes: int | None = None
    """Most nodes the reply may hold (at most ``max_trace_nodes``)."""
    playouts: int | None = None
    """``mcts`` only: the iterations to run (1-20000)."""
    seed: int | None = None
    """``mcts`` only: seeds its random generator."""

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": self.type}
        for key in ("algorithm", "depth", "max_nodes", "playouts", "seed"):
            value = getattr(self, key)
            if value is not None:
                message[key] = value
        return with_id(message, self.id)

    @classmethod
    def from_wire(
        cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS
    ) -> TraceRequest:
        request_id = _request_id(message)
        algorithm = _optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
        depth = _bounded(message, "depth", 1, MAX_TRACE_DEPTH, request_id)
        max_nodes = _bounded(message, "max_nodes", 1, limits.max_trace_nodes, request_id)
        playouts = _bounded(message, "playouts", 1, MAX_TRACE_PLAYOUTS, request_id)
        return cls(request_id, algorithm, depth, max_nodes, playouts, _seed(message, request_id))


@dataclass(frozen=True, slots=True)
class Stop:
    """``stop``: end the running think now (only the think with this ``id``, if given).
    No reply of its own."""

    type: ClassVar[str] = "stop"

    id: RequestId = None
    """The ``id`` of the think to stop; ``None``: whichever runs."""

    def to_wire(self) -> dict[str, Any]:
        return with_id({"type": self.type}, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Stop:
        return cls(_request_id(message))


Request = Hello | NewGame | Move | Think | Stop | Roll | TraceRequest

#: Each request type's record, by its ``type``.
REQUESTS: Mapping[str, Callable[[Mapping[str, Any], ServerLimits], Request]] = {
    "hello": Hello.from_wire,
    "new_game": NewGame.from_wire,
    "move": Move.from_wire,
    "think": Think.from_wire,
    "stop": Stop.from_wire,
    "roll": Roll.from_wire,
    "trace": TraceRequest.from_wire,
}


def parse_request(message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Request:
    """Check a decoded map and return its request record, against the server's ``limits``.

    Unknown extra fields are ignored (room for later protocol additions);
    missing or mistyped fields raise ``bad_message``, an unknown ``type``
    raises ``unknown_type`` and out-of-range limits ``limit_exceeded``.
    """
    request_id = _request_id(message)
    kind = message.get("type")
    if not isinstance(kind, str):
        raise BadMessage("missing string field 'type'", request_id)
    reader = REQUESTS.get(kind)
    if reader is None:
        raise UnknownType(
            f"unknown message type {kind[:MAX_NAME_CHARS]!r} (types: {', '.join(REQUESTS)})",
            request_id,
        )
    return reader(message, limits)


# ----------------------------------------------------------------------
# What the server sends.


@dataclass(frozen=True, slots=True)
class Welcome:
    """``welcome``, the reply to ``hello``: the server, its games and its limits."""

    type: ClassVar[str] = "welcome"

    protocol: int
    """The protocol version the server speaks (1)."""
    server: str
    """The server's name, version and engine build, ``alphabeta-arena 0.5.0 (compiled)``."""
    games: tuple[dict[str, Any], ...]
    """Each game offered: ``name``, ``title``, ``options`` (with their defaults),
    ``option_help``, ``players``, ``eval_unit`` and ``algorithms`` (the default first)."""
    limits: ServerLimits = _DEFAULT_LIMITS
    """The server's caps (``protocol.md`` section 7)."""
    id: RequestId = None
    """The ``hello``'s ``id``."""

    def game(self, name: str) -> dict[str, Any] | None:
        """The description of the game called ``name``, or ``None`` if not offered."""
        return next((game for game in self.games if game["name"] == name), None)

    @property
    def max_think_s(self) -> float:
        """The longest think the server allows (``limits.max_movetime_ms``), in seconds
        (the protocol's default if the server announced none)."""
        limit = self.limits.max_movetime_ms
        return (limit if limit > 0 else MAX_MOVETIME_MS) / 1000

    def to_wire(self) -> dict[str, Any]:
        message = {
            "type": self.type,
            "protocol": self.protocol,
            "server": self.server,
            "games": [dict(game) for game in self.games],
            "limits": self.limits.to_wire(),
        }
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> Welcome:
        """The server in a ``welcome`` message; :class:`ProtocolViolation` if malformed."""
        games = message.get("games", [])
        if not isinstance(games, list):
            _violation(f"games is {_show(games)}, not a list")
        for game in games:
            if not isinstance(game, Mapping) or not isinstance(game.get("name"), str):
                _violation(f"a game in welcome is {_show(game)}, not a map with a name")
        limits = ServerLimits.from_wire(_map(message.get("limits", {}), "limits"))
        return cls(
            protocol=_whole(_required(message, "protocol", "welcome"), "protocol"),
            server=_text(message.get("server", ""), "server"),
            games=tuple(dict(game) for game in games),
            limits=limits,
            id=_reply_id(message),
        )


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended (``state.result``)."""

    winner: int | None
    """The winner's player index, ``None`` for a draw."""
    reason: str
    """Why it ended, in words (``four in a row``, ``white wins by 4.5``)."""
    points: int = 1
    """Games of chance: the points won (backgammon: 2 a gammon, 3 a backgammon)."""


@dataclass(frozen=True, slots=True)
class GameState:
    """``state``, the reply to ``new_game``, ``move`` and ``roll``: the session's position."""

    type: ClassVar[str] = "state"

    game: str
    """The game's name."""
    options: dict[str, Any]
    """All the game's options, defaults filled in."""
    position: str
    """The current position in the game's notation."""
    to_move: int | str
    """The index of the player to move, or ``"chance"`` when dice are to be rolled."""
    legal_moves: tuple[str, ...]
    """Every legal move (empty when the game is over; at a chance state the rolls)."""
    history: tuple[str, ...]
    """The moves since ``new_game`` (its ``moves`` included), rolls included, each in
    the game's canonical notation."""
    result: GameResult | None
    """How the game ended; ``None`` while it goes on."""
    outcomes: tuple[tuple[str, float], ...] = ()
    """At a chance state: each roll (in the game's notation) with its probability."""
    seed: int | None = None
    """The seed of the server's dice for this game (games of chance only)."""
    gnubg_id: str | None = None
    """Backgammon: GNU Backgammon's ``PositionID:MatchID``; ``None`` at the opening roll
    (and in other games)."""
    history_san: tuple[str, ...] | None = None
    """Chess: the history in SAN, with ``+`` and ``#``; ``None`` in other games."""
    id: RequestId = None
    """The ``id`` of the request this answers."""

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def is_chance(self) -> bool:
        """Whether dice are to be rolled: send ``roll`` or a roll as a move."""
        return self.to_move == CHANCE

    def to_wire(self) -> dict[str, Any]:
        result: dict[str, Any] | None = None
        if self.result is not None:
            result = {"winner": self.result.winner, "reason": self.result.reason}
            if self.seed is not None:  # games of chance score their points
                result["points"] = self.result.points
        message: dict[str, Any] = {
            "type": self.type,
            "game": self.game,
            "options": self.options,
            "position": self.position,
            "to_move": self.to_move,
            "legal_moves": list(self.legal_moves),
            "history": list(self.history),
            "result": result,
        }
        if self.history_san is not None:
            message["history_san"] = list(self.history_san)
        if self.game in GNUBG_ID_GAMES:
            message["gnubg_id"] = self.gnubg_id
        if self.to_move == CHANCE:
            message["outcomes"] = [
                {"move": move, "probability": probability} for move, probability in self.outcomes
            ]
        if self.seed is not None:
            message["seed"] = self.seed
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> GameState:
        """The state in a ``state`` message; :class:`ProtocolViolation` if malformed."""
        to_move = _required(message, "to_move", "state")
        if to_move != CHANCE:
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
        history_san = message.get("history_san")
        return cls(
            game=_text(_required(message, "game", "state"), "game"),
            options=options,
            position=_text(_required(message, "position", "state"), "position"),
            to_move=to_move,
            legal_moves=_strings(_required(message, "legal_moves", "state"), "legal_moves"),
            history=_strings(message.get("history", []), "history"),
            result=result,
            outcomes=tuple(outcomes),
            seed=None if seed is None else _whole(seed, "seed"),
            gnubg_id=None if gnubg_id is None else _text(gnubg_id, "gnubg_id"),
            history_san=None if history_san is None else _strings(history_san, "history_san"),
            id=_reply_id(message),
        )


@dataclass(frozen=True, slots=True)
class Info:
    """``info``: progress of a think, after each completed depth (and best-move changes)."""

    type: ClassVar[str] = "info"

    depth: int
    """The iteration (completed, unless ``partial``)."""
    seldepth: int
    """The deepest ply reached."""
    score: Score
    """The score for the side to move."""
    pv: tuple[str, ...]
    """The principal variation, legal from the current position."""
    nodes: int
    """Nodes searched since the think started (``mcts``: nodes of its tree)."""
    nps: int
    """Nodes per second."""
    time_ms: int
    """Milliseconds since the search started."""
    tt_hit_rate: float = 0.0
    """Transposition-table hits per probe, 0..1."""
    partial: bool = False
    """Whether this is a new best move inside an unfinished iteration."""
    playouts: int | None = None
    """Monte Carlo searches only: playouts so far (``None`` from the others)."""
    id: RequestId = None
    """The think's ``id``."""

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {
            "type": self.type,
            "depth": self.depth,
            "seldepth": self.seldepth,
            "score": self.score.to_dict(),
            "pv": list(self.pv),
            "nodes": self.nodes,
            "nps": self.nps,
            "time_ms": self.time_ms,
            "tt_hit_rate": self.tt_hit_rate,
            "partial": self.partial,
        }
        if self.playouts is not None:
            message["playouts"] = self.playouts
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> Info:
        """The report in an ``info`` message; :class:`ProtocolViolation` if malformed."""
        depth = _whole(_required(message, "depth", "info"), "depth")
        return cls(
            depth=depth,
            seldepth=_whole(message.get("seldepth", depth), "seldepth"),
            score=score_from_wire(_required(message, "score", "info")),
            pv=_strings(message.get("pv", []), "pv"),
            nodes=_whole(message.get("nodes", 0), "nodes"),
            nps=_whole(message.get("nps", 0), "nps"),
            time_ms=_whole(message.get("time_ms", 0), "time_ms"),
            tt_hit_rate=_number(message.get("tt_hit_rate", 0.0), "tt_hit_rate", 0, 1),
            partial=_flag(message.get("partial", False), "partial"),
            playouts=_optional_whole(message.get("playouts"), "playouts"),
            id=_reply_id(message),
        )


@dataclass(frozen=True, slots=True)
class BestMove:
    """``bestmove``: the answer of a think; ``reason`` says why the search ended.

    ``reason`` ``"overloaded"`` means no search process searched this think
    in time (the server was overloaded): ``move`` is a legal fallback at
    depth 0, not a considered choice. ``"preempted"``: an analysis without
    a time limit was stopped after a long run because other thinks waited.
    """

    type: ClassVar[str] = "bestmove"

    move: str
    """The move to play: always a legal move."""
    score: Score
    """The score for the side to move (``{"value": 0}`` when ``depth`` is 0)."""
    depth: int
    """The last completed iteration; 0: no search result stands behind the move."""
    seldepth: int
    """The deepest ply reached."""
    pv: tuple[str, ...]
    """The principal variation, starting with ``move``."""
    nodes: int
    """Nodes searched."""
    time_ms: int
    """Milliseconds from when the server read the think."""
    reason: str
    """Why the search ended: ``depth``, ``nodes``, ``time``, ``stopped``, ``proven``,
    ``only_move``, ``overloaded``, ``preempted``, ``worker_lost`` or ``engine_error``."""
    queued_ms: int = 0
    """How long the think waited for a search process (0 from servers that do not say)."""
    algorithm: str = ""
    """The search that answered (empty from servers before 0.3)."""
    playouts: int | None = None
    """Monte Carlo searches only: playouts made."""
    id: RequestId = None
    """The think's ``id``."""

    @property
    def overloaded(self) -> bool:
        """Whether the server answered without searching because it was overloaded."""
        return self.reason == "overloaded"

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {
            "type": self.type,
            "move": self.move,
            "score": self.score.to_dict(),
            "depth": self.depth,
            "seldepth": self.seldepth,
            "pv": list(self.pv),
            "nodes": self.nodes,
            "time_ms": self.time_ms,
            "queued_ms": self.queued_ms,
            "reason": self.reason,
            "algorithm": self.algorithm,
        }
        if self.playouts is not None:
            message["playouts"] = self.playouts
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> BestMove:
        """The answer in a ``bestmove`` message; :class:`ProtocolViolation` if malformed."""
        move = _text(_required(message, "move", "bestmove"), "move")
        if not move:
            _violation("move is the empty string")
        depth = _whole(message.get("depth", 0), "depth")
        return cls(
            move=move,
            score=score_from_wire(_required(message, "score", "bestmove")),
            depth=depth,
            seldepth=_whole(message.get("seldepth", depth), "seldepth"),
            pv=_strings(message.get("pv", []), "pv"),
            nodes=_whole(message.get("nodes", 0), "nodes"),
            time_ms=_whole(message.get("time_ms", 0), "time_ms"),
            reason=_text(message.get("reason", ""), "reason"),
            queued_ms=_whole(message.get("queued_ms", 0), "queued_ms"),
            algorithm=_text(message.get("algorithm", ""), "algorithm"),
            playouts=_optional_whole(message.get("playouts"), "playouts"),
            id=_reply_id(message),
        )


@dataclass(frozen=True, slots=True)
class TraceReply:
    """``trace``, the reply to a ``trace`` request: the traced search, node by node.

    Its fields on the wire are those of :class:`engine.search.trace.Trace`
    (``algorithm``, ``depth``, ``value``, ``best_move``, ``visited``,
    ``leaves``, ``nodes``, ``playouts``) and each node's those of
    :class:`engine.search.trace.TraceNode`.
    """

    type: ClassVar[str] = "trace"

    trace: Trace
    """The trace: the root's value and move, the counts, and every node."""
    id: RequestId = None
    """The ``trace`` request's ``id``."""

    def to_wire(self) -> dict[str, Any]:
        return with_id({"type": self.type, **self.trace.to_dict()}, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> TraceReply:
        """The trace in a ``trace`` reply; :class:`ProtocolViolation` if malformed."""
        try:
            trace = Trace.from_dict(dict(message))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            _violation(f"malformed trace reply ({type(error).__name__}: {error})")
        return cls(trace, _reply_id(message))


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """``error``: a request was rejected; the session is unchanged."""

    type: ClassVar[str] = "error"

    code: str
    """The error code (:class:`~protocol.errors.ErrorCode`; a newer server may send others)."""
    message: str
    """What was wrong, in words."""
    id: RequestId = None
    """The rejected request's ``id``, when it could be read."""
    legal_moves: tuple[str, ...] | None = None
    """``illegal_move`` only: the legal moves."""
    retry_after_ms: int | None = None
    """``overloaded`` only: how long to wait before trying again."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type, "code": str(self.code), "message": self.message}
        if self.legal_moves is not None:
            wire["legal_moves"] = list(self.legal_moves)
        if self.retry_after_ms is not None:
            wire["retry_after_ms"] = self.retry_after_ms
        return with_id(wire, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> ErrorMessage:
        """The error in an ``error`` message. Never raises: a malformed error is still an
        error (an unreadable code is ``"error"``, an unreadable field left out)."""
        raw_code = message.get("code")
        code = raw_code if isinstance(raw_code, str) and raw_code else ProtocolError.code
        text = message.get("message")
        legal = message.get("legal_moves")
        retry = message.get("retry_after_ms")
        return cls(
            code=code,
            message=text if isinstance(text, str) else code,
            id=_reply_id(message),
            legal_moves=tuple(legal) if _is_str_list(legal) else None,
            retry_after_ms=retry if _is_whole(retry) and retry >= 0 else None,
        )

    def exception(self) -> ProtocolError:
        """The exception of this error's code (:mod:`protocol.errors`), to raise."""
        return error_for(
            self.code,
            self.message,
            self.id,
            legal_moves=self.legal_moves,
            retry_after_ms=self.retry_after_ms if self.code == ErrorCode.OVERLOADED else None,
        )


Reply = Welcome | GameState | Info | BestMove | TraceReply | ErrorMessage

#: Each message the server sends, by its ``type``.
REPLIES: Mapping[str, Callable[[Mapping[str, Any]], Reply]] = {
    "welcome": Welcome.from_wire,
    "state": GameState.from_wire,
    "info": Info.from_wire,
    "bestmove": BestMove.from_wire,
    "trace": TraceReply.from_wire,
    "error": ErrorMessage.from_wire,
}
