"""The production search for games of chance: iterative-deepening expectiminimax.

:class:`ExpectimaxSearcher` runs the driver every searcher shares
(:meth:`engine.search.budget.BudgetedSearch.think`: limits, stop signal,
progress reports, best move so far) for games whose states include chance
states (:meth:`engine.game.Game.chance_outcomes`); it supplies one
iteration, :meth:`ExpectimaxSearcher._iterate`.
:func:`engine.searchers.searcher_for` picks the right searcher for a game.

The tree has three kinds of node (Michie 1966; Russell & Norvig, section
5.5): a decision node takes the best move for its player, a chance node the
probability-weighted average of its outcomes. Values are negamax-style: a
node's value is for the player it belongs to (the mover, or at a chance
state the player who rolls), and a parent negates a child's value when the
child belongs to the opponent. ``depth`` counts moves; chance nodes use
none, so depth 1 is "each move, then evaluate the position before the next
roll". :func:`engine.search.reference.expectiminimax` is the textbook version the
tests hold this search to.

Pruning:

* decision nodes: fail-soft alpha-beta, with the transposition table's move
  first and its bounds as cutoffs;
* chance nodes: Ballard's Star1 (1983): the game's value bound ``U``
  (:attr:`~engine.game.Game.value_bound`) bounds what the outcomes not yet
  searched can add, which gives each outcome a window and lets the node cut
  off as soon as the weighted sum cannot reach the parent's window; and
  Star2: before the full search, each outcome is *probed* by searching only
  its first move, a lower bound on a node whose player maximises; the probed
  lower bounds replace ``-U`` in the Star1 windows and may cut the node
  before any outcome is searched in full. Probes are cheap at the frontier
  (one evaluation after a move generation that the full search reuses).

The root's move filter (:attr:`~engine.game.Game.root_filter`, GNU
Backgammon's idea): the first iteration evaluates every move's afterstate;
the deeper ones search only the few best of those. The search then looks
two moves deep at every move within a blitz budget, at the price of never
finding a play that the evaluation alone ranked far down. A filtered root
is never reported proven.

The frontier: a decision node one move from the horizon has only leaves
below it, and a chance node there only such decision nodes. Both are
searched in full and exactly, their leaves handed to the game's
:meth:`~engine.game.Game.evaluate_many` in one batch (for backgammon's
network, one matrix product for the plays of all 21 rolls). Windows would
spare few of those evaluations: the value bound that Star1/Star2 reason
with is far wider than the values met in play.

Values are ints on the evaluation's scale: a finished game scores its
points times the game's ``utility_scale`` (never the ``WIN - ply`` of the
deterministic search: an average needs a linear utility), and a chance
node's weighted sum is computed exactly with integer weights and rounded to
the nearest integer, halves away from zero, as the reference does. Rounding
is monotonic, so a bound on the exact sum is a bound on the rounded value
and pruning never changes the result.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from fractions import Fraction
from typing import Any, Final, final

from engine.game import CHANCE, Game, Outcome
from engine.search.budget import BudgetedSearch
from engine.search.limits import Limits
from engine.search.results import Info, SearchResult, SearchStats
from engine.search.score import Score
from engine.search.tt import DEFAULT_TT_SLOTS, EXACT, LOWER, UPPER, TranspositionTable

#: Largest denominator of a probability (the reference uses the same), so
#: floats such as 1/36 become exact integer weights.
PROBABILITY_DENOMINATOR_LIMIT: Final = 10**6


def _round_div(total: int, divisor: int) -> int:
    """``total / divisor`` rounded to the nearest integer, halves away from zero."""
    magnitude = (2 * abs(total) + divisor) // (2 * divisor)
    return magnitude if total >= 0 else -magnitude


@final  # direct calls between its methods once compiled (no vtable)
class ExpectimaxSearcher(BudgetedSearch):
    """Searches positions of one game of chance, keeping its table between searches.

    Same use as :class:`engine.search.alphabeta.Searcher`: one per game, then
    :meth:`think` per position (a decision state: the dice are known). Not
    thread-safe.
    """

    def __init__(self, game: Game[Any, Any], tt_slots: int = DEFAULT_TT_SLOTS) -> None:
        super().__init__(game)
        self.tt = TranspositionTable(tt_slots)
        self._scale = game.utility_scale
        self._bound = game.value_bound
        # Integer weights per tuple of probabilities (a game returns few distinct ones).
        self._weights: dict[tuple[float, ...], tuple[list[int], int]] = {}
        self.use_star1 = True
        self.use_star2 = True
        #: The game's root move filter (``Game.root_filter``), ``None`` when off.
        self.root_filter = game.root_filter
        self._reset_counters()

    def _reset_counters(self) -> None:
        self.nodes = 0
        self.seldepth = 0
        self.horizon = 0  # heuristic leaves; unchanged over a subtree = exact
        self.tt_probes = 0
        self.tt_hits = 0
        self.stats = SearchStats()
        self._iter_best: tuple[Hashable, int] | None = None
        # The answer so far: the last completed iteration's best move and value.
        self._best_move: Hashable = None
        self._value = 0
        # The root moves the deeper iterations search (the move filter's
        # survivors, best first); None until the first iteration chose them.
        self._candidates: list[Hashable] | None = None

    # ------------------------------------------------------------------
    # One iteration of the driver (BudgetedSearch.think).

    def _table(self) -> TranspositionTable:
        return self.tt

    def _terminal_value(self, state: Any, outcome: Outcome | None) -> int:
        """A finished game's points on the evaluation's scale (never ``WIN``: see the module)."""
        if outcome is None or outcome.winner is None:
            return 0
        points = outcome.points * self._scale
        return points if outcome.winner == self.game.to_move(state) else -points

    def _score_of(self, value: int, proven: bool) -> Score:
        # Expected points are never a proven win: always a value.
        return Score(value=value)

    def _begin_search(self, state: Any, root_moves: list[Hashable]) -> SearchResult | None:
        self._best_move = self._fallback_move(state, root_moves)
        return None

    def _iterate(self, state: Any, depth: int, root_moves: list[Hashable]) -> bool:
        """Search one depth; proven when every line ended within it."""
        nodes_before = self.nodes
        horizon_before = self.horizon
        self._iter_best = None
        moves = root_moves if self._candidates is None else self._candidates
        values: list[int] = []
        self._value = self._root(state, depth, moves, values)
        self._best_move = moves[0]
        if moves is not root_moves:  # the driver keeps the best first in its list too
            root_moves.remove(self._best_move)
            root_moves.insert(0, self._best_move)
        elif depth == 1 and self.root_filter is not None and len(moves) > 1:
            self._candidates = self._filter(moves, values, *self.root_filter)
        self.stats.nodes_per_depth.append(self.nodes - nodes_before)
        # With moves filtered out the root's value is not proven, whatever the lines did.
        everything = self._candidates is None or len(self._candidates) == len(root_moves)
        return self.horizon == horizon_before and everything

    @staticmethod
    def _filter(moves: list[Hashable], values: list[int], keep: int, margin: int) -> list[Hashable]:
        """The root move filter: the ``keep`` best moves within ``margin`` of the best.

        ``values`` are the first iteration's, exact (each move's afterstate
        evaluated), in the order of ``moves``. Ties keep the order.
        """
        ranked = sorted(range(len(moves)), key=lambda index: -values[index])
        best = values[ranked[0]]
        return [moves[index] for index in ranked[:keep] if values[index] >= best - margin]

    def _progress(self, state: Any, depth: int) -> Info:
        return self._report(state, depth, self._best_move, self._value, False)

    def _adopt_partial(self, completed: int) -> None:
        # The first root move searched is the previous best; a partial
        # best that differs has beaten it at the deeper depth.
        partial = self._iter_best
        if partial is not None and (completed == 0 or partial[0] != self._best_move):
            self._best_move, self._value = partial

    def _conclude(
        self, state: Any, limits: Limits, completed: int, max_depth: int, reason: str
    ) -> SearchResult:
        move, value = self._best_move, self._value
        pv = (self.game.format_move(state, move),)
        return self._answer(state, move, Score(value=value), value, completed, pv, reason)

    def _root(self, state: Any, depth: int, root_moves: list[Hashable], values: list[int]) -> int:
        """Search every root move with an open window; keep the best first in ``root_moves``.

        Fills ``values`` with each move's value, in the order ``root_moves``
        has on return: exact at depth 1, where every child is evaluated
        whatever the window; fail-soft bounds deeper.
        """
        game = self.game
        self.nodes += 1
        player = game.to_move(state)
        alpha = -self._bound - 1
        beta = self._bound + 1
        best_value = alpha
        best_index = 0
        for index, move in enumerate(root_moves):
            child = game.play(state, move)
            if self._owner(child) == player:
                value = self._search(child, depth - 1, alpha, beta, 1)
            else:
                value = -self._search(child, depth - 1, -beta, -alpha, 1)
            values.append(value)
            if value > best_value or index == 0:
                best_value, best_index = value, index
                alpha = max(alpha, value)
                self._iter_best = (move, value)
                if index > 0 and depth > 1 and self._on_info is not None:
                    self._on_info(self._report(state, depth, move, value, True))
        best = root_moves.pop(best_index)
        root_moves.insert(0, best)
        values.insert(0, values.pop(best_index))
        self.tt.store(game.key(state), depth, EXACT, best_value, best, False)
        return best_value

    # ------------------------------------------------------------------
    # The node search.

    def _owner(self, state: Any) -> int:
        """The player a value of ``state`` is for: the mover, or the roller at a chance state."""
        player = self.game.to_move(state)
        return self.game.roller(state) if player == CHANCE else player

    def _search(
        self,
        state: Any,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        moves: list[Hashable] | None = None,
    ) -> int:
        """The value of ``state`` for its owner, fail-soft within (alpha, beta).

        ``moves`` may pass the decision node's ordered moves when a probe
        already generated them.
        """
        game = self.game
        nodes = self.nodes = self.nodes + 1
        if nodes >= self._next_check:
            self._check_limits()
        if ply > self.seldepth:
            self.seldepth = ply

        outcome = game.outcome(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0
            points = outcome.points * self._scale
            return points if outcome.winner == self._owner(state) else -points
        if depth <= 0:
            self.horizon += 1
            return game.evaluate(state)

        key = game.key(state)
        entry = self.tt.probe(key)
        tt_move: Hashable = entry[4]
        self.tt_probes += 1
        if entry[1] >= 0:  # a hit (a miss is searched to depth -1)
            self.tt_hits += 1
            if entry[1] >= depth:
                value, flag = entry[3], entry[2]
                if (
                    flag == EXACT
                    or (flag == LOWER and value >= beta)
                    or (flag == UPPER and value <= alpha)
                ):
                    if not entry[5]:
                        self.horizon += 1
                    return int(value)

        outcomes = game.chance_outcomes(state)
        horizon_before = self.horizon
        if outcomes is not None:
            value, flag = self._chance(state, outcomes, depth, alpha, beta, ply)
            self.tt.store(key, depth, flag, value, None, self.horizon == horizon_before)
            return value

        if depth == 1:
            value, move = self._frontier(state, ply)
            self.tt.store(key, depth, EXACT, value, move, self.horizon == horizon_before)
            return value
        if moves is None:
            moves = game.ordered_moves(state)
        if tt_move is not None and len(moves) > 1 and tt_move in moves and moves[0] != tt_move:
            moves = [tt_move, *(move for move in moves if move != tt_move)]
        player = game.to_move(state)
        alpha_before = alpha
        best_value = -self._bound - 1
        best_move: Hashable = moves[0]
        for move in moves:
            child = game.play(state, move)
            if self._owner(child) == player:
                value = self._search(child, depth - 1, alpha, beta, ply + 1)
            else:
                value = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        self.stats.cutoffs += 1
                        if move == moves[0]:
                            self.stats.first_move_cutoffs += 1
                        break
        if best_value >= beta:
            flag = LOWER
        elif best_value > alpha_before:
            flag = EXACT
        else:
            flag = UPPER
        self.tt.store(key, depth, flag, best_value, best_move, self.horizon == horizon_before)
        return best_value

    def _frontier(self, state: Any, ply: int) -> tuple[int, Hashable]:
        """A decision node one move from the horizon: its exact value and best move.

        Every child is a leaf, so all are evaluated together
        (:meth:`~engine.game.Game.evaluate_many`: one batch for a network)
        instead of one by one inside a window. Only a beta cutoff could have
        spared some of them, and those evaluations cost less in the batch
        than the calls would one at a time.
        """
        successors = self.game.successors(state)
        player = self.game.to_move(state)
        values = self._leaf_values([child for _, child in successors], player, ply + 1)
        best = 0
        for index in range(1, len(values)):
            if values[index] > values[best]:
                best = index
        return values[best], successors[best][0]

    def _chance_frontier(
        self, children: list[Any], player: int, weights: list[int], total: int, ply: int
    ) -> int:
        """A chance node one move from the horizon: the exact weighted sum of its outcomes.

        Each outcome is a decision node of ``player`` whose children are
        leaves (:meth:`_frontier`); the leaves of all outcomes are evaluated
        in one batch. Every outcome is searched in full: with exact values
        Star1/Star2 would cut only after nearly all of them anyway, since the
        game's value bound is far wider than the values met in play.
        """
        game = self.game
        sizes: list[int] = []
        leaves: list[Any] = []
        for child in children:
            grandchildren = [grandchild for _, grandchild in game.successors(child)]
            sizes.append(len(grandchildren))
            leaves.extend(grandchildren)
        self.nodes += len(children)
        values = self._leaf_values(leaves, player, ply + 2)
        summed = 0
        start = 0
        for index, size in enumerate(sizes):
            summed += weights[index] * max(values[start : start + size])
            start += size
        return _round_div(summed, total)

    def _leaf_values(self, leaves: list[Any], player: int, ply: int) -> list[int]:
        """The values of ``leaves`` for ``player`` (to move before them), evaluated in one batch."""
        game = self.game
        nodes = self.nodes = self.nodes + len(leaves)
        if ply > self.seldepth:
            self.seldepth = ply
        values = [0] * len(leaves)
        pending: list[Any] = []
        rows: list[int] = []
        for row, leaf in enumerate(leaves):
            outcome = game.outcome(leaf)
            if outcome is None:
                pending.append(leaf)
                rows.append(row)
            elif outcome.winner is not None:
                points = outcome.points * self._scale
                values[row] = points if outcome.winner == player else -points
        if pending:
            self.horizon += len(pending)
            evaluated = game.evaluate_many(pending)
            for index, row in enumerate(rows):
                value = evaluated[index]
                values[row] = value if self._owner(pending[index]) == player else -value
        if nodes >= self._next_check:
            self._check_limits()
        return values

    def _chance(
        self,
        state: Any,
        outcomes: list[tuple[Hashable, float]],
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> tuple[int, int]:
        """A chance node's value and table flag: Star2 probes, then Star1 (see the module)."""
        game = self.game
        weights, total = self._integer_weights(outcomes)
        bound = self._bound
        owner = game.roller(state)
        children = [game.play(state, outcome) for outcome, _ in outcomes]
        if depth == 1 and all(
            game.to_move(child) == owner and game.outcome(child) is None for child in children
        ):
            return self._chance_frontier(children, owner, weights, total, ply), EXACT
        count = len(children)
        # Known lower bounds of each outcome's value, for the owner.
        lower = [-bound] * count
        child_moves: list[list[Hashable] | None] = [None] * count
        same_owner = [self._owner(child) == owner for child in children]
        star1 = self.use_star1

        if self.use_star2 and beta <= bound:
            lower_sum = -bound * sum(weights)
            for index, child in enumerate(children):
                if not same_owner[index] or game.outcome(child) is not None:
                    continue
                weight = weights[index]
                # The probe pays when it could lift the sum to beta.
                target = -((lower_sum - weight * lower[index] - beta * total) // weight)
                probe, moves = self._probe(child, depth, target, ply + 1)
                child_moves[index] = moves
                if probe > lower[index]:
                    lower_sum += weight * (probe - lower[index])
                    lower[index] = probe
                    if lower_sum >= beta * total:
                        return _round_div(lower_sum, total), LOWER

        searched = 0  # sum of weight * value over the outcomes searched
        rest_lower = sum(w * low for w, low in zip(weights, lower, strict=True))
        rest_upper = bound * sum(weights)
        for index, child in enumerate(children):
            weight = weights[index]
            rest_lower -= weight * lower[index]
            rest_upper -= weight * bound
            if star1:
                # Outcome values that decide the node on their own (Star1).
                child_alpha = (alpha * total - searched - rest_upper) // weight
                child_beta = -((searched + rest_lower - beta * total) // weight)
                if child_alpha >= bound:
                    return _round_div(searched + weight * bound + rest_upper, total), UPPER
                if child_beta <= lower[index]:
                    return _round_div(searched + weight * lower[index] + rest_lower, total), LOWER
                window_alpha = max(child_alpha, -bound - 1)
                window_beta = min(child_beta, bound + 1)
            else:
                child_alpha, child_beta = -bound - 1, bound + 1
                window_alpha, window_beta = child_alpha, child_beta
            if same_owner[index]:
                value = self._search(
                    child, depth, window_alpha, window_beta, ply + 1, child_moves[index]
                )
            else:
                value = -self._search(child, depth, -window_beta, -window_alpha, ply + 1)
            if star1:
                if value <= child_alpha:
                    return _round_div(searched + weight * value + rest_upper, total), UPPER
                if value >= child_beta:
                    return _round_div(searched + weight * value + rest_lower, total), LOWER
            searched += weight * value
        # Every outcome came back inside its window, so exact: the value is
        # exact whatever the node's own window.
        return _round_div(searched, total), EXACT

    def _probe(
        self, child: Any, depth: int, target: int, ply: int
    ) -> tuple[int, list[Hashable] | None]:
        """A lower bound on a decision node's value from its first move only (Star2).

        Returns ``(bound, moves)``; ``moves`` are the node's ordered moves
        for the full search to reuse. A table entry at sufficient depth
        answers without a search.
        """
        game = self.game
        if depth == 1:
            # One move from the horizon the whole node is one batch of
            # evaluations: search it in full, an exact value (and table entry).
            bound = self._bound + 1
            return self._search(child, depth, -bound, bound, ply), None
        key = game.key(child)
        entry = self.tt.probe(key)
        if entry[1] >= depth and entry[2] in (EXACT, LOWER):
            return int(entry[3]), None
        first: Hashable = entry[4]  # None on a miss
        moves = game.ordered_moves(child)
        if first is not None and first in moves and moves[0] != first:
            moves = [first, *(move for move in moves if move != first)]
        grandchild = game.play(child, moves[0])
        player = game.to_move(child)
        low = -self._bound - 1
        # An open lower edge: the result is exact or a lower bound.
        if self._owner(grandchild) == player:
            value = self._search(grandchild, depth - 1, low, target, ply + 1)
        else:
            value = -self._search(grandchild, depth - 1, -target, -low, ply + 1)
        return value, moves

    def _integer_weights(self, outcomes: list[tuple[Hashable, float]]) -> tuple[list[int], int]:
        probabilities = tuple(p for _, p in outcomes)
        cached = self._weights.get(probabilities)
        if cached is None:
            fractions = [
                Fraction(p).limit_denominator(PROBABILITY_DENOMINATOR_LIMIT) for p in probabilities
            ]
            total = math.lcm(*(f.denominator for f in fractions))
            cached = ([int(f * total) for f in fractions], total)
            self._weights[probabilities] = cached
        return cached

    # ------------------------------------------------------------------
    # Helpers.

    def _report(self, state: Any, depth: int, move: Hashable, value: int, partial: bool) -> Info:
        pv = (self.game.format_move(state, move),)
        return self._info(depth, Score(value=value), pv, partial, self._elapsed_ms())
