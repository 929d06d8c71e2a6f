"""One entry point to search any game: the right searcher for the game's kind.

Deterministic games are searched by :class:`engine.search.alphabeta.Searcher`
(alpha-beta); games with chance states (dice) by
:class:`engine.search.expectimax.ExpectimaxSearcher` (expectiminimax with Star1
and Star2 pruning). Both answer ``think(state, limits, stop, on_info,
deadlines) -> SearchResult``; callers such as the server's workers
use :func:`searcher_for` and never need to know which one they hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from engine.game import Game
from engine.search.alphabeta import Searcher
from engine.search.budget import StopSignal
from engine.search.expectimax import ExpectimaxSearcher
from engine.search.limits import Deadlines, Limits
from engine.search.results import Info, SearchResult
from engine.search.tt import DEFAULT_TT_SLOTS


class GameSearcher(Protocol):
    """What every searcher offers."""

    def think(
        self,
        state: Any,
        limits: Limits | None = None,
        stop: StopSignal | None = None,
        on_info: Callable[[Info], None] | None = None,
        deadlines: Deadlines | None = None,
    ) -> SearchResult: ...


def has_chance(game: Game[Any, Any]) -> bool:
    """Whether ``game`` has chance states (it overrides :meth:`Game.chance_outcomes`)."""
    return type(game).chance_outcomes is not Game.chance_outcomes


def searcher_for(game: Game[Any, Any], tt_slots: int = DEFAULT_TT_SLOTS) -> GameSearcher:
    """A new searcher suited to ``game``, with a table of ``tt_slots`` entries."""
    if has_chance(game):
        return ExpectimaxSearcher(game, tt_slots)
    return Searcher(game, tt_slots)


def think(
    game: Game[Any, Any],
    state: Any,
    limits: Limits | None = None,
    stop: StopSignal | None = None,
    on_info: Callable[[Info], None] | None = None,
    tt_slots: int = DEFAULT_TT_SLOTS,
) -> SearchResult:
    """Search ``state`` once with a fresh searcher suited to ``game``."""
    return searcher_for(game, tt_slots).think(state, limits, stop, on_info)
