"""What a session asks of the worker pool: one ``think``, with everything it needs.

The answer comes back as the engine's own :class:`engine.search.results.SearchResult`
(from the search, or built by the pool when no search could answer in time),
and the session turns that one record into the ``bestmove`` message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.search.limits import Deadlines, Limits
from server.protocol import RequestId


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One ``think``: search ``state`` of ``game`` within ``limits``.

    ``deadlines`` were planned once, when the server read the ``think``:
    ``deadlines.start`` is that moment (``time.monotonic()`` seconds, the
    engine's clock too) and ``deadlines.hard`` is when the ``bestmove`` must
    have been sent, never later than the server's longest think.
    ``fallback_move`` is a legal move (the first the game lists), known
    without searching: the answer when no search result can be had in time.
    ``algorithm`` names the search (checked against the game's offer).
    """

    think_id: RequestId
    game: Game[Any, Any]
    state: Any
    limits: Limits
    deadlines: Deadlines
    fallback_move: str
    algorithm: str

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
