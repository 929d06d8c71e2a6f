"""The requests, one record each: what a client sends.

``to_wire()`` gives the map to encode; ``from_wire(map, limits)`` reads and
checks one against the :class:`~protocol.limits.ServerLimits` in force,
raising the protocol error the server answers with. :func:`parse_request`
reads any request by its ``type``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.search.limits import Clock, Limits
from engine.search.trace import MAX_TRACE_DEPTH, MAX_TRACE_PLAYOUTS
from protocol.codec import with_id
from protocol.errors import BadMessage, LimitExceeded, RequestId, UnknownType, UnsupportedProtocol
from protocol.fields import bounded, clamped, optional_int, optional_str, read_request_id, read_seed
from protocol.limits import (
    CLOCK_NAMES,
    MAX_ALGORITHM_CHARS,
    MAX_CLOCK_MS,
    MAX_MOVE_CHARS,
    MAX_MOVES_TO_GO,
    MAX_MULTIPV,
    MAX_NAME_CHARS,
    MAX_TOKEN_CHARS,
    ServerLimits,
)

#: The protocol version this package speaks (``protocol.md`` section 2).
PROTOCOL_VERSION = 1
#: The limits a ``think`` may carry (a misspelt one is refused, not ignored).
LIMIT_NAMES = ("movetime_ms", "depth", "nodes", "clock")

_DEFAULT_LIMITS = ServerLimits()


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
        request_id = read_request_id(message)
        protocol = optional_int(message, "protocol", request_id)
        client = optional_str(message, "client", MAX_NAME_CHARS, request_id)
        token = optional_str(message, "token", MAX_TOKEN_CHARS, request_id)
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
        request_id = read_request_id(message)
        game = optional_str(message, "game", MAX_NAME_CHARS, request_id)
        if game is None:
            raise BadMessage("missing string field 'game'", request_id)
        options = message.get("options")
        if options is None:
            options = {}
        elif not isinstance(options, dict):
            raise BadMessage("'options' must be a map", request_id)
        position = optional_str(message, "position", limits.max_position_chars, request_id)
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
            game, request_id, dict(options), position, tuple(moves), read_seed(message, request_id)
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
        request_id = read_request_id(message)
        move = optional_str(message, "move", MAX_MOVE_CHARS, request_id)
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
        return cls(read_request_id(message))


def limits_to_wire(limits: Limits) -> dict[str, Any]:
    """``think.limits``: the limits that are set (``clock.moves_to_go`` and
    ``clock.opponent_ms`` when known)."""
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
        if clock.opponent_ms is not None:
            clock_wire["opponent_ms"] = clock.opponent_ms
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
    movetime = clamped(raw, "movetime_ms", 1, limits.max_movetime_ms, request_id)
    depth = clamped(raw, "depth", 1, limits.max_depth, request_id)
    nodes = clamped(raw, "nodes", 1, limits.max_nodes, request_id)
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
    time_ms = clamped(raw, "time_ms", 0, MAX_CLOCK_MS, request_id)
    if time_ms is None:
        raise BadMessage("'clock' needs an integer 'time_ms'", request_id)
    inc_ms = clamped(raw, "inc_ms", 0, MAX_CLOCK_MS, request_id) or 0
    moves_to_go = clamped(raw, "moves_to_go", 1, MAX_MOVES_TO_GO, request_id)
    opponent_ms = clamped(raw, "opponent_ms", 0, MAX_CLOCK_MS, request_id)
    return Clock(time_ms, inc_ms, moves_to_go, opponent_ms)


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
    cleanup: bool = False
    """Go: a move of a clean-up phase (every dead stone to be captured before the engine
    passes); written only when true."""
    multipv: int = 1
    """How many root lines to report (1 to 16, larger is clamped): each ``info`` then
    carries its line's rank in ``multipv``; written only when above 1."""

    def to_wire(self) -> dict[str, Any]:
        # the id before the limits: as clients have always written a think
        message: dict[str, Any] = {"type": self.type}
        if self.id is not None:
            message["id"] = self.id
        message["limits"] = limits_to_wire(self.limits)
        if self.algorithm is not None:
            message["algorithm"] = self.algorithm
        if self.cleanup:
            message["cleanup"] = True
        if self.multipv != 1:
            message["multipv"] = self.multipv
        return message

    @classmethod
    def from_wire(cls, message: Mapping[str, Any], limits: ServerLimits = _DEFAULT_LIMITS) -> Think:
        request_id = read_request_id(message)
        search_limits = limits_from_wire(message.get("limits"), limits, request_id)
        algorithm = optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
        cleanup = message.get("cleanup", False)
        if not isinstance(cleanup, bool):
            raise BadMessage(f"'cleanup' must be true or false, got {cleanup!r:.40}", request_id)
        multipv = clamped(message, "multipv", 1, MAX_MULTIPV, request_id)
        return cls(search_limits, request_id, algorithm, cleanup, multipv or 1)


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
        request_id = read_request_id(message)
        algorithm = optional_str(message, "algorithm", MAX_ALGORITHM_CHARS, request_id)
        depth = bounded(message, "depth", 1, MAX_TRACE_DEPTH, request_id)
        max_nodes = bounded(message, "max_nodes", 1, limits.max_trace_nodes, request_id)
        playouts = bounded(message, "playouts", 1, MAX_TRACE_PLAYOUTS, request_id)
        return cls(
            request_id, algorithm, depth, max_nodes, playouts, read_seed(message, request_id)
        )


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
        return cls(read_request_id(message))


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
    request_id = read_request_id(message)
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
