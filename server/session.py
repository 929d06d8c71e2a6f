"""One connection's game as a state machine, without I/O.

:meth:`Session.handle` takes a typed request and the time it arrived and
returns a :class:`Reaction`: the replies to send, and possibly a search to
start or a request to stop the running one. The asyncio layer carries out
the reaction and reports the search's end with :meth:`Session.finish_think`.
Rejected requests raise :class:`~server.protocol.ProtocolError`; the
session is unchanged by a rejected request.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import ENGINE_BUILD
from engine.errors import GameError
from engine.game import ALPHABETA, CHANCE, EXPECTIMINIMAX, MCTS, Game
from engine.registry import create_game, describe_games
from engine.search.limits import Deadlines, plan_deadlines
from engine.search.results import Info, SearchResult
from engine.search.trace import (
    DEFAULT_MAX_NODES,
    DEFAULT_TRACE_PLAYOUTS,
    DEFAULT_TRACE_SEED,
    check_request,
    default_depth,
)
from engine.searchers import algorithms, has_chance, resolve_algorithm
from server import SERVER_NAME, SERVER_VERSION
from server.external import ExternalEngine, offered_algorithms
from server.jobs import SearchJob, TraceJob
from server.protocol import (
    PROTOCOL_VERSION,
    ErrorCode,
    Hello,
    Move,
    NewGame,
    ProtocolError,
    Request,
    RequestId,
    Roll,
    ServerLimits,
    Stop,
    Think,
    TraceRequest,
    with_id,
)


@dataclass(slots=True)
class Reaction:
    """What the I/O layer must do for one request."""

    replies: list[dict[str, Any]] = field(default_factory=list)
    start: SearchJob | None = None
    trace: TraceJob | None = None
    stop: bool = False
    #: Close the connection with this code and reason (after the replies).
    close: tuple[int, str] | None = None


#: Close code for a client that must authenticate in ``hello`` and did not.
CLOSE_POLICY_VIOLATION = 1008


def game_error(error: GameError, request_id: RequestId) -> ProtocolError:
    """The protocol error for an engine :class:`GameError` (codes are shared)."""
    try:
        code = ErrorCode(error.code)
    except ValueError:
        code = ErrorCode.BAD_MESSAGE
    legal = getattr(error, "legal_moves", None)
    return ProtocolError(code, str(error), request_id, legal)


class Session:
    """The game of one connection: which game, its position, and the running think."""

    def __init__(
        self,
        limits: ServerLimits | None = None,
        hello_token: Callable[[str | None], bool] | None = None,
        externals: tuple[ExternalEngine, ...] = (),
    ) -> None:
        """``hello_token``, when given, checks the token this session must send in ``hello``
        before any other request (a browser on a server started with ``--token``).
        ``externals`` are the engine programs this server offers besides its own searches.
        """
        self.limits = limits or ServerLimits()
        self.externals = externals
        self._hello_token = hello_token
        self.client = ""
        self.game: Game[Any, Any] | None = None
        self.state: Any = None
        self.history: list[str] = []
        #: Chess only: the same history in SAN (``None`` for other games).
        self.history_san: list[str] | None = None
        #: The dice of a game of chance: seeded per game, the seed reported in ``state``.
        self.seed = 0
        self._dice = random.Random(0)
        self._thinking = False
        self._tracing = False
        self._think_id: RequestId = None
        self._think_algorithm = ALPHABETA
        #: The current position's first legal move, listed when the position
        #: was reported: a think's answer when no search can give one.
        self._fallback_move: str | None = None

    @property
    def thinking(self) -> bool:
        return self._thinking

    def handle(self, request: Request, received_at: float) -> Reaction:
        """React to one request read at ``received_at`` (``time.monotonic()``)."""
        if self._hello_token is not None:
            return self._authenticate(request)
        if isinstance(request, Hello):
            self.client = request.client
            return Reaction([self.welcome(request.id)])
        if isinstance(request, Stop):
            matches = request.id is None or request.id == self._think_id
            return Reaction(stop=self._thinking and matches)
        if self._thinking:
            raise ProtocolError(
                ErrorCode.BUSY,
                "a think is running on this connection: wait for its bestmove or send stop",
                request.id,
            )
        if self._tracing:
            raise ProtocolError(
                ErrorCode.BUSY,
                "a trace is running on this connection: wait for its reply",
                request.id,
            )
        if isinstance(request, NewGame):
            return Reaction([self._new_game(request)])
        if isinstance(request, Move):
            return Reaction([self._move(request)])
        if isinstance(request, Roll):
            return Reaction([self._roll(request)])
        if isinstance(request, TraceRequest):
            return Reaction(trace=self._trace(request, received_at))
        return Reaction(start=self._think(request, received_at))

    @property
    def authenticated(self) -> bool:
        """False while a token is still owed in ``hello``."""
        return self._hello_token is None

    def _authenticate(self, request: Request) -> Reaction:
        assert self._hello_token is not None
        if not isinstance(request, Hello):
            return Reaction(
                close=(CLOSE_POLICY_VIOLATION, "unauthorized: send hello with the token first")
            )
        if not self._hello_token(request.token):
            return Reaction(close=(CLOSE_POLICY_VIOLATION, "unauthorized: wrong or missing token"))
        self._hello_token = None
        return self.handle(request, 0.0)

    def welcome(self, request_id: RequestId = None) -> dict[str, Any]:
        return with_id(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "server": f"{SERVER_NAME} {SERVER_VERSION} ({ENGINE_BUILD})",
                "games": self._games(),
                "limits": self.limits.to_dict(),
            },
            request_id,
        )

    def _games(self) -> list[dict[str, Any]]:
        """``welcome.games``: the engine's games, with this server's external engines."""
        games = describe_games()
        for entry in games:
            entry["algorithms"] = offered_algorithms(
                entry["name"], entry["algorithms"], self.externals
            )
        return games

    def _new_game(self, request: NewGame) -> dict[str, Any]:
        try:
            game = create_game(request.game, request.options)
            state = (
                game.initial_state()
                if request.position is None
                else game.parse_position(request.position)
            )
            history: list[str] = []
            history_san: list[str] | None = [] if _san_of(game) is not None else None
            for text in request.moves:
                state = _play_canonical(game, state, text, history, history_san)
        except GameError as error:
            raise game_error(error, request.id) from None
        self.game, self.state, self.history = game, state, history
        self.history_san = history_san
        self._fallback_move = None
        self.seed = secrets.randbits(32) if request.seed is None else request.seed
        self._dice = random.Random(self.seed)
        return self.state_message(request.id)

    def _move(self, request: Move) -> dict[str, Any]:
        game = self._require_game(request.id)
        try:
            self.state = _play_canonical(
                game, self.state, request.move, self.history, self.history_san
            )
        except GameError as error:
            raise game_error(error, request.id) from None
        self._fallback_move = None
        return self.state_message(request.id)

    def _roll(self, request: Roll) -> dict[str, Any]:
        """Draw the chance outcome with the game's seeded generator and play it."""
        game = self._require_game(request.id)
        state = self.state
        if game.outcome(state) is not None:
            raise ProtocolError(ErrorCode.GAME_OVER, "the game is over: no roll", request.id)
        outcomes = game.chance_outcomes(state)
        if outcomes is None:
            raise ProtocolError(
                ErrorCode.ILLEGAL_MOVE,
                "no roll is due: the player to move must move",
                request.id,
                [game.format_move(state, move) for move in game.legal_moves(state)],
            )
        chosen = draw_outcome(self._dice, outcomes)
        self.history.append(game.format_move(state, chosen))
        self.state = game.play(state, chosen)
        self._fallback_move = None
        return self.state_message(request.id)

    def _think(self, request: Think, received_at: float) -> SearchJob:
        game = self._require_game(request.id)
        if game.outcome(self.state) is not None:
            raise ProtocolError(
                ErrorCode.GAME_OVER, "the game is over: there is nothing to think about", request.id
            )
        if game.to_move(self.state) == CHANCE:
            raise ProtocolError(
                ErrorCode.CHANCE_STATE,
                "the dice are to be rolled: send the roll as a move or send roll, then think",
                request.id,
            )
        # Planned once, here: the worker searches to these deadlines and the
        # pool answers by them.
        cap = received_at + self.limits.max_movetime_ms / 1000
        deadlines = plan_deadlines(request.limits, received_at).capped(cap)
        algorithm = self._algorithm(game, request)
        fallback = self._fallback_move
        if fallback is None:
            fallback = game.format_move(self.state, game.legal_moves(self.state)[0])
        self._thinking = True
        self._think_id = request.id
        self._think_algorithm = algorithm
        return SearchJob(
            request.id, game, self.state, request.limits, deadlines, fallback, algorithm
        )

    def _algorithm(self, game: Game[Any, Any], request: Think) -> str:
        """The search the think asked for, or the game's default; refused if not offered."""
        offered = offered_algorithms(game.name, algorithms(game), self.externals)
        try:
            return resolve_algorithm(game, request.algorithm, offered)
        except GameError as error:
            raise game_error(error, request.id) from None

    def _trace(self, request: TraceRequest, received_at: float) -> TraceJob:
        game = self._require_game(request.id)
        state = self.state
        if game.outcome(state) is not None:
            raise ProtocolError(
                ErrorCode.GAME_OVER, "the game is over: there is no search to trace", request.id
            )
        algorithm = request.algorithm
        if algorithm is None:
            algorithm = EXPECTIMINIMAX if has_chance(game) else ALPHABETA
        depth = request.depth if request.depth is not None else default_depth(game, state)
        max_nodes = request.max_nodes if request.max_nodes is not None else DEFAULT_MAX_NODES
        playouts = request.playouts if request.playouts is not None else DEFAULT_TRACE_PLAYOUTS
        seed = request.seed if request.seed is not None else DEFAULT_TRACE_SEED
        try:
            check_request(algorithm, depth, max_nodes, playouts)
        except GameError as error:
            raise game_error(error, request.id) from None
        deadlines = Deadlines(received_at, None, received_at + self.limits.max_trace_ms / 1000)
        self._tracing = True
        return TraceJob(
            request.id, game, state, algorithm, depth, max_nodes, playouts, seed, deadlines
        )

    def finish_trace(self) -> None:
        """The running trace has its reply (or is abandoned): the session is free again."""
        self._tracing = False

    def _require_game(self, request_id: RequestId) -> Game[Any, Any]:
        if self.game is None:
            raise ProtocolError(ErrorCode.NO_GAME, "no game yet: send new_game first", request_id)
        return self.game

    def finish_think(self, result: SearchResult, queued_ms: int) -> dict[str, Any]:
        """The ``bestmove`` for the running think; the session is free again.

        ``result.move`` is never ``None`` here: the session only thinks
        about positions with a legal move.
        """
        think_id = self._think_id
        self._thinking = False
        self._think_id = None
        message = {
            "type": "bestmove",
            "move": result.move,
            "score": result.info.score.to_dict(),
            "depth": result.info.depth,
            "seldepth": result.info.seldepth,
            "pv": list(result.info.pv),
            "nodes": result.info.nodes,
            "time_ms": result.info.time_ms,
            "queued_ms": queued_ms,
            "reason": result.reason,
            "algorithm": self._think_algorithm,
        }
        if self._think_algorithm == MCTS:
            message["playouts"] = result.info.playouts
        return with_id(message, think_id)

    def abandon_think(self) -> None:
        """Forget the running think without an answer (its client has gone)."""
        self._thinking = False
        self._think_id = None

    def info_message(self, info: Info) -> dict[str, Any]:
        """The ``info`` message for a progress report of the running think."""
        message = {
            "type": "info",
            "depth": info.depth,
            "seldepth": info.seldepth,
            "score": info.score.to_dict(),
            "pv": list(info.pv),
            "nodes": info.nodes,
            "nps": info.nps,
            "time_ms": info.time_ms,
            "tt_hit_rate": round(info.tt_hit_rate, 4),
            "partial": info.partial,
        }
        if self._think_algorithm == MCTS:
            message["playouts"] = info.playouts
        return with_id(message, self._think_id)

    def state_message(self, request_id: RequestId = None) -> dict[str, Any]:
        """The ``state`` message for the current position."""
        game = self._require_game(request_id)
        state = self.state
        outcome = game.outcome(state)
        legal = (
            []
            if outcome is not None
            else [game.format_move(state, move) for move in game.legal_moves(state)]
        )
        self._fallback_move = legal[0] if legal else None
        result = None if outcome is None else {"winner": outcome.winner, "reason": outcome.reason}
        to_move: int | str = game.to_move(state)
        message: dict[str, Any] = {
            "type": "state",
            "game": game.name,
            "options": _plain(game.options),
            "position": game.format_position(state),
            "to_move": to_move,
            "legal_moves": legal,
            "history": list(self.history),
            "result": result,
        }
        if self.history_san is not None:
            message["history_san"] = list(self.history_san)
        gnubg_id = _gnubg_id_of(game)
        if gnubg_id is not None:
            message["gnubg_id"] = gnubg_id(state)
        outcomes = game.chance_outcomes(state) if outcome is None else None
        if outcomes is not None:
            message["to_move"] = "chance"
            message["outcomes"] = [
                {"move": game.format_move(state, roll), "probability": probability}
                for roll, probability in outcomes
            ]
        if has_chance(game):
            message["seed"] = self.seed
            if result is not None:
                result["points"] = outcome.points if outcome is not None else 1
        return with_id(message, request_id)


def _san_of(game: Game[Any, Any]) -> Callable[[Any, Any], str] | None:
    """The game's SAN formatter (chess), or ``None`` for a game without SAN."""
    format_san = getattr(game, "format_san", None)
    return format_san if callable(format_san) else None


def _gnubg_id_of(game: Game[Any, Any]) -> Callable[[Any], str | None] | None:
    """The game's GNU Backgammon ID writer (backgammon), or ``None`` for other games."""
    gnubg_id = getattr(game, "gnubg_id", None)
    return gnubg_id if callable(gnubg_id) else None


def _play_canonical(
    game: Game[Any, Any],
    state: Any,
    text: str,
    history: list[str],
    history_san: list[str] | None,
) -> Any:
    """Play ``text`` and append it to ``history`` in the game's canonical notation.

    A move is stored as the game formats it, whatever spelling it was given
    in (chess SAN as UCI, checkers ``22x24`` in full, backgammon ``3-5`` as
    ``5-3``). ``history_san`` (chess) gets the same move in SAN. Raises
    :class:`GameError` for an illegal move, before changing either list.
    """
    move = game.parse_move(state, text)
    after = game.play(state, move)
    canonical = game.format_move(state, move)
    format_san = _san_of(game)
    san = format_san(state, move) if history_san is not None and format_san else None
    history.append(canonical)
    if history_san is not None and san is not None:
        history_san.append(san)
    return after


def draw_outcome(rng: random.Random, outcomes: list[tuple[Any, float]]) -> Any:
    """One chance outcome drawn with its probability.

    One ``rng.random()`` per draw, so the same seed replays the same rolls.
    """
    draw = rng.random()
    for outcome, probability in outcomes:
        draw -= probability
        if draw < 0:
            return outcome
    return outcomes[-1][0]  # rounding left the draw a hair above the total


def _plain(value: Any) -> Any:
    """Options with tuples as lists, so both encodings write the same thing."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value
