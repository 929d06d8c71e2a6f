"""The production search: iterative-deepening negamax alpha-beta.

A :class:`Searcher` keeps its transposition table and move-ordering tables
between searches of the same game, which is what a worker process holds on
to; :func:`engine.searchers.think` runs one search with a fresh one.

The search is divided as Stockfish divides its own:

* :meth:`~engine.search.budget.BudgetedSearch.think`, shared by every
  searcher, owns the iterative-deepening loop, the deadlines and the
  reporting; :meth:`Searcher._iterate` is one of its iterations;
* :meth:`Searcher._aspiration` searches one depth inside an aspiration window
  and widens it on failure;
* :meth:`Searcher._root` searches the root moves and remembers the best one
  proven so far, so that an aborted iteration can still contribute;
* :meth:`Searcher._negamax` is the node search, in numbered steps;
* :meth:`Searcher._quiesce` resolves captures at the horizon for games that
  name them;
* :class:`engine.search.solver.ExactSolver` finds exact values by
  null-window bisection over the possible results, as Pons' Connect Four
  solver does; a game with a solver of its own
  (:meth:`~engine.game.Game.exact_solver`) is solved by that one instead.

Limits are checked every :data:`~engine.search.budget.CHECK_INTERVAL`
nodes; the stop signal is anything with ``is_set()``. An aborted search
raises :class:`~engine.search.budget.SearchAborted` internally and answers
with the best move of the last completed iteration (or a better move proven
in the unfinished one), and always with a legal move when one exists.
Nothing here prints: progress goes to the request's ``on_info`` callback.

Why one module: one searcher: the node search with its numbered steps and
the root that drives it; move ordering, the table, threats and the solver
are already modules of their own. Hence the length (over 600 lines).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Final, final

from engine.game import Game, PositionSolver
from engine.search.budget import BudgetedSearch, SearchAborted
from engine.search.limits import MAX_DEPTH, Limits
from engine.search.ordering import pick_moves, sort_rest
from engine.search.request import SearchRequest
from engine.search.results import Info, SearchResult, SearchStats
from engine.search.score import WIN, WIN_THRESHOLD, Score, is_decisive
from engine.search.threats import ThreatCuts, has_threat_hooks
from engine.search.tt import DEFAULT_TT_SLOTS, EXACT, LOWER, UPPER, TranspositionTable

#: Aspiration windows start at this depth; shallower iterations are cheap
#: and their scores swing too much to centre a window on.
ASPIRATION_MIN_DEPTH: Final = 4
#: Late-move reductions: moves after this many at a node, at this remaining
#: depth or more, are searched one ply shallower first (values from the
#: Stockfish family's early, simple LMR).
LMR_MIN_MOVES: Final = 3
LMR_MIN_DEPTH: Final = 3
#: Null-move pruning: depth reduction R and the minimum depth where it is
#: tried (the classic R = 2 of Donninger's null-move paper).
NULL_MOVE_REDUCTION: Final = 2
NULL_MOVE_MIN_DEPTH: Final = 3
#: Logarithmic late-move reductions (games with ``log_reductions``): a late
#: quiet move is reduced by ``LMR_BASE + ln(depth) * ln(move number) /
#: LMR_DIVISOR`` plies, at least one, one less at PV nodes, never below
#: depth 1. The constants are Ethereal's published ones (0.75 and 2.25).
LMR_BASE: Final = 0.75
LMR_DIVISOR: Final = 2.25
#: Size of the reduction table, in depths and in move numbers.
LMR_TABLE_SIZE: Final = 64
#: Futility pruning (games with ``futility_margin``): reverse futility
#: ("static null move") at remaining depths up to this, ...
REVERSE_FUTILITY_MAX_DEPTH: Final = 3
#: ... and quiet moves skipped at frontier nodes up to this depth (Heinz's
#: futility pruning at depth 1, extended futility at depth 2).
FUTILITY_MAX_DEPTH: Final = 2
#: Killer moves kept per ply.
KILLERS_PER_PLY: Final = 2

#: Share of a timed or node-limited think that the exact solver may spend
#: on a position within the game's :attr:`~engine.game.Game.solver_reach`
#: (or its own solver's reach, :meth:`~engine.game.Game.exact_solver`)
#: before the deepening search takes over with what is left (and with the
#: solver's table entries, which are proven bounds). Half: the deepening
#: search then still has half of its budget, so a position the solver does
#: not prove in time is played about as well as without it.
SOLVER_SHARE: Final = 0.5
#: The deepening search's iterations before the exact solver starts on a
#: position within its reach: a searched move and its ``info`` are then in
#: hand, so a think stopped while the solver works answers with that move
#: (not an unsearched one), and the server answers the stop at once from
#: that report instead of waiting for the worker. Depth 4 costs a median of
#: 184 nodes (0.26 ms compiled; at most 422 nodes) on the first 100
#: positions of Pons' Test_L2_R2, 158 nodes on Test_L1_R1 (measured with
#: ``Searcher.think`` at ``Limits(depth=4)``).
SOLVE_AFTER_DEPTH: Final = 4

INFINITY: Final = WIN + 1


@dataclass(slots=True)
class _RootBest:
    move: Hashable
    value: int
    pv: list[Hashable]


def _reduction_table(logarithmic: bool) -> list[list[int]]:
    """Late-move reductions by ``[depth][move number]``: one ply, or the log formula."""
    table = [[1] * LMR_TABLE_SIZE for _ in range(LMR_TABLE_SIZE)]
    if logarithmic:
        for depth in range(1, LMR_TABLE_SIZE):
            for number in range(1, LMR_TABLE_SIZE):
                reduction = int(LMR_BASE + math.log(depth) * math.log(number) / LMR_DIVISOR)
                table[depth][number] = max(1, reduction)
    return table


@final  # direct calls between its methods once compiled (no vtable)
class Searcher(BudgetedSearch):
    """Searches positions of one game, keeping tables between searches.

    Create one per game (with fixed options) and call :meth:`think` for
    each position; the transposition table carries over, so analysing
    successive positions of one game gets faster. Not thread-safe: one
    search at a time. The iterative deepening is
    :class:`~engine.search.budget.BudgetedSearch`'s; this class supplies
    one iteration (:meth:`_iterate`) and the node search.
    """

    def __init__(self, game: Game[Any, Any], tt_slots: int = DEFAULT_TT_SLOTS) -> None:
        super().__init__(game)
        self.tt = TranspositionTable(tt_slots)
        # History heuristic: cutoff credit per move, one table per side.
        # A move never credited reads 0 (defaultdict): the sort below can
        # then use the table's own look-up as its key, with no key function.
        self.history: list[defaultdict[Hashable, int]] = [defaultdict(int), defaultdict(int)]
        self._threats = ThreatCuts(game) if has_threat_hooks(game) else None
        # The game's own exact solver, made on first use (its table can be
        # large): see _exact_value.
        self._own_solver: PositionSolver | None = None
        self._own_solver_made = False
        self._solver_nodes_before = 0
        self._has_quiescence = type(game).noisy_moves is not Game.noisy_moves
        self._has_null_move = type(game).null_move is not Game.null_move
        self._has_check_hook = type(game).in_check is not Game.in_check
        self._has_quiet_hook = type(game).is_quiet is not Game.is_quiet
        self._has_legality_hook = type(game).is_legal is not Game.is_legal
        # Only games whose positions can recur (chess) look for repetitions.
        self._has_repeats = type(game).repeats is not Game.repeats
        self._reductions = game.uses_reductions()
        self._futility_margin = game.futility_margin
        self._reduction_table = _reduction_table(game.log_reductions)
        self._reorder = game.uses_ordering_heuristics()
        self._reset_counters()

    def _reset_counters(self) -> None:
        self.nodes = 0
        self.seldepth = 0
        self.horizon = 0  # leaves scored heuristically; unchanged over a subtree = proven
        self.tt_probes = 0
        self.tt_hits = 0
        self.stats = SearchStats()
        self.killers: list[list[Hashable]] = [[] for _ in range(MAX_DEPTH + 64)]
        self.pv_table: list[list[Hashable]] = [[] for _ in range(MAX_DEPTH + 64)]
        if self._threats is not None:
            self._threats.reset()
        self._iter_best: _RootBest | None = None
        # The answer so far: the last completed iteration's best move, its
        # value, and whether that value is proven.
        self._best = _RootBest(None, 0, [])
        self._value = 0
        self._proven = False
        self._depth_limited = False
        # The exact solver's turn: after this iteration (0: none), for a
        # game that can last this many more plies.
        self._solve_after = 0
        self._solve_remaining = 0
        # Several root lines (SearchRequest.multipv): the last completed
        # iteration's lines, best first, and the line being searched.
        self._lines: list[_RootBest] = []
        self._line_index = 0

    # ------------------------------------------------------------------
    # One iteration of the driver (BudgetedSearch.think).

    def _table(self) -> TranspositionTable:
        return self.tt

    def _prepare(self) -> None:
        self._age_history()

    def _root_moves(self, state: Any) -> list[Hashable]:
        """The root's moves in the game's full (static, then dynamic) order."""
        moves = self.game.ordered_moves(state)
        return self.game.sort_moves(state, moves) if len(moves) > 1 else moves

    def _arm(self, request: SearchRequest) -> None:
        super()._arm(request)
        # A think with a depth limit asks for that depth: no solving.
        self._depth_limited = request.limits.depth is not None

    def _begin_search(self, state: Any, root_moves: list[Hashable]) -> SearchResult | None:
        self._best = _RootBest(self._fallback_move(state, root_moves), 0, [])
        if self._depth_limited or self._multipv > 1:
            return None  # the solver proves one move's value, not k lines
        own = self._game_solver()
        reach = own.reach if own is not None else self.game.solver_reach
        if reach <= 0:
            return None
        remaining = self.game.max_remaining_plies(state)
        if remaining is None or remaining > reach or remaining <= SOLVE_AFTER_DEPTH:
            return None  # out of reach, or the deepening search reaches the end itself
        self._solve_after = SOLVE_AFTER_DEPTH
        self._solve_remaining = remaining
        return None

    def _after_iteration(
        self, state: Any, depth: int, root_moves: list[Hashable]
    ) -> SearchResult | None:
        if depth != self._solve_after:
            return None
        return self._solve_first(state, root_moves, self._solve_remaining)

    def _solve_first(
        self, state: Any, root_moves: list[Hashable], remaining: int
    ) -> SearchResult | None:
        """Solve ``state`` within :data:`SOLVER_SHARE` of the budget; ``None``: not proven.

        The solver checks the same limits as the deepening search, narrowed
        to its share: a node limit and the time to the iteration deadline
        (else the hard one). Unproven, the limits are restored and the
        deepening search goes on from the nodes already counted, so the
        think never ends later than it would have without the solver.
        """
        node_limit, hard = self._node_limit, self._hard_deadline
        if node_limit is not None:
            self._node_limit = self.nodes + int(SOLVER_SHARE * (node_limit - self.nodes))
        target = self._iteration_deadline if self._iteration_deadline is not None else hard
        if target is not None:
            now = self.clock()
            share = now + SOLVER_SHARE * max(0.0, target - now)
            self._hard_deadline = share if hard is None else min(hard, share)
        self._next_check = self.nodes + 1  # check the narrowed limits at the first node
        depth = min(MAX_DEPTH, max(1, remaining))
        try:
            value, proof = self._exact_value(state, depth, root_moves)
        except SearchAborted as aborted:
            self._node_limit, self._hard_deadline = node_limit, hard
            self._next_check = self.nodes + 1
            self._forget_iteration_best()  # a null-window probe's best is no answer
            if str(aborted) == "stopped":
                raise  # the completed iterations answer
            return None
        self._node_limit, self._hard_deadline = node_limit, hard
        # The move whose fail-high raised the lower bound last achieves the
        # value; if none did, every move is lost as fast as possible.
        move = proof.move if proof is not None else root_moves[0]
        pv = proof.pv if proof is not None else [move]
        self._best = _RootBest(move, value, pv)
        self._value = value
        self._proven = True
        if self._on_info is not None:
            self._on_info(self._report(state, depth, self._best, False, True))
        return self._result(state, move, value, depth, pv, "proven", proven=True)

    def _game_solver(self) -> PositionSolver | None:
        """The game's own exact solver (:meth:`~engine.game.Game.exact_solver`), made once."""
        if not self._own_solver_made:
            self._own_solver = self.game.exact_solver()
            self._own_solver_made = True
        return self._own_solver

    def _exact_value(
        self, state: Any, depth: int, root_moves: list[Hashable]
    ) -> tuple[int, _RootBest | None]:
        """The exact value of ``state`` and its proof: the game's own solver, else :meth:`_bisect`.

        The game's solver counts its nodes into :attr:`nodes` and checks
        the search's limits through :meth:`_check_solver`, so it ends as the
        bisection would (:class:`SearchAborted`).
        """
        own = self._game_solver()
        if own is None:
            return self._bisect(state, depth, root_moves)
        self._solver_nodes_before = self.nodes
        plies, move, nodes = own.solve_position(state, self._check_solver)
        self.nodes = self._solver_nodes_before + nodes
        if plies > 0:
            value = WIN - plies
        elif plies < 0:
            value = -WIN - plies
        else:
            value = 0
        if move not in root_moves:
            move = root_moves[0]  # a game's solver answers with a legal move; keep it so
        return value, _RootBest(move, value, [move])

    def _check_solver(self, nodes: int) -> None:
        # Called by the game's solver with its own node count.
        self.nodes = self._solver_nodes_before + nodes
        if self.nodes >= self._next_check:
            self._check_limits()

    def _bisect(
        self, state: Any, depth: int, root_moves: list[Hashable]
    ) -> tuple[int, _RootBest | None]:
        """The exact value of ``state`` by null-window bisection, with its proof.

        Every probe searches to ``depth``, the plies the game can still
        last, so no leaf is heuristic; each null-window search of the root
        asks "is the value at least ``t``?". The probes test the outcome
        class first (a win? a draw or better?), then the distance, as Pons'
        Connect Four solver does. Returns the value and the root move whose
        fail-high last raised the lower bound (``None``: every move loses as
        fast as possible). Raises :class:`SearchAborted` when a limit ends it.
        """
        candidates = self._solver_values(depth)
        zero = candidates.index(0)
        low, high = 0, len(candidates) - 1
        proof: _RootBest | None = None
        while low < high:
            if low < zero + 1 <= high:
                probe = zero + 1  # is it a win at all?
            elif low < zero <= high:
                probe = zero  # is it at least a draw?
            else:
                probe = (low + high + 1) // 2
            threshold = candidates[probe]
            self._forget_iteration_best()
            value = self._root(state, depth, threshold - 1, threshold, root_moves)
            if value >= threshold:
                low = min(bisect_left(candidates, value, low, high + 1), high)
                proof = self._iter_best
                if proof is not None:
                    self._order_root(root_moves, proof.move)
            else:
                high = max(bisect_right(candidates, value, low, high + 1) - 1, low)
        return candidates[low], proof

    def _solver_values(self, depth: int) -> list[int]:
        """Every value a game of at most ``depth`` more plies can have, ascending.

        When only the player who just moved can win, the side to move wins
        only at odd plies and loses only at even ones, which halves the set.
        """
        if self.game.only_mover_wins:
            losses = range(2, depth + 1, 2)
            wins = range(1, depth + 1, 2)
        else:
            losses = wins = range(1, depth + 1)
        return sorted([ply - WIN for ply in losses] + [0] + [WIN - ply for ply in wins])

    def _max_depth(self, state: Any, limits: Limits) -> int:
        """The limit's depth; without one, no deeper than the game can last."""
        max_depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
        remaining = self.game.max_remaining_plies(state)
        if remaining is not None and limits.depth is None:
            max_depth = min(max_depth, max(1, remaining))
        return max_depth

    def _iterate(self, state: Any, depth: int, root_moves: list[Hashable]) -> bool:
        """Search one depth; proven when no leaf was heuristic or a mate is within it."""
        if self._multipv > 1 and len(root_moves) > 1:
            return self._iterate_lines(state, depth, root_moves)
        nodes_before = self.nodes
        horizon_before = self.horizon
        self._forget_iteration_best()
        value = self._aspiration(state, depth, self._value, root_moves)
        self._value = value
        best = self._iter_best or self._best
        self._best = best
        self._order_root(root_moves, best.move)
        self.stats.nodes_per_depth.append(self.nodes - nodes_before)
        self._proven = self.horizon == horizon_before or (
            is_decisive(value) and WIN - abs(value) <= depth
        )
        return self._proven

    def _iterate_lines(self, state: Any, depth: int, root_moves: list[Hashable]) -> bool:
        """Search one depth for the ``multipv`` best root moves, each with its exact score.

        The method is Stockfish's MultiPV: line 1 is the usual search of
        every root move; line ``i`` searches the root again without the
        ``i - 1`` moves already ranked, in an aspiration window around that
        line's score in the last iteration. Each line is a full alpha-beta
        search of the remaining moves, so its score is exact (within the
        depth) and the lines are the ``k`` best moves in order. The cost is
        up to ``k`` root searches per iteration; the table, filled by line 1,
        makes the later ones cheaper: three lines took 1.2-2.3 times the
        nodes of one at equal depth (chess depth 4, Connect Four depth 9,
        Othello depth 6 from their start positions; five lines 1.4-3.8
        times), measured by counting nodes, so the figures do not depend
        on the machine (``python -m bench.multipv_bench``).
        """
        nodes_before = self.nodes
        horizon_before = self.horizon
        previous = {line.move: line.value for line in self._lines}
        rest = list(root_moves)
        lines: list[_RootBest] = []
        for index in range(min(self._multipv, len(root_moves))):
            self._line_index = index
            self._forget_iteration_best()
            guess = previous.get(rest[0], self._value)
            value = self._aspiration(state, depth, guess, rest)
            line = self._iter_best or _RootBest(rest[0], value, [rest[0]])
            lines.append(line)
            rest.remove(line.move)
            if index == 0:
                # The whole root's search: the answer so far, even if a
                # limit cuts a later line short.
                self._best = line
                self._value = value
        self._line_index = 0
        self._lines = lines
        root_moves[:] = [line.move for line in lines] + rest
        self.stats.nodes_per_depth.append(self.nodes - nodes_before)
        self._proven = self.horizon == horizon_before or all(
            is_decisive(line.value) and WIN - abs(line.value) <= depth for line in lines
        )
        return self._proven

    def _progress(self, state: Any, depth: int) -> Info:
        return self._report(state, depth, self._best, False, self._proven)

    def _reports(self, state: Any, depth: int) -> list[Info]:
        if self._multipv <= 1 or len(self._lines) <= 1:
            return [self._progress(state, depth)]
        return [
            self._report(state, depth, line, False, self._proven, rank)
            for rank, line in enumerate(self._lines, 1)
        ]

    def _adopt_partial(self, completed: int) -> None:
        # The first root move searched is the last iteration's best; a
        # partial best that differs has beaten it at the deeper depth.
        partial = self._iter_best
        if self._line_index > 0:
            # Cut inside a later line: line 1 of this iteration has already
            # set the best move, and this partial best is of fewer moves.
            partial = None
            self._line_index = 0
        if partial is not None and (completed == 0 or partial.move != self._best.move):
            self._best = partial
            self._value = partial.value
        self._proven = False

    def _conclude(
        self, state: Any, limits: Limits, completed: int, max_depth: int, reason: str
    ) -> SearchResult:
        if completed == max_depth and reason == "depth" and limits.depth is None:
            reason = "proven" if self._proven else "depth"  # the game's end was in reach
        best = self._best
        return self._result(state, best.move, self._value, completed, best.pv, reason, self._proven)

    def _forget_iteration_best(self) -> None:
        # A method rather than an inline assignment: after ``self._iter_best
        # = None`` mypy would take the attribute to stay None across the
        # search call that sets it, and mypyc compiles in that type check.
        self._iter_best = None

    def _order_root(self, root_moves: list[Hashable], best_move: Hashable) -> None:
        root_moves.remove(best_move)
        root_moves.insert(0, best_move)

    def _age_history(self) -> None:
        # Halving keeps the ordering knowledge of earlier searches of the
        # same game while letting the current position's statistics win.
        self.history = [
            defaultdict(int, {move: credit >> 1 for move, credit in side.items() if credit > 1})
            for side in self.history
        ]

    def _aspiration(self, state: Any, depth: int, previous: int, root_moves: list[Hashable]) -> int:
        """Search one depth, first in a window around the previous score."""
        window = self.game.aspiration_window
        if window <= 0 or depth < ASPIRATION_MIN_DEPTH or is_decisive(previous):
            return self._root(state, depth, -INFINITY, INFINITY, root_moves)
        alpha, beta = previous - window, previous + window
        while True:
            value = self._root(state, depth, alpha, beta, root_moves)
            if value <= alpha:
                alpha = -INFINITY if alpha - window < -WIN_THRESHOLD else alpha - window
                window *= 2
            elif value >= beta:
                beta = INFINITY if beta + window > WIN_THRESHOLD else beta + window
                window *= 2
            else:
                return value

    def _root(
        self, state: Any, depth: int, alpha: int, beta: int, root_moves: list[Hashable]
    ) -> int:
        """Search every root move; remember the best one as soon as it is proven."""
        game = self.game
        self.nodes += 1
        best_value = -INFINITY
        best_move: Hashable = root_moves[0]
        horizon_before = self.horizon
        if self._threats is not None:
            self._threats.reached_safely[1] = False
        for index, move in enumerate(root_moves):
            child = game.play(state, move)
            searched_as_pv = index == 0 and beta - alpha > 1
            if index == 0:
                value = -self._negamax(child, depth - 1, -beta, -alpha, 1, searched_as_pv)
            else:
                value = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1, False)
                if alpha < value < beta:
                    searched_as_pv = True
                    value = -self._negamax(child, depth - 1, -beta, -alpha, 1, True)
            if value > best_value:
                best_value = value
                best_move = move
                if value > alpha:
                    alpha = value
                    pv = [move, *self.pv_table[1]] if searched_as_pv else [move]
                    self._iter_best = _RootBest(move, value, pv)
                    if index > 0 and depth > 1 and self._on_info is not None:
                        rank = self._line_index + 1
                        report = self._report(state, depth, self._iter_best, True, False, rank)
                        self._on_info(report)
                    if value >= beta:
                        break
        flag = LOWER if best_value >= beta else (EXACT if self._iter_best else UPPER)
        if self._line_index == 0 and not self._root_restricted:
            # Only a search of every root move gives the position's value.
            proven = self.horizon == horizon_before
            self.tt.store(game.key(state), depth, flag, best_value, best_move, proven)
        return best_value

    # ------------------------------------------------------------------
    # The node search.

    def _negamax(self, state: Any, depth: int, alpha: int, beta: int, ply: int, is_pv: bool) -> int:
        """The value of ``state`` for its mover, fail-soft within (alpha, beta).

        Russell & Norvig's ALPHA-BETA-SEARCH (figure 5.7) in negamax form:
        its TERMINAL-TEST and UTILITY are steps 2 and 3 (with a depth
        cutoff, as in their section 5.4), its loop over ACTIONS is step 9
        with "if v >= beta then return v" as the cutoff, and "alpha <-
        MAX(alpha, v)" where a move beats alpha. The other steps order,
        prune or extend the search to make it cheaper or sharper.
        """
        game = self.game

        # Step 1. Count the node; check limits every CHECK_INTERVAL nodes.
        nodes = self.nodes = self.nodes + 1
        if nodes >= self._next_check:
            self._check_limits()
        if ply > self.seldepth:
            self.seldepth = ply
        if is_pv:
            self.pv_table[ply] = []

        # Step 2. Finished games score exactly, preferring fast wins; a
        # position met again in the line searched is a draw.
        outcome = game.outcome(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return WIN - ply if outcome.winner == game.to_move(state) else ply - WIN
        if self._has_repeats and ply > 4 and game.repeats(state, ply):
            # A position met before in this line, after the root (so four
            # plies back at least), is a draw: whoever repeated it can
            # repeat it again. The value depends on the path, so it is not
            # a proof.
            self.horizon += 1
            return 0

        # Step 3. The horizon: a static evaluation or a quiescence search.
        if depth <= 0 or ply >= MAX_DEPTH:
            if self._has_quiescence and ply < MAX_DEPTH:
                return self._quiesce(state, alpha, beta, ply)
            self.horizon += 1
            return game.evaluate(state)

        # Step 4. Mate-distance pruning: no line from here can win faster
        # than the next ply or lose faster than this one.
        if alpha < ply - WIN:
            alpha = ply - WIN
        if beta > WIN - ply - 1:
            beta = WIN - ply - 1
        if alpha >= beta:
            return alpha

        # Step 5. Transposition table: a cutoff at non-PV nodes, a move to
        # try first everywhere.
        key = game.key(state)
        entry = self.tt.probe(key)
        tt_move: Hashable = entry[4]
        self.tt_probes += 1
        if entry[1] >= 0:  # a hit (a miss is searched to depth -1)
            self.tt_hits += 1
            if not is_pv and entry[1] >= depth:
                value: int = entry[3]
                if value >= WIN_THRESHOLD:
                    value -= ply
                elif value <= -WIN_THRESHOLD:
                    value += ply
                flag = entry[2]
                if (
                    flag == EXACT
                    or (flag == LOWER and value >= beta)
                    or (flag == UPPER and value <= alpha)
                ):
                    if not entry[5]:
                        self.horizon += 1
                    return value

        # Step 6. Threats (games that name immediate wins and safe moves:
        # Connect Four): an immediate win ends the node, moves that hand the
        # opponent one are skipped (engine.search.threats).
        moves: list[Hashable] | None = None
        threats = self._threats
        if threats is not None:
            decided = threats.cut(state, depth, alpha, beta, ply)
            if decided is not None:
                if is_pv and threats.winning is not None:
                    self.pv_table[ply] = [threats.winning]
                return decided
            alpha, beta, moves = threats.alpha, threats.beta, threats.safe

        # Step 7. Check extension; when not in check, futility and null-move
        # pruning, which need the static evaluation.
        in_check = self._has_check_hook and game.in_check(state)
        margin = self._futility_margin
        static_eval = 0
        have_static = False
        futile = False  # step 9 may skip quiet moves that give no check
        if in_check:
            depth += 1
        elif not is_pv and -WIN_THRESHOLD < beta < WIN_THRESHOLD and margin > 0:
            static_eval = game.evaluate(state)
            have_static = True
            # Step 7a. Reverse futility: far enough above beta, a quiet move
            # of the opponent's is not expected to bring it back this close
            # to the horizon.
            if depth <= REVERSE_FUTILITY_MAX_DEPTH and static_eval - margin * depth >= beta:
                self.horizon += 1  # a pruned node is never a proof
                return static_eval - margin * depth
            futile = depth <= FUTILITY_MAX_DEPTH and static_eval + margin * depth <= alpha
        if (
            not in_check
            and self._has_null_move
            and not is_pv
            and depth >= NULL_MOVE_MIN_DEPTH
            and beta < WIN_THRESHOLD
        ):
            passed = game.null_move(state)
            if passed is not None and not have_static:
                static_eval = game.evaluate(state)
            if passed is not None and static_eval >= beta:
                value = -self._negamax(
                    passed, depth - 1 - NULL_MOVE_REDUCTION, -beta, -beta + 1, ply + 1, False
                )
                if value >= beta:
                    self.horizon += 1  # a null-move cutoff is never a proof
                    return beta if value >= WIN_THRESHOLD else value

        # Step 8. Order the moves, lazily: the table's move first, then
        # captures and killers, then the rest (engine.search.ordering). A
        # game that can tell a move legal cheaply has its table move tried
        # alone, before the others are ordered: when it cuts, that work is
        # never done. Step 9 orders them otherwise, as here but for what
        # the history learned in the table move's subtree.
        side = game.to_move(state)
        sort_later = False
        deferred = False
        if moves is None:
            if self._has_legality_hook and tt_move is not None and game.is_legal(state, tt_move):
                moves = [tt_move]
                deferred = True
            else:
                moves, sort_later = self._ordered(
                    state, game.ordered_moves(state), tt_move, depth, ply, side
                )
        else:
            if threats is not None:
                threats.reached_safely[ply + 1] = True
            moves, sort_later = self._ordered(state, moves, tt_move, depth, ply, side)

        # Step 9. Search the moves: the first with the full window, the rest
        # with a null window (PVS), re-searched only when they beat alpha.
        alpha_before = alpha
        horizon_before = self.horizon
        best_value = -INFINITY
        best_move: Hashable = None  # the first move sets it: every value beats -INFINITY
        reduce_late = self._reductions and depth >= LMR_MIN_DEPTH and not in_check
        reductions = self._reduction_table[min(depth, LMR_TABLE_SIZE - 1)]
        leaf_children = depth == 1 and not self._has_quiescence
        if leaf_children and ply + 1 > self.seldepth:
            self.seldepth = ply + 1
        index = -1
        while index + 1 < len(moves) or deferred:
            index += 1
            if index == 1:  # the table's move did not cut
                if deferred:
                    deferred = False
                    moves, sort_later = self._ordered(
                        state, game.ordered_moves(state), tt_move, depth, ply, side
                    )
                    if len(moves) < 2:
                        break
                if sort_later:
                    sort_rest(game, state, moves)
            move = moves[index]
            child = game.play(state, move)
            if futile and index > 0 and game.is_quiet(state, move) and not game.in_check(child):
                self.horizon += 1  # skipped: the value is no longer proven
                continue
            searched_as_pv = is_pv and index == 0
            if leaf_children:
                # The horizon inline: a leaf's value is exact whatever the
                # window, and the call saved is a large share of leaf cost.
                nodes = self.nodes = self.nodes + 1
                if nodes >= self._next_check:
                    self._check_limits()
                outcome = game.outcome(child)
                if outcome is None:
                    self.horizon += 1
                    value = -game.evaluate(child)
                elif outcome.winner is None:
                    value = 0
                else:
                    value = WIN - ply - 1 if outcome.winner == side else ply + 1 - WIN
                searched_as_pv = False
            elif index == 0:
                value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1, is_pv)
            else:
                reduction = 0
                if reduce_late and index >= LMR_MIN_MOVES and game.is_quiet(state, move):
                    reduction = reductions[min(index + 1, LMR_TABLE_SIZE - 1)]
                    if is_pv and reduction > 1:
                        reduction -= 1
                    if reduction > depth - 2:
                        reduction = depth - 2
                    if reduction > 1 and game.in_check(child):
                        reduction = 1  # a checking move is kept near full depth
                value = -self._negamax(
                    child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, False
                )
                if reduction and value > alpha:
                    value = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1, False)
                if is_pv and alpha < value < beta:
                    searched_as_pv = True
                    value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1, True)
            if value > best_value:
                best_value = value
                best_move = move
                if value > alpha:
                    alpha = value
                    if is_pv:
                        tail = self.pv_table[ply + 1] if searched_as_pv else []
                        self.pv_table[ply] = [move, *tail]
                    if value >= beta:
                        self._note_cutoff(state, move, side, depth, ply, index)
                        break

        # Step 10. Store the result; "proven" when no leaf below was heuristic.
        if best_value >= beta:
            flag = LOWER
        elif best_value > alpha_before:
            flag = EXACT
        else:
            flag = UPPER
        self.tt.store(key, depth, flag, best_value, best_move, self.horizon == horizon_before, ply)
        return best_value

    def _ordered(
        self, state: Any, moves: list[Hashable], tt_move: Hashable, depth: int, ply: int, side: int
    ) -> tuple[list[Hashable], bool]:
        """Step 8's order and whether the rest waits for :func:`sort_rest` (:func:`pick_moves`)."""
        reorder = self._reorder
        return pick_moves(
            self.game,
            state,
            moves,
            tt_move,
            depth,
            self.killers[ply] if reorder else None,
            self.history[side] if reorder else None,
            self._has_quiet_hook,
        )

    def _quiesce(self, state: Any, alpha: int, beta: int, ply: int) -> int:
        """Search noisy moves only, standing pat on the static evaluation."""
        game = self.game
        self.horizon += 1
        in_check = self._has_check_hook and game.in_check(state)
        if not in_check:
            # Stand pat before generating: most quiescence nodes end here.
            stand_pat = game.evaluate(state)
            if stand_pat >= beta:
                return stand_pat
            noisy = game.noisy_moves(state) or []
            if not noisy:
                return stand_pat
            alpha = max(alpha, stand_pat)
            best_value = stand_pat
        else:
            noisy = game.noisy_moves(state) or []
            best_value = -INFINITY
            if not noisy:
                return game.evaluate(state)
        for move in noisy:
            child = game.play(state, move)
            self.nodes += 1
            if self.nodes >= self._next_check:
                self._check_limits()
            if ply + 1 > self.seldepth:
                self.seldepth = ply + 1
            outcome = game.quiescence_outcome(child)
            if outcome is not None:
                if outcome.winner is None:
                    value = 0
                else:
                    mover_won = outcome.winner == game.to_move(state)
                    value = WIN - ply - 1 if mover_won else ply + 1 - WIN
            elif ply + 1 >= MAX_DEPTH:
                value = -game.evaluate(child)
            else:
                value = -self._quiesce(child, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        return best_value

    # ------------------------------------------------------------------
    # Helpers of the node search.

    def _note_cutoff(
        self, state: Any, move: Hashable, side: int, depth: int, ply: int, index: int
    ) -> None:
        stats = self.stats
        stats.cutoffs += 1
        if index == 0:
            stats.first_move_cutoffs += 1
        if not self._reorder or not self.game.is_quiet(state, move):
            return
        killers = self.killers[ply]
        if move not in killers:
            killers.insert(0, move)
            del killers[KILLERS_PER_PLY:]
        history = self.history[side]
        history[move] += depth * depth

    # ------------------------------------------------------------------
    # Reporting.

    def _report(
        self,
        state: Any,
        depth: int,
        best: _RootBest,
        partial: bool,
        proven: bool,
        rank: int = 1,
    ) -> Info:
        pv = tuple(self._format_pv(state, best.pv))
        score = Score.from_search(best.value, proven)
        return self._info(depth, score, pv, partial, self._elapsed_ms(), rank)

    def _format_pv(self, state: Any, pv: list[Hashable]) -> list[str]:
        """Format the principal variation, cut at the first move that is not legal.

        A PV assembled from an aborted iteration can be stale; checking each
        move keeps what a client sees playable.
        """
        game = self.game
        texts = []
        for move in pv:
            if game.outcome(state) is not None or move not in game.legal_moves(state):
                break
            texts.append(game.format_move(state, move))
            state = game.play(state, move)
        return texts

    def _result(
        self,
        state: Any,
        move: Hashable,
        value: int,
        depth: int,
        pv: list[Hashable],
        reason: str,
        proven: bool,
    ) -> SearchResult:
        if move is not None and (not pv or pv[0] != move):
            pv = [move]
        pv_text = tuple(self._format_pv(state, pv))
        score = Score.from_search(value, proven)
        return self._answer(state, move, score, value, depth, pv_text, reason)
