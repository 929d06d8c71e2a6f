"""An outside program's figures made to hold what protocol.md promises clients.

An engine program may print anything: ``score cp 1000000000000``,
``nodes -7``, a number beyond 64 bits (which msgpack cannot carry), a
principal variation legal only in its first move or 200,000 moves long.
What reaches a client must be what the project's own strict client would
accept, so every figure passes here first:

* a heuristic score is clamped to ±EVAL_LIMIT (protocol.md, Score);
* a mate distance beyond :data:`MAX_REPORTED_PLIES` is no score at all
  (the report is dropped: clamping a proof would be a lie);
* depth and seldepth are clamped to 0..MAX_REPORTED_PLIES, the counters
  (nodes, nps, time) to 0..MAX_COUNT, hashfull to 0..1000;
* the pv is cut at its first move our rules refuse and after
  :data:`MAX_PV_MOVES` moves, and its moves are written in our notation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Final

from engine.errors import GameError
from engine.game import EVAL_LIMIT, Game
from engine.search.limits import MAX_DEPTH
from engine.search.results import Info
from engine.search.score import Score

#: Longest principal variation passed on (protocol.md, think): the
#: server's deepest search (MAX_DEPTH plies); a longer one only costs time.
MAX_PV_MOVES: Final = MAX_DEPTH
#: Largest depth, seldepth or mate distance (plies) passed on. Stockfish's
#: own ceiling is 246 plies (its MAX_PLY); no search reports more than this.
MAX_REPORTED_PLIES: Final = 1000
#: Largest counter passed on: 2^53 - 1, the largest integer every client
#: reads exactly (JavaScript's Number.MAX_SAFE_INTEGER), and well inside
#: msgpack's 64 bits.
MAX_COUNT: Final = 2**53 - 1
#: UCI's hashfull is in permille.
MAX_HASHFULL: Final = 1000
#: Positions remembered per search while checking pvs (successive reports
#: share their first moves, so each is played once); bounds the memory.
MAX_CACHED_POSITIONS: Final = 4096
#: What a hostile move text can make a game's parser raise.
_REFUSED: Final = (GameError, ValueError, IndexError, KeyError, TypeError)


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def checked_score(kind: str, amount: int) -> Score | None:
    """UCI's ``cp``/``mate`` within protocol.md's bounds; ``None`` if it is no score we can pass on.

    ``mate N`` is a win in 2N-1 plies, ``mate -N`` a loss in 2N plies.
    """
    if kind == "cp":
        return Score(value=clamp(amount, -EVAL_LIMIT, EVAL_LIMIT))
    if kind == "mate" and 0 < 2 * amount - 1 <= MAX_REPORTED_PLIES:
        return Score(win_in=2 * amount - 1)
    if kind == "mate" and 0 < -2 * amount <= MAX_REPORTED_PLIES:
        return Score(loss_in=-2 * amount)
    return None


def checked_counters(
    depth: int, seldepth: int, nodes: int, nps: int, time_ms: int, hashfull: int
) -> dict[str, int]:
    """The figures of a report, each within its bound (the keywords of :class:`Info`)."""
    return {
        "depth": clamp(depth, 0, MAX_REPORTED_PLIES),
        "seldepth": clamp(seldepth, 0, MAX_REPORTED_PLIES),
        "nodes": clamp(nodes, 0, MAX_COUNT),
        "nps": clamp(nps, 0, MAX_COUNT),
        "time_ms": clamp(time_ms, 0, MAX_COUNT),
        "hashfull": clamp(hashfull, 0, MAX_HASHFULL),
    }


class PvChecker:
    """Principal variations of one search cut to their legal start, in our notation."""

    def __init__(self, game: Game[Any, Any], state: Any) -> None:
        self.game = game
        self.root = state
        # (move texts so far) -> (canonical move, position after it)
        self._after: dict[tuple[str, ...], tuple[str, Any]] = {}

    def canonical(self, text: str) -> str | None:
        """``text`` in our notation (``D4``, not GTP's ``d4``); ``None`` if it is not legal."""
        pv = self.legal_prefix((text,))
        return pv[0] if pv else None

    def legal_prefix(self, pv: Sequence[str]) -> tuple[str, ...]:
        """The moves of ``pv`` up to its first illegal one, at most MAX_PV_MOVES of them."""
        game = self.game
        state = self.root
        moves: list[str] = []
        key: tuple[str, ...] = ()
        for text in pv[:MAX_PV_MOVES]:
            key = (*key, text)
            known = self._after.get(key)
            if known is None:
                if game.outcome(state) is not None:
                    break
                try:
                    move = game.parse_move(state, text)
                    known = (game.format_move(state, move), game.play(state, move))
                except _REFUSED:
                    break
                if len(self._after) < MAX_CACHED_POSITIONS:
                    self._after[key] = known
            canonical, state = known
            moves.append(canonical)
        return tuple(moves)

    def checked(self, info: Info) -> Info | None:
        """``info`` with its pv cut to its legal start; ``None`` if its first move is not legal."""
        pv = self.legal_prefix(info.pv)
        if not pv:
            return None
        return info if pv == info.pv else dataclasses.replace(info, pv=pv)
