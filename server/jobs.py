"""What a session asks of the worker pool: a ``think`` or a ``trace``, with everything it needs.

A think's answer comes back as the engine's own
:class:`engine.search.results.SearchResult` (from the search, or built by
the pool when no search could answer in time), and the session turns that
one record into the ``bestmove`` message. A trace's answer is its reply,
already encoded by the worker (a trace can be megabytes: the event loop
must not build it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.search.limits import Deadlines, Limits
from engine.search.request import PlayedLine
from engine.searchers import algorithms
from protocol.errors import Internal, LimitExceeded, Overloaded, ProtocolError, RequestId


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One ``think``: search ``state`` of ``game`` within ``limits``.

    ``deadlines`` were planned once, when the server read the ``think``:
    ``deadlines.start`` is that moment (``time.monotonic()`` seconds, the
    engine's clock too) and ``deadlines.hard`` is when the ``bestmove`` must
    have been sent, never later than the server's longest think.
    ``fallback_move`` is a legal move (the first the game lists), known
    without searching: a ``bestmove`` that cannot be encoded falls back to
    it; an answer with no search result has :meth:`unsearched_move`.
    ``algorithm`` names the search (checked against the game's offer).
    ``cleanup`` (Go) asks for a move of a clean-up phase: every dead stone
    captured before a pass (protocol.md, ``think.cleanup``). ``multipv``
    asks for that many root lines and ``searchmoves`` restricts the root
    (:class:`~engine.search.request.SearchRequest`). ``line`` is the game's
    start and moves to ``state``, for a program that reads them.
    """

    think_id: RequestId
    game: Game[Any, Any]
    state: Any
    limits: Limits
    deadlines: Deadlines
    fallback_move: str
    algorithm: str
    cleanup: bool = False
    multipv: int = 1
    searchmoves: tuple[str, ...] = ()
    line: PlayedLine | None = None

    def unsearched_move(self) -> str:
        """The answer when no search result exists (no time to search, an overloaded pool).

        The first of ``searchmoves``; else, for a think of our own searches,
        the game's quick move (one ply of its evaluation:
        :meth:`engine.game.Game.quick_move`), chosen only when such an
        answer is given, so that other thinks do not pay for it;
        ``fallback_move``, the first legal move, was the answer before: the
        king's walk ``e1e2`` in an open game (the review of 2026-12-07). An
        external program's think keeps ``fallback_move``.
        """
        if self.searchmoves:
            return self.searchmoves[0]
        if self.algorithm not in algorithms(self.game):
            # An external program's think (a UCI or GTP engine, a bot): its
            # stand-in stays the neutral first legal move. A failing bot in a
            # class tournament must not play better than it would: one ply of
            # our evaluation won it games of Connect Four.
            return self.fallback_move
        return self.game.format_move(self.state, self.game.quick_move(self.state))

    @property
    def received_at(self) -> float:
        return self.deadlines.start

    @property
    def deadline(self) -> float:
        """When the ``bestmove`` is due (every think has one: at worst the server's cap)."""
        assert self.deadlines.hard is not None, "the session always caps a think's deadline"
        return self.deadlines.hard

    @property
    def untimed(self) -> bool:
        """No movetime and no clock: an analysis that runs until stopped (or the cap)."""
        return self.limits.movetime_ms is None and self.limits.clock is None


@dataclass(frozen=True, slots=True)
class TraceJob:
    """One ``trace``: run ``algorithm`` on ``state`` of ``game`` to ``depth``, recording nodes.

    ``deadlines.hard`` is when the reply is due at the latest (the server's
    ``max_trace_ms`` after the request was read); past it the pool answers
    with an error. Traces have no best move so far and cannot be stopped:
    they are bounded in nodes and in time instead.
    """

    trace_id: RequestId
    game: Game[Any, Any]
    state: Any
    algorithm: str
    depth: int
    max_nodes: int
    playouts: int
    seed: int
    deadlines: Deadlines

    @property
    def received_at(self) -> float:
        return self.deadlines.start

    @property
    def deadline(self) -> float:
        assert self.deadlines.hard is not None, "the session always caps a trace's time"
        return self.deadlines.hard

    @property
    def untimed(self) -> bool:
        return False

    def unanswered(self, reason: str) -> ProtocolError:
        """The error to send when no worker produced the trace (``reason`` as for a think)."""
        if reason == "overloaded":
            return Overloaded(
                "the server is overloaded: the trace waited for a search process until its "
                "time was up; retry later",
                self.trace_id,
            )
        if reason == "preempted":
            return Overloaded(
                "the trace was stopped to let waiting searches run (a trace gives way after "
                "a few seconds while others wait for a search process); retry later",
                self.trace_id,
            )
        if reason == "time":
            return LimitExceeded(
                "the trace did not finish in the time the server gives a trace: "
                "ask for a smaller depth",
                self.trace_id,
            )
        return Internal(f"the trace was not finished ({reason})", self.trace_id)


#: Anything a session hands the pool.
Job = SearchJob | TraceJob
