"""What the server sends, one record each: replies, progress and answers.

``to_wire()`` gives the map to encode; ``from_wire(map)`` reads and checks
one as a client receives it, raising
:class:`~protocol.errors.ProtocolViolation` (naming the field) for a message
that breaks the protocol and filling in the defaults of the fields an older
server leaves out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.search.score import Score
from engine.search.trace import Trace
from protocol.codec import with_id
from protocol.errors import ErrorCode, ProtocolError, RequestId, error_for
from protocol.fields import (
    flag,
    is_str_list,
    is_whole,
    mapping,
    number,
    optional_whole,
    reply_id,
    required,
    score_from_wire,
    show,
    strings,
    text,
    violation,
    whole,
)
from protocol.limits import BASIC_CLOCK_NAMES, CLOCK_NAMES, MAX_MOVETIME_MS, ServerLimits

#: The ``to_move`` of a state where dice are to be rolled.
CHANCE = "chance"
#: Games whose ``state`` carries ``gnubg_id`` (protocol.md section 9), null
#: at the opening roll: absent and null differ on the wire.
GNUBG_ID_GAMES = frozenset({"backgammon"})
_DEFAULT_LIMITS = ServerLimits()


@dataclass(frozen=True, slots=True)
class Welcome:
    """``welcome``, the reply to ``hello``: the server, its games and its limits."""

    type: ClassVar[str] = "welcome"

    protocol: int
    """The protocol version the server speaks (1)."""
    server: str
    """The server's name, version and engine build, ``alphabeta-arena 0.6.0 (compiled)``."""
    games: tuple[dict[str, Any], ...]
    """Each game offered: ``name``, ``title``, ``options`` (with their defaults),
    ``option_help``, ``players``, ``eval_unit``, ``win_odds_scale`` (the score
    units per unit of log-odds, :meth:`engine.search.score.Score.win_chance`)
    and ``algorithms`` (the default first)."""
    limits: ServerLimits = _DEFAULT_LIMITS
    """The server's caps (``protocol.md`` section 7)."""
    id: RequestId = None
    """The ``hello``'s ``id``."""
    clock_fields: tuple[str, ...] = CLOCK_NAMES
    """The ``clock`` fields the server reads: a referee sends no other (a
    server that does not say reads the basic three, a stricter one refuses
    what it does not know)."""

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
            "clock_fields": list(self.clock_fields),
        }
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> Welcome:
        """The server in a ``welcome`` message; :class:`ProtocolViolation` if malformed."""
        games = message.get("games", [])
        if not isinstance(games, list):
            violation(f"games is {show(games)}, not a list")
        for game in games:
            if not isinstance(game, Mapping) or not isinstance(game.get("name"), str):
                violation(f"a game in welcome is {show(game)}, not a map with a name")
        limits = ServerLimits.from_wire(mapping(message.get("limits", {}), "limits"))
        clock_fields = message.get("clock_fields", list(BASIC_CLOCK_NAMES))
        if not isinstance(clock_fields, list) or not all(isinstance(f, str) for f in clock_fields):
            violation(f"clock_fields is {show(clock_fields)}, not a list of names")
        return cls(
            protocol=whole(required(message, "protocol", "welcome"), "protocol"),
            server=text(message.get("server", ""), "server"),
            games=tuple(dict(game) for game in games),
            limits=limits,
            id=reply_id(message),
            clock_fields=tuple(clock_fields),
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
        to_move = required(message, "to_move", "state")
        if to_move != CHANCE:
            to_move = whole(to_move, "to_move")
        raw_result = message.get("result")
        result = None
        if raw_result is not None:
            raw_result = mapping(raw_result, "result")
            winner = required(raw_result, "winner", "result")
            result = GameResult(
                winner=None if winner is None else whole(winner, "result winner"),
                reason=text(required(raw_result, "reason", "result"), "result reason"),
                points=whole(raw_result.get("points", 1), "result points"),
            )
        raw_outcomes = message.get("outcomes")
        if raw_outcomes is None:
            raw_outcomes = []
        elif not isinstance(raw_outcomes, list):
            violation(f"outcomes is {show(raw_outcomes)}, not a list")
        outcomes = []
        for raw in raw_outcomes:
            item = mapping(raw, "outcome")
            outcomes.append(
                (
                    text(required(item, "move", "outcome"), "outcome move"),
                    number(required(item, "probability", "outcome"), "outcome probability", 0, 1),
                )
            )
        raw_options = message.get("options")
        options = {} if raw_options is None else dict(mapping(raw_options, "options"))
        seed = message.get("seed")
        gnubg_id = message.get("gnubg_id")
        history_san = message.get("history_san")
        return cls(
            game=text(required(message, "game", "state"), "game"),
            options=options,
            position=text(required(message, "position", "state"), "position"),
            to_move=to_move,
            legal_moves=strings(required(message, "legal_moves", "state"), "legal_moves"),
            history=strings(message.get("history", []), "history"),
            result=result,
            outcomes=tuple(outcomes),
            seed=None if seed is None else whole(seed, "seed"),
            gnubg_id=None if gnubg_id is None else text(gnubg_id, "gnubg_id"),
            history_san=None if history_san is None else strings(history_san, "history_san"),
            id=reply_id(message),
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
    multipv: int | None = None
    """The line's rank (1: the best move) in a think that asked for several lines;
    ``None`` (not written) in a single-line think."""

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
        if self.multipv is not None:
            message["multipv"] = self.multipv
        return with_id(message, self.id)

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> Info:
        """The report in an ``info`` message; :class:`ProtocolViolation` if malformed."""
        depth = whole(required(message, "depth", "info"), "depth")
        return cls(
            depth=depth,
            seldepth=whole(message.get("seldepth", depth), "seldepth"),
            score=score_from_wire(required(message, "score", "info")),
            pv=strings(message.get("pv", []), "pv"),
            nodes=whole(message.get("nodes", 0), "nodes"),
            nps=whole(message.get("nps", 0), "nps"),
            time_ms=whole(message.get("time_ms", 0), "time_ms"),
            tt_hit_rate=number(message.get("tt_hit_rate", 0.0), "tt_hit_rate", 0, 1),
            partial=flag(message.get("partial", False), "partial"),
            playouts=optional_whole(message.get("playouts"), "playouts"),
            multipv=optional_whole(message.get("multipv"), "multipv"),
            id=reply_id(message),
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
    ``only_move``, ``overloaded``, ``preempted``, ``worker_lost``, ``engine_error`` or ``engine``
    (an outside GTP engine answered by itself)."""
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
        move = text(required(message, "move", "bestmove"), "move")
        if not move:
            violation("move is the empty string")
        depth = whole(message.get("depth", 0), "depth")
        return cls(
            move=move,
            score=score_from_wire(required(message, "score", "bestmove")),
            depth=depth,
            seldepth=whole(message.get("seldepth", depth), "seldepth"),
            pv=strings(message.get("pv", []), "pv"),
            nodes=whole(message.get("nodes", 0), "nodes"),
            time_ms=whole(message.get("time_ms", 0), "time_ms"),
            reason=text(message.get("reason", ""), "reason"),
            queued_ms=whole(message.get("queued_ms", 0), "queued_ms"),
            algorithm=text(message.get("algorithm", ""), "algorithm"),
            playouts=optional_whole(message.get("playouts"), "playouts"),
            id=reply_id(message),
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
            violation(f"malformed trace reply ({type(error).__name__}: {error})")
        return cls(trace, reply_id(message))


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
        said = message.get("message")
        legal = message.get("legal_moves")
        retry = message.get("retry_after_ms")
        return cls(
            code=code,
            message=said if isinstance(said, str) else code,
            id=reply_id(message),
            legal_moves=tuple(legal) if is_str_list(legal) else None,
            retry_after_ms=retry if is_whole(retry) and retry >= 0 else None,
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
