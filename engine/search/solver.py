"""The exact solver: a game's value by null-window bisection (MTD(f)-style).

:class:`ExactSolver` drives an alpha-beta :class:`~engine.search.alphabeta.Searcher`
to the end of the game: every search goes as deep as the game can last
(:meth:`~engine.game.Game.max_remaining_plies` bounds it), so no leaf is
scored heuristically, and each null-window search of the root asks "is the
value at least ``t``?", halving the set of values still possible. The
possible values are a loss in ``n`` plies, a draw and a win in ``n`` plies;
the probes test the outcome class first (a win? a draw or better?), then
the distance, as Pons' Connect Four solver does.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from typing import Any, final

from engine.game import Game
from engine.search.alphabeta import Searcher
from engine.search.budget import SearchAborted
from engine.search.limits import MAX_DEPTH, Deadlines, Limits
from engine.search.request import SearchRequest, StopSignal
from engine.search.results import SearchResult
from engine.search.score import WIN
from engine.search.tt import DEFAULT_TT_SLOTS


@final
class ExactSolver:
    """Solves positions of one game exactly, keeping its searcher's table between solves."""

    def __init__(self, game: Game[Any, Any], tt_slots: int = DEFAULT_TT_SLOTS) -> None:
        self.game = game
        self.searcher = Searcher(game, tt_slots)

    def solve(
        self,
        state: Any,
        stop: StopSignal | None = None,
        deadline: float | None = None,
        node_limit: int | None = None,
    ) -> SearchResult:
        """The exact value and a best move of ``state``.

        Ends with reason ``proven``, or ``stopped``/``time``/``nodes`` when
        ``stop``, ``deadline`` (``time.monotonic()`` seconds) or
        ``node_limit`` ends it first (the result is then the best move
        known, with a heuristic score of 0).
        """
        game = self.game
        searcher = self.searcher
        searcher._reset_counters()
        deadlines = Deadlines(time.monotonic(), None, deadline)
        searcher._arm(SearchRequest(state, Limits(nodes=node_limit), deadlines, stop))
        outcome = game.outcome(state)
        root_moves = searcher._root_moves(state) if outcome is None else []
        if not root_moves:
            return searcher._no_moves(state, outcome)
        remaining = game.max_remaining_plies(state)
        depth = MAX_DEPTH if remaining is None else min(MAX_DEPTH, max(1, remaining))
        candidates = self._values(depth)
        zero = candidates.index(0)
        low, high = 0, len(candidates) - 1
        proof = None
        try:
            while low < high:
                if low < zero + 1 <= high:
                    probe = zero + 1  # is it a win at all?
                elif low < zero <= high:
                    probe = zero  # is it at least a draw?
                else:
                    probe = (low + high + 1) // 2
                threshold = candidates[probe]
                searcher._forget_iteration_best()
                value = searcher._root(state, depth, threshold - 1, threshold, root_moves)
                if value >= threshold:
                    low = min(bisect_left(candidates, value, low, high + 1), high)
                    proof = searcher._iter_best
                    if proof is not None:
                        searcher._order_root(root_moves, proof.move)
                else:
                    high = max(bisect_right(candidates, value, low, high + 1) - 1, low)
        except SearchAborted as aborted:
            move = searcher._fallback_move(state, root_moves)
            return searcher._result(state, move, 0, 0, [move], str(aborted), proven=False)
        # The move whose fail-high raised the lower bound last achieves the
        # value; if none did, every move is lost as fast as possible.
        move = proof.move if proof is not None else root_moves[0]
        pv = proof.pv if proof is not None else [move]
        return searcher._result(state, move, candidates[low], depth, pv, "proven", proven=True)

    def _values(self, depth: int) -> list[int]:
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


def solve(
    game: Game[Any, Any],
    state: Any,
    stop: StopSignal | None = None,
    tt_slots: int = DEFAULT_TT_SLOTS,
) -> SearchResult:
    """The exact value and a best move of ``state`` with a fresh :class:`ExactSolver`."""
    return ExactSolver(game, tt_slots).solve(state, stop)
