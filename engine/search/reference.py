"""Reference searches that mirror the textbook pseudocode line for line.

These are MINIMAX-SEARCH and ALPHA-BETA-SEARCH from Russell & Norvig,
*Artificial Intelligence: A Modern Approach* (4th ed., figures 5.3 and 5.7),
with the cut-off test of section 5.3 (depth-limited, evaluation at the
cut-off). They are slow on purpose: no table, no ordering, no tricks, so a
student can read them next to the book and the tests can hold the
production search (:mod:`engine.search.alphabeta`) to their values.

Two details make the values comparable with the production search:

* UTILITY is scored with the distance to the end, as the production search
  does: a win ``p`` plies below the root is ``WIN - p`` for the root player
  and a loss ``p - WIN``, so faster wins are preferred;
* EVAL at the cut-off is the game's :meth:`~engine.game.Game.evaluate`,
  which scores for the side to move; for the root player it is negated
  when the opponent is to move.

Values are from the point of view of the player to move at the root.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from fractions import Fraction
from typing import Any, Final

from engine.game import CHANCE, Game
from engine.search.score import WIN


def _utility(game: Game[Any, Any], state: Any, player: int, ply: int) -> int:
    outcome = game.outcome(state)
    assert outcome is not None  # only called on terminal states, by construction
    if outcome.winner is None:
        return 0
    return WIN - ply if outcome.winner == player else ply - WIN


def _eval(game: Game[Any, Any], state: Any, player: int) -> int:
    value = game.evaluate(state)
    return value if game.to_move(state) == player else -value


def minimax_search(game: Game[Any, Any], state: Any, depth: int) -> tuple[float, Hashable]:
    """MINIMAX-SEARCH with a depth cut-off: returns (value, move) for the player to move."""
    player = game.to_move(state)

    def max_value(state: Any, ply: int) -> tuple[float, Hashable]:
        if game.is_terminal(state):
            return _utility(game, state, player, ply), None
        if ply >= depth:
            return _eval(game, state, player), None
        v: float = -math.inf
        move: Hashable = None
        for a in game.actions(state):
            v2, _ = min_value(game.result(state, a), ply + 1)
            if v2 > v:
                v, move = v2, a
        return v, move

    def min_value(state: Any, ply: int) -> tuple[float, Hashable]:
        if game.is_terminal(state):
            return _utility(game, state, player, ply), None
        if ply >= depth:
            return _eval(game, state, player), None
        v: float = math.inf
        move: Hashable = None
        for a in game.actions(state):
            v2, _ = max_value(game.result(state, a), ply + 1)
            if v2 < v:
                v, move = v2, a
        return v, move

    return max_value(state, 0)


def alpha_beta_search(game: Game[Any, Any], state: Any, depth: int) -> tuple[float, Hashable]:
    """ALPHA-BETA-SEARCH with a depth cut-off: returns (value, move) for the player to move."""
    player = game.to_move(state)

    def max_value(state: Any, alpha: float, beta: float, ply: int) -> tuple[float, Hashable]:
        if game.is_terminal(state):
            return _utility(game, state, player, ply), None
        if ply >= depth:
            return _eval(game, state, player), None
        v: float = -math.inf
        move: Hashable = None
        for a in game.actions(state):
            v2, _ = min_value(game.result(state, a), alpha, beta, ply + 1)
            if v2 > v:
                v, move = v2, a
                alpha = max(alpha, v)
            if v >= beta:
                return v, move
        return v, move

    def min_value(state: Any, alpha: float, beta: float, ply: int) -> tuple[float, Hashable]:
        if game.is_terminal(state):
            return _utility(game, state, player, ply), None
        if ply >= depth:
            return _eval(game, state, player), None
        v: float = math.inf
        move: Hashable = None
        for a in game.actions(state):
            v2, _ = max_value(game.result(state, a), alpha, beta, ply + 1)
            if v2 < v:
                v, move = v2, a
                beta = min(beta, v)
            if v <= alpha:
                return v, move
        return v, move

    return max_value(state, -math.inf, math.inf, 0)


def minimax(game: Game[Any, Any], state: Any, depth: int) -> int:
    """The minimax value of ``state`` searched ``depth`` plies deep."""
    return int(minimax_search(game, state, depth)[0])


def alphabeta(game: Game[Any, Any], state: Any, depth: int) -> int:
    """The alpha-beta value of ``state`` at ``depth`` plies (always equal to :func:`minimax`)."""
    return int(alpha_beta_search(game, state, depth)[0])


# ----------------------------------------------------------------------
# Games of chance: EXPECTIMINIMAX (Russell & Norvig, 4th ed., section 5.5).

#: Largest denominator of a probability: floats such as 1/36 become exact.
PROBABILITY_DENOMINATOR_LIMIT: Final = 10**6


def _exact(probability: float) -> Fraction:
    return Fraction(probability).limit_denominator(PROBABILITY_DENOMINATOR_LIMIT)


def _round_half_away(value: Fraction) -> int:
    """The nearest integer, halves away from zero (symmetric, so negating commutes)."""
    magnitude = int(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def _player_of(game: Game[Any, Any], state: Any) -> int:
    """The player a value of ``state`` is for: the mover, or at a chance state the roller."""
    player = game.to_move(state)
    return game.roller(state) if player == CHANCE else player


def expectiminimax_search(game: Game[Any, Any], state: Any, depth: int) -> tuple[int, Hashable]:
    """EXPECTIMINIMAX with a depth cut-off: (value, move) for the player to move at the root.

    MAX and MIN nodes as in MINIMAX; a chance node's value is the sum of its
    outcomes' values weighted by their probabilities. ``depth`` counts
    moves: a chance node uses none, so depth 1 plays each move and evaluates
    the position before the next roll. Three details put the values on the
    production search's integer scale (:mod:`engine.search.expectimax`):

    * UTILITY is the points won or lost times the game's ``utility_scale``;
    * EVAL is :meth:`~engine.game.Game.evaluate`, which scores for the
      player to move (at a chance state, the roller), negated when that is
      the opponent of the root player;
    * the weighted sum is exact (probabilities as fractions) and rounded to
      the nearest integer, halves away from zero.

    At a chance root the value is for the roller and the move is ``None``.
    """
    player = _player_of(game, state)

    def value(state: Any, depth: int) -> tuple[int, Hashable]:
        if game.is_terminal(state):
            return game.utility(state, player) * game.utility_scale, None
        if depth <= 0:
            evaluation = game.evaluate(state)
            return (evaluation if _player_of(game, state) == player else -evaluation), None
        outcomes = game.chance_outcomes(state)
        if outcomes is not None:
            total = sum(
                (_exact(p) * value(game.result(state, r), depth)[0] for r, p in outcomes),
                Fraction(0),
            )
            return _round_half_away(total), None
        maximizing = game.to_move(state) == player
        best: int | None = None
        best_move: Hashable = None
        for a in game.actions(state):
            v, _ = value(game.result(state, a), depth - 1)
            if best is None or (v > best if maximizing else v < best):
                best, best_move = v, a
        assert best is not None  # a state that is not terminal has a move
        return best, best_move

    return value(state, depth)


def expectiminimax(game: Game[Any, Any], state: Any, depth: int) -> int:
    """The expectiminimax value of ``state`` searched ``depth`` moves deep."""
    return expectiminimax_search(game, state, depth)[0]


def perft(game: Game[Any, Any], state: Any, depth: int) -> int:
    """Leaves ``depth`` plies below ``state``, every move made through the interface.

    The standard test of move generation (compare with published counts),
    and the work a search does per node: ``legal_moves`` and ``play`` only.
    A finished game is a leaf even above ``depth``.
    """
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if not moves:
        return 1
    leaves = 0
    for move in moves:
        leaves += perft(game, game.play(state, move), depth - 1)
    return leaves
