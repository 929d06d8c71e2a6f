"""One connection's game as a state machine, without I/O.

:meth:`Session.handle` takes a typed request and the time it arrived and
returns a :class:`Reaction`: the replies to send, and possibly a search to
start or a request to stop the running one. The asyncio layer carries out
the reaction and reports the search's end with :meth:`Session.finish_think`.
Replies are records of :mod:`protocol.records`. Rejected requests raise a
:class:`~protocol.errors.ProtocolError`; the session is unchanged by a
rejected request.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import ENGINE_BUILD
from engine.errors import GameError
from engine.game import ALPHABETA, CHANCE, EXPECTIMINIMAX, MCTS, Game
from engine.games.go import RESIGN_TEXT, ResignStreak
from engine.registry import create_game, describe_games
from engine.search.limits import Deadlines, plan_deadlines
from engine.search.request import PlayedLine
from engine.search.results import Info, SearchResult
from engine.search.score import Score
from engine.search.trace import (
    DEFAULT_MAX_NODES,
    DEFAULT_TRACE_PLAYOUTS,
    DEFAULT_TRACE_SEED,
    check_cost,
    check_request,
    default_depth,
)
from engine.searchers import algorithms, has_chance, resolve_algorithm
from protocol.errors import (
    Busy,
    ChanceState,
    GameOver,
    IllegalMove,
    NoGame,
    RequestId,
    from_game_error,
)
from protocol.limits import ServerLimits
from protocol.records import (
    CHANCE as CHANCE_TO_MOVE,
)
from protocol.records import (
    PROTOCOL_VERSION,
    BestMove,
    GameResult,
    GameState,
    Hello,
    Move,
    NewGame,
    Reply,
    Request,
    Roll,
    Stop,
    Think,
    TraceRequest,
    Welcome,
)
from protocol.records import (
    Info as InfoMessage,
)
from server import SERVER_NAME, SERVER_VERSION
from server.external import (
    ENGINE_ERROR,
    OWN_CLOCK,
    ExternalEngine,
    find_external,
    offered_algorithms,
)
from server.jobs import SearchJob, TraceJob
from server.programs.health import ProgramHealth


@dataclass(slots=True)
class Reaction:
    """What the I/O layer must do for one request."""

    replies: list[Reply] = field(default_factory=list)
    start: SearchJob | None = None
    trace: TraceJob | None = None
    stop: bool = False
    #: Close the connection with this code and reason (after the replies).
    close: tuple[int, str] | None = None


#: Close code for a client that must authenticate in ``hello`` and did not.
CLOSE_POLICY_VIOLATION = 1008


class Session:
    """The game of one connection: which game, its position, and the running think."""

    def __init__(
        self,
        limits: ServerLimits | None = None,
        hello_token: Callable[[str | None], bool] | None = None,
        externals: tuple[ExternalEngine, ...] = (),
        health: ProgramHealth | None = None,
    ) -> None:
        """``hello_token``, when given, checks the token this session must send in ``hello``
        before any other request (a browser on a server started with ``--token``).
        ``externals`` are the engine programs this server offers besides its own searches;
        ``health`` says which of them cannot be used.
        """
        self.limits = limits or ServerLimits()
        self.externals = externals
        self.health = health
        self._hello_token = hello_token
        self.client = ""
        self.game: Game[Any, Any] | None = None
        self.state: Any = None
        self.history: list[str] = []
        #: The position the game started from (``new_game``'s), as the game writes it.
        self.start_position = ""
        #: A key new at each ``new_game`` (``PlayedLine.game``): a program kept
        #: between games is told of a new one (UCI's ``ucinewgame``).
        self.game_key = ""
        #: Chess only: the same history in SAN (``None`` for other games).
        self.history_san: list[str] | None = None
        #: The seed of a game of chance's dice, reported in ``state``; each roll is
        #: drawn from it and the roll's place in the history (:func:`roll_generator`).
        self.seed = 0
        self._thinking = False
        self._tracing = False
        self._think_id: RequestId = None
        self._think_algorithm = ALPHABETA
        #: The external engine the running think asked for (``None``: our search).
        self._think_external: ExternalEngine | None = None
        self._think_multipv = 1
        #: The current position's first legal move, listed when the position
        #: was reported: a think's answer when no search can give one.
        self._fallback_move: str | None = None
        #: Per side, how many of our Monte Carlo searches in a row in this
        #: game answered ``resign``: the answer is passed on at
        #: RESIGN_CONSECUTIVE (protocol.md, section 9), the best move before.
        self._resign_streak = ResignStreak()

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
            raise Busy(
                "a think is running on this connection: wait for its bestmove or send stop",
                request.id,
            )
        if self._tracing:
            raise Busy("a trace is running on this connection: wait for its reply", request.id)
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

    def welcome(self, request_id: RequestId = None) -> Welcome:
        return Welcome(
            protocol=PROTOCOL_VERSION,
            server=f"{SERVER_NAME} {SERVER_VERSION} ({ENGINE_BUILD})",
            games=tuple(self._games()),
            limits=self.limits,
            id=request_id,
        )

    def _games(self) -> list[dict[str, Any]]:
        """``welcome.games``: the engine's games, with this server's external engines."""
        games = describe_games()
        for entry in games:
            entry["algorithms"] = offered_algorithms(
                entry["name"], entry["algorithms"], self.externals
            )
            unavailable = {} if self.health is None else self.health.unavailable(entry["name"])
            if unavailable:
                entry["unavailable"] = unavailable
        return games

    def _new_game(self, request: NewGame) -> GameState:
        try:
            game = create_game(request.game, request.options)
            state = (
                game.initial_state()
                if request.position is None
                else game.parse_position(request.position)
            )
            start_position = game.format_position(state)
            history: list[str] = []
            history_san: list[str] | None = [] if _san_of(game) is not None else None
            for text in request.moves:
                state = _play_canonical(game, state, text, history, history_san)
        except GameError as error:
            raise from_game_error(error, request.id) from None
        self.game, self.state, self.history = game, state, history
        self.start_position = start_position
        self.game_key = secrets.token_hex(8)
        self.history_san = history_san
        self._fallback_move = None
        self._resign_streak = ResignStreak()
        self.seed = secrets.randbits(32) if request.seed is None else request.seed
        return self.state_message(request.id)

    def _move(self, request: Move) -> GameState:
        game = self._require_game(request.id)
        try:
            self.state = _play_canonical(
                game, self.state, request.move, self.history, self.history_san
            )
        except GameError as error:
            raise from_game_error(error, request.id) from None
        self._fallback_move = None
        return self.state_message(request.id)

    def _roll(self, request: Roll) -> GameState:
        """Draw the chance outcome with the game's seeded generator and play it."""
        game = self._require_game(request.id)
        state = self.state
        if game.outcome(state) is not None:
            raise GameOver("the game is over: no roll", request.id)
        outcomes = game.chance_outcomes(state)
        if outcomes is None:
            raise IllegalMove(
                "no roll is due: the player to move must move",
                request.id,
                legal_moves=[game.format_move(state, move) for move in game.legal_moves(state)],
            )
        chosen = draw_outcome(roll_generator(self.seed, len(self.history)), outcomes)
        self.history.append(game.format_move(state, chosen))
        self.state = game.play(state, chosen)
        self._fallback_move = None
        return self.state_message(request.id)

    def _think(self, request: Think, received_at: float) -> SearchJob:
        game = self._require_game(request.id)
        if game.outcome(self.state) is not None:
            raise GameOver("the game is over: there is nothing to think about", request.id)
        if game.to_move(self.state) == CHANCE:
            raise ChanceState(
                "the dice are to be rolled: send the roll as a move or send roll, then think",
                request.id,
            )
        # Planned once, here: the worker searches to these deadlines and the
        # pool answers by them.
        cap = received_at + self.limits.max_movetime_ms / 1000
        algorithm = self._algorithm(game, request)
        # A UCI or GTP program is given the clock and keeps its own time, as
        # under cutechess: planned by ours, it was told a third of what it
        # had and lost "on time" with most of its clock left (a review,
        # 2026-12-07). Our searches and cmd: bots get our planning.
        external = find_external(self.externals, game.name, algorithm)
        own_clock = external is not None and external.protocol in OWN_CLOCK
        # The game's estimate of the moves to come: only for a clock we share out.
        shared = request.limits.clock is not None and not own_clock
        moves_left = game.moves_left(self.state) if shared else None
        deadlines = plan_deadlines(request.limits, received_at, moves_left, own_clock).capped(cap)
        fallback = self._fallback_or_first()
        self._thinking = True
        self._think_id = request.id
        self._think_algorithm = algorithm
        self._think_external = external
        self._think_multipv = request.multipv
        return SearchJob(
            request.id,
            game,
            self.state,
            request.limits,
            deadlines,
            fallback,
            algorithm,
            request.cleanup,
            request.multipv,
            line=PlayedLine(self.start_position, tuple(self.history), self.game_key),
        )

    def _algorithm(self, game: Game[Any, Any], request: Think) -> str:
        """The search the think asked for, or the game's default; refused if not offered."""
        offered = offered_algorithms(game.name, algorithms(game), self.externals)
        try:
            return resolve_algorithm(game, request.algorithm, offered)
        except GameError as error:
            raise from_game_error(error, request.id) from None

    def _trace(self, request: TraceRequest, received_at: float) -> TraceJob:
        game = self._require_game(request.id)
        state = self.state
        if game.outcome(state) is not None:
            raise GameOver("the game is over: there is no search to trace", request.id)
        algorithm = request.algorithm
        if algorithm is None:
            algorithm = EXPECTIMINIMAX if has_chance(game) else ALPHABETA
        depth = request.depth if request.depth is not None else default_depth(game, state)
        max_nodes = request.max_nodes if request.max_nodes is not None else DEFAULT_MAX_NODES
        playouts = request.playouts if request.playouts is not None else DEFAULT_TRACE_PLAYOUTS
        seed = request.seed if request.seed is not None else DEFAULT_TRACE_SEED
        try:
            check_request(algorithm, depth, max_nodes, playouts)
            # A few game calls: cheap enough for the event loop, and the
            # trace it refuses would hold a search process for nothing.
            check_cost(game, state, algorithm, depth, max_nodes)
        except GameError as error:
            raise from_game_error(error, request.id) from None
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
            raise NoGame("no game yet: send new_game first", request_id)
        return self.game

    def finish_think(self, result: SearchResult, queued_ms: int) -> BestMove:
        """The ``bestmove`` for the running think; the session is free again.

        ``result.move`` is never ``None`` here: the session only thinks
        about positions with a legal move.
        """
        think_id = self._think_id
        self._thinking = False
        self._think_id = None
        assert result.move is not None  # the session thinks only with a legal move
        external = self._think_external
        if self.health is not None and external is not None:
            self.health.observe(external.game, external.name, result.reason == ENGINE_ERROR)
        move, pv = self._confirmed_resignation(result.move, tuple(result.info.pv))
        return BestMove(
            move=move,
            score=result.info.score,
            depth=result.info.depth,
            seldepth=result.info.seldepth,
            pv=pv,
            nodes=result.info.nodes,
            time_ms=result.info.time_ms,
            reason=result.reason,
            queued_ms=queued_ms,
            algorithm=self._think_algorithm,
            playouts=result.info.playouts if self._think_algorithm == MCTS else None,
            id=think_id,
        )

    def _confirmed_resignation(self, move: str, pv: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """The answer and line to send for our search's ``move``.

        Our Go search's ``resign`` stands only as the RESIGN_CONSECUTIVE-th
        in a row for the side to move; before that the best move it found
        (the first of its line) is the answer. An external program's
        resignation is its own and passes unchanged.
        """
        if self._think_algorithm != MCTS or self.game is None:
            return move, pv
        # A think is only ever of a player's move (never the dice's).
        side = self.game.to_move(self.state)
        confirmed = self._resign_streak.confirms(side, move == RESIGN_TEXT)
        if move != RESIGN_TEXT or confirmed:
            return move, pv
        if pv and pv[0] != RESIGN_TEXT:
            return pv[0], pv
        best = self._fallback_or_first()
        return best, (best,)

    def _fallback_or_first(self) -> str:
        """A legal move of the current position, known without a search."""
        if self._fallback_move is not None:
            return self._fallback_move
        assert self.game is not None
        return self.game.format_move(self.state, self.game.legal_moves(self.state)[0])

    @staticmethod
    def fallback_bestmove(answer: BestMove, move: str) -> BestMove:
        """``answer`` (a ``bestmove`` that cannot be encoded) as the unsearched ``move``.

        Only the search's figures can be out of reach of an encoding; the
        id, times and algorithm are the server's own.
        """
        return dataclasses.replace(
            answer,
            move=move,
            score=Score(value=0),
            depth=0,
            seldepth=0,
            pv=(move,),
            nodes=0,
            reason=ENGINE_ERROR,
            playouts=None if answer.playouts is None else 0,
        )

    def abandon_think(self) -> None:
        """Forget the running think without an answer (its client has gone)."""
        self._thinking = False
        self._think_id = None

    def info_message(self, info: Info) -> InfoMessage:
        """The ``info`` message for a progress report of the running think."""
        return InfoMessage(
            depth=info.depth,
            seldepth=info.seldepth,
            score=info.score,
            pv=tuple(info.pv),
            nodes=info.nodes,
            nps=info.nps,
            time_ms=info.time_ms,
            tt_hit_rate=round(info.tt_hit_rate, 4),
            partial=info.partial,
            playouts=info.playouts if self._think_algorithm == MCTS else None,
            multipv=info.multipv if self._think_multipv > 1 else None,
            id=self._think_id,
        )

    def state_message(self, request_id: RequestId = None) -> GameState:
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
        chance = has_chance(game)
        result = None
        if outcome is not None:
            result = GameResult(outcome.winner, outcome.reason, outcome.points if chance else 1)
        to_move: int | str = game.to_move(state)
        outcomes = game.chance_outcomes(state) if outcome is None else None
        if outcomes is not None:
            to_move = CHANCE_TO_MOVE
        gnubg_id = _gnubg_id_of(game)
        return GameState(
            game=game.name,
            options=_plain(game.options),
            position=game.format_position(state),
            to_move=to_move,
            legal_moves=tuple(legal),
            history=tuple(self.history),
            result=result,
            outcomes=tuple(
                (game.format_move(state, roll), probability) for roll, probability in outcomes or ()
            ),
            seed=self.seed if chance else None,
            gnubg_id=gnubg_id(state) if gnubg_id is not None else None,
            history_san=tuple(self.history_san) if self.history_san is not None else None,
            id=request_id,
        )


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


def roll_generator(seed: int, place: int) -> random.Random:
    """The generator of the roll at ``place`` in a game's history (0 for its first move).

    A roll depends on the game's seed and on where it falls, not on how many
    rolls the connection asked for before: a client that takes a move back by
    starting the game again with the same seed and the moves so far (the
    terminal client's and the browser's ``undo``) gets the same dice after it,
    so it cannot fish for a better roll. ``place`` is below 2**32 (``moves``
    and a game's length are far shorter), so no two places share a generator.
    """
    return random.Random((seed << 32) | place)


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
