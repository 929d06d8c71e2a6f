"""Threat cuts: shortcuts for games that name immediate wins and safe moves.

A game may say cheaply which move wins at once
(:meth:`~engine.game.Game.winning_move`) and which moves do not hand the
opponent an immediate win (:meth:`~engine.game.Game.safe_moves`); Connect
Four does, from its threat bitboards, as Pons' solver uses them. The
alpha-beta node search (:meth:`engine.search.alphabeta.Searcher._negamax`)
asks :meth:`ThreatCuts.cut` before it orders its moves:

* a node with an immediate win is worth that win, and needs no search;
  without one, the best left is a win two plies on, which bounds beta;
* with two plies left to see it, a move that hands the opponent an
  immediate win can be skipped: with no safe move left the node is lost in
  two, and with some it cannot be lost before four, which bounds alpha.

A node reached by a safe move cannot have an immediate win for its mover
(its parent's move did not leave one), so it skips that test.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, final

from engine.game import Game
from engine.search.limits import MAX_DEPTH
from engine.search.score import WIN


def has_threat_hooks(game: Game[Any, Any]) -> bool:
    """Whether ``game`` names immediate wins or safe moves (overrides either hook)."""
    kind = type(game)
    return kind.winning_move is not Game.winning_move or kind.safe_moves is not Game.safe_moves


@final
class ThreatCuts:
    """The threat steps of one search; :meth:`cut` runs them at a node."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.has_win_hook = type(game).winning_move is not Game.winning_move
        self.has_safe_hook = type(game).safe_moves is not Game.safe_moves
        #: Per ply: was this node reached by a safe move (so the side to
        #: move has no immediate win)? Set by the parent.
        self.reached_safely = [False] * (MAX_DEPTH + 64)
        # What the last cut() that did not end its node leaves the search.
        self.alpha = 0
        self.beta = 0
        self.safe: list[Hashable] | None = None
        #: The winning move when the last cut() found one.
        self.winning: Hashable = None

    def reset(self) -> None:
        """Forget the last search's marks."""
        self.reached_safely = [False] * (MAX_DEPTH + 64)

    def cut(self, state: Any, depth: int, alpha: int, beta: int, ply: int) -> int | None:
        """The node's value if the threats decide it, else ``None``.

        With ``None``, :attr:`alpha` and :attr:`beta` hold the narrowed
        window and :attr:`safe` the node's safe moves (``None``: not known,
        search them all). With a win found, :attr:`winning` is its move.
        """
        game = self.game
        self.winning = None
        # An immediate win needs no search; without one, the best left is
        # a win two plies on.
        if self.has_win_hook:
            if not self.reached_safely[ply]:
                winning = game.winning_move(state)
                if winning is not None:
                    self.winning = winning
                    return WIN - ply - 1
            if beta > WIN - ply - 2:
                beta = WIN - ply - 2
                if alpha >= beta:
                    return beta
        # Moves that hand the opponent an immediate win are skipped when two
        # plies remain to see it; with none left the node is lost in two,
        # and with some left it cannot be lost before four.
        safe: list[Hashable] | None = None
        if self.has_safe_hook and depth >= 2:
            safe = game.safe_moves(state)
            if safe is not None:
                if not safe:
                    return ply + 2 - WIN
                if alpha < ply + 4 - WIN:
                    alpha = ply + 4 - WIN
                    if alpha >= beta:
                        return alpha
        self.reached_safely[ply + 1] = False
        self.alpha = alpha
        self.beta = beta
        self.safe = safe
        return None
