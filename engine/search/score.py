"""Search scores: integers inside the search, :class:`Score` outside.

Inside the search a score is one int from the side to move's point of view.
Heuristic values stay within ``±EVAL_LIMIT``; a proven win in ``n`` plies
from the root is ``WIN - n`` and a proven loss ``-(WIN - n)``, so faster
wins and slower losses compare as better, and any score beyond
``WIN - MAX_PLY`` is a proven result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.game import EVAL_LIMIT, win_odds
from engine.records import reduce_record

#: Score of a win at the root itself; a win ``n`` plies away scores ``WIN - n``.
WIN: Final = 1_000_000
#: Deepest ply the search can reach; leaves room for mate distances.
MAX_PLY: Final = 1_000
#: Any score at or beyond this magnitude is a proven win or loss.
WIN_THRESHOLD: Final = WIN - MAX_PLY

assert EVAL_LIMIT < WIN_THRESHOLD  # a programming invariant, not input validation


def is_decisive(value: int) -> bool:
    return value >= WIN_THRESHOLD or value <= -WIN_THRESHOLD


@dataclass(frozen=True, slots=True)
class Score:
    """A score for the side to move, with exactly one meaning set.

    ``value`` is a heuristic value in the game's evaluation unit;
    ``win_in``/``loss_in`` count plies to a proven end (1 = the side to move
    wins with its next move); ``draw`` is a proven draw.
    """

    value: int | None = None
    win_in: int | None = None
    loss_in: int | None = None
    draw: bool = False

    @classmethod
    def from_search(cls, value: int, proven: bool = False) -> Score:
        """Convert an internal root score; ``proven`` marks an exact non-decisive value."""
        if value >= WIN_THRESHOLD:
            return cls(win_in=WIN - value)
        if value <= -WIN_THRESHOLD:
            return cls(loss_in=WIN + value)
        if proven and value == 0:
            return cls(draw=True)
        return cls(value=value)

    def to_dict(self) -> dict[str, Any]:
        """The protocol form: a map with exactly one key."""
        if self.win_in is not None:
            return {"win_in": self.win_in}
        if self.loss_in is not None:
            return {"loss_in": self.loss_in}
        if self.draw:
            return {"draw": True}
        return {"value": self.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Score:
        if "win_in" in data:
            return cls(win_in=int(data["win_in"]))
        if "loss_in" in data:
            return cls(loss_in=int(data["loss_in"]))
        if data.get("draw"):
            return cls(draw=True)
        return cls(value=int(data["value"]))

    @property
    def is_proven(self) -> bool:
        return self.value is None

    def win_chance(self, win_odds_scale: int) -> float:
        """The side to move's chance of winning this score stands for: 1, 0 or
        one half when proven, else the game's logistic mapping of the value
        (:attr:`engine.game.Game.win_odds_scale`; exactly the win rate a Monte
        Carlo score was made from, within its 0.001..0.999 clamp)."""
        if self.win_in is not None:
            return 1.0
        if self.loss_in is not None:
            return 0.0
        if self.draw:
            return 0.5
        return win_odds(self.value or 0, win_odds_scale)

    def __str__(self) -> str:
        if self.win_in is not None:
            return f"win in {self.win_in}"
        if self.loss_in is not None:
            return f"loss in {self.loss_in}"
        if self.draw:
            return "draw"
        return f"{self.value:+d}"

    def __reduce__(self) -> tuple[type[Any], tuple[object, ...]]:
        return reduce_record(self)
