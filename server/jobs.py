"""What the session asks of the worker pool, and what it gets back.

A :class:`SearchJob` carries everything a worker needs plus the times the
pool must keep; a :class:`SearchAnswer` is the ``bestmove`` before it is put
into protocol form. Both are plain values with no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.limits import Limits
from engine.score import Score
from server.protocol import RequestId


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One ``think``: search ``state`` of ``game`` within ``limits``.

    ``received_at`` is when the server read the ``think`` (``time.monotonic()``
    seconds, the clock the engine uses too); ``deadline`` is when the
    ``bestmove`` must have been sent: the movetime or clock deadline, or the
    server's maximum think time when the request set none.
    """

    think_id: RequestId
    game: Game[Any, Any]
    state: Any
    limits: Limits
    received_at: float
    deadline: float


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    """The result of a think, whoever produced it (a worker, or the pool's fallback).

    ``reason`` is the engine's (``depth``, ``nodes``, ``time``, ``stopped``,
    ``proven``, ``only_move``) or the pool's own ``worker_lost`` when the
    worker died and the move comes from its last report or a quick search.
    ``time_ms`` counts from ``SearchJob.received_at``.
    """

    move: str
    score: Score
    depth: int
    seldepth: int
    pv: tuple[str, ...]
    nodes: int
    time_ms: int
    reason: str
