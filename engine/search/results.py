"""The records a search reports: progress, statistics and its answer.

Every searcher (:mod:`engine.search.alphabeta`, :mod:`engine.search.expectimax`,
:mod:`engine.search.mcts`) produces these; the server forwards them to
clients as ``info`` and ``bestmove``. A :class:`SearchResult` holds its last
:class:`Info` rather than copies of its fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.records import reduce_record
from engine.search.score import Score


@dataclass(frozen=True, slots=True)
class Info:
    """Progress of a running search, reported through ``on_info``.

    ``pv`` holds moves in the game's notation. ``partial`` is true for a
    report made inside an unfinished iteration because the best move changed.
    A Monte Carlo search reports ``playouts`` (0 for the other searches);
    its ``nodes`` count the nodes of its tree and its ``depth`` is the
    length of its principal variation. ``hashfull`` is the share of the
    transposition table in use, in permille (UCI's ``hashfull``; 0 without
    a table). ``multipv`` is the line's rank in a think that asked for
    several root lines (1: the best move, also in a single-line think).
    """

    depth: int
    seldepth: int
    score: Score
    pv: tuple[str, ...]
    nodes: int
    time_ms: int
    nps: int
    tt_hit_rate: float
    partial: bool = False
    playouts: int = 0
    hashfull: int = 0
    multipv: int = 1

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)


@dataclass(slots=True)
class SearchStats:
    """Counters for tuning and teaching.

    ``first_move_cutoff_rate`` is the share of beta cutoffs made by the first
    move tried at a node (near 1.0 means the ordering is nearly perfect);
    ``effective_branching_factor`` is the ratio of the nodes of the last two
    completed iterations. ``reused_visits`` are the visits a tree search's
    root already had from the previous search's tree (0 for a fresh tree
    and for the other searches): the root's win rate rests on them and on
    this search's playouts (:attr:`SearchResult.root_playouts`).
    """

    nodes_per_depth: list[int] = field(default_factory=list)
    cutoffs: int = 0
    first_move_cutoffs: int = 0
    tt_probes: int = 0
    tt_hits: int = 0
    reused_visits: int = 0
    #: A tree search's root moves (the game's notation) with their visits,
    #: for a caller that pools several searches of one position (root
    #: parallelism: :func:`engine.search.mcts.pooled_choice`); empty for the others.
    root_visits: tuple[tuple[str, int], ...] = ()

    @property
    def first_move_cutoff_rate(self) -> float:
        return self.first_move_cutoffs / self.cutoffs if self.cutoffs else 0.0

    @property
    def effective_branching_factor(self) -> float:
        counts = self.nodes_per_depth
        if len(counts) < 2 or counts[-2] == 0:
            return 0.0
        return counts[-1] / counts[-2]

    @property
    def tt_hit_rate(self) -> float:
        return self.tt_hits / self.tt_probes if self.tt_probes else 0.0


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer of a search: its move, why it ended, and its last progress.

    ``move`` is in the game's notation, or ``None`` only when the position
    has no legal move. ``reason`` says why the search ended: ``depth``,
    ``nodes``, ``time``, ``stopped``, ``proven``, ``only_move`` or
    ``no_moves`` (and, from the server, ``overloaded``, ``preempted`` or
    ``engine_error``). ``info`` is the search's state when it answered, as
    its reports give it: ``info.depth`` is the last completed iteration (a
    tree search's: the length of its principal variation), ``info.pv``
    starts with ``move``, ``info.time_ms`` is the time spent (0 without a
    move). ``move_value`` is the game's own move object and ``value`` the
    raw score on the scale of :mod:`engine.search.score`, when the search
    produced them (``None`` and 0 for an answer built from reports).
    """

    move: str | None
    reason: str
    info: Info
    stats: SearchStats
    move_value: Any = None
    value: int = 0

    @property
    def root_playouts(self) -> int:
        """The playouts a tree search's root win rate rests on: its own and the reused tree's."""
        return self.info.playouts + self.stats.reused_visits

    @classmethod
    def from_progress(
        cls, info: Info, completed_depth: int, reason: str, time_ms: int
    ) -> SearchResult:
        """The answer of a search cut off after it reported ``info``.

        It is what the search itself would answer if stopped now: the best
        move of its last report (``info.pv[0]``, which must not be empty),
        with ``completed_depth`` the last iteration it finished.
        """
        last = replace(info, depth=completed_depth, time_ms=time_ms, partial=False)
        return cls(info.pv[0], reason, last, SearchStats())

    @classmethod
    def unsearched(cls, move: str, reason: str, time_ms: int) -> SearchResult:
        """An answer no search produced: ``move`` is legal but was not searched (depth 0)."""
        info = Info(
            depth=0,
            seldepth=0,
            score=Score(value=0),
            pv=(move,),
            nodes=0,
            time_ms=time_ms,
            nps=0,
            tt_hit_rate=0.0,
        )
        return cls(move, reason, info, SearchStats())

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)
