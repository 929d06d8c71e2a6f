"""The exact solver: a game's value by null-window bisection (MTD(f)-style).

:class:`ExactSolver` drives an alpha-beta :class:`~engine.search.alphabeta.Searcher`
to the end of the game: every search goes as deep as the game can last
(:meth:`~engine.game.Game.max_remaining_plies` bounds it), so no leaf is
scored heuristically, and each null-window search of the root asks "is the
value at least ``t``?", halving the set of values still possible. The
possible values are a loss in ``n`` plies, a draw and a win in ``n`` plies;
the probes test the outcome class first (a win? a draw or better?), then
the distance, as Pons' Connect Four solver does. The bisection itself is
the searcher's (``Searcher._bisect``): ``think`` uses it too, for positions
within the game's ``solver_reach``. A game with a solver of its own
(:meth:`~engine.game.Game.exact_solver`: Connect Four) is solved by that
one instead, here and in ``think`` (``Searcher._exact_value``).
"""

from __future__ import annotations

import time
from typing import Any, final

from engine.game import Game
from engine.search.alphabeta import Searcher
from engine.search.budget import SearchAborted
from engine.search.limits import MAX_DEPTH, Deadlines, Limits
from engine.search.request import SearchRequest, StopSignal
from engine.search.results import SearchResult
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
        try:
            value, proof = searcher._exact_value(state, depth, root_moves)
        except SearchAborted as aborted:
            move = searcher._fallback_move(state, root_moves)
            return searcher._result(state, move, 0, 0, [move], str(aborted), proven=False)
        # The move whose fail-high raised the lower bound last achieves the
        # value; if none did, every move is lost as fast as possible.
        move = proof.move if proof is not None else root_moves[0]
        pv = proof.pv if proof is not None else [move]
        return searcher._result(state, move, value, depth, pv, "proven", proven=True)


def solve(
    game: Game[Any, Any],
    state: Any,
    stop: StopSignal | None = None,
    tt_slots: int = DEFAULT_TT_SLOTS,
) -> SearchResult:
    """The exact value and a best move of ``state`` with a fresh :class:`ExactSolver`."""
    return ExactSolver(game, tt_slots).solve(state, stop)
