"""One entry point to search any game: a searcher by game and algorithm.

Three searches answer the same ``think(request) -> SearchResult`` for one
:class:`~engine.search.request.SearchRequest`, on the driver they share
(:class:`engine.search.budget.BudgetedSearch`):

* ``alphabeta`` (:class:`engine.search.alphabeta.Searcher`): alpha-beta for
  deterministic games;
* ``expectiminimax`` (:class:`engine.search.expectimax.ExpectimaxSearcher`):
  expectiminimax with Star1 and Star2 pruning for games with chance states
  (dice);
* ``mcts`` (:class:`engine.search.mcts.MctsSearcher`): Monte Carlo tree
  search, for any game.

:func:`algorithms` lists what a game offers, its default first (the game's
:attr:`~engine.game.Game.default_algorithm`); :func:`searcher_for` builds
one. Callers such as the server's workers never need to know which one
they hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from engine.errors import UnknownAlgorithmError
from engine.game import ALPHABETA, EXPECTIMINIMAX, MCTS, Game
from engine.search.alphabeta import Searcher
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.mcts import MctsSearcher
from engine.search.request import SearchRequest
from engine.search.results import SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS


class GameSearcher(Protocol):
    """What every searcher offers: one search per request."""

    def think(self, request: SearchRequest) -> SearchResult: ...


def has_chance(game: Game[Any, Any]) -> bool:
    """Whether ``game`` has chance states (it overrides :meth:`Game.chance_outcomes`)."""
    return type(game).chance_outcomes is not Game.chance_outcomes


def algorithms(game: Game[Any, Any]) -> tuple[str, ...]:
    """The searches ``game`` offers, its default first.

    Deterministic games offer alpha-beta and MCTS, games of chance
    expectiminimax and MCTS; a game whose ``default_algorithm`` is MCTS (Go)
    lists it first.
    """
    exact = EXPECTIMINIMAX if has_chance(game) else ALPHABETA
    if game.default_algorithm == MCTS:
        return (MCTS, exact)
    return (exact, MCTS)


def resolve_algorithm(
    game: Game[Any, Any], algorithm: str | None, offered: Sequence[str] | None = None
) -> str:
    """``algorithm``, or the default for ``None``; checked against :func:`algorithms`.

    ``offered`` replaces the game's own list, default first (a server that
    hosts other engines too). Raises
    :class:`~engine.errors.UnknownAlgorithmError`, naming what the game
    offers, for a name it does not.
    """
    if offered is None:
        offered = algorithms(game)
    if algorithm is None:
        return offered[0]
    if algorithm not in offered:
        raise UnknownAlgorithmError(
            f"{game.name} offers the algorithms {', '.join(offered)}; got {algorithm!r}"
        )
    return algorithm


def searcher_for(
    game: Game[Any, Any], algorithm: str | None = None, tt_slots: int = DEFAULT_TT_SLOTS
) -> GameSearcher:
    """A new searcher for ``game`` running ``algorithm`` (``None``: the game's default).

    ``tt_slots`` sizes the transposition table of alpha-beta and
    expectiminimax (MCTS keeps a tree instead). Raises
    :class:`~engine.errors.UnknownAlgorithmError` for a name the game does
    not offer.
    """
    algorithm = resolve_algorithm(game, algorithm)
    if algorithm == MCTS:
        return MctsSearcher(game)
    if algorithm == EXPECTIMINIMAX:
        return ExpectimaxSearcher(game, tt_slots)
    return Searcher(game, tt_slots)


def think(
    game: Game[Any, Any],
    request: SearchRequest,
    tt_slots: int = DEFAULT_TT_SLOTS,
    algorithm: str | None = None,
) -> SearchResult:
    """Run ``request`` once with a fresh searcher for ``game`` and ``algorithm``.

    Convenient for scripts and tests; keep a searcher (:func:`searcher_for`)
    instead when searching many positions of one game.
    """
    return searcher_for(game, algorithm, tt_slots).think(request)
