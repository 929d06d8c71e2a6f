"""The one search driver: limits, deadlines, the stop signal, iterative deepening.

:class:`BudgetedSearch` is the base of every searcher
(:class:`engine.search.alphabeta.Searcher`,
:class:`engine.search.expectimax.ExpectimaxSearcher`,
:class:`engine.search.mcts.MctsSearcher`). Its :meth:`~BudgetedSearch.think`
is a template method: it owns the prologue (a finished game, a single
move), the iterative-deepening loop with its deadline checks and progress
reports, and the answer when a limit cuts the search short; a searcher
plugs in its own steps (:meth:`~BudgetedSearch._iterate` above all).

Inside an iteration a search counts nodes in ``self.nodes`` and calls
:meth:`BudgetedSearch._check_limits` whenever ``self.nodes`` reaches
``self._next_check``; that method raises :class:`SearchAborted` when a limit
or the stop signal ends the search, and the driver answers with the best
move so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, Final

from engine.errors import GameError
from engine.game import CHANCE, Game, Outcome
from engine.search.limits import MAX_DEPTH, Limits
from engine.search.request import SearchRequest, StopSignal
from engine.search.results import Info, SearchResult, SearchStats
from engine.search.score import WIN, Score
from engine.search.tt import TranspositionTable

#: ``Info.hashfull`` is in thousandths, as UCI reports it.
PERMILLE: Final = 1000
#: Nodes between two checks of the clock and the stop signal. The pure
#: engine searches about 70k-400k nodes/s and the compiled one 120k-1.4M
#: (``python -m bench.compiled_bench``; chess to tic-tac-toe), so 256 nodes
#: take at most about 4 ms: inside the server's 15 ms delivery margin. The
#: check itself (a clock read and a flag read, well under a microsecond)
#: costs under 0.5% of the nodes' time even in the compiled engine. A
#: backgammon node costs 25 us (an evaluation) to 1 ms (a move generation
#: for a double), so 256 of them are still a few milliseconds.
CHECK_INTERVAL: Final = 256


class SearchAborted(Exception):
    """Raised inside a search when a limit or the stop signal ends it.

    The message is the search's ``reason``: ``nodes``, ``stopped`` or ``time``.
    """


class BudgetedSearch:
    """The driver of a search; subclasses supply its steps.

    :meth:`think` runs, in order: arm the limits (:meth:`_prepare` lets a
    searcher get ready), refuse a chance state, answer a position without
    moves (:meth:`_no_moves`), let the searcher begin or answer at once
    (:meth:`_begin_search`), then iterate (:meth:`_iterate`, one iteration
    per depth, each followed by the searcher's :meth:`_after_iteration`)
    until a limit, a proof or the stop signal ends it, adopt
    the unfinished iteration's best move when a limit cut it
    (:meth:`_adopt_partial`), and answer (:meth:`_conclude`).
    """

    game: Game[Any, Any]
    #: The time source of the search: its start, deadlines and reports are
    #: read on it (``time.monotonic``, or a test's fake clock, which makes a
    #: timed search's course the same on a loaded machine as on an idle one).
    clock: Callable[[], float]
    nodes: int
    seldepth: int
    tt_probes: int
    tt_hits: int
    stats: SearchStats
    #: Monte Carlo playouts of the current search (0 for the other searches).
    playouts: int = 0
    #: Whether ``Info.nps`` counts playouts per second (MCTS) rather than nodes.
    rates_playouts: bool = False

    # Limits of the current search, armed by think; these defaults mean
    # "no search yet" (immutable class values, shadowed per instance).
    _start: float = 0.0
    _stop: StopSignal | None = None
    _on_info: Callable[[Info], None] | None = None
    _iteration_deadline: float | None = None
    _allotment: float | None = None
    _hard_deadline: float | None = None
    _node_limit: int | None = None
    _next_check: int = 0
    #: Root lines asked for (``SearchRequest.multipv``).
    _multipv: int = 1
    #: Whether ``searchmoves`` cut the root's moves (its value is then not the position's).
    _root_restricted: bool = False

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.clock = time.monotonic

    # ------------------------------------------------------------------
    # The driver.

    def think(self, request: SearchRequest) -> SearchResult:
        """Search ``request.state`` within its limits and return the best move found.

        The deadlines are the request's (planned when the caller read the
        request, so a queued search is charged its wait) or planned from
        its limits starting now. ``request.on_info`` is called after every
        completed iteration and when the best move changes inside one.
        Raises ``ValueError`` at a chance state: roll the dice first.
        """
        game = self.game
        state = request.state
        limits = request.limits
        self._reset_counters()
        self._arm(request)
        self._prepare()

        # 1. A finished game, or a position without moves, is answered unsearched.
        outcome = game.outcome(state)
        if outcome is None and game.to_move(state) == CHANCE:
            raise ValueError("think() needs a decision state: the dice are still to be rolled")
        root_moves = self._root_moves(state) if outcome is None else []
        root_moves = self._restrict_root(state, root_moves, request.searchmoves)
        if not root_moves:
            return self._no_moves(state, outcome)

        # 2. The searcher's own start; it may answer at once.
        early = self._begin_search(state, root_moves)
        if early is not None:
            return early

        # 3. Iterative deepening: one iteration per depth, none started
        #    after the iteration deadline; a limit reached inside one raises
        #    SearchAborted and the unfinished iteration's best may be kept.
        max_depth = self._max_depth(state, limits)
        completed = 0
        reason = "depth"
        try:
            for depth in range(1, max_depth + 1):
                if depth > 1 and self._should_stop_early():
                    reason = "stopped" if self._stop_requested() else "time"
                    break
                proven = self._iterate(state, depth, root_moves)
                completed = depth
                if self._on_info is not None:
                    for info in self._reports(state, depth):
                        self._on_info(info)
                if proven:
                    reason = "proven"
                    break
                timed = self._iteration_deadline is not None or self._stop is not None
                # A search asked for a depth or a node count, or for given
                # moves, is an analysis of the one move: it goes on (a
                # review, 2026-12-07: "go depth 4 searchmoves b8c6" stopped
                # at depth 1).
                asked = limits.depth is not None or limits.nodes is not None or request.searchmoves
                if len(root_moves) == 1 and timed and not asked:
                    reason = "only_move"  # one iteration found it legal: enough
                    break
                # The searcher's own step between iterations (alpha-beta's
                # exact solver, once a searched move is in hand).
                settled = self._after_iteration(state, depth, root_moves)
                if settled is not None:
                    return settled
        except SearchAborted as aborted:
            reason = str(aborted)
            self._adopt_partial(completed)

        # 4. The answer.
        return self._conclude(state, limits, completed, max_depth, reason)

    # ------------------------------------------------------------------
    # The steps a searcher supplies (defaults for a deepening search).

    def _reset_counters(self) -> None:
        raise NotImplementedError

    def _table(self) -> TranspositionTable | None:
        """The search's transposition table, ``None`` for a search that keeps none (MCTS)."""
        return None

    def _prepare(self) -> None:
        """Get ready for a new search (after the limits are armed)."""

    def _root_moves(self, state: Any) -> list[Hashable]:
        """The root's moves, in the order the first iteration searches them."""
        return self.game.ordered_moves(state)

    def _terminal_value(self, state: Any, outcome: Outcome | None) -> int:
        """The value of a finished game (or a stalemate) for the side to move."""
        if outcome is None or outcome.winner is None:
            return 0
        return WIN if outcome.winner == self.game.to_move(state) else -WIN

    def _score_of(self, value: int, proven: bool) -> Score:
        """The reported score of an internal value; ``proven``: exact, not heuristic."""
        return Score.from_search(value, proven)

    def _no_moves(self, state: Any, outcome: Outcome | None) -> SearchResult:
        """The answer for a position without moves: no move, the game's result."""
        value = self._terminal_value(state, outcome)
        return self._answer(state, None, self._score_of(value, True), value, 0, (), "no_moves")

    def _begin_search(self, state: Any, root_moves: list[Hashable]) -> SearchResult | None:
        """Start the search proper; a result ends it at once."""
        return None

    def _after_iteration(
        self, state: Any, depth: int, root_moves: list[Hashable]
    ) -> SearchResult | None:
        """A step after iteration ``depth`` has completed and been reported; a result ends
        the search. It may raise :class:`SearchAborted` like an iteration (the
        completed iterations then give the answer)."""
        return None

    def _restrict_root(
        self, state: Any, root_moves: list[Hashable], searchmoves: tuple[str, ...]
    ) -> list[Hashable]:
        """``root_moves`` cut to ``searchmoves`` (their order kept); all of them when
        ``searchmoves`` is empty or names no legal move."""
        if not searchmoves or not root_moves:
            return root_moves
        game = self.game
        wanted = set()
        for text in searchmoves:
            try:
                wanted.add(game.parse_move(state, text))
            except GameError:
                continue  # not a move here: a controller's mistake, left out
        kept = [move for move in root_moves if move in wanted]
        if kept:
            self._root_restricted = True
        return kept or root_moves

    def _max_depth(self, state: Any, limits: Limits) -> int:
        """The deepest iteration: the limit's depth, within :data:`MAX_DEPTH`."""
        return MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))

    def _iterate(self, state: Any, depth: int, root_moves: list[Hashable]) -> bool:
        """Run iteration ``depth``; return whether the root's value is proven.

        Keeps the best root move first in ``root_moves``; raises
        :class:`SearchAborted` when a limit ends the search inside it.
        """
        raise NotImplementedError

    def _progress(self, state: Any, depth: int) -> Info | None:
        """The report after iteration ``depth`` (``None``: nothing to report yet)."""
        raise NotImplementedError

    def _reports(self, state: Any, depth: int) -> list[Info]:
        """The reports after iteration ``depth``: one per root line, best first."""
        info = self._progress(state, depth)
        return [] if info is None else [info]

    def _adopt_partial(self, completed: int) -> None:
        """After an abort: keep the unfinished iteration's best if it beat the last one."""

    def _conclude(
        self, state: Any, limits: Limits, completed: int, max_depth: int, reason: str
    ) -> SearchResult:
        """The answer once the loop ended for ``reason`` after ``completed`` iterations."""
        raise NotImplementedError

    # ------------------------------------------------------------------
    # The budget.

    def _arm(self, request: SearchRequest) -> None:
        """Arm the limits of ``request`` for a new search (after resetting ``self.nodes``)."""
        # The caller's deadlines, else planned here; the game's estimate of
        # the moves to come only for a clock to share out.
        deadlines = request.deadlines
        if deadlines is None:
            shared = request.limits.clock is not None
            moves_left = self.game.moves_left(request.state) if shared else None
            deadlines = request.planned(self.clock, moves_left)
        limits = request.limits
        self._start = deadlines.start
        self._stop = request.stop
        self._on_info = request.on_info
        self._iteration_deadline = deadlines.soft
        self._allotment = deadlines.allotted()
        self._hard_deadline = deadlines.hard
        self._node_limit = limits.nodes
        self._multipv = max(1, request.multipv)
        self._root_restricted = False
        self._next_check = (
            CHECK_INTERVAL if limits.nodes is None else min(CHECK_INTERVAL, limits.nodes)
        )

    def _check_limits(self) -> None:
        """Raise :class:`SearchAborted` if a limit is reached; else set the next check."""
        limit = self._node_limit
        if limit is not None and self.nodes > limit:
            self.nodes = limit
            raise SearchAborted("nodes")
        if self._stop is not None and self._stop.is_set():
            raise SearchAborted("stopped")
        if self._hard_deadline is not None and self.clock() >= self._hard_deadline:
            raise SearchAborted("time")
        next_check = self.nodes + CHECK_INTERVAL
        if limit is not None and next_check > limit + 1:
            next_check = limit + 1
        self._next_check = next_check

    def _should_stop_early(self) -> bool:
        """Whether to start no new iteration: stopped, or past the iteration deadline."""
        deadline = self._iteration_deadline
        return self._stop_requested() or (deadline is not None and self.clock() >= deadline)

    def _stop_requested(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def _elapsed_ms(self) -> int:
        return int((self.clock() - self._start) * 1000)

    # ------------------------------------------------------------------
    # Reports and answers.

    def _fallback_move(self, state: Any, root_moves: list[Hashable]) -> Hashable:
        """A legal move to answer with before any iteration completes.

        The table's move for the root when it has one (from an earlier
        search), else the first root move.
        """
        table = self._table()
        if table is not None:
            move = table.probe(self.game.key(state))[4]  # None on a miss
            if move is not None and move in root_moves:
                return move
        return root_moves[0]

    def _info(
        self,
        depth: int,
        score: Score,
        pv: tuple[str, ...],
        partial: bool,
        time_ms: int,
        multipv: int = 1,
    ) -> Info:
        """The search's progress now, at iteration ``depth`` with this score and line."""
        counted = self.playouts if self.rates_playouts else self.nodes
        table = self._table()
        return Info(
            depth=depth,
            seldepth=self.seldepth,
            score=score,
            pv=pv,
            nodes=self.nodes,
            time_ms=time_ms,
            nps=int(counted * 1000 / time_ms) if time_ms > 0 else 0,
            tt_hit_rate=self.tt_hits / self.tt_probes if self.tt_probes else 0.0,
            partial=partial,
            playouts=self.playouts,
            hashfull=int(table.fill_ratio() * PERMILLE) if table is not None else 0,
            multipv=multipv,
        )

    def _answer(
        self,
        state: Any,
        move: Hashable,
        score: Score,
        value: int,
        depth: int,
        pv: tuple[str, ...],
        reason: str,
    ) -> SearchResult:
        """The search's result, with the table counters copied into its statistics."""
        self.stats.tt_probes = self.tt_probes
        self.stats.tt_hits = self.tt_hits
        time_ms = self._elapsed_ms() if move is not None else 0
        return SearchResult(
            move=self.game.format_move(state, move) if move is not None else None,
            reason=reason,
            info=self._info(depth, score, pv, False, time_ms),
            stats=self.stats,
            move_value=move,
            value=value,
        )
