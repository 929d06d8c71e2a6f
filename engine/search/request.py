"""What a search is asked: one record per think, and the stop signal.

Every searcher (:class:`~engine.search.budget.BudgetedSearch` and its
subclasses, and the server's external engines) answers
``think(request) -> SearchResult`` for one :class:`SearchRequest`: the
position, its limits, the deadlines planned for it, the stop signal, the
progress callback and the clean-up flag travel together instead of as six
arguments.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.records import reduce_record
from engine.search.limits import Deadlines, Limits, plan_deadlines
from engine.search.results import Info


class StopSignal(Protocol):
    """Anything with ``is_set()``: ``threading.Event``, ``multiprocessing.Event``, ..."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class PlayedLine:
    """How a game reached the position searched: the position it started from
    and the moves played since, in the game's notation.

    For a program that reads the game's course: a UCI engine is given
    ``position fen START moves ...``, as cutechess gives it, and so knows the
    positions before this one (a repetition). Our own searches read the
    state alone, which holds what they need.
    """

    start: str
    moves: tuple[str, ...] = ()
    game: str = ""
    """Which game this is: a key new at each ``new_game``, so that a program
    kept between games is told of a new one (UCI's ``ucinewgame``)."""

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        # It crosses the pipe to a search process: see reduce_record.
        return reduce_record(self)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search to run.

    ``state`` is the position (a decision state: in a game of chance the
    dice are rolled). ``limits`` end the search (none: until stopped or
    proven). ``deadlines`` are the start and deadlines planned by a caller
    who read the request earlier (the server charges the queueing to the
    search and keeps a delivery margin); without them they are planned from
    ``limits`` when the search starts (:meth:`planned`). ``stop`` ends the
    search early; ``on_info`` receives its progress reports.

    ``multipv`` asks for that many root lines (the best moves, each with
    its score and principal variation, reported as :class:`Info` with
    ``multipv`` 1, 2, ...): alpha-beta searches them, Monte Carlo tree
    search reads them off its tree (the most-visited root moves), an
    external UCI engine is asked for them (its ``MultiPV`` option);
    expectiminimax, GTP engines and ``cmd:`` bots report their best line
    alone. ``searchmoves`` restricts the root to these moves, in
    the game's notation (UCI's ``go searchmoves``; alpha-beta and
    expectiminimax search only these, MCTS's tree ignores it); moves that
    are not legal are left out, and none legal means every move.
    ``cleanup`` (Go) asks for a move of a clean-up phase (protocol.md,
    ``think.cleanup``): only an external GTP engine reads it (it is asked
    its clean-up command); the searches of :mod:`engine.search` ignore it.
    ``line`` is how the game reached ``state``, when the caller knows it
    (:class:`PlayedLine`): an external UCI engine reads it.
    """

    state: Any
    limits: Limits = field(default_factory=Limits)
    deadlines: Deadlines | None = None
    stop: StopSignal | None = None
    on_info: Callable[[Info], None] | None = None
    multipv: int = 1
    searchmoves: tuple[str, ...] = ()
    cleanup: bool = False
    line: PlayedLine | None = None

    def planned(
        self, clock: Callable[[], float] = time.monotonic, moves_left: int | None = None
    ) -> Deadlines:
        """The deadlines to obey: the caller's, or planned from the limits starting now.

        The one place a search plans its own deadlines; ``clock`` is the
        searcher's time source (:attr:`BudgetedSearch.clock`), ``moves_left``
        the game's estimate of the mover's moves to come, for a clock with no
        moves to go (:func:`~engine.search.limits.plan_deadlines`).
        """
        if self.deadlines is not None:
            return self.deadlines
        return plan_deadlines(self.limits, clock(), moves_left)
