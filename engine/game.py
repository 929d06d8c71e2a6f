"""The game formalism every game implements.

It follows the textbook definition of a game as a search problem (initial
state, player to move, actions, result, terminal test, utility) and adds what
an engine server needs: a text notation for moves and positions, a hash key
for the transposition table, a heuristic evaluation, and optional hints that
make the search faster without changing its result.

States are immutable values: :meth:`Game.play` returns a new state and never
changes its argument. In CPython a fresh small object (a tuple of ints or a
slotted dataclass) costs less than the bookkeeping of make/unmake, which needs
an undo record per move and a method call to restore it; immutable states
also pickle as they are, can be shared between the search and the session
that owns the game, and cannot be corrupted by an aborted search.

To add a game: write one module in :mod:`engine.games` with a subclass of
:class:`Game`, and add it to :data:`engine.catalog.GAME_PATHS`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

from mypy_extensions import mypyc_attr

from engine.errors import BadOptionsError, GameOverError, IllegalMoveError
from engine.records import reduce_record

S = TypeVar("S")
M = TypeVar("M", bound=Hashable)


class PositionSolver(Protocol):
    """A game's own exact solver (:meth:`Game.exact_solver`)."""

    #: ``think`` solves with it first any position with at most this many
    #: plies left (it replaces :attr:`Game.solver_reach` for the game).
    reach: int

    def solve_position(
        self, state: Any, check: Callable[[int], None] | None = None
    ) -> tuple[int, Any, int]:
        """``(signed plies, best move, nodes)`` of a position not yet over.

        Plies: positive, the mover wins in that many plies; negative, loses
        in that many; 0, a draw. ``check(nodes)`` is called every few
        thousand nodes, and whatever it raises ends the solve.
        """
        ...


#: Bound on the magnitude of :meth:`Game.evaluate`; proven wins and losses are
#: scored above it (see :mod:`engine.search.score`) so the two can never be confused.
EVAL_LIMIT: Final = 100_000

#: What :meth:`Game.to_move` returns at a chance state (dice to be rolled):
#: no player moves there; see :meth:`Game.chance_outcomes`.
CHANCE: Final = -1

#: The most legal moves :meth:`Game.quick_move` weighs one by one; past it,
#: the first listed. A quick move is chosen on the server's event loop (an
#: answer with no time to search), so its cost must stay small and bounded:
#: 64 children of chess or checkers cost well under a millisecond.
QUICK_MOVE_MAX_MOVES: Final = 64

#: Names of the searches a ``think`` may ask for (see :mod:`engine.searchers`).
ALPHABETA: Final = "alphabeta"
EXPECTIMINIMAX: Final = "expectiminimax"
MCTS: Final = "mcts"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    ``winner`` is a player index (0 moves first) or ``None`` for a draw;
    ``reason`` is a short human-readable phrase ("four in a row",
    "checkmate"); ``points`` is what the winner scores (1 except for gammons
    and backgammons).
    """

    winner: int | None
    reason: str
    points: int = 1

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


@dataclass(frozen=True, slots=True)
class Option:
    """One option a game accepts, with its default and a checker.

    ``check`` receives the raw value from the client and returns the value to
    use, or raises :class:`BadOptionsError` with a message that names the
    option and says what is allowed.
    """

    name: str
    default: Any
    description: str
    check: Callable[[str, Any], Any]


def _rebuild_game(cls: type[Game[Any, Any]], options: dict[str, Any]) -> Game[Any, Any]:
    return cls(**options)


def int_option(low: int, high: int) -> Callable[[str, Any], int]:
    """A checker for an integer option in ``low..high`` (bools are refused)."""

    def check(name: str, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadOptionsError(f"option {name!r} must be an integer, got {value!r}")
        if not low <= value <= high:
            raise BadOptionsError(f"option {name!r} must be between {low} and {high}, got {value}")
        return value

    return check


def bool_option(name: str, value: Any) -> bool:
    """A checker for a boolean option."""
    if not isinstance(value, bool):
        raise BadOptionsError(f"option {name!r} must be true or false, got {value!r}")
    return value


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC, Generic[S, M]):
    """Rules, notation and evaluation of one game with fixed options.

    A ``Game`` instance holds only its options and tables derived from them;
    it never holds a position, so one instance serves any number of states
    and may be shared freely. Subclasses set the class attributes below and
    implement the abstract methods; the hooks at the end have neutral
    defaults and exist only to make the search faster.
    """

    #: Registry name, as clients send it ("connect4").
    name: ClassVar[str]
    #: Human title ("Connect Four").
    title: ClassVar[str]
    #: Player names in turn order: index 0 moves first.
    players: ClassVar[tuple[str, str]]
    #: Options with defaults; see :class:`Option`.
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    #: What one unit of :meth:`evaluate` means, for the protocol documentation.
    eval_unit: ClassVar[str] = "heuristic points"
    #: Half-width of the root aspiration window, in evaluation units; 0 turns
    #: aspiration windows off (right for games whose evaluation is coarse).
    aspiration_window: ClassVar[int] = 0
    #: True when a game can end only in a draw or in a win for the player who
    #: just moved (Connect Four, tic-tac-toe, normal-play Nim): the side to
    #: move then wins only at odd plies, which the exact solver exploits.
    only_mover_wins: ClassVar[bool] = False
    #: The exact solver's reach in ``think``: a position with at most this
    #: many plies left (:meth:`max_remaining_plies`) is first solved by
    #: null-window bisection (:class:`engine.search.solver.ExactSolver`'s
    #: method) within a share of the think's budget, before any deepening
    #: search. 0 (the default): never; only games whose positions the
    #: solver proves quickly near the end set it (Connect Four).
    solver_reach: ClassVar[int] = 0
    #: Games of chance only: evaluation units per point of utility. The
    #: expectiminimax search scores a finished game as ``points *
    #: utility_scale`` so that it shares the evaluation's scale.
    utility_scale: ClassVar[int] = 1
    #: Games of chance only: a bound on ``|evaluate|`` and on ``|utility| *
    #: utility_scale``; the chance-node pruning (Star1/Star2) relies on it.
    value_bound: ClassVar[int] = EVAL_LIMIT
    #: Games of chance only: the expectiminimax root's move filter, ``(keep,
    #: margin)``. After the first iteration (each move's afterstate evaluated)
    #: the deeper iterations search only the ``keep`` best moves, and of those
    #: only the ones within ``margin`` evaluation units of the best: a forward
    #: pruning at the root that buys a deeper search of the plays that matter.
    #: ``None`` (the default): every move is searched at every depth.
    root_filter: ClassVar[tuple[int, int] | None] = None
    #: Evaluation units per ply of remaining depth for the alpha-beta
    #: search's futility pruning near the horizon: a node whose static
    #: evaluation beats beta by this much per ply is cut (reverse futility,
    #: "static null move"), and at a frontier node whose evaluation plus this
    #: much per ply cannot reach alpha, quiet moves that give no check are
    #: skipped (Heinz's futility pruning). 0 (the default): no such pruning,
    #: right for games whose evaluation can swing by any amount in one move.
    futility_margin: ClassVar[int] = 0
    #: Late-move reductions that grow with the logarithms of the depth and
    #: of the move's index (the formula of the Stockfish family), instead of
    #: one ply for every late move. Only read where :meth:`uses_reductions`.
    log_reductions: ClassVar[bool] = False
    #: The search a ``think`` gets when it names none: :data:`ALPHABETA`
    #: (:data:`EXPECTIMINIMAX` for games of chance) or :data:`MCTS`.
    default_algorithm: ClassVar[str] = ALPHABETA
    #: Evaluation units per unit of log-odds of winning: an evaluation ``v``
    #: for the side to move means a win probability of ``1 / (1 + exp(-v /
    #: win_odds_scale))``. Monte Carlo tree search uses it both ways: to
    #: judge a playout cut off by :attr:`playout_limit`, and to report its
    #: root win rate as a score in the game's unit.
    win_odds_scale: ClassVar[int] = 100
    #: Plies after which a Monte Carlo playout stops and :meth:`evaluate`
    #: judges the position (random play rarely ends a game of chess).
    playout_limit: ClassVar[int] = 200

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = self.check_options(options)

    def __reduce__(self) -> tuple[Callable[..., Game[S, M]], tuple[object, ...]]:
        # A game is its class and options: pickle those and rebuild the
        # derived tables on arrival (smaller, and works compiled as well).
        return _rebuild_game, (type(self), self.options)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Validate client-supplied options and fill in defaults.

        Raises :class:`BadOptionsError` naming the first bad option.
        """
        known = {option.name: option for option in cls.OPTIONS}
        for name in options:
            if name not in known:
                allowed = ", ".join(sorted(known)) or "none"
                raise BadOptionsError(f"{cls.name} has no option {name!r} (options: {allowed})")
        checked: dict[str, Any] = {}
        for option in cls.OPTIONS:
            if option.name in options:
                checked[option.name] = option.check(option.name, options[option.name])
            else:
                checked[option.name] = option.default
        return checked

    # ------------------------------------------------------------------
    # The game as a search problem.

    @abstractmethod
    def initial_state(self) -> S:
        """The position the game starts from."""

    @abstractmethod
    def to_move(self, state: S) -> int:
        """Index of the player to move (0 or 1), or :data:`CHANCE` where dice are rolled.

        Every move hands the turn to the other player, the move that ends
        the game included: the alpha-beta searches are negamax and score a
        child from the other side's point of view. A rule that lets a
        player move again (Kalah's extra turn, Dots and Boxes after a box)
        is one compound move, as checkers makes a multi-jump one move; a
        player with no move passes with a move of its own (Othello). Broken,
        the searches return wrong values, "proven" ones too, with no error
        (a contributor's Kalah, 2026-12-07);
        ``tests/engine/games/test_game_contract.py`` checks every game.
        """

    @abstractmethod
    def legal_moves(self, state: S) -> list[M]:
        """Every legal move; empty exactly when the game is over."""

    @abstractmethod
    def play(self, state: S, move: M) -> S:
        """The state after ``move``; ``move`` must be legal (not checked here)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """``None`` while the game goes on, else how it ended."""

    @abstractmethod
    def evaluate(self, state: S) -> int:
        """Heuristic value for the player to move, within ``±EVAL_LIMIT``.

        Only called on positions that are not over.
        """

    def repeats(self, state: S, plies: int) -> bool:
        """Whether ``state``, ``plies`` plies below a search's root, occurred in between.

        The rules end a game on the third occurrence. A search scores the
        second as a draw already when the first is inside its tree (after
        its root, the root left out), as Stockfish's ``Position::is_draw``
        does: whoever could repeat once can repeat again, so a perpetual
        check is seen four plies deep instead of eight. Positions of the
        game up to the root still need the rules' third occurrence. Games
        without repetitions keep this default.
        """
        return False

    def successors(self, state: S) -> list[tuple[M, S]]:
        """Each legal move and the state it leads to (games that make both at once override it)."""
        return [(move, self.play(state, move)) for move in self.legal_moves(state)]

    def evaluate_many(self, states: list[S]) -> list[int]:
        """:meth:`evaluate` of each state (none over), in order.

        The search calls it for the children of a node one move from its
        horizon; a game whose evaluation is cheaper in a batch (a neural
        network: one matrix product for all) overrides it, with the same
        values as :meth:`evaluate`.
        """
        return [self.evaluate(state) for state in states]

    @abstractmethod
    def key(self, state: S) -> int:
        """Transposition-table key: a non-negative int, equal for positions the search may merge.

        Distinct positions should collide rarely; the table stores the whole
        key, so a collision costs only a wasted slot, never a wrong value.
        """

    # ------------------------------------------------------------------
    # Notation.

    @abstractmethod
    def format_move(self, state: S, move: M) -> str:
        """The move in the game's text notation."""

    @abstractmethod
    def format_position(self, state: S) -> str:
        """The position in the game's text notation."""

    @abstractmethod
    def parse_position(self, text: str) -> S:
        """Parse a position; raise :class:`~engine.errors.BadPositionError`."""

    def parse_move(self, state: S, text: str) -> M:
        """Parse a legal move; raise :class:`~engine.errors.IllegalMoveError`.

        The default matches ``text`` against the formatted legal moves, which
        is exact by construction; games with many moves or alternative
        notations override it.
        """
        if self.outcome(state) is not None:
            raise GameOverError("the game is over: no move can be played")
        legal = self.legal_moves(state)
        for move in legal:
            if self.format_move(state, move) == text:
                return move
        raise IllegalMoveError(
            f"{text!r} is not a legal move here", [self.format_move(state, m) for m in legal]
        )

    # ------------------------------------------------------------------
    # Textbook names, for readers of the reference searches.

    def actions(self, state: S) -> list[M]:
        """Alias of :meth:`legal_moves` (ACTIONS in the textbook)."""
        return self.legal_moves(state)

    def result(self, state: S, move: M) -> S:
        """Alias of :meth:`play` (RESULT in the textbook)."""
        return self.play(state, move)

    def is_terminal(self, state: S) -> bool:
        """TERMINAL-TEST: is the game over?"""
        return self.outcome(state) is not None

    def utility(self, state: S, player: int) -> int:
        """UTILITY of a finished game for ``player``: +points, -points or 0."""
        outcome = self.outcome(state)
        if outcome is None:
            raise ValueError("utility of a position that is not terminal")
        if outcome.winner is None:
            return 0
        return outcome.points if outcome.winner == player else -outcome.points

    # ------------------------------------------------------------------
    # Convenience built on the above.

    def play_text(self, state: S, text: str) -> S:
        """Parse and play one move given in text; raises on an illegal move."""
        return self.play(state, self.parse_move(state, text))

    def format_moves(self, state: S, moves: Sequence[M]) -> list[str]:
        """Format a line of moves played one after another from ``state``."""
        texts = []
        for move in moves:
            texts.append(self.format_move(state, move))
            state = self.play(state, move)
        return texts

    # ------------------------------------------------------------------
    # Search hints. Each default is neutral; overriding one may only make
    # the search faster or stronger, never change which moves are legal.

    def ordered_moves(self, state: S) -> list[M]:
        """Legal moves, most promising first, by a cheap static ordering.

        The search also applies :meth:`sort_moves` where the remaining depth
        makes a costlier ordering pay.
        """
        return self.legal_moves(state)

    def quick_move(self, state: S) -> M:
        """A legal move chosen without a search, for an answer that has no time for one.

        One ply of the evaluation, with the opponent's captures in reply
        where the game names them (:meth:`noisy_moves`): a move that wins at
        once, else the move whose position the static evaluation likes best
        for the mover (a draw counts 0, a loss least). The first legal move was the answer
        before, the king's walk ``e1e2`` in an open game. ``state`` must
        have a legal move. Games with many moves (:data:`QUICK_MOVE_MAX_MOVES`)
        get the first listed, or override it (Go: the playout policy's move).
        """
        moves = self.legal_moves(state)
        if len(moves) == 1 or len(moves) > QUICK_MOVE_MAX_MOVES:
            return moves[0]
        mover = self.to_move(state)
        children = [self.play(state, move) for move in moves]
        values = [0] * len(moves)
        open_rows: list[int] = []
        for row, child in enumerate(children):
            outcome = self.outcome(child)
            if outcome is None:
                open_rows.append(row)
            elif outcome.winner is not None:
                values[row] = EVAL_LIMIT + 1 if outcome.winner == mover else -EVAL_LIMIT - 1
        if open_rows:
            scored = self.evaluate_many([children[row] for row in open_rows])
            for row, value in zip(open_rows, scored, strict=True):
                child = children[row]
                chance = self.chance_outcomes(child) is not None
                side = self.roller(child) if chance else self.to_move(child)
                if side != mover and not chance:
                    # The opponent's best capture in reply, where the game
                    # names them: one ply alone took a pawn defended by a
                    # knight (Nxe5 after 2...Nc6, a review of 2026-12-07).
                    value = self._best_capture_reply(child, value)
                values[row] = value if side == mover else -value
        best = max(range(len(moves)), key=values.__getitem__)  # the first of the best
        return moves[best]

    def _best_capture_reply(self, state: S, stand_pat: int) -> int:
        """The mover's value of ``state``: its static value, or better after a capture."""
        best = stand_pat
        for reply in self.noisy_moves(state) or []:
            after = self.play(state, reply)
            outcome = self.outcome(after)
            if outcome is not None:
                if outcome.winner == self.to_move(state):
                    return EVAL_LIMIT + 1
                value = 0 if outcome.winner is None else -EVAL_LIMIT - 1
            elif self.to_move(after) == self.to_move(state):
                value = self.evaluate(after)
            else:
                value = -self.evaluate(after)
            best = max(best, value)
        return best

    def winning_move(self, state: S) -> M | None:
        """A move that ends the game at once in a win for the mover, if cheap to find.

        Returning ``None`` is always correct; a game that can spot immediate
        wins cheaply (Connect Four with bitboards) saves the search a ply.
        """
        return None

    def sort_moves(self, state: S, moves: list[M]) -> list[M]:
        """``moves`` (legal in ``state``) sorted most promising first, dynamically.

        The search calls it where two plies or more remain, on the output of
        :meth:`ordered_moves` or :meth:`safe_moves`, and lazily: it first
        tries the transposition table's move and sorts only if that move
        does not cut off.
        """
        return moves

    def safe_moves(self, state: S) -> list[M] | None:
        """The moves that do not let the opponent win at once, in any order.

        ``None`` (the default) means the game cannot tell cheaply. An empty
        list means every move loses at once. The search uses it only where
        the opponent's immediate win would be seen anyway (two plies left),
        so the value never changes; it just skips those moves. The search
        asks :meth:`winning_move` first, so a move that wins need not be
        listed.
        """
        return None

    def noisy_moves(self, state: S) -> list[M] | None:
        """Moves a quiescence search should try at the horizon (captures).

        ``None`` (the default) means the game has no quiescence search and
        the horizon is evaluated statically.
        """
        return None

    def is_legal(self, state: S, move: M) -> bool:
        """Whether ``move`` is legal at ``state``, for a game that can tell cheaply.

        Only overridden where it costs little (chess reads the legal moves
        it keeps with the position): the alpha-beta search then tries a
        transposition table's move before ordering the other moves. The
        default is never called.
        """
        return move in self.legal_moves(state)

    def quiescence_outcome(self, state: S) -> Outcome | None:
        """How the game ended, as a quiescence search needs to know it (:meth:`outcome` by default).

        A game may leave out a test that is costly at every quiescence node
        and matters at few of them: chess does not look for a stalemate
        there (see its override).
        """
        return self.outcome(state)

    def is_quiet(self, state: S, move: M) -> bool:
        """Whether ``move`` is quiet (no capture or promotion).

        Only quiet moves feed the killer and history tables and may be
        reduced by late-move reductions.
        """
        return True

    def in_check(self, state: S) -> bool:
        """Whether the side to move is in check; checks are extended a ply."""
        return False

    def null_move(self, state: S) -> S | None:
        """The position with the side to move passing, when null-move pruning is safe.

        ``None`` (the default) disables null-move pruning; chess returns a
        state unless the side to move is in check or has only pawns.
        """
        return None

    def uses_ordering_heuristics(self) -> bool:
        """Whether killer moves and the history heuristic may reorder :meth:`ordered_moves`.

        True by default; a game whose own ordering is stronger than what the
        search learns (Connect Four's threat count) turns them off.
        """
        return True

    def uses_reductions(self) -> bool:
        """Whether late-move reductions pay off in this game (big branching, good ordering)."""
        return False

    def exact_solver(self) -> PositionSolver | None:
        """A solver of this game's own, for the search to use instead of its null-window bisection.

        ``None`` (the default): the search's own exact solver
        (:class:`engine.search.solver.ExactSolver`) within
        :attr:`solver_reach`. A game returns a new solver on each call
        (each searcher keeps its own, with its own table).
        """
        return None

    def max_remaining_plies(self, state: S) -> int | None:
        """An upper bound on the plies left in the game, if the game has one.

        The solver uses it to bound its score range; ``None`` means unknown.
        """
        return None

    # ------------------------------------------------------------------
    # Monte Carlo tree search. A playout plays moves chosen by
    # :meth:`playout_move` (random, with cheap hints) to the end of the game
    # or for :attr:`playout_limit` plies; a game with a faster way to play
    # out (Go, on a mutable board) overrides :meth:`playout` itself.

    def playout_move(self, state: S, rng: Random) -> M:
        """A move for a random playout: cheap, legal, and better than blind if the game can tell.

        The default takes an immediate win (:meth:`winning_move`) when the
        game offers one, else a uniformly random legal move. Only called on
        states that are not over and not chance states.
        """
        win = self.winning_move(state)
        if win is not None:
            return win
        moves = self.legal_moves(state)
        return moves[rng.randrange(len(moves))]

    def priors(self, state: S, moves: list[M]) -> tuple[list[int], list[int]] | None:
        """Prior knowledge of ``moves`` (the state's legal moves) for a tree search, or ``None``.

        Two lists as long as ``moves``: virtual visits, and virtual wins
        for the side to move out of them (whole numbers: small ones cost
        the tree nothing but a pointer), which a tree search
        (:mod:`engine.search.mcts`) adds to each move's own statistics as
        if those playouts had been played (progressive bias). The default
        knows nothing: ``None``, every move starts equal.
        """
        return None

    def moves_left(self, state: S) -> int | None:
        """The side to move's moves still to come, as a sudden-death clock is shared out.

        :func:`engine.search.limits.plan_deadlines` divides the time left by
        it when the clock names no moves to go. ``None`` (the default): the
        engines' usual assumption,
        :data:`~engine.search.limits.DEFAULT_MOVES_TO_GO`. A game whose length
        depends on its board says so (Go: a 19x19 game is several times as
        long as a 9x9 one).
        """
        return None

    def time_weight(self, state: S) -> float:
        """How much of a clock's even share a tree search should spend on ``state``.

        1.0 is the share :func:`engine.search.limits.plan_deadlines` plans
        (the time left over the moves to go); a game whose hard moves come
        in one phase says so (Go: more in the middle game, less in the
        opening and the endgame). :mod:`engine.search.mcts` scales its
        clock allotment by it, never past the hard deadline; a fixed move
        time is not scaled. The default: every move alike.
        """
        return 1.0

    def playout(self, state: S, rng: Random, max_plies: int) -> tuple[float, list[tuple[int, M]]]:
        """Play ``state`` out at random; return player 0's reward and the moves played.

        The reward is 1 for a win of player 0, 0 for a loss, 0.5 for a draw,
        or the win probability :meth:`win_probability` gives when the
        playout stops after ``max_plies`` plies. The moves come as
        ``(player, move)`` pairs in the order played (chance outcomes are
        not listed); the search uses them for its all-moves-as-first
        statistics (RAVE).
        """
        played: list[tuple[int, M]] = []
        for _ in range(max_plies):
            outcome = self.outcome(state)
            if outcome is not None:
                return self.reward(outcome), played
            chances = self.chance_outcomes(state)
            if chances is not None:
                state = self.play(state, sample_outcome(chances, rng))
                continue
            player = self.to_move(state)
            move = self.playout_move(state, rng)
            played.append((player, move))
            state = self.play(state, move)
        outcome = self.outcome(state)
        if outcome is not None:
            return self.reward(outcome), played
        return self.win_probability(state, 0), played

    def reward(self, outcome: Outcome) -> float:
        """Player 0's reward for a finished game: 1 (won), 0 (lost) or 0.5 (drawn)."""
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner == 0 else 0.0

    def win_probability(self, state: S, player: int) -> float:
        """``player``'s chance of winning from a position that is not over, by :meth:`evaluate`."""
        if self.chance_outcomes(state) is not None:
            mover = self.roller(state)
        else:
            mover = self.to_move(state)
        value = self.evaluate(state)
        if mover != player:
            value = -value
        return win_odds(value, self.win_odds_scale)

    # ------------------------------------------------------------------
    # Games of chance. A game with dice has chance states, where
    # :meth:`to_move` returns :data:`CHANCE`, :meth:`legal_moves` lists the
    # outcomes (so a client can name a roll as a move: ``play`` applies it)
    # and :meth:`chance_outcomes` gives their probabilities. Such a game is
    # searched by expectiminimax (:mod:`engine.search.expectimax`), which needs its
    # :meth:`evaluate` to be a positive linear transform of the expected
    # utility (an average of evaluations must mean something) bounded by
    # :attr:`value_bound`.

    def chance_outcomes(self, state: S) -> list[tuple[M, float]] | None:
        """At a chance state, every outcome with its probability; ``None`` elsewhere.

        Probabilities are positive and sum to 1; the search converts them to
        exact fractions (``Fraction(p).limit_denominator(10**6)``), so 1/36
        given as a float is exact. Finished games return ``None``.
        """
        return None

    def roller(self, state: S) -> int:
        """At a chance state, the player who moves after the roll.

        :meth:`evaluate` and the search score a chance state for this player.
        The default plays the first outcome and asks :meth:`to_move`; games
        override it when they know cheaply.
        """
        outcomes = self.chance_outcomes(state)
        if not outcomes:
            raise ValueError("roller() of a state that is not a chance state")
        return self.to_move(self.play(state, outcomes[0][0]))


def win_odds(value: int, win_odds_scale: int) -> float:
    """The chance of winning an evaluation ``value`` means (:attr:`Game.win_odds_scale`)."""
    return 1.0 / (1.0 + math.exp(-value / win_odds_scale))


def sample_outcome(outcomes: list[tuple[M, float]], rng: Random) -> M:
    """One chance outcome drawn with its probability."""
    draw = rng.random()
    for outcome, probability in outcomes:
        draw -= probability
        if draw < 0:
            return outcome
    return outcomes[-1][0]
