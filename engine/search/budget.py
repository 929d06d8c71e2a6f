"""What every searcher shares: limits, deadlines, the stop signal, the clock.

:class:`BudgetedSearch` is the base of :class:`engine.search.alphabeta.Searcher` and
:class:`engine.search.expectimax.ExpectimaxSearcher`. A search calls
:meth:`BudgetedSearch._begin` once, counts nodes in ``self.nodes`` and calls
:meth:`BudgetedSearch._check_limits` whenever ``self.nodes`` reaches
``self._next_check``; that method raises :class:`SearchAborted` when a limit
or the stop signal ends the search, and the search answers with its best
move so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Final, Protocol

from engine.game import Game
from engine.search.limits import Deadlines, Limits, plan_deadlines
from engine.search.results import Info, SearchResult, SearchStats
from engine.search.score import Score
from engine.search.tt import TranspositionTable

#: ``Info.hashfull`` is in thousandths, as UCI reports it.
PERMILLE: Final = 1000


class StopSignal(Protocol):
    """Anything with ``is_set()``: ``threading.Event``, ``multiprocessing.Event``, ..."""

    def is_set(self) -> bool: ...


class SearchAborted(Exception):
    """Raised inside a search when a limit or the stop signal ends it.

    The message is the search's ``reason``: ``nodes``, ``stopped`` or ``time``.
    """


class BudgetedSearch:
    """Limit bookkeeping for a search; subclasses set :attr:`check_interval`."""

    #: Nodes between two checks of the clock and the stop signal.
    check_interval: ClassVar[int] = 1024

    game: Game[Any, Any]
    tt: TranspositionTable
    nodes: int
    seldepth: int
    tt_probes: int
    tt_hits: int
    stats: SearchStats
    _on_info: Callable[[Info], None] | None

    # Limits of the current search, armed by _begin; these defaults mean
    # "no search yet" (immutable class values, shadowed per instance).
    _start: float = 0.0
    _stop: StopSignal | None = None
    _hard_deadline: float | None = None
    _node_limit: int | None = None
    _next_check: int = 0

    def _begin(
        self, limits: Limits, stop: StopSignal | None, deadlines: Deadlines | None
    ) -> float | None:
        """Arm the limits for a new search; return the soft deadline.

        ``deadlines`` were planned by the caller (who may have capped them);
        without them they are planned from ``limits`` starting now. Call
        after resetting ``self.nodes``.
        """
        if deadlines is None:
            deadlines = plan_deadlines(limits, time.monotonic())
        self._start = deadlines.start
        self._stop = stop
        self._hard_deadline = deadlines.hard
        self._node_limit = limits.nodes
        interval = self.check_interval
        self._next_check = interval if limits.nodes is None else min(interval, limits.nodes)
        return deadlines.soft

    def _check_limits(self) -> None:
        """Raise :class:`SearchAborted` if a limit is reached; else set the next check."""
        limit = self._node_limit
        if limit is not None and self.nodes > limit:
            self.nodes = limit
            raise SearchAborted("nodes")
        if self._stop is not None and self._stop.is_set():
            raise SearchAborted("stopped")
        if self._hard_deadline is not None and time.monotonic() >= self._hard_deadline:
            raise SearchAborted("time")
        next_check = self.nodes + self.check_interval
        if limit is not None and next_check > limit + 1:
            next_check = limit + 1
        self._next_check = next_check

    def _should_stop_early(self, soft: float | None) -> bool:
        """Whether to start no new iteration: stopped, or past the soft deadline."""
        return self._stop_requested() or (soft is not None and time.monotonic() >= soft)

    def _stop_requested(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self._start) * 1000)

    def _fallback_move(self, state: Any, root_moves: list[Hashable]) -> Hashable:
        """A legal move to answer with before any iteration completes."""
        entry = self.tt.get(self.game.key(state))
        if entry is not None and entry[4] in root_moves:
            return entry[4]
        return root_moves[0]

    def _emit_info(self, depth: int, score: Score, pv: tuple[str, ...], partial: bool) -> None:
        """Report progress to the ``on_info`` callback, if there is one."""
        if self._on_info is None:
            return
        elapsed = self._elapsed_ms()
        self._on_info(
            Info(
                depth=depth,
                seldepth=self.seldepth,
                score=score,
                pv=pv,
                nodes=self.nodes,
                time_ms=elapsed,
                nps=int(self.nodes * 1000 / elapsed) if elapsed > 0 else 0,
                tt_hit_rate=self.tt_hits / self.tt_probes if self.tt_probes else 0.0,
                partial=partial,
                hashfull=int(self.tt.fill_ratio() * PERMILLE),
            )
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
        playouts: int = 0,
    ) -> SearchResult:
        """The search's result, with the table counters copied into its statistics."""
        self.stats.tt_probes = self.tt_probes
        self.stats.tt_hits = self.tt_hits
        return SearchResult(
            move=self.game.format_move(state, move) if move is not None else None,
            move_value=move,
            score=score,
            value=value,
            depth=depth,
            seldepth=self.seldepth,
            pv=pv,
            nodes=self.nodes,
            time_ms=self._elapsed_ms() if move is not None else 0,
            reason=reason,
            stats=self.stats,
            playouts=playouts,
        )
